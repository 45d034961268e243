"""An LLM agent's prompt files: read, checked against the placeholders each kind of template may
use, and rendered with `str.format`. A template with an unknown placeholder, or with anything but
text and `{name}` placeholders (a conversion, a format spec: `pdbench.agents.template_syntax`), is
a `ConfigError` naming the file, found when the config is checked.

The prompts themselves (what fills the placeholders) are built in `pdbench.agents.llm.prompts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pdbench.agents.template_syntax import placeholders
from pdbench.config.schema import LLMAgentSpec
from pdbench.core.errors import ConfigError, did_you_mean
from pdbench.games.prompt_adapter import TablePrompts

PERSONA_DIR = Path("prompts/personas")

# The agent's own placeholders, which every template may use: the horizon it discloses, its
# persona, the answer it asks for. What a template says of the game (its actions, payoffs,
# history, totals, talk) is the game's prompt adapter's (`Vocabulary.of`).
AGENT_PLACEHOLDERS = frozenset({"horizon", "rounds", "persona", "answer_instruction"})
# ... and the round's count, which the round and negotiate prompts may use too
AGENT_ROUND_PLACEHOLDERS = frozenset({"round_index", "of_rounds", "rounds_played"})


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """The placeholders each of an agent's templates may use in one game."""

    system: frozenset[str]
    # The round prompt also gets the round itself; with system_prompt null it is the only
    # message, so it may carry everything a system prompt would.
    round: frozenset[str]
    negotiate: frozenset[str]  # a game with a negotiation phase: the prompt for one message
    persona: frozenset[str]

    @classmethod
    def of(cls, words: TablePrompts) -> Vocabulary:
        """The agent's placeholders and those the game's prompt adapter fills."""
        shared = AGENT_PLACEHOLDERS | words.game_placeholders
        round_ = shared | AGENT_ROUND_PLACEHOLDERS | words.round_placeholders
        return cls(
            system=shared,
            round=round_,
            negotiate=round_ | words.talk_placeholders,
            persona=words.persona_placeholders,
        )


def available_personas(project_root: Path) -> list[str]:
    """Names of the persona files in `prompts/personas/`, without `.md`, sorted."""
    folder = project_root / PERSONA_DIR
    return sorted(path.stem for path in folder.glob("*.md")) if folder.is_dir() else []


def persona_not_found(
    persona: str, folder: Path, project_root: Path, *, game: str | None = None
) -> str:
    """The one line for a persona with no file in `folder` (relative to the project): the
    persona, the folder looked in, "did you mean" and the personas there, or that there are
    none (a game without a personas folder)."""
    where = f"{folder.as_posix()}/"
    of = f" for {game}" if game else ""
    full = project_root / folder
    have = sorted(path.stem for path in full.glob("*.md")) if full.is_dir() else []
    if not have:
        missing = "does not exist" if not full.is_dir() else "holds no persona (*.md)"
        return (
            f'no persona "{persona}"{of}: {where} {missing}, so there is none to choose; '
            "play without one (persona=none)"
        )
    return (
        f'no persona "{persona}"{of} in {where}{did_you_mean(persona, have)}; choose one of: '
        f"{', '.join(have)} or none"
    )


def resolve_path(path: str, project_root: Path) -> Path:
    candidate = Path(path)
    return candidate if candidate.is_absolute() else project_root / candidate


def read_template(path: Path, allowed: frozenset[str], *, file: str, field: str) -> str:
    if not path.is_file():
        raise ConfigError(f"prompt file not found ({path})", file=file, field=field)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"not UTF-8 text (byte {error.start}): save the file as UTF-8", file=file, field=field
        ) from None
    names = placeholders(text, file=file, field=field)
    unknown = sorted(names - allowed)
    if unknown:
        name = unknown[0]
        raise ConfigError(
            f"unknown placeholder {{{name}}}{did_you_mean(name, allowed)}; available: "
            + ", ".join(f"{{{option}}}" for option in sorted(allowed)),
            file=file,
            field=field,
        )
    return text


def placeholders_in(text: str) -> frozenset[str]:
    """The placeholder names of a template already read (and checked) by `read_template`."""
    return placeholders(text, file="")


def render(template: str, values: Mapping[str, object], *, file: str, field: str) -> str:
    """`template.format(**values)` for a template `read_template` checked; anything it still
    cannot render is a ConfigError naming the file."""
    try:
        return template.format(**values)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as error:
        raise ConfigError(f"cannot render the template: {error}", file=file, field=field) from None


@dataclass(frozen=True, slots=True)
class PromptTemplates:
    """The raw template texts of one LLM agent, checked."""

    system: str | None  # None: no system message
    round: str
    persona: str | None
    persona_file: str | None = None

    @classmethod
    def load(cls, spec: LLMAgentSpec, project_root: Path, allowed: Vocabulary) -> PromptTemplates:
        system = None
        if spec.system_prompt is not None:
            system = read_template(
                resolve_path(spec.system_prompt, project_root),
                allowed.system,
                file=spec.system_prompt,
                field="system_prompt",
            )
        round_ = read_template(
            resolve_path(spec.round_prompt, project_root),
            allowed.round,
            file=spec.round_prompt,
            field="round_prompt",
        )
        persona: str | None = None
        file: str | None = None
        if spec.persona is not None:
            file = str(PERSONA_DIR / f"{spec.persona}.md")
            path = project_root / file
            if not path.is_file():
                raise ConfigError(
                    persona_not_found(spec.persona, PERSONA_DIR, project_root),
                    field="persona",
                )
            persona = read_template(path, allowed.persona, file=file, field="persona")
        return cls(system=system, round=round_, persona=persona, persona_file=file)
