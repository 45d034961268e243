"""What the judged debates' pages share (nuclear_war, nil_recruitment, as `pdbench.games.debate.rules`
holds their shared rules): a match round by round, with its scenario and the judge's persona,
each phase's speeches in the order spoken and the judge's response after it, then the decision
(a panel's every verdict with it). With `swap_sides` the two rounds of a scenario stand side by
side, under a line saying whether the verdict followed the player or the side. Built by
`pdbench.games.debate.transcript` from the stored turns.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from pdbench.games.debate.transcript import DebateRound, debate_transcript
from pdbench.ui import charts
from pdbench.ui.display import literal
from pdbench.ui.game_views import MatchView, Measure

WIN_RATE = Measure("win_rate", "Win rate", "share", "Share of the match's rounds the player won.")
WIN_SPEAKING_FIRST = Measure(
    "win_rate_speaking_first",
    "Win rate speaking first",
    "share",
    "Share of the rounds the player won when it spoke first.",
)
COLORS = {"a": charts.A_COLOR, "b": charts.B_COLOR, "judge": charts.BOTH_COLOR}


@dataclass(frozen=True)
class DebateWords:
    """How a game names its parts: its title, the judge, what a side is, the scenario."""

    title: str  # "Nuclear War"
    judge: str  # "President"
    side: str  # "position"
    sides: str  # "positions"
    context: str  # "Crisis" ("" when the game's scenario has nothing besides the persona)


def render_transcript(match: MatchView, game_id: str, words: DebateWords) -> None:
    transcript = debate_transcript(match.turns, game_id, match.options, match.seed)
    st.subheader(f"{words.title} transcript", anchor=False)
    if not transcript.rounds:
        st.info("No turn of this match is stored yet.")
        return
    judge = match.third_parties.get("judge") or ", ".join(
        who for role, who in match.third_parties.items() if role.startswith("judge")
    )
    st.caption(
        f"Judge ({words.judge}): {judge or 'the house judge'}. Speeches in the order spoken, "
        "phase by phase, the judge's response after each phase and its decision after the "
        "last; the judge sees sides, never seats."
    )
    if transcript.problem:
        st.warning(f"Scenario not shown: {transcript.problem}.", icon=":material/warning:")
    by_number = {played.number: played for played in transcript.rounds}
    pairs = transcript.pairs
    paired = set(pairs["first_round"]) | set(pairs["second_round"])
    for played in transcript.rounds:
        if played.number not in paired:
            st.markdown(f"#### Round {played.number}")
            _round(played, match, words)
            continue
        starting = pairs[pairs["first_round"] == played.number]
        if len(starting):  # the pair is drawn at its first round, both rounds side by side
            _pair(starting.iloc[0], by_number, match, words)


def _pair(
    pair: pd.Series, rounds: Mapping[int, DebateRound], match: MatchView, words: DebateWords
) -> None:
    """A scenario played twice with the sides swapped: its scenario once, then both rounds side
    by side, phase by phase, and both decisions."""
    both = (rounds[int(pair["first_round"])], rounds[int(pair["second_round"])])
    st.markdown(
        f"#### Rounds {both[0].number} and {both[1].number}: scenario {pair['scenario']}, "
        f"{words.sides} swapped"
    )
    follows = pair["follows"]
    if follows is None:
        st.caption(
            "Not both rounds were decided: whether the verdict follows the player or the "
            f"{words.side} is not known."
        )
    elif follows == "player":
        winner = both[0].decision.winner_seat if both[0].decision else "?"
        st.markdown(
            f"**The verdict followed the player**: {literal(match.names.get(winner, winner))} "
            f"won both rounds, on either {words.side}."
        )
    else:
        st.markdown(
            f"**The verdict followed the {words.side}**: the same {words.side} won both "
            "rounds, whoever argued it."
        )
    _scenario(both[0], words)
    for played, column in zip(both, st.columns(2, gap="medium"), strict=True):
        column.markdown(f"##### Round {played.number}")
        column.markdown(_sides_line(played, match.names))
        if played.problem:
            column.warning(played.problem, icon=":material/warning:")
    phases = list(dict.fromkeys([*both[0].speeches["phase"], *both[1].speeches["phase"]]))
    for phase in phases:
        st.markdown(f"**{literal(phase)}**")
        for played, column in zip(both, st.columns(2, gap="medium"), strict=True):
            with column:
                _phase(played, phase, match.names, words)
    for played, column in zip(both, st.columns(2, gap="medium"), strict=True):
        with column:
            _decision(played, match.names)


def _round(played: DebateRound, match: MatchView, words: DebateWords) -> None:
    st.markdown(_sides_line(played, match.names))
    if played.problem:
        st.warning(played.problem, icon=":material/warning:")
    _scenario(played, words)
    for phase in dict.fromkeys(played.speeches["phase"]):
        st.markdown(f"**{literal(phase)}**")
        _phase(played, phase, match.names, words)
    _decision(played, match.names)


def _sides_line(played: DebateRound, names: Mapping[str, str]) -> str:
    sides = " · ".join(
        f"{literal(names.get(seat, seat))} argues **{literal(side)}**"
        for seat, side in played.sides.items()
    )
    first = names.get(played.first_speaker or "", "?")
    return f"{sides} · {literal(first)} speaks first"


def _scenario(played: DebateRound, words: DebateWords) -> None:
    """The scenario both players see and the judge's persona, its private fields marked."""
    if not (played.persona or played.context):
        return
    with st.expander(f"Scenario and the {words.judge}'s persona", expanded=True):
        parts = []
        if played.context:
            parts.append(f"**{words.context}** (both players see it)")
            parts.append(
                "\n".join(
                    f"- {literal(key.replace('_', ' '))}: {_value(value)}"
                    for key, value in played.context.items()
                )
            )
        parts.append(f"**The {words.judge}** (the judge)")
        parts.append(
            "\n".join(
                f"- {literal(key.replace('_', ' '))}: {_value(value)}"
                + (
                    ""
                    if key in played.persona_seen
                    else " _(the judge's alone: players never see it)_"
                )
                for key, value in played.persona.items()
            )
        )
        st.markdown("\n\n".join(parts))  # a blank line: a list never runs into the next title


def _value(value: Any) -> str:
    return "; ".join(map(literal, value)) if isinstance(value, list | tuple) else literal(value)


def _phase(played: DebateRound, phase: str, names: Mapping[str, str], words: DebateWords) -> None:
    said = played.speeches[played.speeches["phase"] == phase]
    if said.empty:
        st.caption("(not played)")
        return
    st.markdown(
        "".join(_speech(row, played, names, words) for row in said.to_dict("records")),
        unsafe_allow_html=True,
    )


def _decision(played: DebateRound, names: Mapping[str, str]) -> None:
    decision = played.decision
    if decision is None:
        st.caption("No decision stored: the match ended before the judge decided this round.")
        return
    winner = names.get(decision.winner_seat, decision.winner_seat)
    st.success(
        f"Decision: **{literal(decision.winner_side)}**, so {literal(winner)} wins the round",
        icon=":material/gavel:",
    )
    if decision.panel:
        verdicts = "\n".join(
            f"- {literal(judge)}: {literal(verdict) if verdict is not None else '(no valid verdict)'}"
            for judge, verdict in decision.panel
        )
        st.markdown(f"Every verdict of the panel (the majority decides):\n\n{verdicts}")
    if decision.answer is not None and decision.answer.strip() != decision.winner_side:
        st.caption(f"The judge's answer as written: “{literal(decision.answer)}”")
    if decision.marks:
        st.caption(f":material/error: the decision: {decision.marks}")


def _speech(
    row: Mapping[Any, Any], played: DebateRound, names: Mapping[str, str], words: DebateWords
) -> str:
    speaker = str(row["speaker"])
    if speaker == "judge":
        who = f"{played.persona.get('name') or words.judge} ({words.judge.lower()}, the judge)"
    else:
        who = f"{names.get(speaker, speaker)} ({row['side']})"
    marks = f" <small>[{html.escape(str(row['marks']))}]</small>" if row["marks"] else ""
    # inside an HTML block a line break is <br> (a blank line would end the block)
    text = (
        literal(row["text"]).replace("  \n", "<br>")
        if row["text"] is not None
        else "<i>(nothing)</i>"
    )
    style = "font-style:italic;" if speaker == "judge" else ""
    color = COLORS.get(speaker, charts.BOTH_COLOR)
    return (
        f"<div style='border-left:3px solid {color};padding:0 0 0 .6rem;margin:.3rem 0;{style}'>"
        f"<b style='color:{color}'>{literal(who)}</b>{marks}<br>{text}</div>"
    )
