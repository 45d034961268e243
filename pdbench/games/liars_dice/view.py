"""Liar's Dice's page (`pdbench.ui.game_views`): a match as a transcript, round by round: the moves in order with the
probability of each bid given what its bidder could see, then the showdown (both hands, how many
dice met the challenged bid, who lost a die). Built by
`pdbench.games.liars_dice.transcript.transcript_frames` from the stored turn lines; a round
still in play shows its moves only (its dice are not revealed yet)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from pdbench.games.liars_dice.transcript import transcript_frames
from pdbench.ui.game_views import MatchView, Measure

MEASURES = (
    Measure("win_rate", "Win rate", "share", "Share of matches the player won."),
    Measure(
        "challenge_accuracy",
        "Challenge accuracy",
        "share",
        "Share of the player's challenges that were right (the bid was not met).",
    ),
    Measure(
        "bluff_rate",
        "Bluff rate",
        "share",
        "Share of the player's bids whose probability given its own dice was below 0.5.",
    ),
    Measure(
        "dice_lost_per_challenge",
        "Dice lost per showdown",
        "count",
        "Dice the player lost per showdown it took part in (as challenger or challenged bidder).",
    ),
)


def render_transcript(match: MatchView) -> None:
    render(match.turns, match.names, match.options)


def render(
    turns: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    options: Mapping[str, Any] | None = None,
) -> None:
    options = options or {}
    moves, showdowns = transcript_frames(
        turns, faces=int(options.get("faces", 6)), wild_ones=bool(options.get("wild_ones", False))
    )
    st.subheader("Liar's Dice transcript", anchor=False)
    if moves.empty:
        st.info("No turn of this match is stored yet.")
        return
    st.caption(
        "P(bid): the probability that the bid is met given its bidder's own dice and the number "
        "of its opponent's (exact binomial); shown once the round's showdown reveals the dice."
    )
    by_round = {int(row["round"]): row for _, row in showdowns.iterrows()}
    for number in sorted(set(moves["round"])):
        played = moves[moves["round"] == number]
        st.markdown(f"##### Round {number}")
        shown = pd.DataFrame(
            {
                "turn": played["turn"],
                "player": [names.get(p, p) for p in played["player"]],
                "move": played["move"],
                "P(bid)": ["" if pd.isna(p) else f"{p:.2f}" for p in played["probability"]],
            }
        )
        st.dataframe(shown, hide_index=True, key=f"liars_round_{number}")
        showdown = by_round.get(number)
        if showdown is None:
            st.caption("In play: the dice are hidden until a challenge reveals them.")
            continue
        verdict = "met" if showdown["met"] else "not met"
        st.markdown(
            f"Showdown: {names.get('a', 'a')} had {showdown['dice_a']}; "
            f"{names.get('b', 'b')} had {showdown['dice_b']}. "
            f"{names.get(showdown['challenger'], showdown['challenger'])} challenged "
            f"{showdown['bid']}: {showdown['matching']} dice matched ({verdict}); "
            f"**{names.get(showdown['loser'], showdown['loser'])} lost a die**."
        )
