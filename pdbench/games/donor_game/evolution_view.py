"""The part of the donor game's viewer page (`view`) for a match of continuous giving or of
several games: tables read from the stored rounds alone (`stored`): each player's resources
after every round, where games and generations begin, each generation's measures
(`metrics.generation_rows`) and the strategies written; and the section that draws them
(`render_evolution`). It imports no pdbench.ui module, so it can live beside the rules."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from pdbench.games.donor_game.metrics import generation_rows
from pdbench.games.donor_game.stored import StoredRound, StoredStrategies, read_strategies


def resources_frame(
    rounds: Sequence[StoredRound], endowment: float, names: Mapping[str, str]
) -> pd.DataFrame:
    """One row per round and seat: its resources (its score) after the round, each game from
    the endowment (the stored resources under continuous giving, else the endowment plus the
    game's earnings so far)."""
    rows = []
    held: dict[str, float] = {}
    game: tuple[int, int] | None = None
    for played in rounds:
        if (played.generation, played.game) != game:
            game, held = (played.generation, played.game), {}
        for seat, earned in played.earnings.items():
            held[seat] = held.get(seat, endowment) + earned
            after = held[seat] if played.resources is None else played.resources[seat]
            rows.append(
                {
                    "round": played.round_number,
                    "generation": played.generation,
                    "game": played.game,
                    "player": names.get(seat, seat.upper()),
                    "label": played.labels[seat],
                    "resources": after,
                }
            )
    columns = ["round", "generation", "game", "player", "label", "resources"]
    return pd.DataFrame(rows, columns=columns)


def boundaries(rounds: Sequence[StoredRound]) -> pd.DataFrame:
    """The rounds that begin a game after the first: `starts` "game" or "generation"."""
    rows = []
    for before, played in itertools.pairwise(rounds):
        if played.generation != before.generation:
            rows.append({"round": played.round_number, "starts": "generation"})
        elif played.game != before.game:
            rows.append({"round": played.round_number, "starts": "game"})
    return pd.DataFrame(rows, columns=["round", "starts"])


def generation_frame(rounds: Sequence[StoredRound], endowment: float) -> pd.DataFrame:
    """One row per generation (`metrics.generation_rows`)."""
    columns = ["generation", "mean_score", "survivors_score", "giving_rate", "mean_amount"]
    return pd.DataFrame(generation_rows(rounds, endowment), columns=columns)


def strategies_frame(phases: Sequence[StoredStrategies], names: Mapping[str, str]) -> pd.DataFrame:
    """One row per strategy written: the generation, the seat's player, its label, the text."""
    rows = [
        {
            "generation": phase.generation,
            "player": names.get(seat, seat.upper()),
            "label": label,
            "strategy": text,
        }
        for phase in phases
        for seat, (label, text) in sorted(phase.written.items())
    ]
    return pd.DataFrame(rows, columns=["generation", "player", "label", "strategy"])


def resources_chart(frame: pd.DataFrame, marks: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """Each player's resources after every round; a dashed rule where a game begins, a solid
    one where a generation does."""
    lines = (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X("round:Q", title="round", axis=alt.Axis(format="d")),
            y=alt.Y("resources:Q", title="resources"),
            color=alt.Color("player:N", title=None),
            tooltip=[
                alt.Tooltip("round:Q"),
                alt.Tooltip("generation:Q"),
                alt.Tooltip("game:Q"),
                alt.Tooltip("player:N"),
                alt.Tooltip("label:N"),
                alt.Tooltip("resources:Q"),
            ],
        )
    )
    rules = (
        alt.Chart(marks)
        .mark_rule(color="#666")
        .encode(
            x=alt.X("round:Q"),
            strokeDash=alt.StrokeDash(
                "starts:N",
                scale=alt.Scale(domain=["game", "generation"], range=[[4, 4], [1, 0]]),
                title="begins",
            ),
        )
    )
    return alt.layer(lines, rules).properties(height=300)


def render_evolution(
    turns: Sequence[Mapping[str, Any]],
    rounds: Sequence[StoredRound],
    options: Mapping[str, Any],
    names: Mapping[str, str],
) -> None:
    """Resources over the rounds, each generation's measures and the strategies written."""
    staged = options.get("generations", 1) > 1 or options.get("games_per_generation", 1) > 1
    if not staged and options.get("amount") != "continuous":
        return
    endowment = float(options["endowment"])
    st.markdown("##### Resources over the rounds")
    frame = resources_frame(rounds, endowment, names)
    st.altair_chart(resources_chart(frame, boundaries(rounds)), width="stretch")
    if options.get("generations", 1) <= 1:
        return
    st.markdown("##### Generations")
    st.dataframe(generation_frame(rounds, endowment), hide_index=True, key="donor_generations")
    st.caption(
        "mean_score: the players' mean final score of the generation's last game; "
        "survivors_score: that of the players who survived it (none after the last); "
        "giving_rate: the share of donations that were gifts; mean_amount: the mean amount given."
    )
    st.markdown("##### Strategies written")
    st.dataframe(
        strategies_frame(read_strategies(turns), names), hide_index=True, key="donor_strategies"
    )
