"""Prompts of the turn games for every seat, from files under prompts/<game>/, and the seat's
action read back from a model's answer. A game with its own prompt adapter (`TurnGameEntry.llm`,
`pdbench.games.prompt_adapter`: Liar's Dice, public goods) is asked for its file, placeholders,
answer parser, re-ask reminder and legal answers; for the others (the judged games passcode,
nuclear_war, nil_recruitment) this module still holds that knowledge (issue 43 moves it into
each game's package).

A prompt is built from the seat's observation alone (`TurnGame.observe`: a player's round_state,
or the Keeper's / judge's request), so a model is shown exactly what an arena agent or a house
policy is. The files (placeholders in braces, filled by `prompt_fields`):

| game            | seat                | file                                 |
| --------------- | ------------------- | ------------------------------------ |
| passcode        | a / b, question     | prompts/passcode/question.md         |
| passcode        | a / b, guess        | prompts/passcode/guess.md            |
| passcode        | keeper:a / keeper:b | prompts/passcode/keeper.md           |
| the debates     | a / b               | prompts/<game>/player.md             |
| the debates     | judge, response     | prompts/<game>/judge_response.md     |
| the debates     | judge, decision     | prompts/<game>/judge_decision.md     |

The offline mock reads the Keeper's and the judge's prompts back (`pdbench.providers.mock_roles`),
so the lines it reads ("The secret word is: ", "Question: ", "Your name: ", "Your priorities: ",
"Choices: ", transcript lines "- [phase] speaker: text") must stay in these files.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pdbench.agents.llm.templates import persona_not_found
from pdbench.agents.template_syntax import placeholders
from pdbench.core.errors import ConfigError
from pdbench.games.prompt_adapter import PromptAdapter
from pdbench.games.registry import game_id, prompt_adapter, turn_game_entry


def _folder(round_state: dict[str, Any]) -> str:
    """The game's id (its prompts' folder, prompts/<id>/) from the platform name in round_state."""
    return game_id(round_state["game"])


def _adapter(round_state: dict[str, Any]) -> PromptAdapter | None:
    """The game's own prompt adapter (`TurnGameEntry.llm`), or None: this module's code below."""
    return prompt_adapter(turn_game_entry(_folder(round_state)))


def prompt_path(round_state: dict[str, Any]) -> str:
    """The prompt file (relative to the project) for the seat that was shown `round_state`."""
    folder = _folder(round_state)
    adapter = _adapter(round_state)
    if adapter is not None:
        return f"prompts/{folder}/{adapter.prompt_file(round_state)}"
    role = round_state.get("role")
    if role == "keeper":
        name = "keeper"
    elif role == "judge":
        name = f"judge_{round_state['request']}"
    elif folder == "passcode":
        name = round_state["phase"]
    else:
        name = "player"
    return f"prompts/{folder}/{name}.md"


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


def _qa_lines(history: list[dict[str, str]]) -> str:
    lines = [f"- Q: {_one_line(qa['question'])} A: {_one_line(qa['answer'])}" for qa in history]
    return "\n".join(lines) or "(none yet)"


def _said_lines(entries: list[dict[str, Any]]) -> str:
    lines = [f"- [{e['phase']}] {e['speaker']}: {_one_line(e['text'])}" for e in entries]
    return "\n".join(lines) or "(nothing yet)"


def _fields_of(values: dict[str, Any], keys: tuple[str, ...]) -> str:
    def shown(value: Any) -> str:
        return "; ".join(map(str, value)) if isinstance(value, list) else _one_line(value)

    return "\n".join(
        f"{key.replace('_', ' ')}: {shown(values[key])}" for key in keys if key in values
    )


def prompt_fields(round_state: dict[str, Any]) -> dict[str, str]:
    """Every placeholder a turn game's prompt file may use, from the observation."""
    adapter = _adapter(round_state)
    if adapter is not None:
        return adapter.fields(round_state)
    fields: dict[str, str] = {
        key: str(round_state[key])
        for key in ("round_number", "phase", "round_limit", "your_score", "opponent_score")
        if key in round_state
    }
    if "your_qa_history" in round_state or "qa_history" in round_state:
        fields["qa_history"] = _qa_lines(
            round_state.get("your_qa_history", round_state.get("qa_history", []))
        )
        fields["opponent_guessed"] = "yes" if round_state.get("opponent_guessed") else "no"
        words = round_state.get("candidate_words") or []
        fields["candidate_count"] = str(len(words))
        fields["candidate_words"] = ", ".join(words)
    if round_state.get("role") == "keeper":
        fields["secret_word"] = round_state["secret_word"]
        fields["question"] = _one_line(round_state["question"])
    if round_state.get("role") == "judge":
        persona = round_state["persona"]
        fields["name"] = persona["name"]
        fields["persona"] = _fields_of(
            persona, ("background", "position", "concerns", "key_question", "decision_style")
        )
        fields["priorities"] = "; ".join(persona["priorities"])
        fields["scenario"] = _fields_of(
            round_state["scenario"], ("country", "adversary", "crisis_description")
        )
        fields["choices"] = ", ".join(f'"{choice}"' for choice in round_state["choices"])
        fields["transcript"] = _said_lines(round_state["transcript"])
    persona = round_state.get("president") or round_state.get("athlete")
    if persona is not None and round_state.get("role") is None:
        fields["side"] = str(round_state.get("your_position") or round_state["your_university"])
        fields["opponent_side"] = str(round_state.get("opponent_university", ""))
        fields["persona_name"] = persona["name"]
        fields["persona"] = _fields_of(
            persona, ("name", "background", "position", "priorities", "concerns", "key_question")
        )
        fields["scenario"] = _fields_of(
            round_state.get("scenario", {}), ("country", "adversary", "crisis_description")
        )
        fields["history"] = _said_lines(
            round_state.get("debate_history") or round_state.get("conversation") or []
        )
    return fields


def persona_path(round_state: dict[str, Any], persona: str) -> str:
    """A persona's file for this game (prompts/<game>/personas/<persona>.md)."""
    return f"prompts/{_folder(round_state)}/personas/{persona}.md"


def persona_text(root: Path, round_state: dict[str, Any], persona: str | None) -> str:
    """The persona's text for {persona}, "" without one; a persona this game has no file for is
    a ConfigError naming the file and the field (the 2x2 personas speak of two actions)."""
    if persona is None:
        return ""
    relative = persona_path(round_state, persona)
    try:
        return (root / relative).read_text(encoding="utf-8").strip()
    except OSError:
        game = _folder(round_state)  # pdbench's id, as the config names it
        message = persona_not_found(persona, Path(relative).parent, root, game=game)
        raise ConfigError(message, field="persona") from None


def render_prompt(root: Path, round_state: dict[str, Any], persona: str = "") -> str:
    """The prompt for the seat shown `round_state`, from its file under `root`; `persona` fills
    {persona} where the file has it."""
    relative = prompt_path(round_state)
    try:
        template = (root / relative).read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read the prompt: {error.strerror}", file=relative) from None
    placeholders(template, file=relative)  # text and {name} placeholders only
    try:
        return template.format_map({"persona": persona, **prompt_fields(round_state)})
    except KeyError as error:
        raise ConfigError(f"unknown placeholder {{{error.args[0]}}}", file=relative) from None


def check_prompt_folder(root: Path, round_state: dict[str, Any]) -> None:
    """Check every prompt file of the game shown `round_state` (prompts/<game>/*.md, its
    personas aside: they are text, not templates) for anything but text and {name}
    placeholders: a prompt of a later phase or another seat is rendered only when the match
    reaches it, and must not fail (or send a repr) then."""
    folder = Path(prompt_path(round_state)).parent
    for path in sorted((root / folder).glob("*.md")):
        relative = f"{folder.as_posix()}/{path.name}"
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigError(f"cannot read the prompt: {error}", file=relative) from None
        placeholders(text, file=relative)


def action_from_answer(round_state: dict[str, Any], answer: str) -> dict[str, Any]:
    """The seat's action from a model's answer to its prompt. A decision must name exactly one
    of the choices (ValueError otherwise: the model is re-asked, as an invalid answer is)."""
    adapter = _adapter(round_state)
    if adapter is not None:
        return adapter.action(round_state, answer)
    text = answer.strip()
    role = round_state.get("role")
    if role == "keeper":
        return {"type": "answer", "text": text}
    if role == "judge" and round_state["request"] == "response":
        return {"type": "response", "text": text}
    if role == "judge":
        said = text.casefold()
        named = [
            c for c in round_state["choices"] if re.search(rf"\b{re.escape(c.casefold())}\b", said)
        ]
        if len(named) != 1:
            raise ValueError(f"answer with exactly one of {round_state['choices']}")
        return {"type": "decision", "winner": named[0]}
    if round_state["game"] != "passcode":
        kind = "argument" if "your_position" in round_state else "pitch"
        return {"type": kind, "text": text}
    if round_state["phase"] == "question":
        return {"type": "question", "text": text}
    word = text.split()[0].strip(".,!\"'") if text.split() else ""
    return {"type": "pass"} if word.casefold() in ("", "pass") else {"type": "guess", "word": word}


def answer_reminder(round_state: dict[str, Any]) -> str:
    """What a re-ask repeats after the refusal's reason: the answer format the prompt asked for."""
    adapter = _adapter(round_state)
    if adapter is not None:
        return adapter.reminder(round_state)
    return "Answer as the prompt above asks."


def constrained_answers(round_state: dict[str, Any]) -> tuple[str, ...] | None:
    """The exact answers a constrained model may give this turn (a GBNF grammar is built from
    them), or None when the game's answers are free text (the judged games)."""
    adapter = _adapter(round_state)
    if adapter is not None:
        return adapter.legal_answers(round_state)
    return None
