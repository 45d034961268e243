"""The public goods game's page in the viewer (`pdbench.ui.game_views`'s shapes, named by the
game's registry entry): one match read back from its stored turns (`stored.read_rounds`), and the measures
its Metrics tab shows (its metric rows, one column per player seat).

- Contributions: one line per player seat over the rounds, from 0 to the endowment (under
  balance accounting to the most any player could give).
- Punishment: who punished whom, the points that took effect (after the caps), summed over the
  match or in the round chosen. A pair never in one group in those rounds (strangers, or several
  groups) could not punish each other: its cell is empty, not 0.
- Each round: every group's talk, in the order said, beside its contributions, punishment and
  earnings; the label (P1 .. PN) is the one the players saw that round.
- Earnings: each player's score and what it gave and received.
- Reputation (`reputation_depth` > 0, a round chosen): the block a chosen player was shown
  before that round, as its prompt wrote it (`reputation_measures.shown_to`).

Everything is read from the stored seats (who was in which group, and labelled how, in each
round), so under strangers the groups shown are the ones drawn that round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from pdbench.games.metric_rows import game_metric_rows
from pdbench.games.public_goods import reputation_prompt
from pdbench.games.public_goods.options import Options
from pdbench.games.public_goods.reputation import pseudonyms
from pdbench.games.public_goods.reputation_measures import shown_to
from pdbench.games.public_goods.stored import StoredRound, options_of, read_rounds
from pdbench.ui.charts import conditional, round_ticks, seat_color
from pdbench.ui.condition_charts import DASHES, SHAPES, line_offsets
from pdbench.ui.display import literal
from pdbench.ui.game_views import MatchView, Measure, MeasureKind

# each measure's meaning, as its metric row says it
_MEANINGS = {row.stem: row.help for row in game_metric_rows("public_goods")}


def _measure(stem: str, label: str, kind: MeasureKind, decimals: int = 2) -> Measure:
    meaning = _MEANINGS[stem]
    return Measure(stem, label, kind, meaning[0].upper() + meaning[1:] + ".", decimals)


MEASURES = (
    _measure("contribution_share", "Contribution share", "share"),
    _measure("contribution_slope", "Contribution slope", "signed", decimals=3),
    _measure("first_round_share", "First-round share", "share"),
    _measure("last_round_share", "Last-round share", "share"),
    _measure("end_game_drop", "End-game drop", "signed"),
    _measure("free_riding_share", "Free riding", "share"),
    _measure("efficiency", "Efficiency", "signed"),
    _measure("points_given", "Punishment given", "count", decimals=1),
    _measure("points_received", "Punishment received", "count", decimals=1),
    _measure("antisocial_share", "Antisocial punishment", "share"),
    _measure("retaliation_rate", "Retaliation", "share"),
    _measure("talk_consistency", "Talk kept", "share"),
    _measure("schedule_slope", "Schedule slope", "signed"),
    _measure("schedule_conditional_cooperator", "Conditional cooperator", "share"),
    _measure("score", "Score", "signed", decimals=1),
)
ALL_ROUNDS = "every round"


def match_options(turns: Sequence[Mapping[str, Any]], configured: Mapping[str, Any]) -> dict:
    """The variant played: the stored outcome's options, or (a match cut short stores none) the
    condition's options over the game's defaults."""
    if turns and "outcome" in turns[-1]:
        return options_of(turns)
    return asdict(Options(**configured))


def seat_order(rounds: Sequence[StoredRound]) -> list[str]:
    """Every player seat of the match: a, b, ..., z, aa, ab, ..."""
    return sorted(rounds[0].labels, key=lambda seat: (len(seat), seat)) if rounds else []


def round_frame(rounds: Sequence[StoredRound], names: Mapping[str, str]) -> pd.DataFrame:
    """One row per round and player seat: its group that round (1, 2, ...), the label it was
    shown as, what it could give, gave, gave and received in punishment, and earned."""
    rows = []
    for played in rounds:
        for number, group in enumerate(played.groups, 1):
            for seat in group:
                rows.append(
                    {
                        "round": played.round_number,
                        "seat": seat,
                        "player": names.get(seat, seat.upper()),
                        "group": number,
                        "label": played.labels[seat],
                        "could give": played.available[seat],
                        "contribution": played.contributions[seat],
                        "punished": sum(played.punished.get(seat, {}).values()),
                        "was punished": sum(g.get(seat, 0) for g in played.punished.values()),
                        "earnings": played.earnings[seat],
                    }
                )
    return pd.DataFrame(rows)


def punishment_frame(
    rounds: Sequence[StoredRound], names: Mapping[str, str], round_number: int | None = None
) -> pd.DataFrame:
    """Who punished whom: one row per ordered pair of seats, the points that took effect summed
    over the match (or in `round_number`), and `together`, the rounds with a punish phase in
    which the two shared a group (None points when that is 0: they could not punish each
    other)."""
    chosen = [r for r in rounds if round_number is None or r.round_number == round_number]
    seats = seat_order(rounds)
    rows = []
    for punisher in seats:
        for target in seats:
            if target == punisher:
                continue
            together = sum(r.punish_phase and target in r.group_of(punisher) for r in chosen)
            points = sum(r.punished.get(punisher, {}).get(target, 0) for r in chosen)
            rows.append(
                {
                    "punisher": names.get(punisher, punisher.upper()),
                    "target": names.get(target, target.upper()),
                    "target seat": target.upper(),
                    "points": points if together else None,
                    "together": together,
                }
            )
    return pd.DataFrame(rows, columns=["punisher", "target", "target seat", "points", "together"])


def contribution_chart(frame: pd.DataFrame, seats: Sequence[str], top: float) -> alt.Chart:
    """One line per player seat: its contribution each round, on 0..`top`. Each line has its own
    colour, dash and point shape and a small vertical offset (`line_offsets`, 1% of the axis a
    line at most), so players giving the same amount stay visible; the tooltip gives the exact
    amount."""
    players = [frame[frame["seat"] == seat]["player"].iloc[0] for seat in seats]
    last = int(frame["round"].max())
    offsets = {p: top * o for p, o in line_offsets(players, spread=0.02).items()}
    drawn = frame.assign(drawn=frame["contribution"] + frame["player"].map(offsets))
    margin = max(abs(o) for o in offsets.values())
    # whole names (a legend cuts at 160 px by default), beside the chart
    legend = alt.Legend(title=None, orient="right", labelLimit=0, symbolStrokeWidth=2)
    return (
        alt.Chart(drawn)
        .mark_line(strokeWidth=2, point=alt.OverlayMarkDef(size=40, filled=True))
        .encode(
            x=alt.X(
                "round:Q",
                title="round",
                scale=alt.Scale(domain=[1, max(2, last)], nice=False),
                # whole rounds: each up to 40, beyond that every 10th (`round_ticks`)
                axis=alt.Axis(
                    values=list(range(1, last + 1)) if last <= 40 else round_ticks(last), format="d"
                ),
            ),
            y=alt.Y(
                "drawn:Q",
                scale=alt.Scale(domain=[-margin, top + margin], nice=False),
                title="contribution",
            ),
            color=alt.Color(
                "player:N",
                scale=alt.Scale(domain=players, range=[seat_color(s) for s in seats]),
                legend=legend,
            ),
            strokeDash=alt.StrokeDash(
                "player:N",
                scale=alt.Scale(
                    domain=players, range=[DASHES[i % len(DASHES)] for i in range(len(players))]
                ),
                legend=legend,
            ),
            shape=alt.Shape(
                "player:N",
                scale=alt.Scale(
                    domain=players, range=[SHAPES[i % len(SHAPES)] for i in range(len(players))]
                ),
                legend=legend,
            ),
            tooltip=[
                alt.Tooltip("round:Q"),
                alt.Tooltip("player:N"),
                alt.Tooltip("label:N"),
                alt.Tooltip("group:Q"),
                alt.Tooltip("contribution:Q"),
                alt.Tooltip("earnings:Q"),
            ],
        )
        .properties(height=300)
    )


def punishment_chart(
    frame: pd.DataFrame, order: Sequence[str], seats: Sequence[str]
) -> alt.LayerChart | alt.FacetChart:
    """The who-punished-whom heat map, each cell's points written in it (empty: never together);
    the rows name the punishers in full (`order`), the columns their seat letter (the names are
    long)."""
    letters = [seat.upper() for seat in seats]
    tooltip: list[str | alt.Tooltip] = [
        alt.Tooltip("punisher:N"),
        alt.Tooltip("target:N"),
        alt.Tooltip("points:Q", title="points that took effect"),
        alt.Tooltip("together:Q", title="rounds in one group, punishing"),
    ]
    base = alt.Chart(frame).encode(
        x=alt.X("target seat:N", sort=letters, title="target", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("punisher:N", sort=list(order), title="punisher", axis=alt.Axis(labelLimit=0)),
        tooltip=tooltip,
    )
    cells = base.mark_rect(stroke="white", strokeWidth=2).encode(
        color=alt.Color("points:Q", scale=alt.Scale(scheme="reds", domainMin=0), title="points")
    )
    most = float(pd.to_numeric(frame["points"]).fillna(0).max())
    text = (
        base.transform_filter("isValid(datum.points)")
        .mark_text(fontSize=13)
        .encode(
            text=alt.Text("points:Q", format="d"),
            # white on the dark end of the scale, black elsewhere
            color=conditional(
                alt.ColorValue, alt.datum.points > most / 2, alt.value("white"), alt.value("black")
            ),
        )
    )
    return alt.layer(cells, text).properties(height=max(160, 40 * len(order)))


def render_transcript(match: MatchView) -> None:
    options = match_options(match.turns, match.options)
    rounds = read_rounds(match.turns, options) if match.turns else []
    st.subheader("Public goods", anchor=False)
    st.caption(_variant(options))
    if not rounds:
        st.info("No round of this match was finished: nothing to show yet.")
        return
    names = dict(match.names)
    seats = seat_order(rounds)
    frame = round_frame(rounds, names)
    order = [names.get(seat, seat.upper()) for seat in seats]
    balance = options["accounting"] == "balance"
    _earnings(frame, order, match.turns, float(options["endowment"]) if balance else 0.0)
    top = max(float(options["endowment"]), float(frame["could give"].max()))
    st.markdown("##### Contributions per round")
    st.altair_chart(contribution_chart(frame, seats, top), width="stretch")
    choices: list[int | None] = [None, *(r.round_number for r in rounds)]
    number = st.selectbox(
        "Round",
        choices,
        format_func=lambda n: ALL_ROUNDS if n is None else f"round {n}",
        key=f"pgg_round::{match.seed}",  # a match's own: another may have fewer rounds
        help="The round whose punishment and talk are shown.",
    )
    _punishment(rounds, names, seats, number)
    if number is not None and options.get("reputation_depth"):
        _reputation(match, rounds, options, names, seats, number)
    for played in rounds:
        if number is None or played.round_number == number:
            _round(played, names, talked=bool(options["talk"]))


def _reputation(
    match: MatchView,
    rounds: Sequence[StoredRound],
    options: Mapping[str, Any],
    names: Mapping[str, str],
    seats: list[str],
    number: int,
) -> None:
    """The reputation block a player was shown before round `number`, as its prompt wrote it,
    rebuilt from the stored rounds (the "Agent #n" names come from the match's seed)."""
    st.markdown(f"##### The reputation shown before round {number}")
    outcome = match.turns[-1].get("outcome") or {}
    if "seed" not in outcome:
        st.caption("The players' names need the match's seed, stored when the match ends.")
        return
    seat = st.selectbox(
        "Shown to",
        seats,
        format_func=lambda s: names.get(s, s.upper()),
        key=f"pgg_reputation_seat::{match.seed}",
    )
    agents = dict(zip(seats, pseudonyms(int(outcome["seed"]), len(seats)), strict=True))
    index = [r.round_number for r in rounds].index(number)
    shown = shown_to(rounds, options, seat, index, agents)
    st.code("\n".join(reputation_prompt.render(shown)), language=None)


def _variant(options: Mapping[str, Any]) -> str:
    phases = (
        ["talk"] * bool(options["talk"]) + ["contribute"] + ["punish"] * bool(options["punish"])
    )
    return (
        f"{options['groups']} group(s) of {options['players']} players, {options['matching']}; "
        f"endowment {options['endowment']}, multiplier {options['multiplier']}; "
        f"phases: {', '.join(phases)}; {options['accounting'].replace('_', ' ')} accounting."
    )


def _earnings(
    frame: pd.DataFrame, order: list[str], turns: Sequence[Mapping[str, Any]], start: float
) -> None:
    """Each player's score: the stored result, or (a match cut short stores none) `start` plus
    its finished rounds' earnings."""
    per_player = frame.groupby("player", sort=False).agg(
        seat=("seat", "first"),
        contributed=("contribution", "sum"),
        punished=("punished", "sum"),
        was_punished=("was punished", "sum"),
        earned=("earnings", "sum"),
    )
    scores = (turns[-1].get("outcome") or {}).get("scores")
    per_player["score"] = (
        [scores[seat] for seat in per_player["seat"]] if scores else per_player["earned"] + start
    )
    per_player["score"] = per_player["score"].astype(float).round(2)
    table = per_player.reindex(order).reset_index()
    st.markdown("##### What each player earned")
    st.dataframe(
        table.rename(columns={"was_punished": "was punished"}),
        hide_index=True,
        key="pgg_earnings",
        column_order=["player", "score", "contributed", "punished", "was punished"],
    )
    st.caption(
        "score: the match's result (under balance accounting the final balance; in a match cut "
        "short, what its finished rounds gave); contributed: over the match; punished / was "
        "punished: points that took effect."
    )


def _punishment(
    rounds: Sequence[StoredRound], names: Mapping[str, str], seats: list[str], number: int | None
) -> None:
    st.markdown(f"##### Who punished whom ({'the match' if number is None else f'round {number}'})")
    if not any(r.punish_phase for r in rounds):
        st.caption("No punish phase in this match.")
        return
    frame = punishment_frame(rounds, names, number)
    if frame["together"].sum() == 0:
        st.caption(f"No punish phase in round {number}.")
        return
    order = [names.get(seat, seat.upper()) for seat in seats]
    st.altair_chart(punishment_chart(frame, order, seats), width="stretch")
    st.caption(
        "Each row's player punished each column's (its seat letter): the points that took effect "
        "(after the caps). An empty cell: the two were never in one group in a round with a "
        "punish phase."
    )


def _round(played: StoredRound, names: Mapping[str, str], talked: bool) -> None:
    """Each group's talk (when the variant has a talk phase) beside what each member did."""
    st.markdown(f"##### Round {played.round_number}")
    for number, group in enumerate(played.groups, 1):
        if len(played.groups) > 1:
            st.markdown(f"Group {number}")
        talk, deeds = st.columns([3, 2]) if talked else (None, st.container())
        if talk is not None:
            with talk:
                for seat, text in [(s, t) for s, t in played.messages if s in group]:
                    who = literal(f"{names.get(seat, seat.upper())} ({played.labels[seat]})")
                    st.markdown(f"**{who}**: {literal(text) if text else '*(said nothing)*'}")
        with deeds:
            for seat in group:
                st.markdown(_deeds(played, seat, names))


def _deeds(played: StoredRound, seat: str, names: Mapping[str, str]) -> str:
    """'**P2** · B · NAME: gave 20 of 20; earned 21.2; punished P1 3' (text that wraps: a narrow
    column cuts nothing)."""
    label = played.labels
    given = played.punished.get(seat, {})
    parts = [
        f"gave **{played.contributions[seat]}** of {played.available[seat]:g}",
        f"earned **{round(played.earnings[seat], 2):g}**",
    ]
    if given:
        parts.append("punished " + ", ".join(f"{label[t]} {n}" for t, n in given.items()))
    received = sum(g.get(seat, 0) for g in played.punished.values())
    if received:
        parts.append(f"received {received}")
    return f"**{label[seat]}** · {literal(names.get(seat, seat.upper()))}: " + "; ".join(parts)
