"""Outcome tables -> the ladder table (pdbench.ladder.output), per game.

Each game is ranked on one currency, named in every row: "wins" (Bradley-Terry-Davidson on who
beat whom, pdbench.ladder.ratings) or "payoff" (what an agent earns against the field,
pdbench.ladder.payoff_ratings). The default is the game's own (`Game.ranked_on`,
`TurnGameEntry.ranked_on`: what its community ranks on); `LadderOptions.rank_on` asks the other.

The same outcomes and options give the same table byte for byte: matches are taken in the order
(run id, condition, replicate) whatever order the runs were given in, and a match held by several
folders (the same run dir named twice, or a copy of a run under another run id) counts once.
"""

from __future__ import annotations

import hashlib

import pandas as pd

from pdbench.core.blas import one_blas_thread
from pdbench.ladder.game_rows import LadderOptions, game_rows
from pdbench.ladder.group_rows import group_rows, more_than_two_seats
from pdbench.ladder.outcomes import OUTCOME_COLUMNS, Outcomes, RankedOn, Skipped
from pdbench.ladder.output import as_table

DUPLICATE = "duplicate of "


def counted(outcomes: Outcomes) -> Outcomes:
    """The outcomes in canonical order, a match held twice (by two folders, or one folder named
    twice) kept once, in its first holder, and the other holders said."""
    table = outcomes.table.sort_values(
        ["run_id", "condition", "replicate", "seat"], kind="stable"
    ).reset_index(drop=True)
    again = table.duplicated(["match_id", "seat"])
    holders = table[~again].drop_duplicates("match_id").set_index("match_id")
    dropped = table[again]
    # one entry per dropped holder: its rows of the match's first seat
    dropped = dropped[dropped["seat"] == dropped.groupby("match_id")["seat"].transform("min")]
    skipped = list(outcomes.skipped) + [
        Skipped(
            str(run_id),
            str(condition),
            int(replicate),
            f"{DUPLICATE}{_where(holders.loc[match])} (a match held twice counts once)",
        )
        for match, run_id, condition, replicate in dropped[
            ["match_id", "run_id", "condition", "replicate"]
        ].itertuples(index=False)
    ]
    kept = table[~again].reset_index(drop=True)
    return Outcomes(kept, outcomes.agents, skipped, outcomes.ranked_on, outcomes.payoff_units)


def _where(row: pd.Series) -> str:
    return f"{row['run_id']}, condition {row['condition']} replicate {row['replicate']}"


def inputs_hash(outcomes: Outcomes, options: LadderOptions) -> str:
    """sha256 of what the ladder is computed from: the counted outcomes and the options."""
    digest = hashlib.sha256()
    digest.update(outcomes.table[OUTCOME_COLUMNS].to_csv(index=False).encode())
    digest.update(repr(options).encode())
    if options.n_player != "pl":  # not in the repr: a two-player ladder's hash stays what it was
        digest.update(f"n_player={options.n_player}".encode())
    return digest.hexdigest()


def currency_of(game: str, outcomes: Outcomes, options: LadderOptions) -> RankedOn:
    return options.rank_on or outcomes.ranked_on.get(game, "wins")


@one_blas_thread()  # fits of a few parameters: see pdbench.core.blas
def ladder_table(outcomes: Outcomes, options: LadderOptions) -> pd.DataFrame:
    """Every game's ratings, notes and the matches left out (outcomes as `counted` gives them)."""
    rows: list[dict[str, object]] = []
    table = outcomes.table
    for game in sorted(table["game"].unique()):
        currency = currency_of(str(game), outcomes, options)
        played = table[table["game"] == game]
        rate = group_rows if more_than_two_seats(played) else game_rows
        rows += rate(str(game), played, outcomes, currency, options)
    rows += [
        {
            "table": "skipped",
            "run_id": s.run_id,
            "condition": s.condition,
            "replicate": s.replicate,
            "note": s.reason,
        }
        for s in outcomes.skipped
    ]
    return as_table(rows)
