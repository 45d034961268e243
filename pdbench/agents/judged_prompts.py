"""The prompts of the turn games for every seat, from files under prompts/<game>/, and the seat's
action read back from a model's answer. What is one game's (its prompt files, placeholders,
answer parser, re-ask reminder, legal answers and answer limit) is its prompt adapter
(`TurnGameEntry.llm`, `pdbench.games.prompt_adapter`: Liar's Dice's and public goods' in their
packages, the judged games' in `pdbench.games.judged_prompts`); this module reads the files,
fills them and checks them, the same for every game.

A prompt is built from the seat's observation alone (`TurnGame.observe`: a player's round_state,
or a third role's request), so a model is shown exactly what an arena agent or a house
policy is.
"""

from __future__ import annotations

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


def game_prompts(round_state: dict[str, Any]) -> PromptAdapter:
    """The game's prompt adapter (`TurnGameEntry.llm`); a game without one has no LLM players
    (refused when the config is read)."""
    adapter = prompt_adapter(turn_game_entry(_folder(round_state)))
    if adapter is None:
        raise ConfigError(f"{round_state['game']} has no prompts for an LLM player", field="game")
    return adapter


def shared_sample(round_state: dict[str, Any]) -> str | None:
    """The name under which this turn's answer is shared by every condition of a replicate
    (the adapter's optional `shared_sample`), or None: the match's own sample."""
    share = getattr(game_prompts(round_state), "shared_sample", None)
    return None if share is None else share(round_state)


def prompt_path(round_state: dict[str, Any]) -> str:
    """The prompt file (relative to the project) for the seat that was shown `round_state`."""
    return f"prompts/{_folder(round_state)}/{game_prompts(round_state).prompt_file(round_state)}"


def prompt_fields(round_state: dict[str, Any]) -> dict[str, str]:
    """Every placeholder the seat's prompt file may use, from the observation."""
    return game_prompts(round_state).fields(round_state)


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
    """The seat's action from a model's answer to its prompt (ValueError with the reason when
    it names none: the model is re-asked, as an invalid answer is)."""
    return game_prompts(round_state).action(round_state, answer)


def answer_reminder(round_state: dict[str, Any]) -> str:
    """What a re-ask repeats after the refusal's reason: the answer format the prompt asked for."""
    return game_prompts(round_state).reminder(round_state)


def constrained_answers(round_state: dict[str, Any]) -> tuple[str, ...] | None:
    """The exact answers a constrained model may give this turn (a GBNF grammar is built from
    them), or None when the game's answers are free text (the judged games)."""
    return game_prompts(round_state).legal_answers(round_state)
