"""One game's rows of the ladder table: a rating per agent in the game's currency, its interval,
its record, and whether the data identify it (`identified`, and `flag` saying why not).

A rating is flagged, and not shown as knowledge, when

- on wins, its agent (or its group) won or lost every match against some others: no finite
  maximum-likelihood rating, the prior sets it and its interval (pdbench.ladder.ratings);
- on payoff, the design does not determine it (its agent met too few different opponents to tell
  what it earns from what they concede), no degrees of freedom are left to estimate the noise,
  or every payoff is exactly what the model says (a zero-width interval that is no certainty);
- its agent played fewer than FEW_MATCHES matches (the rating leans on the prior, on wins, or on
  a handful of residuals, on payoff; its interval is not too narrow there, the coverage
  simulation measures 0.97-0.99, but the rating is mostly not the data's);
- the game's agents fall into groups that never met: ratings compare only within a group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from pdbench.ladder.outcomes import Outcomes, RankedOn, pair_matches
from pdbench.ladder.payoff_ratings import PayoffFit, payoff_model
from pdbench.ladder.ratings import PRIOR_SD, bradley_terry, components, openskill, to_elo
from pdbench.ladder.ratings import unidentified as unidentified_on_wins

NPlayerModel = Literal["pl", "pairs"]

# Fewer matches than this and a rating is flagged (docs/ladder.md, "Ratings the data do not
# identify"): below it a rating on wins is mostly the prior's.
FEW_MATCHES = 10


@dataclass(frozen=True)
class LadderOptions:
    """How `pdbench ladder` ranks (here, with the rows it shapes; pdbench.ladder.build uses it)."""

    rank_on: RankedOn | None = None  # None: each game's own default
    confidence: float = 0.95
    # matches of more than two players on wins: Plackett-Luce on their ranks ("pl") or
    # Bradley-Terry-Davidson on their pairs ("pairs"); out of the repr (and so of a two-player
    # ladder's inputs hash, pdbench.ladder.build), which it does not change
    n_player: NPlayerModel = field(default="pl", repr=False)


WINS_METHOD = (
    "Bradley-Terry-Davidson, maximum likelihood with a weak prior (sd {sd:g} on log strength); "
    "{level:.0%} Wald interval on the penalised fit"
)
PAYOFF_METHOD = (
    "additive model of each seat's payoff (earned - conceded by the opponent), least squares; "
    "rating = payoff against the others of its group, each met equally often; {level:.0%} t "
    "interval"
)


def game_rows(
    game: str,
    table: pd.DataFrame,
    outcomes: Outcomes,
    currency: RankedOn,
    options: LadderOptions,
) -> list[dict[str, object]]:
    matches = pair_matches(table)
    keys = list(dict.fromkeys([*matches.agent_a, *matches.agent_b]))
    index = {key: n for n, key in enumerate(keys)}
    first = np.array([index[a] for a in matches.agent_a], dtype=np.int64)
    second = np.array([index[b] for b in matches.agent_b], dtype=np.int64)
    result = matches.result
    k = len(keys)
    component = components(first, second, k)
    record = _records(first, second, result, matches, k)
    if currency == "wins":
        mu, sigma, ordinal = openskill(first, second, result, k)
    names = [outcomes.agents[key].name for key in keys]

    def fit_group(group: int, members: np.ndarray, local: np.ndarray) -> Fitted:
        inside = component[first] == group
        one, two = local[first[inside]], local[second[inside]]
        if currency == "wins":
            return _on_wins(one, two, result[inside], [names[m] for m in members], options)
        return _on_payoff(
            one, two, matches.payoff_a[inside], matches.payoff_b[inside], len(members), options
        )

    return rated_rows(
        game,
        currency,
        keys,
        outcomes,
        component,
        record,
        fit_group,
        (mu, sigma, ordinal) if currency == "wins" else None,
    )


Fitted = tuple[dict[str, np.ndarray], list[list[str]]]  # rating fields per agent, flags per agent


def rated_rows(
    game: str,
    currency: RankedOn,
    keys: list[str],
    outcomes: Outcomes,
    component: np.ndarray,
    record: list[dict[str, Any]],
    fit_group: Callable[[int, np.ndarray, np.ndarray], Fitted],
    openskill_columns: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
) -> list[dict[str, object]]:
    """The rating rows of one game's agents (`keys`, in the index order of `component` and
    `record`), each component fitted by `fit_group(group, members, local index of every agent)`,
    and a note when the agents fall into groups that never met."""
    k = len(keys)
    names = [outcomes.agents[key].name for key in keys]
    groups = sorted(set(component.tolist()))
    rows: list[dict[str, object]] = []
    for group in groups:
        members = np.flatnonzero(component == group)
        local = np.full(k, -1, dtype=np.int64)
        local[members] = np.arange(len(members))
        fields, reasons = fit_group(group, members, local)
        ranked = fields["rating"]
        rounded = np.round(np.where(np.isnan(ranked), -np.inf, ranked), 6)
        # equal ratings share a rank (1, 2, 2, 4): ALLC and TFT drawing everyone alike are tied
        order = np.lexsort((np.arange(len(members)), -rounded))
        for n in order:
            agent = int(members[n])
            flags = list(reasons[n])
            if record[agent]["matches"] < FEW_MATCHES:
                flags.append(f"only {record[agent]['matches']} matches (fewer than {FEW_MATCHES})")
            if len(groups) > 1:
                flags.append(f"group {group} of {len(groups)}: compared only within its group")
            identity = outcomes.agents[keys[agent]]
            row: dict[str, object] = {
                "table": "rating",
                "game": game,
                "ranked_on": currency,
                "component": group,
                "rank": pd.NA if np.isnan(ranked[n]) else 1 + int(np.sum(rounded > rounded[n])),
                "agent": identity.name,
                "agent_key": identity.key,
                "kind": identity.kind,
                **{name: values[n] for name, values in fields.items()},
                "identified": not flags,
                "flag": "; ".join(flags) or None,
                **record[agent],
            }
            if openskill_columns is not None:
                mu, sigma, ordinal = openskill_columns
                row |= {
                    "openskill_mu": float(mu[agent]),
                    "openskill_sigma": float(sigma[agent]),
                    "openskill_ordinal": float(ordinal[agent]),
                }
            rows.append(row)
    if len(groups) > 1:
        listed = [", ".join(names[i] for i in np.flatnonzero(component == g)) for g in groups]
        rows.append(
            {
                "table": "note",
                "game": game,
                "ranked_on": currency,
                "note": f"{len(groups)} groups never compared with each other: "
                + " | ".join(f"{g}: {n}" for g, n in zip(groups, listed, strict=True))
                + "; ratings compare only within a group",
            }
        )
    return rows


def _on_wins(
    first: np.ndarray,
    second: np.ndarray,
    result: np.ndarray,
    names: list[str],
    options: LadderOptions,
) -> tuple[dict[str, np.ndarray], list[list[str]]]:
    fit = bradley_terry(first, second, result, len(names), confidence=options.confidence)
    method = WINS_METHOD.format(sd=PRIOR_SD, level=options.confidence)
    fields = elo_fields(fit.theta, fit.ci_low, fit.ci_high, method, fit.nu)
    reasons = [
        [reason] if reason else [] for reason in unidentified_on_wins(first, second, result, names)
    ]
    return fields, reasons


def elo_fields(
    theta: np.ndarray, ci_low: np.ndarray, ci_high: np.ndarray, method: str, nu: float
) -> dict[str, np.ndarray]:
    """A group's ladder columns from a rating fit on the log scale: ratings and interval on the
    Elo scale, the method's sentence and the draw propensity (nan where the model has none)."""
    k = len(theta)
    return {
        "rating": to_elo(theta),
        "ci_low": to_elo(ci_low),
        "ci_high": to_elo(ci_high),
        "unit": np.full(k, "Elo", dtype=object),
        "interval": np.full(k, method, dtype=object),
        "theta": theta,
        "draw_nu": np.full(k, nu),
    }


def _on_payoff(
    first: np.ndarray,
    second: np.ndarray,
    payoff_first: np.ndarray,
    payoff_second: np.ndarray,
    k: int,
    options: LadderOptions,
) -> tuple[dict[str, np.ndarray], list[list[str]]]:
    fit = payoff_model(first, second, payoff_first, payoff_second, k, confidence=options.confidence)
    return payoff_fields(fit, PAYOFF_METHOD.format(level=options.confidence))


def payoff_fields(fit: PayoffFit, method: str) -> Fitted:
    """The rating fields and flags of a payoff fit (two players or N)."""
    k = len(fit.rating)
    fields = {
        "rating": fit.rating,
        "ci_low": fit.ci_low,
        "ci_high": fit.ci_high,
        "unit": np.full(k, "payoff", dtype=object),
        "interval": np.full(k, method, dtype=object),
        "noise_sd": np.full(k, fit.noise_sd),
    }
    reasons: list[list[str]] = []
    for agent in range(k):
        flags = []
        if not fit.estimable[agent]:
            flags.append(
                "not determined by the design: it met too few different opponents to tell what "
                "it earns from what they concede"
            )
        elif fit.df <= 0:
            flags.append("no degrees of freedom left to estimate the noise: no interval")
        elif fit.noise_sd == 0:
            flags.append(
                "every payoff is exactly what the model says: the interval's zero width is no "
                "certainty"
            )
        reasons.append(flags)
    return fields, reasons


def _records(
    first: np.ndarray, second: np.ndarray, result: np.ndarray, matches, k: int
) -> list[dict[str, Any]]:
    """Matches, wins, draws, losses, runs and the mean payoff per match of each agent."""
    wins = np.bincount(first[result == "a"], minlength=k) + np.bincount(
        second[result == "b"], minlength=k
    )
    losses = np.bincount(first[result == "b"], minlength=k) + np.bincount(
        second[result == "a"], minlength=k
    )
    draws = np.bincount(first[result == "draw"], minlength=k) + np.bincount(
        second[result == "draw"], minlength=k
    )
    payoff = np.bincount(first, matches.payoff_a, minlength=k) + np.bincount(
        second, matches.payoff_b, minlength=k
    )
    run_ids = matches.table["run_id"].to_numpy()
    runs = [
        len(set(run_ids[first == i].tolist()) | set(run_ids[second == i].tolist()))
        for i in range(k)
    ]
    return [
        {
            "matches": int(wins[i] + losses[i] + draws[i]),
            "wins": int(wins[i]),
            "draws": int(draws[i]),
            "losses": int(losses[i]),
            "runs": runs[i],
            "mean_payoff": float(payoff[i] / (wins[i] + losses[i] + draws[i])),
        }
        for i in range(k)
    ]
