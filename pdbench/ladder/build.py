"""Outcome tables -> the ladder table (pdbench.ladder.output), per game.

The same outcomes and options give the same table byte for byte: matches are taken in the order
(run id, condition, replicate) whatever order the runs were given in, a match given twice (the
same run dir named twice, or a copy of it) counts once, and every bootstrap is seeded from the
seed, the game and the component.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdbench.core.rng import derive_seed
from pdbench.ladder.outcomes import OUTCOME_COLUMNS, Outcomes, Skipped
from pdbench.ladder.output import as_table
from pdbench.ladder.ratings import bradley_terry, components, openskill, to_elo


@dataclass(frozen=True)
class LadderOptions:
    bootstrap: int = 200  # bootstrap draws of the matches per component
    seed: int = 0
    confidence: float = 0.95


def counted(outcomes: Outcomes) -> Outcomes:
    """The outcomes in canonical order, a match given twice kept once (and said)."""
    table = outcomes.table.sort_values(
        ["run_id", "condition", "replicate"], kind="stable"
    ).reset_index(drop=True)
    twice = table.duplicated(["run_id", "condition", "replicate"])
    skipped = list(outcomes.skipped) + [
        Skipped(str(run_id), str(condition), int(replicate), "given twice (counted once)")
        for run_id, condition, replicate in table[twice][
            ["run_id", "condition", "replicate"]
        ].itertuples(index=False)
    ]
    return Outcomes(table[~twice].reset_index(drop=True), outcomes.agents, skipped)


def inputs_hash(outcomes: Outcomes, options: LadderOptions) -> str:
    """sha256 of what the ladder is computed from: the counted outcomes and the options."""
    digest = hashlib.sha256()
    digest.update(outcomes.table[OUTCOME_COLUMNS].to_csv(index=False).encode())
    digest.update(repr(options).encode())
    return digest.hexdigest()


def ladder_table(outcomes: Outcomes, options: LadderOptions) -> pd.DataFrame:
    """Every game's ratings, notes and the skipped matches (outcomes as `counted` gives them)."""
    rows: list[dict[str, object]] = []
    table = outcomes.table
    for game in sorted(table["game"].unique()):
        rows += game_rows(str(game), table[table["game"] == game], outcomes, options)
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


def game_rows(
    game: str, matches: pd.DataFrame, outcomes: Outcomes, options: LadderOptions
) -> list[dict[str, object]]:
    keys = list(dict.fromkeys([*matches["agent_a"], *matches["agent_b"]]))
    index = {key: n for n, key in enumerate(keys)}
    first = matches["agent_a"].map(index).to_numpy(dtype=np.int64)
    second = matches["agent_b"].map(index).to_numpy(dtype=np.int64)
    result = matches["result"].to_numpy(dtype=str)
    k = len(keys)
    component = components(first, second, k)
    mu, sigma, ordinal = openskill(first, second, result, k)
    record = _records(first, second, result, matches["run_id"].to_numpy(), k)
    rows: list[dict[str, object]] = []
    groups = sorted(set(component.tolist()))
    for group in groups:
        members = np.flatnonzero(component == group)
        local = {int(g): n for n, g in enumerate(members)}
        inside = np.isin(first, members)
        fit = bradley_terry(
            np.array([local[i] for i in first[inside]], dtype=np.int64),
            np.array([local[i] for i in second[inside]], dtype=np.int64),
            result[inside],
            len(members),
            bootstrap=options.bootstrap,
            seed=derive_seed(options.seed, group, f"ladder\x1f{game}"),
            confidence=options.confidence,
        )
        order = np.argsort(-fit.theta, kind="stable")
        # equal ratings share a rank (1, 2, 2, 4): ALLC and TFT drawing everyone alike are tied
        rounded = np.round(fit.theta, 6)
        for n in order:
            rank = 1 + int(np.sum(rounded > rounded[n]))
            agent = int(members[n])
            identity = outcomes.agents[keys[agent]]
            rows.append(
                {
                    "table": "rating",
                    "game": game,
                    "component": group,
                    "rank": rank,
                    "agent": identity.name,
                    "agent_key": identity.key,
                    "kind": identity.kind,
                    "rating": float(to_elo(fit.theta[n : n + 1])[0]),
                    "ci_low": float(to_elo(fit.ci_low[n : n + 1])[0]),
                    "ci_high": float(to_elo(fit.ci_high[n : n + 1])[0]),
                    "theta": float(fit.theta[n]),
                    "draw_nu": fit.nu,
                    "openskill_mu": float(mu[agent]),
                    "openskill_sigma": float(sigma[agent]),
                    "openskill_ordinal": float(ordinal[agent]),
                    **record[agent],
                    "bootstrap": fit.bootstrap,
                    "seed": options.seed,
                }
            )
    if len(groups) > 1:
        names = [
            ", ".join(outcomes.agents[keys[i]].name for i in np.flatnonzero(component == g))
            for g in groups
        ]
        rows.append(
            {
                "table": "note",
                "game": game,
                "note": f"{len(groups)} groups never compared with each other: "
                + " | ".join(f"{g}: {n}" for g, n in zip(groups, names, strict=True))
                + "; ratings compare only within a group",
            }
        )
    return rows


def _records(
    first: np.ndarray, second: np.ndarray, result: np.ndarray, run_ids: np.ndarray, k: int
) -> list[dict[str, int]]:
    """Matches, wins, draws, losses and runs per agent."""
    wins = np.bincount(first[result == "a"], minlength=k) + np.bincount(
        second[result == "b"], minlength=k
    )
    losses = np.bincount(first[result == "b"], minlength=k) + np.bincount(
        second[result == "a"], minlength=k
    )
    draws = np.bincount(first[result == "draw"], minlength=k) + np.bincount(
        second[result == "draw"], minlength=k
    )
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
        }
        for i in range(k)
    ]
