"""Match outcomes: the ladder's only input, one row per player of every finished match.

A match's rows share its `match_id` and say who played in which seat (an agent identity key),
the seat's score (what decides the match: a 2x2 game's total payoff, a turn game's score), its
payoff (what it earned: a 2x2 game's mean payoff per round, a turn game's score) and its rank in
the match (1 for the best score, equal scores share a rank). Two rows make a pair's match; a game
of N players gives N rows with their ranks (rated by pdbench.ladder.group_rows).

Each game's entry names the reader that turns its matches in a run dir into these rows
(`TurnGameEntry.outcomes`, asked by pdbench.ladder.readers for every run; by default
pdbench.ladder.replay_reader, the 2x2 games' pdbench.games.matrix.outcomes), and each checks what
it reads before it counts: a 2x2 round must pay what the game pays for the moves stored, a turn game's scores are
those of its stored actions replayed through the rules. A run folder holding a symbolic link is
refused (one line naming it), as every command refuses it.

Only finished matches that pass count: a match an agent aborted, one a crash cut short, one that
fails a check, and self-play (the same agent on both sides compares nothing) are left out, and
`Skipped` says which and why.

A match's identity is what determines it, not where it is stored: its condition's settings, the
two agents, its replicate and seeds, and the content of its rounds (moves and payoffs, or actions
and outcome). A copy of a run under another run id holds the same matches and counts once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import orjson
import pandas as pd

from pdbench.config.agent_identity import AgentIdentity
from pdbench.core.errors import PdbenchError
from pdbench.core.seats import stored_seat_agents
from pdbench.storage.manifest import RunManifest

if TYPE_CHECKING:
    from pdbench.config.game_spec import GameSpec

RankedOn = Literal["wins", "payoff"]

OUTCOME_COLUMNS = [
    "game",
    "run_id",
    "condition",
    "replicate",
    "match_id",  # sha256 of what determines the match (see match_id)
    "seat",  # "a", "b" (N players: more seats)
    "agent",  # identity key
    "score",  # what decides the match
    "payoff",  # what the seat earned (2x2: mean per round)
    "rank",  # 1 for the best score of the match; equal scores share a rank
]


@dataclass(frozen=True)
class Skipped:
    run_id: str
    condition: str
    replicate: int | None
    reason: str


@dataclass
class Outcomes:
    """Outcome rows (OUTCOME_COLUMNS), the agents they name by key, what was left out, and per
    game its default currency (what its community ranks on) and what its payoffs are."""

    table: pd.DataFrame
    agents: dict[str, AgentIdentity] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)
    ranked_on: dict[str, RankedOn] = field(default_factory=dict)
    payoff_units: dict[str, str] = field(default_factory=dict)

    @classmethod
    def concatenate(cls, parts: Sequence[Outcomes]) -> Outcomes:
        tables = [p.table for p in parts if len(p.table)]
        table = (
            pd.concat(tables, ignore_index=True)
            if tables
            else pd.DataFrame(columns=OUTCOME_COLUMNS)
        )
        agents = {key: agent for p in parts for key, agent in p.agents.items()}
        ranked_on = {game: currency for p in parts for game, currency in p.ranked_on.items()}
        units = {game: unit for p in parts for game, unit in p.payoff_units.items()}
        return cls(table, agents, [s for p in parts for s in p.skipped], ranked_on, units)


def outcome_table(
    game: str | Sequence[str],
    run_id: str,
    conditions: Sequence[str],
    replicates: Sequence[int],
    agents_a: Sequence[str],
    agents_b: Sequence[str],
    scores_a: Sequence[float],
    scores_b: Sequence[float],
    payoffs_a: Sequence[float] | None = None,
    payoffs_b: Sequence[float] | None = None,
    match_ids: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The outcome rows of two-player matches given as columns (the one way a reader, or a test
    writing a population synthetically, makes them). Payoffs default to the scores; match ids to
    a hash of (run id, condition, replicate)."""
    score_a = np.asarray(scores_a, dtype=float)
    score_b = np.asarray(scores_b, dtype=float)
    n = len(score_a)
    games = [game] * n if isinstance(game, str) else list(game)
    if match_ids is None:
        match_ids = [
            _digest({"run": run_id, "condition": c, "replicate": int(r)})
            for c, r in zip(conditions, replicates, strict=True)
        ]
    seat_columns = {
        "a": (agents_a, score_a, score_a if payoffs_a is None else payoffs_a),
        "b": (agents_b, score_b, score_b if payoffs_b is None else payoffs_b),
    }
    parts = []
    for seat, (agents, scores, payoffs) in seat_columns.items():
        other = score_b if seat == "a" else score_a
        parts.append(
            pd.DataFrame(
                {
                    "game": games,
                    "run_id": run_id,
                    "condition": list(conditions),
                    "replicate": np.asarray(replicates, dtype=np.int64),
                    "match_id": list(match_ids),
                    "seat": seat,
                    "agent": list(agents),
                    "score": scores,
                    "payoff": np.asarray(payoffs, dtype=float),
                    "rank": np.where(scores < other, 2, 1).astype(np.int64),
                },
                columns=OUTCOME_COLUMNS,
            )
        )
    # a match's rows together, seat a first
    order = np.arange(2 * n).reshape(2, n).T.ravel()
    return pd.concat(parts, ignore_index=True).iloc[order].reset_index(drop=True)


@dataclass(frozen=True)
class PairMatches:
    """Two-player matches as aligned columns, one entry per match (in the table's order)."""

    table: pd.DataFrame  # one row per match: the seat-a row's game, run, condition, ...
    agent_a: np.ndarray
    agent_b: np.ndarray
    score_a: np.ndarray
    score_b: np.ndarray
    payoff_a: np.ndarray
    payoff_b: np.ndarray

    @property
    def result(self) -> np.ndarray:
        """ "a", "b" or "draw" per match: the higher score wins."""
        a, b = self.score_a, self.score_b
        return np.where(a > b, "a", np.where(b > a, "b", "draw"))


def pair_matches(table: pd.DataFrame) -> PairMatches:
    """The two-player matches of an outcome table (its seat a and seat b rows, by match id).
    A match of more than two seats is refused: reading its seats a and b only would drop the
    others silently (group_rows rates such tables)."""
    seats = int(table.groupby("match_id", sort=False).size().max()) if len(table) else 0
    if seats > 2:
        raise ValueError(
            f"a match of {seats} seats read as a pair: rate it from its ranks (group_rows)"
        )
    a = table[table["seat"] == "a"].reset_index(drop=True)
    b = table[table["seat"] == "b"].set_index("match_id").loc[a["match_id"]]
    return PairMatches(
        table=a,
        agent_a=a["agent"].to_numpy(dtype=object),
        agent_b=b["agent"].to_numpy(dtype=object),
        score_a=a["score"].to_numpy(dtype=float),
        score_b=b["score"].to_numpy(dtype=float),
        payoff_a=a["payoff"].to_numpy(dtype=float),
        payoff_b=b["payoff"].to_numpy(dtype=float),
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
    from pdbench.config.schema import AgentSpec

    spec = _validated(AgentSpec, agent, manifest, where)
    return spec.identity(manifest.referenced_files)


def game_spec(manifest: RunManifest, condition: str, spec: dict[str, Any]) -> GameSpec:
    """A condition's stored game spec, validated as a config would be."""
    from pdbench.config.game_spec import GameSpec

    return _validated(GameSpec, spec.get("game", {}), manifest, f"{condition}.game")


def _validated(kind: Any, value: Any, manifest: RunManifest, where: str) -> Any:
    """`value` as the config type `kind`; a stored value it refuses is one line naming the file
    and the field (PdbenchError), not a traceback."""
    from pydantic import TypeAdapter, ValidationError

    try:
        return TypeAdapter(kind).validate_python(value)
    except ValidationError as error:
        first = error.errors()[0]
        place = "".join(f".{p}" for p in first["loc"])
        raise PdbenchError(
            f"run {manifest.run_id}: run_manifest.json: {where}{place}: {first['msg']}"
        ) from None


def game_name(spec: dict[str, Any]) -> str:
    """The ladder a condition's matches count for: the game's id, and a game with a negotiation
    phase is another game than its silent form (what is said changes what is played)."""
    game = spec.get("game", {})
    name = str(game.get("id"))
    return f"{name}+talk" if game.get("negotiation") else name


@dataclass(frozen=True)
class Condition:
    """What the ladder needs of one stored condition."""

    name: str
    game: str  # as the ladder names it (game_name)
    spec: dict[str, Any]  # the condition's stored config
    agent_a: str  # identity keys
    agent_b: str
    settings: str  # sha256 of what the condition plays, its name and labels aside
    # every player seat's agent (a game of N seats: "a", "b", "c", ...; two: a and b)
    agents: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.agents:
            object.__setattr__(self, "agents", {"a": self.agent_a, "b": self.agent_b})


class Conditions:
    """The conditions of one run, read once each; the agents they name are collected."""

    def __init__(self, manifest: RunManifest, outcomes: Outcomes, payoff_unit: str) -> None:
        self.manifest = manifest
        self.outcomes = outcomes
        self.payoff_unit = payoff_unit
        self._read: dict[str, Condition] = {}

    def __getitem__(self, name: str) -> Condition:
        if name not in self._read:
            self._read[name] = self._condition(name)
        return self._read[name]

    def _condition(self, name: str) -> Condition:
        from pdbench.games.registry import default_ranked_on

        spec = condition_spec(self.manifest, name)
        # agent_a, agent_b, and a game of N seats' agent_c, agent_d, ... (or its population's)
        sides = stored_seat_agents(spec)
        seats: dict[str, str] = {}
        for side, bound in sides.items():
            agent = identify(self.manifest, bound, f"{name}.{side}")
            self.outcomes.agents[agent.key] = agent
            seats[side.removeprefix("agent_")] = agent.key
        keys = [seats["a"], seats["b"]]
        game = game_name(spec)
        self.outcomes.ranked_on[game] = default_ranked_on(str(spec.get("game", {}).get("id")))
        self.outcomes.payoff_units[game] = self.payoff_unit
        # what the condition plays: everything but its name, its labels and the agents' specs
        # (their identities stand in for them: a display name changes no match)
        plays = {
            k: v for k, v in spec.items() if k not in ("name", "factors", "population", *sides)
        }
        return Condition(name, game, spec, keys[0], keys[1], _digest(plays), seats)

    def game_spec(self, condition: Condition) -> GameSpec:
        return game_spec(self.manifest, condition.name, condition.spec)


def match_id(condition: Condition, replicate: int, seeds: dict[str, Any], content: bytes) -> str:
    """sha256 of what determines a match: its condition's settings, the two agents, its replicate
    and seeds, and its stored content (moves and payoffs, or actions and outcome). The run id and
    the folder are not part of it: a match held by two folders is one match."""
    return _digest(
        {
            "settings": condition.settings,
            "agents": [condition.agents[seat] for seat in sorted(condition.agents)],
            "replicate": int(replicate),
            "seeds": seeds,
            "content": hashlib.sha256(content).hexdigest(),
        }
    )


def _digest(value: Any) -> str:
    return hashlib.sha256(orjson.dumps(value, option=orjson.OPT_SORT_KEYS)).hexdigest()


class OutcomeRows:
    """The rows a reader collects, one match at a time."""

    def __init__(self) -> None:
        self.columns: dict[str, list[Any]] = {
            name: [] for name in ("g", "c", "r", "a", "b", "sa", "sb", "pa", "pb", "id")
        }
        self.groups: list[dict[str, Any]] = []  # matches of more than two seats, a row a seat

    def add(
        self,
        condition_name: str,
        replicate: int,
        condition: Condition,
        scores: tuple[float, float],
        payoffs: tuple[float, float],
        identity: str,
    ) -> None:
        values = (
            condition.game,
            condition_name,
            replicate,
            condition.agent_a,
            condition.agent_b,
            *scores,
            *payoffs,
            identity,
        )
        for name, value in zip(self.columns, values, strict=True):
            self.columns[name].append(value)

    def add_seats(
        self,
        condition_name: str,
        replicate: int,
        condition: Condition,
        scores: dict[str, float],
        payoffs: dict[str, float],
        identity: str,
    ) -> None:
        """A match of any number of seats (two seats: as `add`), each seat's agent the
        condition's; equal scores share a rank (1 + the seats that scored more)."""
        if set(scores) == {"a", "b"}:
            both = (scores["a"], scores["b"])
            self.add(
                condition_name, replicate, condition, both, (payoffs["a"], payoffs["b"]), identity
            )
            return
        for seat in sorted(scores):
            self.groups.append(
                {
                    "game": condition.game,
                    "condition": condition_name,
                    "replicate": int(replicate),
                    "match_id": identity,
                    "seat": seat,
                    "agent": condition.agents[seat],
                    "score": float(scores[seat]),
                    "payoff": float(payoffs[seat]),
                    "rank": 1 + sum(other > scores[seat] for other in scores.values()),
                }
            )

    def table(self, run_id: str) -> pd.DataFrame:
        c = self.columns
        pairs = outcome_table(
            c["g"], run_id, c["c"], c["r"], c["a"], c["b"], c["sa"], c["sb"], c["pa"], c["pb"],
            c["id"],
        )  # fmt: skip
        if not self.groups:
            return pairs
        groups = pd.DataFrame(self.groups).assign(run_id=run_id)[OUTCOME_COLUMNS]
        groups = groups.astype({"replicate": np.int64, "rank": np.int64})
        return pd.concat([pairs, groups] if len(pairs) else [groups], ignore_index=True)


SELF_PLAY = "self-play (the same agent on both sides)"
