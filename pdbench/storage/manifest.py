"""run_manifest.json: what was run, with what, by which code, and how it went.

`RunManifest` is the typed, versioned record (`format_version`); `build_manifest` is the one way a
run's manifest is made and `merge_manifests` the one way several are combined (a sweep's shards,
whether merged on disk or read in memory by the viewer).

Never holds a secret: the config snapshot comes from validated specs (which have no key fields)
and nothing is copied from the environment.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pdbench.storage.environment import environment_facts
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.schema import CallCounts

FORMAT_VERSION = 1
# The shape of the run's rounds.jsonl lines: 1, a 2x2 round per line (storage.schema.RoundRecord;
# every run before record versions, so a manifest without the field says 1); 2, a turn per line
# for every game, the 2x2 games' too (pdbench.games.matrix.stored). Turn games' lines are the
# same in both. A run goes on in the version it began in.
RECORD_VERSION = 2


STATUS_STARTED = "started"
STATUS_COMPLETE = "complete"
STATUS_FAILED = "failed"
STATUS_STOPPED = "stopped"  # cleanly stopped (cost budget reached); resumable
STATUS_INCOMPLETE = "incomplete"  # provider failures left matches unfinished; resumable
STATUS_INTERRUPTED = "interrupted"  # Ctrl-C or SIGTERM; resumable
# Every match was played, but a condition has no finished match (each one aborted): no number
# of that condition means anything. Not resumable: the aborted matches are the result.
STATUS_ABORTED = "aborted"

Status = str


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Record(BaseModel):
    # Unknown keys of a newer pdbench are ignored on reading, not an error.
    model_config = ConfigDict(extra="ignore")


class FailedMatch(_Record):
    condition: str
    replicate: int
    error: str


class MatchCounts(_Record):
    planned: int = 0
    completed: int = 0
    failed: list[FailedMatch] = Field(default_factory=list)


class MatchSeeds(_Record):
    condition: str
    replicate: int
    n_rounds: int
    horizon: int
    agent_a: int
    agent_b: int


class Matchup(_Record):
    """Who plays what in a condition, as rounds.jsonl names them (so a condition whose matches
    all ended before their first round still has its names)."""

    agent_a: str
    agent_b: str
    game: str
    horizon_type: str
    type_a: str | None = None  # the agent kinds (policy, llm, arena)
    type_b: str | None = None
    # a turn game's third roles: role -> who played it ("... (house default)": the game's own)
    third_parties: dict[str, str] = {}
    # a group game's seats beyond a and b: field (agent_c, ...) -> who played it; {} for a pair
    # (then left out of the stored manifest, which stays as it was)
    further_seats: dict[str, str] = {}


class Sampling(_Record):
    """What a condition's replicates are: independent draws, or one deterministic match
    replayed (a model at temperature 0 answers a prompt the same way every time)."""

    replicates: Literal["independent", "deterministic_replay"]
    effective_n: int


class Collapse(_Record):
    k: int = 10
    threshold: float = 0.2


class DealRecord(_Record):
    """How the run's matches were dealt: every random stream keyed (`derivation`) by the deal key
    in `file` (relative to the run folder), named by its `fingerprint` (the first 16 hex digits of
    its sha256), never the key itself. (No field name says "key": pdbench.core.redact would hide
    its value.) A manifest without it is of a run dealt before deal keys (the unkeyed derivation
    of the public seed), which resumes so (pdbench.core.rng)."""

    derivation: str
    file: str
    fingerprint: str


class RunManifest(_Record):
    """run_manifest.json. A single run has `kind` "run" and its spec in `config`; a sweep has
    `kind` "sweep", and `config` and `hydra_overrides` per condition."""

    format_version: int = FORMAT_VERSION
    record_version: int = 1  # RECORD_VERSION above; absent: a run from before record versions
    run_id: str
    kind: Literal["run", "sweep"] = "run"
    merged: bool = True  # False: a sweep read from its shards, not merged on disk yet
    status: Status = STATUS_STARTED
    error: str | None = None
    started_utc: str | None = None
    updated_utc: str | None = None
    pdbench_command: str | None = None
    config_source: str | None = None
    config_hash: str | None = None
    config: dict[str, Any] = Field(default_factory=dict)
    referenced_files: dict[str, str] = Field(default_factory=dict)
    overrides: list[str] = Field(default_factory=list)
    hydra_overrides: list[str] | dict[str, list[str]] = Field(default_factory=list)
    shards: dict[str, str] | None = None
    run_seed: int | None = None
    deal: DealRecord | None = None  # None: a run dealt before deal keys
    collapse: Collapse = Field(default_factory=Collapse)
    conditions: list[str] = Field(default_factory=list)
    # What sets each condition apart: {condition: {key: value}} (a grid's swept keys, or what an
    # experiment file declares); aggregates.parquet has a column per key.
    factors: dict[str, dict[str, str]] = Field(default_factory=dict)
    matchups: dict[str, Matchup] = Field(default_factory=dict)
    sampling: dict[str, Sampling] = Field(default_factory=dict)
    replicates: int | None = None
    matches: MatchCounts = Field(default_factory=MatchCounts)
    seeds: list[MatchSeeds] = Field(default_factory=list)
    # The one counter type (a dataclass) validated and written by pydantic as a mapping.
    provider_calls: CallCounts = Field(default_factory=CallCounts)
    provider_calls_by_condition: dict[str, CallCounts] = Field(default_factory=dict)
    spend: CallCounts = Field(
        default_factory=CallCounts
    )  # what was paid, over all attempts of the run
    # Replay cache entries that failed their checksum and were asked again, over all attempts.
    cache_rejected: int = 0
    # The price before the run (pdbench.runners.estimate), one entry per provider and model.
    estimate: list[dict[str, Any]] = Field(default_factory=list)
    # Damaged parts of rounds.jsonl / matches.jsonl that recovery moved aside (run-dir relative).
    moved_aside: list[str] = Field(default_factory=list)
    python_version: str | None = None
    python_executable: str | None = None
    platform: str | None = None
    packages: dict[str, str | None] = Field(default_factory=dict)
    git: dict[str, Any] = Field(default_factory=dict)

    def condition_config(self, condition: str) -> dict[str, Any] | None:
        """The resolved config of one condition (a sweep keeps a config per condition); None
        when the manifest does not hold it."""
        config = (self.config.get(condition) or {}) if self.kind == "sweep" else self.config
        for entry in config.get("conditions") or []:
            if isinstance(entry, dict) and entry.get("name") == condition:
                return entry
        return None

    def to_json_dict(self) -> dict[str, Any]:
        data = self.model_dump(mode="json")
        if data["shards"] is None:
            del data["shards"]
        for matchup in data["matchups"].values():
            if not matchup["further_seats"]:
                del matchup["further_seats"]
        return data


# --- the one builder ----------------------------------------------------------------------------


def build_manifest(
    *,
    run_id: str,
    status: Status,
    error: str | None,
    started_utc: str,
    command: str | None,
    config_source: str,
    config_hash: str,
    config: dict[str, Any],
    referenced_files: dict[str, str],
    overrides: Sequence[str],
    hydra_overrides: Sequence[str],
    run_seed: int,
    deal: DealRecord | None,
    collapse: Collapse,
    conditions: Sequence[str],
    factors: dict[str, dict[str, str]],
    matchups: dict[str, Matchup],
    sampling: dict[str, Sampling],
    replicates: int,
    planned: int,
    seeds: Sequence[MatchSeeds],
    ledger: Iterable[LedgerEntry],
    spend: CallCounts,
    project_root: Path,
    record_version: int = RECORD_VERSION,
) -> RunManifest:
    """A single run's manifest from the facts of its run and its ledger."""
    entries = list(ledger)
    by_condition: dict[str, CallCounts] = {}
    for entry in entries:
        by_condition[entry.condition] = (
            by_condition.get(entry.condition, CallCounts()) + entry.calls
        )
    return RunManifest(
        record_version=record_version,
        run_id=run_id,
        status=status,
        error=error,
        started_utc=started_utc,
        updated_utc=utc_now(),
        pdbench_command=command,
        config_source=config_source,
        config_hash=config_hash,
        config=config,
        referenced_files=referenced_files,
        overrides=list(overrides),
        hydra_overrides=list(hydra_overrides),
        run_seed=run_seed,
        deal=deal,
        collapse=collapse,
        conditions=list(conditions),
        factors={name: dict(f) for name, f in factors.items() if f},
        matchups=dict(matchups),
        sampling=dict(sampling),
        replicates=replicates,
        matches=MatchCounts(
            planned=planned,
            completed=len(entries),
            failed=[
                FailedMatch(condition=e.condition, replicate=e.replicate, error=e.error)
                for e in entries
                if e.error
            ],
        ),
        seeds=list(seeds),
        provider_calls=CallCounts.total(e.calls for e in entries),
        provider_calls_by_condition=by_condition,
        spend=spend,
        **environment_facts(project_root),
    )


def _job_overrides(manifest: RunManifest) -> list[str]:
    """A shard's own Hydra overrides (a shard is a single run: a list)."""
    overrides = manifest.hydra_overrides
    return list(overrides) if isinstance(overrides, list) else []


# --- the one merge ------------------------------------------------------------------------------


def merged_status(statuses: Iterable[Status], *, all_jobs_present: bool = True) -> Status:
    """A sweep is complete only when every job is there and complete; otherwise the worst of its
    jobs' statuses (failed, then interrupted, stopped, started, incomplete), and aborted when
    every job ended and one of them has no finished match."""
    found = set(statuses)
    if found == {STATUS_COMPLETE} and all_jobs_present:
        return STATUS_COMPLETE
    for status in (STATUS_FAILED, STATUS_INTERRUPTED, STATUS_STOPPED, STATUS_STARTED):
        if status in found:
            return status
    if found <= {STATUS_COMPLETE, STATUS_ABORTED} and all_jobs_present:
        return STATUS_ABORTED
    return STATUS_INCOMPLETE


def conditions_without_finished_match(
    conditions: Iterable[str], ledger: Iterable[LedgerEntry]
) -> list[str]:
    """The conditions none of whose stored matches finished (each one aborted)."""
    finished = {entry.condition for entry in ledger if not entry.error}
    return [name for name in conditions if name not in finished]


def aborted_reason(empty: Sequence[str], finished: int, planned: int) -> str:
    """The manifest's `error` of an aborted run: which conditions have nothing to show."""
    first = empty[0]
    more = f" and {len(empty) - 1} more" if len(empty) > 1 else ""
    return (
        f"no finished match in {len(empty)} condition(s) ({finished}/{planned} matches "
        f"finished), e.g. {first}{more}: every match was aborted (see matches.jsonl)"
    )


def _one_deal(manifests: Sequence[RunManifest]) -> DealRecord | None:
    """A sweep's deal: its jobs copy the sweep's one key, so their shards agree; shards dealt
    otherwise (folders copied together from different sweeps) would compare unlike deals, and
    the merge refuses them."""
    deals = {m.deal.fingerprint if m.deal else None for m in manifests}
    if len(deals) > 1:
        from pdbench.core.errors import PdbenchError

        shown = ", ".join(sorted(d or "unkeyed" for d in deals))
        raise PdbenchError(f"the sweep's shards were dealt with different keys ({shown})")
    return manifests[0].deal if manifests else None


def merge_manifests(
    run_id: str,
    manifests: Sequence[RunManifest],
    *,
    shard_paths: Sequence[str] | None = None,
    merged: bool = True,
    missing_conditions: Sequence[str] = (),
) -> RunManifest:
    """One sweep manifest from its shards' manifests (one condition each), in the given order.
    Conditions the sweep launched that wrote no shard keep it from being complete."""
    import hashlib

    first = manifests[0] if manifests else None
    names = [m.conditions[0] for m in manifests if m.conditions]
    return RunManifest(
        # shards of one sweep began together; one resumed from an older pdbench may be older
        record_version=min((m.record_version for m in manifests), default=RECORD_VERSION),
        run_id=run_id,
        kind="sweep",
        merged=merged,
        status=merged_status(
            (m.status for m in manifests), all_jobs_present=not missing_conditions
        ),
        error=(
            f"no shard for {len(missing_conditions)} condition(s), e.g. {missing_conditions[0]}"
            if missing_conditions
            # an aborted job says which condition has no finished match
            else next((m.error for m in manifests if m.status == STATUS_ABORTED), None)
        ),
        started_utc=min((m.started_utc or "" for m in manifests), default=None) or utc_now(),
        updated_utc=utc_now()
        if merged
        else max((m.updated_utc or "" for m in manifests), default=None),
        pdbench_command=first.pdbench_command if first else None,
        # every job's own overrides, once each (the job's full list is in hydra_overrides)
        overrides=sorted({o for m in manifests for o in m.overrides}),
        config_source=first.config_source if first else None,
        config_hash=hashlib.sha256(
            "".join(m.config_hash or "" for m in manifests).encode()
        ).hexdigest(),
        config={name: m.config for name, m in zip(names, manifests, strict=False)},
        referenced_files={k: v for m in manifests for k, v in m.referenced_files.items()},
        hydra_overrides={
            name: _job_overrides(m) for name, m in zip(names, manifests, strict=False)
        },
        shards=dict(zip(names, shard_paths, strict=True)) if shard_paths is not None else None,
        run_seed=first.run_seed if first else None,
        deal=_one_deal(manifests),
        collapse=first.collapse if first else Collapse(),
        conditions=names,
        factors={name: f for m in manifests for name, f in m.factors.items()},
        matchups={name: f for m in manifests for name, f in m.matchups.items()},
        sampling={name: f for m in manifests for name, f in m.sampling.items()},
        replicates=first.replicates if first else None,
        matches=MatchCounts(
            planned=sum(m.matches.planned for m in manifests)
            + len(missing_conditions) * ((first.replicates or 0) if first else 0),
            completed=sum(m.matches.completed for m in manifests),
            failed=[f for m in manifests for f in m.matches.failed],
        ),
        seeds=[s for m in manifests for s in m.seeds],
        provider_calls=CallCounts.total(m.provider_calls for m in manifests),
        provider_calls_by_condition={
            k: v for m in manifests for k, v in m.provider_calls_by_condition.items()
        },
        spend=CallCounts.total(m.spend for m in manifests),
        cache_rejected=sum(m.cache_rejected for m in manifests),
        estimate=[e for m in manifests for e in m.estimate],
        moved_aside=[
            f"{path}/{moved}" if path else moved
            for m, path in zip(manifests, shard_paths or [""] * len(manifests), strict=False)
            for moved in m.moved_aside
        ],
        python_version=first.python_version if first else None,
        python_executable=first.python_executable if first else None,
        platform=first.platform if first else None,
        packages=first.packages if first else {},
        git=first.git if first else {},
    )
