"""The donor game's page in the viewer (`pdbench.ui.game_views`'s shapes, named by the game's
registry entry): one match read back from its stored turns (`stored.read_rounds`), and the
measures its Metrics tab shows (its metric rows, one column per player seat).

- Giving over rounds: the share of donors who gave each round, and each player's choices.
- Image over time: the population's mean image after each round, under the game's norm (none
  under norm none: no image was kept).
- Who gave to whom: per ordered pair, the gifts over the times the first donated to the second
  (an empty cell: it never donated to it).
- The norms a player's choices agree with: for each player and norm, the share of its choices
  that norm judges good (`metrics.counts`), with its 95% Wilson interval over its choices in
  this match, the most consistent norm(s) marked.
- Each round: every donor, its recipient, its choice (under continuous giving the amount, its
  share and whether it punished) and the images before and after.
- A match of several games or of continuous giving: each player's resources over the rounds,
  games and generations marked (`evolution_view`); with generations, each generation's
  measures and every strategy written, as stored.

Everything is read from the stored seats, labels and pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from pdbench.analysis.stats.intervals import wilson_interval
from pdbench.games.donor_game.evolution_view import render_evolution
from pdbench.games.donor_game.metrics import average_images, counts, most_consistent
from pdbench.games.donor_game.options import Options
from pdbench.games.donor_game.stored import StoredRound, options_of, read_rounds, seat_order
from pdbench.games.metric_rows import game_metric_rows
from pdbench.games.norms import NORMS
from pdbench.ui.charts import round_ticks
from pdbench.ui.display import literal
from pdbench.ui.game_views import MatchView, Measure, MeasureKind

# each measure's meaning, as its metric row says it
_MEANINGS = {row.stem: row.help for row in game_metric_rows("donor_game")}


def _measure(stem: str, label: str, kind: MeasureKind, decimals: int = 2) -> Measure:
    meaning = _MEANINGS[stem]
    return Measure(stem, label, kind, meaning[0].upper() + meaning[1:] + ".", decimals)


MEASURES = (
    _measure("giving_rate", "Giving rate", "share"),
    _measure("received_rate", "Received", "share"),
    _measure("give_to_good", "Gives to good", "share"),
    _measure("give_to_bad", "Gives to bad", "share"),
    _measure("discriminator_share", "Discrimination", "signed"),
    *(_measure(f"norm_{n}", n.replace("_", " ").capitalize(), "share") for n in NORMS),
    _measure("mean_image", "Mean image", "share"),
    _measure("score", "Score", "signed", decimals=1),
    _measure("share_given", "Share given", "share"),
)
ALL_ROUNDS = "every round"


def match_options(turns: Sequence[Mapping[str, Any]], configured: Mapping[str, Any]) -> dict:
    """The variant played: the stored outcome's options, or (a match cut short stores none) the
    condition's options over the game's defaults."""
    if turns and "outcome" in turns[-1]:
        return options_of(turns)
    return asdict(Options(**configured))


def giving_frame(rounds: Sequence[StoredRound], names: Mapping[str, str]) -> pd.DataFrame:
    """One row per round and donor: its label, its recipient's, whether it gave."""
    rows = [
        {
            "round": played.round_number,
            "seat": donor,
            "player": names.get(donor, donor.upper()),
            "label": played.labels[donor],
            "recipient": played.labels[recipient],
            "gave": int(played.gave[donor]),
        }
        for played in rounds
        for donor, recipient in played.recipients.items()
    ]
    return pd.DataFrame(rows, columns=["round", "seat", "player", "label", "recipient", "gave"])


def population_frame(rounds: Sequence[StoredRound]) -> pd.DataFrame:
    """One row per round: the share of donors who gave, and the mean image after the round
    (None: no norm)."""
    images = average_images(rounds)
    return pd.DataFrame(
        [
            {
                "round": played.round_number,
                "giving": sum(played.gave.values()) / len(played.gave),
                "image": image,
            }
            for played, image in zip(rounds, images, strict=True)
        ],
        columns=["round", "giving", "image"],
    )


def gift_frame(rounds: Sequence[StoredRound], names: Mapping[str, str]) -> pd.DataFrame:
    """Who gave to whom: one row per ordered pair of seats, `met` the times the first donated
    to the second, `gifts` how many of those were gifts (None when it never met it)."""
    seats = seat_order(rounds[0].labels) if rounds else []
    rows = []
    for donor in seats:
        for recipient in seats:
            if donor == recipient:
                continue
            met = [r for r in rounds if r.recipients.get(donor) == recipient]
            rows.append(
                {
                    "donor": names.get(donor, donor.upper()),
                    "recipient": names.get(recipient, recipient.upper()),
                    "recipient seat": recipient.upper(),
                    "met": len(met),
                    "gifts": sum(r.gave[donor] for r in met) if met else None,
                }
            )
    return pd.DataFrame(rows, columns=["donor", "recipient", "recipient seat", "met", "gifts"])


def norm_frame(
    rounds: Sequence[StoredRound], options: Mapping[str, Any], names: Mapping[str, str]
) -> pd.DataFrame:
    """Per player and norm: the share of its choices the norm judges good, its 95% Wilson
    interval, and whether it is (one of) the player's most consistent norm(s)."""
    rows = []
    for seat, row in counts(rounds, options).items():
        choices = row["choices"]
        shares: dict[str, float | None] = {
            n: row[f"good_{n}"] / choices if choices else None for n in NORMS
        }
        best = most_consistent(shares)
        for norm in NORMS:
            low, high = wilson_interval(row[f"good_{norm}"], choices)
            rows.append(
                {
                    "player": names.get(seat, seat.upper()),
                    "norm": norm,
                    "share": shares[norm],
                    "low": float(low),
                    "high": float(high),
                    "choices": choices,
                    "most consistent": norm in best,
                }
            )
    return pd.DataFrame(rows)


def norm_table(frame: pd.DataFrame) -> pd.DataFrame:
    """`norm_frame` as the page shows it: the share and its interval in one column, so the
    table reads whole at 1024 px."""

    def shown(share: float | None, low: float, high: float) -> str:
        return "-" if share is None or pd.isna(share) else f"{share:.2f} [{low:.2f}, {high:.2f}]"

    return pd.DataFrame(
        {
            "player": frame["player"],
            "norm": frame["norm"],
            "share [95% CI]": [
                shown(s, lo, hi)
                for s, lo, hi in zip(frame["share"], frame["low"], frame["high"], strict=True)
            ],
            "n": frame["choices"],
            "best": ["yes" if best else "" for best in frame["most consistent"]],
        }
    )


def _round_axis(last: int) -> alt.X:
    return alt.X(
        "round:Q",
        title="round",
        scale=alt.Scale(domain=[1, max(2, last)], nice=False),
        axis=alt.Axis(
            values=list(range(1, last + 1)) if last <= 40 else round_ticks(last), format="d"
        ),
    )


def population_chart(frame: pd.DataFrame) -> alt.Chart:
    """The share who gave and the mean image, per round, on 0..1."""
    long = frame.melt("round", var_name="measure", value_name="value").dropna()
    return (
        alt.Chart(long)
        .mark_line(strokeWidth=2, point=True)
        .encode(
            x=_round_axis(int(frame["round"].max())),
            y=alt.Y("value:Q", scale=alt.Scale(domain=[0, 1]), title="share"),
            color=alt.Color("measure:N", title=None),
            tooltip=[
                alt.Tooltip("round:Q"),
                alt.Tooltip("measure:N"),
                alt.Tooltip("value:Q", format=".2f"),
            ],
        )
        .properties(height=260)
    )


def choices_chart(frame: pd.DataFrame, order: Sequence[str]) -> alt.Chart:
    """Each player's choice each round: a filled cell for a gift, an empty one for a refusal."""
    return (
        alt.Chart(frame.assign(choice=frame["gave"].map({1: "gave", 0: "refused"})))
        .mark_rect(stroke="white", strokeWidth=1)
        .encode(
            x=alt.X("round:O", title="round"),
            y=alt.Y("player:N", sort=list(order), title=None, axis=alt.Axis(labelLimit=0)),
            color=alt.Color(
                "choice:N",
                scale=alt.Scale(domain=["gave", "refused"], range=["#2f7d32", "#e8e8e8"]),
                title=None,
            ),
            tooltip=[
                alt.Tooltip("round:O"),
                alt.Tooltip("player:N"),
                alt.Tooltip("label:N"),
                alt.Tooltip("recipient:N"),
                alt.Tooltip("choice:N"),
            ],
        )
        .properties(height=max(120, 26 * len(order)))
    )


def gift_chart(
    frame: pd.DataFrame, order: Sequence[str], seats: Sequence[str]
) -> alt.LayerChart | alt.FacetChart:
    """The who-gave-to-whom matrix: each cell 'gifts/met' (empty: never its recipient)."""
    shown = frame.assign(
        text=[f"{g}/{m}" if m else "" for g, m in zip(frame["gifts"], frame["met"], strict=True)]
    )
    letters = [seat.upper() for seat in seats]
    base = alt.Chart(shown).encode(
        x=alt.X("recipient seat:N", sort=letters, title="recipient", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("donor:N", sort=list(order), title="donor", axis=alt.Axis(labelLimit=0)),
        tooltip=[
            alt.Tooltip("donor:N"),
            alt.Tooltip("recipient:N"),
            alt.Tooltip("met:Q"),
            alt.Tooltip("gifts:Q"),
        ],
    )
    cells = base.mark_rect(stroke="white", strokeWidth=2).encode(
        color=alt.Color("gifts:Q", scale=alt.Scale(scheme="greens", domainMin=0), title="gifts")
    )
    text = base.mark_text(fontSize=12).encode(text=alt.Text("text:N"))
    return alt.layer(cells, text).properties(height=max(160, 32 * len(order)))


def render_transcript(match: MatchView) -> None:
    options = match_options(match.turns, match.options)
    rounds = read_rounds(match.turns) if match.turns else []
    st.subheader("Donor game", anchor=False)
    st.caption(_variant(options))
    if not rounds:
        st.info("No round of this match was finished: nothing to show yet.")
        return
    names = dict(match.names)
    seats = seat_order(rounds[0].labels)
    order = [names.get(seat, seat.upper()) for seat in seats]
    _scores(rounds, match.turns, names, seats, float(options["endowment"]))
    st.markdown("##### Giving and image over the rounds")
    st.altair_chart(population_chart(population_frame(rounds)), width="stretch")
    if options["norm"] == "none":
        st.caption("Norm none: no image was kept, so only giving is drawn.")
    st.altair_chart(choices_chart(giving_frame(rounds, names), order), width="stretch")
    render_evolution(match.turns, rounds, options, names)
    st.markdown("##### Who gave to whom (gifts / times its donor)")
    st.altair_chart(gift_chart(gift_frame(rounds, names), order, seats), width="stretch")
    st.markdown("##### The norms each player's choices agree with")
    st.dataframe(norm_table(norm_frame(rounds, options, names)), hide_index=True, key="donor_norms")
    st.caption(
        "share: of its n choices, those the norm judges good, each on its recipient's image under "
        "that norm (the game's own norm: the image it was shown), with the 95% Wilson interval "
        "over this match's choices; best: the norm(s) it agrees with most, ties all marked."
    )
    choices: list[int | None] = [None, *(r.round_number for r in rounds)]
    number = st.selectbox(
        "Round",
        choices,
        format_func=lambda n: ALL_ROUNDS if n is None else f"round {n}",
        key=f"donor_round::{match.seed}",
    )
    for played in rounds:
        if number is None or played.round_number == number:
            _round(played, names, seats)


def _variant(options: Mapping[str, Any]) -> str:
    second = ", second order" if options["second_order"] else ""
    if options["second_order"] and options.get("trace_links", 2) == 3:
        second = ", a chain of 3 links"
    shown = (
        f"{options['players']} players, {options['rounds']} rounds; cost {options['cost']}, "
        f"benefit {options['benefit']}; norm {options['norm']}; the recipient's last "
        f"{options['recent_actions']} actions shown{second}."
    )
    if options.get("amount") == "continuous":
        punish = " or punished" if options.get("punishment") else ""
        shown += f" Any amount up to one's resources given{punish}."
    if options.get("generations", 1) > 1 or options.get("games_per_generation", 1) > 1:
        shown += (
            f" {options.get('generations', 1)} generation(s) of "
            f"{options.get('games_per_generation', 1)} game(s), the top "
            f"{options.get('survivors', 0.5):g} surviving."
        )
    if options.get("pairing") == "halves":
        shown += " Half the players donate a round, to the other half (Vallinder & Hughes)."
    return shown


def _scores(
    rounds: Sequence[StoredRound],
    turns: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    seats: Sequence[str],
    start: float,
) -> None:
    stored = (turns[-1].get("outcome") or {}).get("scores")
    table = pd.DataFrame(
        [
            {
                "player": names.get(seat, seat.upper()),
                "label": rounds[0].labels[seat],
                "score": stored[seat] if stored else start + sum(r.earnings[seat] for r in rounds),
                "gave": sum(r.gave.get(seat, False) for r in rounds),  # halves: half donate
                "received": sum(r.gave[d] for r in rounds if (d := r.donor_of(seat)) is not None),
            }
            for seat in seats
        ]
    )
    st.markdown("##### What each player earned")
    st.dataframe(table, hide_index=True, key="donor_scores")


def _round(played: StoredRound, names: Mapping[str, str], seats: Sequence[str]) -> None:
    st.markdown(f"##### Round {played.round_number}")
    label = played.labels
    for donor in seats:
        if donor not in played.recipients:  # pairing halves: a recipient this round
            continue
        recipient = played.recipients[donor]
        verb = "gave to" if played.gave[donor] else "refused"
        if played.amounts is not None:
            punished = played.punished is not None and played.punished[donor]
            verb = f"{'punished, spending' if punished else 'gave'} {played.amounts[donor]:g} to"
        images = ""
        if played.images_before is not None and played.images is not None:
            seen = "good" if played.images_before[recipient] else "bad"
            now = "good" if played.images[donor] else "bad"
            images = f" (recipient {seen}); now {now}"
        who = literal(names.get(donor, donor.upper()))
        st.markdown(f"**{label[donor]}** · {who}: {verb} **{label[recipient]}**{images}")
