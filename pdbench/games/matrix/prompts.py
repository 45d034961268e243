"""The 2x2 family's prompt adapter (`pdbench.games.prompt_adapter.TablePrompts`, named by every
2x2 entry's `llm`, `matrix_entry`): what a 2x2 game says to an LLM player and how its answer is
read, the same for every table. The LLM agent (`pdbench.agents.llm.prompts.PromptBuilder`)
finds it through the game's entry and fills its own templates with it, as a turn game's agent
fills the game's files from its adapter.

The words come from `wording` (the payoff lines, the history in every format, the totals, the
conversation, the answer instruction, in the agent's voice); the answer is read by
`pdbench.core.parse` (strict: the whole answer is one of the table's two labels, in the
settings' format). What stays the agent's: its template files and which placeholder each may
use, the persona files, the horizon's disclosure, the option order drawn from its own stream.
"""

from __future__ import annotations

from collections.abc import Mapping

from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.parse import ParsedAnswer, parse_answer
from pdbench.core.transcript import Observation
from pdbench.games.matrix import wording
from pdbench.games.prompt_adapter import TableSettings

# The four voices, made once (a round prompt asks for its voice three times).
_VOICES = {
    (person, style): wording.Voice(
        third_person=person == "third_person", option_words=style == "option"
    )
    for person in ("second_person", "third_person")
    for style in ("bare", "option")
}


def voice(settings: TableSettings) -> wording.Voice:
    """The voice the settings choose: the person, and bare labels or "Option J"."""
    return _VOICES[settings.perspective, settings.label_style]


class MatrixPrompts:
    """`TablePrompts` for every 2x2 game (see the module docstring)."""

    # *_label is the bare word the model answers with; *_option is how the prompt names it
    # ("Option J" with label_style: option)
    persona_placeholders = frozenset(
        {"cooperate_label", "defect_label", "cooperate_option", "defect_option"}
    )
    game_placeholders = persona_placeholders | {"payoff_table", "payoff_rules"}
    round_placeholders = frozenset(
        {"first_option", "second_option", "history", "totals", "window_summary", "conversation"}
    )
    talk_placeholders = frozenset({"turn", "max_chars", "messages_each"})
    payoff_placeholders = ("payoff_table", "payoff_rules")
    # the pairs of placeholders that name both options in the round's question
    option_pairs = (
        ("first_option", "second_option"),
        ("cooperate_option", "defect_option"),
        ("cooperate_label", "defect_label"),
        ("cooperate_option", "defect_label"),
        ("cooperate_label", "defect_option"),
    )

    def game_fields(self, game: Game, settings: TableSettings) -> Mapping[str, str]:
        spoken = voice(settings)
        return {
            "cooperate_label": game.cooperate_label,
            "defect_label": game.defect_label,
            "cooperate_option": spoken.word(game, Action.C),
            "defect_option": spoken.word(game, Action.D),
            "payoff_table": wording.payoff_table(game, spoken),
            "payoff_rules": wording.payoff_rules(game, spoken),
        }

    def answer_instruction(
        self, game: Game, settings: TableSettings, order: tuple[Action, Action]
    ) -> str:
        labels = [game.label(action) for action in order]
        return wording.answer_instruction(labels, settings.response_format)

    def round_fields(
        self, game: Game, settings: TableSettings, obs: Observation, order: tuple[Action, Action]
    ) -> Mapping[str, object]:
        spoken = voice(settings)
        talks = game.negotiation is not None
        return {
            "first_option": spoken.word(game, order[0]),
            "second_option": spoken.word(game, order[1]),
            "history": wording.history_text(obs, game, settings.history_format, spoken),
            "totals": wording.totals_text(obs, game, settings.totals_format, spoken)
            if settings.include_totals
            else "",
            "window_summary": wording.window_summary(obs, game, spoken),
            "conversation": wording.conversation_text(obs, spoken) if talks else "",
        }

    def talk_fields(self, game: Game, obs: Observation) -> Mapping[str, object]:
        negotiation = game.negotiation
        if negotiation is None:
            raise ValueError("this game has no negotiation phase")
        return {
            "turn": obs.turn,
            "max_chars": negotiation.max_chars,
            "messages_each": negotiation.exchanges,
        }

    def correction(
        self,
        game: Game,
        settings: TableSettings,
        error: str,
        round_index: int,
        order: tuple[Action, Action],
    ) -> str:
        return f"That answer is not valid: {error}. This is still round {round_index}. " + (
            self.answer_instruction(game, settings, order)
        )

    def action(self, game: Game, settings: TableSettings, answer: str) -> ParsedAnswer:
        return parse_answer(answer, game.labels, settings.response_format)

    def legal_answers(self, game: Game) -> tuple[str, str]:
        return game.labels


PROMPTS = MatrixPrompts()
