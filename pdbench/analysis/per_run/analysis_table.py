"""analysis.parquet: which strategy each agent plays, and whether conditions really differ.

A pure function of a run's stored play (finished matches, ledger, manifest; see
`pdbench.analysis.per_run.play`), the game of each condition and the options: the same inputs give the
same file, byte for byte (seeded bootstraps and permutations, rows in a fixed order, no
timestamps). No provider is called.

One long table; the `table` column says what a row is, and each table fills its own columns:

| table | one row per | columns |
|---|---|---|
| matches | condition | matches_used, matches_left_out, note (why they were left out) |
| fingerprint | agent x outcome (CC, CD, DC, DD, first) | p_c, ci_low, ci_high (Wilson), cooperations, occasions |
| sfem | agent x candidate strategy | estimator ("pooled Dal Bo-Frechette", or with `--sfem fontana` "fontana per-match"), weight, weight_se, weight_ci_low/high, single_beta, single_log_likelihood, nearest, indistinguishable; the fit's beta, tremble, beta_se, log_likelihood, converged, gradient_norm (projected, at the estimate), n_bootstrap, seed |
| profile | agent x dimension | estimator ("undefined left out", or with `--profile fontana` "fontana undefined as 0"), mean, std, n, ci_low, ci_high (over matches: Student t bent inside [0, 1], `analysis.stats.bounded`) |
| comparison | pair of conditions | metric, family, test, paired, shared_streams, n_a, n_b, n_pairs, mean_a, mean_b, difference, ci_low, ci_high, interval (t on paired differences, or Welch t; for a rate "Wilson (effective n) on paired differences" or "MOVER of Wilson (effective n), Welch df"), df, p_value, p_exact, p_floor (smallest attainable p), p_holm, zero_variance, replicates_for_half_width, note |
| replicates_needed | condition | metric, n, mean, std, half_width, replicates_for_half_width |

An agent is one side of one condition (`scope` "condition", `side` a or b, `agent` its display
name, `opponent`); in a tournament run also each player pooled over every match it played
(`scope` "player", `condition` empty, `side` "both").
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdbench.analysis.identification.fingerprints import OUTCOMES, memory_one_fingerprint
from pdbench.analysis.identification.profile import DIMENSIONS, behavioural_profile
from pdbench.analysis.identification.sfem import POOLED_ESTIMATOR, SfemResult, estimate_strategies
from pdbench.analysis.identification.sfem_fontana import ESTIMATOR as FONTANA_ESTIMATOR
from pdbench.analysis.identification.sfem_fontana import FontanaResult, estimate_per_match
from pdbench.analysis.per_run.analysis_files import DEFAULT_NAME
from pdbench.analysis.per_run.comparisons import (
    choose_family,
    comparison_rows,
    metric_samples,
    replicates_needed_rows,
)
from pdbench.analysis.per_run.play import (
    AgentBatch,
    StoredPlay,
    agent_batches,
    player_batches,
    replicate_metrics,
)
from pdbench.core.game import Game
from pdbench.core.rng import derive_seed

TABLES = ("matches", "fingerprint", "sfem", "profile", "comparison", "replicates_needed")

# Every column once, with its type, in file order (a table leaves the others empty).
COLUMNS: dict[str, str] = {
    "table": "string",
    "scope": "string",
    "condition": "string",
    "side": "string",
    "agent": "string",
    "opponent": "string",
    "n_matches": "Int64",
    "n_rounds": "Int64",
    "matches_used": "Int64",
    "matches_left_out": "Int64",
    "outcome": "string",
    "p_c": "float64",
    "cooperations": "Int64",
    "occasions": "Int64",
    "estimator": "string",
    "strategy": "string",
    "weight": "float64",
    "weight_se": "float64",
    "weight_ci_low": "float64",
    "weight_ci_high": "float64",
    "single_beta": "float64",
    "single_log_likelihood": "float64",
    "nearest": "boolean",
    "indistinguishable": "string",
    "beta": "float64",
    "tremble": "float64",
    "beta_se": "float64",
    "log_likelihood": "float64",
    "converged": "boolean",
    "gradient_norm": "float64",
    "n_bootstrap": "Int64",
    "bootstrap_unconverged": "Int64",
    "seed": "Int64",
    "dimension": "string",
    "metric": "string",
    "family": "string",
    "condition_a": "string",
    "condition_b": "string",
    "test": "string",
    "paired": "boolean",
    "n_a": "Int64",
    "n_b": "Int64",
    "n_pairs": "Int64",
    "mean_a": "float64",
    "mean_b": "float64",
    "difference": "float64",
    "mean": "float64",
    "std": "float64",
    "n": "Int64",
    "ci_low": "float64",
    "ci_high": "float64",
    "interval": "string",
    "df": "float64",
    "p_value": "float64",
    "p_exact": "boolean",
    "p_floor": "float64",
    "p_holm": "float64",
    "zero_variance": "boolean",
    "shared_streams": "boolean",
    "half_width": "float64",
    "replicates_for_half_width": "Int64",
    "note": "string",
}


@dataclass(frozen=True)
class AnalysisOptions:
    metric: str = "cooperation_rate"  # a scalar column of aggregates.parquet
    reference: str | None = None  # a condition, or with `factor` a level of it
    factor: str | None = None
    candidates: tuple[str, ...] | None = None  # None: prescriptions.DEFAULT_CANDIDATES (registered)
    n_bootstrap: int = 500  # SFEM resamples of matches
    n_permutations: int = 10_000
    seed: int = 0
    half_width: float = 0.05
    confidence: float = 0.95
    sfem: str = "pooled"  # or "fontana": Fontana et al.'s per-match estimate (sfem_fontana)
    profile: str = "pdbench"  # or "fontana": undefined dimensions scored 0, as their code does

    def __post_init__(self) -> None:
        if self.sfem not in ("pooled", "fontana"):
            raise ValueError(f'sfem must be "pooled" or "fontana", got {self.sfem!r}')
        if self.profile not in ("pdbench", "fontana"):
            raise ValueError(f'profile must be "pdbench" or "fontana", got {self.profile!r}')


def _who(agent: AgentBatch) -> dict[str, object]:
    return {
        "scope": "condition" if agent.condition is not None else "player",
        "condition": agent.condition,
        "side": agent.side,
        "agent": agent.agent,
        "opponent": agent.opponent,
        "n_matches": agent.batch.n_matches,
        "n_rounds": agent.batch.n_rounds,
    }


def fingerprint_rows(agent: AgentBatch, confidence: float) -> list[dict[str, object]]:
    fingerprint = memory_one_fingerprint(agent.batch, confidence)
    named = {**fingerprint.after, "first": fingerprint.first_round}
    return [
        {
            "table": "fingerprint",
            **_who(agent),
            "outcome": outcome,
            "p_c": rate.rate,
            "ci_low": rate.ci_low,
            "ci_high": rate.ci_high,
            "cooperations": rate.cooperations,
            "occasions": rate.occasions,
        }
        for outcome, rate in ((o, named[o]) for o in (*OUTCOMES, "first"))
    ]


def sfem_rows(agent: AgentBatch, result: SfemResult) -> list[dict[str, object]]:
    groups = {name: "=".join(group) for group in result.indistinguishable for name in group}
    fit = {
        "beta": result.beta,
        "tremble": result.tremble,
        "beta_se": result.beta_se,
        "log_likelihood": result.log_likelihood,
        "converged": result.converged,
        "gradient_norm": result.gradient_norm,
        "n_bootstrap": result.n_bootstrap,
        "bootstrap_unconverged": result.bootstrap_unconverged,
        "seed": result.seed,
    }
    nearest = result.nearest.strategy
    return [
        {
            "table": "sfem",
            **_who(agent),
            "estimator": POOLED_ESTIMATOR,
            **row,
            "nearest": row["strategy"] == nearest,
            "indistinguishable": groups.get(str(row["strategy"])),
            **fit,
        }
        for row in result.as_rows()
    ]


def fontana_sfem_rows(agent: AgentBatch, result: FontanaResult) -> list[dict[str, object]]:
    """Fontana et al.'s per-match estimate: weight (mean of per-match weights) and its standard
    error over matches; `nearest` is the largest weight (the first on ties)."""
    nearest = int(np.argmax(result.weights))
    return [
        {
            "table": "sfem",
            **_who(agent),
            "estimator": FONTANA_ESTIMATOR,
            "strategy": name,
            "weight": float(result.weights[k]),
            "weight_se": float(result.weights_se[k]),
            "nearest": k == nearest,
            "beta": result.beta,
            "tremble": 1.0 - result.beta,
        }
        for k, name in enumerate(result.candidates)
    ]


def profile_rows(
    agent: AgentBatch, confidence: float, undefined_as_zero: bool = False
) -> list[dict[str, object]]:
    profile = behavioural_profile(agent.batch, confidence, undefined_as_zero=undefined_as_zero)
    return [
        {
            "table": "profile",
            **_who(agent),
            "estimator": profile.estimator,
            "dimension": name,
            **profile.summary[name],
        }
        for name in DIMENSIONS
    ]


def shared_stream_note(play: StoredPlay, agent: AgentBatch) -> str | None:
    """For a tournament player pooled over its matches: a warning when matches from different
    conditions ran with the same seeds (common random numbers), so that they are not independent
    although the pooled Wilson intervals and bootstrap standard errors treat them as such."""
    pairs = play.players()
    if agent.condition is not None or pairs is None:
        return None
    conditions = [name for name, seats in pairs.items() if agent.agent in seats]
    sharing = [
        (a, b)
        for i, a in enumerate(conditions)
        for b in conditions[i + 1 :]
        if play.shares_seeds(a, b)
    ]
    if not sharing:
        return None
    return (
        f"pools {len(conditions)} conditions whose replicates share random streams (common random "
        "numbers, e.g. "
        f"{sharing[0][0]} and {sharing[0][1]}): its matches are not independent, so its intervals "
        "and standard errors, which assume they are, are too narrow; use the per-condition rows "
        "for inference"
    )


def coverage_rows(play: StoredPlay) -> list[dict[str, object]]:
    rows = []
    names = play.conditions + sorted(
        {entry.condition for entry in play.left_out} - set(play.conditions)
    )
    for condition in names:
        left_out = play.left_out_of(condition)
        reasons = sorted({entry.reason for entry in left_out})
        rows.append(
            {
                "table": "matches",
                "condition": condition,
                "matches_used": len(play.match_indices(condition)),
                "matches_left_out": len(left_out),
                "note": "; ".join(reasons) if reasons else None,
            }
        )
    return rows


def _sfem_seed(seed: int, agent: AgentBatch) -> int:
    # Each agent's bootstrap stream depends on who it is, not on its position in the run, so
    # adding a condition never changes another's estimate.
    who = f"sfem\x1f{agent.condition}\x1f{agent.side}\x1f{agent.agent}"
    return derive_seed(seed, 0, who)


def analyse(play: StoredPlay, games: Mapping[str, Game], options: AnalysisOptions) -> pd.DataFrame:
    """Every table of analysis.parquet for the run (module doc). `games` gives each condition's
    game (the payoffs a rule such as WSLS reads)."""
    # The comparisons' question first: a misspelt --factor is said before seconds of SFEM.
    replicates = replicate_metrics(play)
    samples = metric_samples(play, replicates, options.metric)
    family = choose_family(
        play.conditions, play.manifest.factors, reference=options.reference, factor=options.factor
    )
    agents = agent_batches(play) + _pooled_players(play, games)
    rows: list[dict[str, object]] = coverage_rows(play)
    for agent in agents:
        rows += fingerprint_rows(agent, options.confidence)
    for agent in agents:
        game = _game_of(agent, play, games)
        if options.sfem == "fontana":
            rows += fontana_sfem_rows(
                agent, estimate_per_match(agent.batch, game, options.candidates)
            )
            continue
        result = estimate_strategies(
            agent.batch,
            game,
            options.candidates,
            n_bootstrap=options.n_bootstrap,
            seed=_sfem_seed(options.seed, agent),
            confidence=options.confidence,
        )
        rows += sfem_rows(agent, result)
    for agent in agents:
        rows += profile_rows(agent, options.confidence, options.profile == "fontana")
    rows += comparison_rows(
        play,
        samples,
        family,
        metric_column=options.metric,
        n_permutations=options.n_permutations,
        confidence=options.confidence,
        half_width=options.half_width,
        seed=options.seed,
    )
    rows += [
        {"table": "comparison", "metric": options.metric, "family": family.description, "note": n}
        for n in family.skipped
    ]
    rows += replicates_needed_rows(
        samples,
        metric_column=options.metric,
        half_width=options.half_width,
        confidence=options.confidence,
    )
    notes = {
        agent.agent: shared_stream_note(play, agent) for agent in agents if agent.condition is None
    }
    for row in rows:
        if row.get("scope") == "player" and notes.get(str(row["agent"])):
            row["note"] = notes[str(row["agent"])]
    return as_table(rows)


def _pooled_players(play: StoredPlay, games: Mapping[str, Game]) -> list[AgentBatch]:
    """A tournament's players pooled over their matches, when every condition plays one game
    (pooling moves made under different payoffs would mix two experiments)."""
    if len({games[name].payoffs for name in play.conditions}) > 1:
        return []
    return player_batches(play)


def _game_of(agent: AgentBatch, play: StoredPlay, games: Mapping[str, Game]) -> Game:
    return games[agent.condition if agent.condition is not None else play.conditions[0]]


def as_table(rows: Sequence[Mapping[str, object]]) -> pd.DataFrame:
    """The long table with every column in COLUMNS order and type (empty where not filled)."""
    frame = pd.DataFrame.from_records(list(rows), columns=list(COLUMNS))
    return frame.astype(COLUMNS)


# What an analysis asks (which comparisons, of which metric) names it; how precisely it answers
# (resamples, seed, candidates) does not: run again with other precision, it replaces its file.
# What an analysis asks, so a different question (another estimator included) gets its own file.
_NAMED_PARTS = (
    ("factor", "factor"),
    ("reference", "ref"),
    ("metric", "metric"),
    ("sfem", "sfem"),
    ("profile", "profile"),
)


# --- named analyses: several of one run side by side (files: analysis_files.py) ----------------


def analysis_name(options: AnalysisOptions) -> str:
    """The name an analysis gets from its options: `default` when it compares every pair of
    conditions on cooperation_rate, else what it asks, e.g. `factor-persona_ref-cooperative`
    (long ones end in a hash)."""
    defaults = AnalysisOptions()
    parts = []
    for field, word in _NAMED_PARTS:
        value = getattr(options, field)
        if value != getattr(defaults, field):
            parts.append(f"{word}-{value}")
    if not parts:
        return DEFAULT_NAME
    name = re.sub(r"[^A-Za-z0-9._-]+", ".", "_".join(parts)).strip(".") or "options"
    if len(name) > 80:
        name = f"{name[:60]}-{hashlib.sha256(name.encode()).hexdigest()[:12]}"
    return name
