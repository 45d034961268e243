"""Match outcomes: the ladder's only input, one row per finished match.

An outcome is who played (two agent identities), each side's final score and the result ("a",
"b" or "draw": the higher score wins). Every stored format has one small reader that turns a run
dir into these rows (`OUTCOME_READERS`); ratings never look at rounds, so a turn-based game whose
matches store one score per player plugs in with a reader of its own.

Only finished matches count: a match an agent aborted or that a crash cut short is skipped, and
so is self-play (the same agent on both sides compares nothing); `Skipped` says which and why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pdbench.config.agent_identity import AgentIdentity
from pdbench.core.errors import PdbenchError
from pdbench.storage.manifest import RunManifest

OUTCOME_COLUMNS = [
    "game",
    "run_id",
    "condition",
    "replicate",
    "agent_a",  # identity keys
    "agent_b",
    "score_a",
    "score_b",
    "result",  # "a", "b" or "draw"
]


@dataclass(frozen=True)
class Skipped:
    run_id: str
    condition: str
    replicate: int | None
    reason: str


@dataclass
class Outcomes:
    """Outcome rows (OUTCOME_COLUMNS), the agents they name by key, and what was left out."""

    table: pd.DataFrame
    agents: dict[str, AgentIdentity] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)

    @classmethod
    def concatenate(cls, parts: Sequence[Outcomes]) -> Outcomes:
        tables = [p.table for p in parts if len(p.table)]
        table = (
            pd.concat(tables, ignore_index=True)
            if tables
            else pd.DataFrame(columns=OUTCOME_COLUMNS)
        )
        agents = {key: agent for p in parts for key, agent in p.agents.items()}
        return cls(table, agents, [s for p in parts for s in p.skipped])


def result_of(score_a: np.ndarray, score_b: np.ndarray) -> np.ndarray:
    """ "a", "b" or "draw" per match, from the final scores."""
    return np.where(score_a > score_b, "a", np.where(score_b > score_a, "b", "draw"))


def outcome_table(
    game: str | Sequence[str],
    run_id: str,
    conditions: Sequence[str],
    replicates: Sequence[int],
    agents_a: Sequence[str],
    agents_b: Sequence[str],
    scores_a: Sequence[float],
    scores_b: Sequence[float],
) -> pd.DataFrame:
    """The outcome rows of matches given as columns (the one way a reader, or a test writing a
    population synthetically, makes them)."""
    score_a = np.asarray(scores_a, dtype=float)
    score_b = np.asarray(scores_b, dtype=float)
    return pd.DataFrame(
        {
            "game": game if isinstance(game, str) else list(game),
            "run_id": run_id,
            "condition": list(conditions),
            "replicate": np.asarray(replicates, dtype=np.int64),
            "agent_a": list(agents_a),
            "agent_b": list(agents_b),
            "score_a": score_a,
            "score_b": score_b,
            "result": result_of(score_a, score_b),
        },
        columns=OUTCOME_COLUMNS,
    )


# --- who played: the agent specs a manifest recorded --------------------------------------------


def condition_spec(manifest: RunManifest, condition: str) -> dict[str, Any]:
    """The stored spec of one condition (a run keeps a list; a sweep one config per condition)."""
    config = manifest.config
    if manifest.kind == "sweep":
        config = config.get(condition, {})
    for spec in config.get("conditions", []):
        if spec.get("name") == condition:
            return dict(spec)
    raise PdbenchError(f"run {manifest.run_id}: run_manifest.json has no config of {condition}")


def identify(manifest: RunManifest, agent: dict[str, Any], where: str) -> AgentIdentity:
    """The identity of a stored agent spec, validated as a config would be."""
    from pydantic import TypeAdapter, ValidationError

    from pdbench.config.schema import AgentSpec

    try:
        spec = TypeAdapter(AgentSpec).validate_python(agent)
    except ValidationError as error:
        first = error.errors()[0]
        place = ".".join(str(p) for p in first["loc"])
        raise PdbenchError(
            f"run {manifest.run_id}: run_manifest.json: {where}.{place}: {first['msg']}"
        ) from None
    return spec.identity(manifest.referenced_files)


def game_name(spec: dict[str, Any]) -> str:
    """The ladder a condition's matches count for: the game's id, and a game with a negotiation
    phase is another game than its silent form (what is said changes what is played)."""
    game = spec.get("game", {})
    name = str(game.get("id"))
    return f"{name}+talk" if game.get("negotiation") else name


def condition_sides(
    manifest: RunManifest, condition: str, agents: dict[str, AgentIdentity]
) -> tuple[str, str, str]:
    """A condition's game (as the ladder names it) and its two agents' keys; the identities are
    added to `agents`."""
    spec = condition_spec(manifest, condition)
    keys = []
    for side in ("agent_a", "agent_b"):
        agent = identify(manifest, spec[side], f"{condition}.{side}")
        agents[agent.key] = agent
        keys.append(agent.key)
    return game_name(spec), keys[0], keys[1]


# --- one reader per stored format ---------------------------------------------------------------


def matrix_outcomes(run_dir: Path) -> Outcomes:
    """The 2x2 family (rounds.jsonl with both payoffs per round): a side's score is its total
    payoff over the match. Finished matches only (pdbench.analysis.per_run.play)."""
    from pdbench.analysis.per_run.play import read_stored_play

    play = read_stored_play(run_dir)
    manifest = play.manifest
    run_id = manifest.run_id
    skipped = [Skipped(run_id, e.condition, e.replicate, e.reason) for e in play.left_out]
    matches = play.matches
    totals_a = np.add.reduceat(matches.payoff_a, matches.starts) if matches.keys else np.array([])
    totals_b = np.add.reduceat(matches.payoff_b, matches.starts) if matches.keys else np.array([])
    agents: dict[str, AgentIdentity] = {}
    by_condition: dict[str, tuple[str, str, str]] = {}
    rows: dict[str, list[Any]] = {name: [] for name in ("g", "c", "r", "a", "b", "sa", "sb")}
    for index, (condition, replicate) in enumerate(matches.keys):
        if condition not in by_condition:
            by_condition[condition] = condition_sides(manifest, condition, agents)
        game, key_a, key_b = by_condition[condition]
        if key_a == key_b:
            skipped.append(
                Skipped(run_id, condition, replicate, "self-play (the same agent on both sides)")
            )
            continue
        for name, value in zip(
            rows,
            (game, condition, replicate, key_a, key_b, totals_a[index], totals_b[index]),
            strict=True,
        ):
            rows[name].append(value)
    table = outcome_table(rows["g"], run_id, *(rows[n] for n in ("c", "r", "a", "b", "sa", "sb")))
    return Outcomes(table, agents, skipped)


def turn_outcomes(run_dir: Path) -> Outcomes:
    """The turn family (one rounds.jsonl line per turn, `family: "turn"`): a side's score is the
    one the rules gave it, stored in the `outcome` on the match's last line. Finished matches
    only: a match the ledger says aborted, one without a ledger line, and one whose last stored
    turn has no outcome or an error are skipped, each with its reason."""
    from pdbench.analysis.metrics.turn_aggregates import read_turns
    from pdbench.storage.reader import RunReader

    reader = RunReader.open(run_dir)
    manifest = reader.manifest()
    run_id = manifest.run_id
    ledger = {entry.key: entry for entry in reader.ledger()}
    stored: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for segment in reader.segments:
        stored.update(read_turns(segment / "rounds.jsonl"))
    skipped: list[Skipped] = []
    agents: dict[str, AgentIdentity] = {}
    by_condition: dict[str, tuple[str, str, str]] = {}
    rows: dict[str, list[Any]] = {name: [] for name in ("g", "c", "r", "a", "b", "sa", "sb")}
    order = {name: n for n, name in enumerate(manifest.conditions)}
    keys = sorted(set(stored) | set(ledger), key=lambda k: (order.get(k[0], len(order)), k[1]))
    for condition, replicate in keys:
        entry = ledger.get((condition, replicate))
        turns = stored.get((condition, replicate), [])
        outcome = turns[-1].get("outcome") if turns else None
        reason = None
        if entry is None:
            reason = "no ledger entry (the run stopped while it was being stored)"
        elif entry.error:
            reason = f"aborted: {entry.error}"
        elif outcome is None:
            reason = "its last stored turn has no outcome"
        elif outcome.get("error"):
            reason = f"aborted: {outcome['error']}"
        if reason is not None:
            skipped.append(Skipped(run_id, condition, replicate, reason))
            continue
        assert outcome is not None
        if condition not in by_condition:
            by_condition[condition] = condition_sides(manifest, condition, agents)
        game, key_a, key_b = by_condition[condition]
        if key_a == key_b:
            skipped.append(
                Skipped(run_id, condition, replicate, "self-play (the same agent on both sides)")
            )
            continue
        scores = outcome["scores"]
        for name, value in zip(
            rows,
            (game, condition, replicate, key_a, key_b, float(scores["a"]), float(scores["b"])),
            strict=True,
        ):
            rows[name].append(value)
    table = outcome_table(rows["g"], run_id, *(rows[n] for n in ("c", "r", "a", "b", "sa", "sb")))
    return Outcomes(table, agents, skipped)


# A stored format: does it hold this run's matches, and how its outcomes are read.
OUTCOME_READERS: dict[str, tuple[Callable[[RunManifest], bool], Callable[[Path], Outcomes]]] = {
    "matrix": (lambda manifest: _plays_matrix_games(manifest), matrix_outcomes),
    "turn": (lambda manifest: _plays_turn_games(manifest), turn_outcomes),
}


def _plays_turn_games(manifest: RunManifest) -> bool:
    from pdbench.games.registry import TURN_GAMES

    return all(matchup.game in TURN_GAMES for matchup in manifest.matchups.values())


def _plays_matrix_games(manifest: RunManifest) -> bool:
    from pdbench.core.game import GAMES

    return all(matchup.game in GAMES for matchup in manifest.matchups.values())


def read_outcomes(run_dir: Path) -> Outcomes:
    """The outcomes of one run dir, by the reader of its stored format."""
    from pdbench.storage.reader import RunReader

    manifest = RunReader.open(run_dir).manifest()
    for accepts, read in OUTCOME_READERS.values():
        if accepts(manifest):
            outcomes = read(run_dir)
            outcomes.table["run_id"] = manifest.run_id
            return outcomes
    games = sorted({m.game for m in manifest.matchups.values()})
    raise PdbenchError(
        f"{run_dir}: no outcome reader for game {', '.join(games)} yet "
        f"(readers: {', '.join(OUTCOME_READERS)})"
    )
