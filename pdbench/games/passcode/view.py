"""Passcode's page (`pdbench.ui.game_views`): a match word by word and round by round, each
player's question, the Keeper's private answer to it (and the audit's, when the condition had
one), its guess; built by `pdbench.games.passcode.transcript` from the stored turns.

The players side by side, each in its own box: what one player asked and was told, the other
never saw. The secret word appears in the header of the round whose guesses ended the word, where
the rules reveal it; the rounds before say it was hidden from both players, and a word the match
never finished is never shown.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pdbench.games.passcode.transcript import PLAYERS, passcode_transcript
from pdbench.ui.display import is_missing, literal
from pdbench.ui.game_views import MatchView, Measure

MEASURES = (
    Measure("win_rate", "Win rate", "share", "Share of matches the player won (more points)."),
    Measure("solved_rate", "Words solved", "share", "Share of the match's words it guessed."),
    Measure(
        "rounds_to_solve",
        "Rounds to solve",
        "round",
        "Mean round of the player's right guesses (matches without one left out).",
        decimals=1,
    ),
    Measure(
        "questions_per_solve",
        "Questions per solve",
        "count",
        "Questions the player asked per word it solved (matches without a solve left out).",
        decimals=1,
    ),
    Measure(
        "wrong_guesses",
        "Wrong guesses",
        "count",
        "Guesses that were not the word, per match.",
        decimals=1,
    ),
)


def render_transcript(match: MatchView) -> None:
    transcript = passcode_transcript(match.turns)
    st.subheader("Passcode transcript", anchor=False)
    exchanges = transcript.exchanges
    if exchanges.empty:
        st.info("No turn of this match is stored yet.")
        return
    keeper = match.third_parties.get("keeper", "the Keeper")
    audit = match.third_parties.get("keeper_audit")
    st.caption(
        f"Keeper: {keeper}" + (f" · audit: {audit}" if audit else "") + ". Each player's "
        "questions and the Keeper's answers to them are private: the other player never sees "
        "them (each player has its own box). The secret word is shown from the round whose "
        "guesses ended the word, where the rules reveal it."
    )
    for _, word in transcript.words.iterrows():
        number = int(word["word"])
        st.markdown(f"#### Word {number}")
        played = exchanges[exchanges["word"] == number]
        rounds = sorted(set(played["round"]))
        for round_number in rounds:
            ended_here = not is_missing(word["secret_word"]) and round_number == rounds[-1]
            heading = (
                f"this round's guesses revealed the word: **{literal(word['secret_word'])}**"
                if ended_here
                else "the word: hidden from both players"
            )
            st.markdown(f"##### Round {round_number} · {heading}")
            columns = st.columns(len(PLAYERS), gap="small")
            for column, player in zip(columns, PLAYERS, strict=True):
                row = played[(played["round"] == round_number) & (played["player"] == player)]
                with column.container(border=True):
                    _exchange(row.iloc[0], match.names.get(player, player), transcript.has_audit)
        st.caption(_word_outcome(word, match))


def _exchange(row: pd.Series, name: str, audited: bool) -> None:
    """One player's round: its question, the Keeper's answer to it alone, its guess."""
    lines = [f"**{literal(name)}**"]
    lines.append(f"Question: {_said(row['question'])}")
    lines.append(f"Keeper, to {literal(name.split(' ')[0])} only: {_said(row['answer'])}")
    if audited:
        audit = row["audit"]
        lines.append(f"Audit: {_said(audit) if audit is not None else '(no legal answer)'}")
    guess = row["guess"]
    if guess is None:
        lines.append("Guess: _(not reached)_")
    elif guess == "pass":
        lines.append("Guess: passed")
    else:
        verdict = "right" if row["right"] else "wrong"
        lines.append(f"Guess: {literal(guess)} ({verdict})")
    st.markdown("  \n".join(lines))
    if row["marks"]:
        st.caption(f":material/error: {row['marks']}")


def _said(text: object) -> str:
    return "_(not reached)_" if is_missing(text) else f"“{literal(text)}”"


def _word_outcome(word: pd.Series, match: MatchView) -> str:
    number = int(word["word"])
    if is_missing(word["secret_word"]):
        return (
            f"Word {number} was not over when the match ended: the rules never revealed it, "
            "so it is not shown."
        )
    solvers = [match.names.get(p, p) for p in word["solved_by"]]
    who = " and ".join(solvers) if solvers else "nobody"
    return (
        f"Word {number} ended in round {int(word['rounds'])}: {word['secret_word']}, guessed by "
        f"{who} · points {match.names.get('a', 'a')} {word['points_a']:g}, "
        f"{match.names.get('b', 'b')} {word['points_b']:g}."
    )
