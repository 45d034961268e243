"""The pieces of a prompt that are rendered from data rather than written in a template: the
payoff rules, the history in each format, running totals, per-window counts and the answer
instruction, each in the agent's voice.

A `Voice` says how a piece speaks: in the second person ("you", "the other player") or, as Fontana
et al. 2025 wrote their prompts, in the third person (the agent is player "A", its opponent "B");
and whether an action is named by its bare label ("J") or as Akata et al. 2025 did ("Option J").

The sentences themselves are rows of `pdbench.core.phrases`, the one table the offline mock model
reads them back from (`pdbench.providers.prompt_reading`), as a model would: the payoff lines (to
tell the cooperative word from the other), the history lines of every format and the answer
instruction. This module decides which rows a prompt shows and fills their slots.
tests/unit/test_prompt_reading.py renders every format and voice here and reads it back there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pdbench.core import phrases
from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.transcript import Observation, PastRound

HistoryFormat = Literal["lines", "sentences", "table", "pairs"]
TotalsFormat = Literal["points", "counts_and_points"]
ResponseFormat = Literal["label", "json", "reasoning"]


def number(value: float) -> str:
    """3.0 -> "3", 2.5 -> "2.5": payoffs as people write them."""
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.6g}"


@dataclass(frozen=True, slots=True)
class Voice:
    """How the rendered pieces speak (see the module docstring)."""

    third_person: bool = False
    option_words: bool = False  # "Option J" instead of "J"

    def word(self, game: Game, action: Action) -> str:
        """How the prompt names an action."""
        label = game.label(action)
        return f"Option {label}" if self.option_words else label


SECOND_PERSON = Voice()


# --- the rules ---------------------------------------------------------------------------------


def payoff_table(game: Game, voice: Voice = SECOND_PERSON) -> str:
    """One line per outcome, own action first, in the game's order (CC, CD, DC, DD)."""
    return _rules(phrases.PAYOFF_LINE.of(voice.third_person), game, voice)


def payoff_rules(game: Game, voice: Voice = SECOND_PERSON) -> str:
    """The rules as sentences: Akata et al.'s ("If you choose Option J and the other player
    chooses Option F, then you win 0 points and the other player wins 10 points.") or, in the
    third person, Fontana et al.'s ("If A plays "Cooperate" and B plays "Defect", A collects 0
    points and B collects 5 points.")."""
    return _rules(phrases.PAYOFF_SENTENCE.of(voice.third_person), game, voice)


def _rules(phrase: phrases.Phrase, game: Game, voice: Voice) -> str:
    """One line per outcome, own action first, in the order CC, CD, DC, DD (the reader takes the
    first line for the cooperative outcome)."""
    lines = []
    for own in (Action.C, Action.D):
        for other in (Action.C, Action.D):
            mine, theirs = game.payoffs.payoffs(own, other)
            lines.append(
                phrase.render(
                    own=voice.word(game, own),
                    other=voice.word(game, other),
                    mine=number(mine),
                    theirs=number(theirs),
                )
            )
    return "\n".join(lines)


# --- the history -------------------------------------------------------------------------------


def history_text(
    obs: Observation,
    game: Game,
    history_format: HistoryFormat = "lines",
    voice: Voice = SECOND_PERSON,
) -> str:
    """The rounds the agent is shown, in one of four formats (see `LLMAgentSpec.history_format`)."""
    if history_format == "pairs":
        return _pairs(obs, game, voice)
    if not obs.history:
        if obs.round_index > 1:
            return _hidden(voice)
        if history_format == "sentences":
            return ""  # Akata et al. show nothing before round 1
        if voice.third_person:
            return "This is the first round of the game."
        return "This is the first round: nothing has happened yet."
    header = _header(obs, voice, history_format)
    if history_format == "table":
        table_header = phrases.TABLE_HEADER.of(voice.third_person).template
        rows = [_past(phrases.TABLE_ROW, past, game, voice) for past in obs.history]
        return "\n".join([header, table_header, *rows])
    voiced = phrases.HISTORY_SENTENCE if history_format == "sentences" else phrases.HISTORY_LINE
    phrase = voiced.of(voice.third_person)
    lines = [_past(phrase, past, game, voice) for past in obs.history]
    return "\n".join([header, *lines]) if header else "\n".join(lines)


def _header(obs: Observation, voice: Voice, history_format: HistoryFormat) -> str:
    shown = len(obs.history)
    if voice.third_person and history_format == "lines":
        # Fontana et al.'s header, which they write even when every round is shown.
        return f"The history of the game in the last {shown} rounds is the following:"
    if obs.history[0].round_index > 1:
        return f"The last {shown} rounds (earlier rounds are not shown):"
    return "" if history_format == "sentences" else "What happened so far:"


def _hidden(voice: Voice) -> str:
    return phrases.HISTORY_HIDDEN.of(voice.third_person).template


def _past(phrase: phrases.Phrase, past: PastRound, game: Game, voice: Voice) -> str:
    """One past round in `phrase` (a line, a sentence or a table row)."""
    return phrase.render(
        round=past.round_index,
        own=voice.word(game, past.own_action),
        other=voice.word(game, past.opponent_action),
        mine=number(past.own_payoff),
        theirs=number(past.opponent_payoff),
    )


def _pairs(obs: Observation, game: Game, voice: Voice) -> str:
    """Payne and Alloui-Cros's form: the number of moves so far and the last move pairs."""
    played = phrases.MOVES_SO_FAR.render(played=obs.rounds_played)
    if not obs.history:
        return played
    pairs = ", ".join(
        phrases.MOVE_PAIR.render(
            own=voice.word(game, p.own_action), other=voice.word(game, p.opponent_action)
        )
        for p in obs.history
    )
    last = phrases.LAST_MOVES.of(voice.third_person).render(count=len(obs.history), pairs=pairs)
    return f"{played}\n{last}"


# --- totals and counts -------------------------------------------------------------------------


def totals_text(
    obs: Observation,
    game: Game,
    totals_format: TotalsFormat = "points",
    voice: Voice = SECOND_PERSON,
) -> str:
    """Both running totals over the whole match (empty unless the agent is told totals)."""
    if obs.own_total is None or obs.opponent_total is None:
        return ""
    mine, theirs = number(obs.own_total), number(obs.opponent_total)
    if totals_format == "points":
        if voice.third_person:
            return f"In total, A collected {mine} points and B collected {theirs} points."
        return f"Total so far: you {mine} points, opponent {theirs} points."
    if obs.rounds_played == 0 or obs.own_cooperations is None:
        return ""  # nothing to count before the first round (Fontana et al. show nothing)
    assert obs.opponent_cooperations is not None
    counts = _counts(
        game, voice, obs.rounds_played, obs.own_cooperations, obs.opponent_cooperations
    )
    if voice.third_person:
        return f"In total, {counts}.\nIn total, A collected {mine} points and B collected {theirs} points."
    return f"In total, {counts}.\nTotal so far: you {mine} points, opponent {theirs} points."


def window_summary(obs: Observation, game: Game, voice: Voice = SECOND_PERSON) -> str:
    """How often each side chose each action in the rounds shown (empty when none are)."""
    if not obs.history:
        return ""
    own = sum(p.own_action is Action.C for p in obs.history)
    other = sum(p.opponent_action is Action.C for p in obs.history)
    counts = _counts(game, voice, len(obs.history), own, other)
    return f"In the last {len(obs.history)} rounds, {counts}."


def _counts(game: Game, voice: Voice, rounds: int, own_c: int, other_c: int) -> str:
    """'A chose "Cooperate" 3 times and chose "Defect" 2 times, B chose ...' (Fontana et al.'s
    wording in the third person)."""
    c, d = voice.word(game, Action.C), voice.word(game, Action.D)
    if voice.third_person:
        c, d = f'"{c}"', f'"{d}"'
        return (
            f"A chose {c} {own_c} times and chose {d} {rounds - own_c} times, "
            f"B chose {c} {other_c} times and chose {d} {rounds - other_c} times"
        )
    return (
        f"you chose {c} {own_c} times and {d} {rounds - own_c} times, "
        f"the opponent chose {c} {other_c} times and {d} {rounds - other_c} times"
    )


# --- the answer --------------------------------------------------------------------------------


def answer_instruction(labels: Sequence[str], response_format: ResponseFormat) -> str:
    """What the model is asked to answer, the two labels in the order shown this round."""
    first, second = labels
    choice = phrases.ANSWER_CHOICE.render(first=first, second=second)
    if response_format == "json":
        return (
            f'{choice} Reply with only a JSON object and nothing else: {{"action": "<your action>"}}'
            ', optionally with a short "reason" string: '
            '{"action": "<your action>", "reason": "<one sentence>"}'
        )
    if response_format == "reasoning":
        return (
            f"{choice} Think it through first, step by step. Then give your move alone on the "
            f"very last line: {first} or {second}, and nothing else on that line."
        )
    return f"{choice} Reply with only your action, nothing else."


# --- the conversation (a negotiation phase) ----------------------------------------------------


def conversation_text(obs: Observation, voice: Voice = SECOND_PERSON) -> str:
    """This round's messages so far, one line each, oldest first, in quotes (an empty message
    as "(said nothing)"), so a model sees exactly what was said and by whom."""
    me, other = ("A", "B") if voice.third_person else ("You", "The other player")
    if not obs.messages:
        return "Messages this round: none yet."
    lines = ["Messages this round:"]
    for said in obs.messages:
        who = me if said.mine else other
        lines.append(f'{who}: "{said.text}"' if said.text else f"{who}: (said nothing)")
    return "\n".join(lines)
