"""One game's rows of the ladder table when its matches have more than two players (an outcome
table with more than two rows a match): the same rows as pdbench.ladder.game_rows, rated from
each match's ranks.

- On wins: Plackett-Luce on each match's finishing order (pdbench.ladder.rank_ratings; ties by
  Breslow's rule), or, with `LadderOptions.n_player == "pairs"`, Bradley-Terry-Davidson on every
  match's N(N-1)/2 pairwise results (a tie a draw), with Wald intervals clustered by match (the
  pairs of a match are not independent: plain Wald intervals covered 0.86-0.90 at 95%).
  OpenSkill's Plackett-Luce takes each match as N teams of one with its ranks.
- On payoff: the additive model with the mean of what the others of the match concede
  (pdbench.ladder.payoff_ratings.group_payoff_model).
- W/D/L count pairs: in a match of N players an agent has N-1 results, a win against each
  player it outranked, a draw with each it tied, a loss against each that outranked it (the pair
  reduction's results); `matches` counts matches. A rating is identified as on two players: no
  group of agents outranked, or was outranked by, the rest in every match they shared.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from pdbench.ladder.game_rows import (
    Fitted,
    LadderOptions,
    elo_fields,
    payoff_fields,
    rated_rows,
)
from pdbench.ladder.outcomes import Outcomes, RankedOn
from pdbench.ladder.payoff_ratings import group_payoff_model
from pdbench.ladder.rank_ratings import (
    GroupMatches,
    openskill_ranks,
    pair_reduction,
    pairs_bradley_terry,
    plackett_luce,
)
from pdbench.ladder.ratings import PRIOR_SD, components
from pdbench.ladder.ratings import unidentified as unidentified_on_wins

PL_METHOD = (
    "Plackett-Luce on each match's ranks (N players; ties by Breslow's rule), maximum likelihood "
    "with a weak prior (sd {sd:g} on log strength); {level:.0%} Wald interval on the penalised fit"
)
PAIRS_METHOD = (
    "Bradley-Terry-Davidson on the pairs of each match (N players: N(N-1)/2 results a match, a tie "
    "a draw), maximum likelihood with a weak prior (sd {sd:g} on log strength); {level:.0%} Wald "
    "interval clustered by match (the pairs of a match are not independent)"
)
GROUP_PAYOFF_METHOD = (
    "additive model of each seat's payoff (earned - the mean of the others' conceded, N players), "
    "least squares; rating = payoff against the others of its group, each met equally often; "
    "{level:.0%} t interval"
)


def more_than_two_seats(table: pd.DataFrame) -> bool:
    """Whether any match of the table has more than two rows (players)."""
    return bool(len(table)) and int(table.groupby("match_id", sort=False).size().max()) > 2


def group_rows(
    game: str,
    table: pd.DataFrame,
    outcomes: Outcomes,
    currency: RankedOn,
    options: LadderOptions,
) -> list[dict[str, object]]:
    match = pd.factorize(table["match_id"])[0].astype(np.int64)  # in the table's order
    agent_codes, keys_index = pd.factorize(table["agent"])
    agent = agent_codes.astype(np.int64)
    keys = [str(key) for key in keys_index]
    rank = table["rank"].to_numpy(dtype=np.int64)
    payoff = table["payoff"].to_numpy(dtype=float)
    k = len(keys)
    matches = GroupMatches.from_rows(match, agent, rank)
    first, second, result = pair_reduction(matches)
    component = components(first, second, k)
    record = _records(match, agent, payoff, table["run_id"].to_numpy(), first, second, result, k)
    names = [outcomes.agents[key].name for key in keys]

    def fit_group(group: int, members: np.ndarray, local: np.ndarray) -> Fitted:
        rows = component[agent] == group
        group_match = np.unique(match[rows], return_inverse=True)[1].ravel()
        if currency == "payoff":
            fit = group_payoff_model(
                group_match, local[agent[rows]], payoff[rows], len(members),
                confidence=options.confidence,
            )  # fmt: skip
            return payoff_fields(fit, GROUP_PAYOFF_METHOD.format(level=options.confidence))
        pairs = component[first] == group
        one, two = local[first[pairs]], local[second[pairs]]
        member_names = [names[m] for m in members]
        ranked = GroupMatches.from_rows(group_match, local[agent[rows]], rank[rows])
        if options.n_player == "pairs":
            fitted = pairs_bradley_terry(ranked, len(members), confidence=options.confidence)
            method, nu = PAIRS_METHOD, fitted.nu
        else:
            fitted = plackett_luce(ranked, len(members), confidence=options.confidence)
            method, nu = PL_METHOD, float("nan")
        shown = method.format(sd=PRIOR_SD, level=options.confidence)
        fields = elo_fields(fitted.theta, fitted.ci_low, fitted.ci_high, shown, nu)
        reasons = unidentified_on_wins(one, two, result[pairs], member_names)
        return fields, [[reason] if reason else [] for reason in reasons]

    return rated_rows(
        game,
        currency,
        keys,
        outcomes,
        component,
        record,
        fit_group,
        openskill_ranks(matches, k) if currency == "wins" else None,
    )


def _records(
    match: np.ndarray,
    agent: np.ndarray,
    payoff: np.ndarray,
    run_ids: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    result: np.ndarray,
    k: int,
) -> list[dict[str, Any]]:
    """Matches, per-pair wins, draws and losses, runs and the mean payoff per match of each
    agent (its seats' mean)."""
    wins = np.bincount(first[result == "a"], minlength=k) + np.bincount(
        second[result == "b"], minlength=k
    )
    losses = np.bincount(first[result == "b"], minlength=k) + np.bincount(
        second[result == "a"], minlength=k
    )
    drawn = result == "draw"
    draws = np.bincount(first[drawn], minlength=k) + np.bincount(second[drawn], minlength=k)
    played = pd.DataFrame({"match": match, "agent": agent, "run": run_ids})
    matches = played.drop_duplicates(["match", "agent"]).groupby("agent").size()
    runs = played.drop_duplicates(["run", "agent"]).groupby("agent").size()
    seats = np.bincount(agent, minlength=k)
    mean_payoff = np.bincount(agent, payoff, minlength=k) / seats
    return [
        {
            "matches": int(matches.get(i, 0)),
            "wins": int(wins[i]),
            "draws": int(draws[i]),
            "losses": int(losses[i]),
            "runs": int(runs.get(i, 0)),
            "mean_payoff": float(mean_payoff[i]),
        }
        for i in range(k)
    ]
