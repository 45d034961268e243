"""Issue 40: a prompt template with `{history!r}` sent Python's repr of the history to the model,
silently. A template is text and `{name}` placeholders: a conversion, a format spec, attribute or
index access, or a placeholder without a name is refused in one line naming the file, the
placeholder and why; every template the project ships passes. (Both front doors refuse them too:
the rows of tests/e2e/bad_input_cases.py, TEMPLATES.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from pdbench.agents.template_syntax import placeholders
from pdbench.core.errors import ConfigError

PROJECT = Path(__file__).resolve().parents[2]


def _shipped_templates() -> list[Path]:
    """Every file pdbench fills with str.format: prompts/**.md but a turn game's personas
    (prompts/<game>/personas/, inserted as text into {persona}, never formatted)."""
    found = sorted((PROJECT / "prompts").rglob("*.md"))
    return [
        p for p in found if not (p.parent.name == "personas" and p.parent.parent.name != "prompts")
    ]


def test_the_shipped_templates_are_found():
    names = {p.relative_to(PROJECT).as_posix() for p in _shipped_templates()}
    assert {"prompts/pd_round.md", "prompts/personas/cooperative.md", "prompts/liars_dice/turn.md",
            "prompts/passcode/guess.md", "prompts/nuclear_war/judge_decision.md"} <= names, names  # fmt: skip


@pytest.mark.parametrize(
    "path", _shipped_templates(), ids=lambda p: p.relative_to(PROJECT / "prompts").as_posix()
)
def test_every_shipped_template_is_text_and_named_placeholders(path):
    assert placeholders(path.read_text(encoding="utf-8"), file=str(path))


@pytest.mark.parametrize(
    ("placeholder", "why"),
    [
        ("{history!r}", "repr"),
        ("{history!s}", "str()"),
        ("{history!a}", "ASCII"),
        ("{round_index:>10}", "format spec"),
        ("{round_index:d}", "format spec"),
        ("{history.upper}", "attribute or index"),
        ("{history[0]}", "attribute or index"),
        ("{}", "needs a name"),
        ("{0}", "needs a name"),
    ],
)
def test_anything_but_a_named_placeholder_is_refused_naming_it(placeholder, why):
    text = f"Round {{round_index}}.\n{placeholder}\n{{answer_instruction}}\n"
    with pytest.raises(ConfigError) as refused:
        placeholders(text, file="prompts/mine.md", field="round_prompt")
    line = str(refused.value)
    assert line.startswith("prompts/mine.md: round_prompt: "), line
    assert placeholder in line and why in line and "\n" not in line, line


def test_literal_braces_stay_text():
    assert placeholders("A set {{a, b}} and {history}.", file="x.md") == {"history"}
