"""A Hydra sweep as one run: each job writes a shard (a run dir of one condition) under
`<run_dir>/shards/`, and merging concatenates them into the run dir's own artifacts.

Shards are merged in the order of their condition names, so a serial sweep, a joblib sweep and a
SLURM sweep of the same grid produce the same rounds.jsonl.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path

import orjson

from pdbench.storage import jsonl
from pdbench.storage.manifest import RunManifest, merge_manifests
from pdbench.storage.run_store import read_ledger, read_manifest, write_manifest
from pdbench.storage.safe_files import replacing
from pdbench.storage.schema import LEDGER_FILE, MANIFEST_FILE, ROUNDS_FILE, SHARDS_DIR

SWEEP_PLAN_FILE = "sweep_plan.json"  # the conditions a sweep launched
# In the sweep plan of a sweep begun since deals are keyed: its jobs copy the sweep's deal key
# (made by the first job). A sweep plan without it and no key beside it is of an older sweep,
# whose jobs deal as its first ones did (pdbench.storage.deal_key.sweep_deal).
KEYED_PLAN = {"deal": "keyed"}


def shard_dir_name(condition: str) -> str:
    """A file-system-safe folder name for a condition, unique through a short hash."""
    safe = re.sub(r"[^A-Za-z0-9_.=,+-]+", "_", condition)[:80]
    return f"{safe}-{hashlib.sha256(condition.encode()).hexdigest()[:6]}"


def shard_dirs(run_dir: Path) -> list[Path]:
    """The shards of a sweep, in the order of their condition names."""
    folder = run_dir / SHARDS_DIR
    if not folder.is_dir():
        return []
    shards = [d for d in folder.iterdir() if (d / MANIFEST_FILE).exists()]
    return sorted(shards, key=lambda d: read_manifest(d).conditions[0])


def begun_before_deal_keys(sweep_dir: Path) -> bool:
    """Whether a sweep folder's plan was written by a pdbench older than deal keys."""
    plan_path = sweep_dir / SWEEP_PLAN_FILE
    if not plan_path.is_file():
        return False
    try:
        plan = orjson.loads(plan_path.read_bytes())
    except orjson.JSONDecodeError:
        return False
    return isinstance(plan, dict) and plan.get("deal") != KEYED_PLAN["deal"]


def sweep_of(run_dir: Path) -> Path | None:
    """The sweep folder a run dir belongs to when it is one of its shards (`<sweep>/shards/<job>`),
    else None."""
    run_dir = run_dir.resolve()
    if run_dir.parent.name == SHARDS_DIR and (run_dir / MANIFEST_FILE).is_file():
        return run_dir.parent.parent
    return None


def merge_shards(run_dir: Path, expected_conditions: list[str] | None = None) -> RunManifest:
    """Write the run dir's rounds.jsonl, matches.jsonl and run_manifest.json from its shards.

    `expected_conditions` (the grid the sweep launched, remembered in the sweep dir for later
    merges) makes a sweep whose jobs did not all write a shard incomplete, never complete."""
    plan_path = run_dir / SWEEP_PLAN_FILE
    if expected_conditions is not None:
        plan = orjson.loads(plan_path.read_bytes()) if plan_path.exists() else {}
        jsonl.write_json_atomic(plan_path, {**plan, "conditions": expected_conditions})
    elif plan_path.exists():
        expected_conditions = list(orjson.loads(plan_path.read_bytes())["conditions"])
    shards = shard_dirs(run_dir)
    manifests = [read_manifest(d) for d in shards]
    offset = 0
    # Temporaries of this process's own, removed on any failure (storage.safe_files).
    # The ledger is replaced after the rounds it vouches for (the inner block ends first).
    with (
        replacing(run_dir / LEDGER_FILE) as ledger_tmp,
        replacing(run_dir / ROUNDS_FILE) as rounds_tmp,
        rounds_tmp.open("wb") as rounds_out,
        ledger_tmp.open("wb") as ledger_out,
    ):
        for shard in shards:
            ledger = read_ledger(shard)
            end = max((entry.rounds_end_offset or 0 for entry in ledger), default=0)
            if end:  # a job that failed before its first match wrote no rounds
                with (shard / ROUNDS_FILE).open("rb") as rounds_in:
                    rounds_out.write(rounds_in.read(end))
            for entry in ledger:
                shifted = dataclasses.replace(
                    entry, rounds_end_offset=(entry.rounds_end_offset or 0) + offset
                )
                ledger_out.write(shifted.to_json())
            offset += end
    present = {m.conditions[0] for m in manifests if m.conditions}
    missing = sorted(set(expected_conditions or []) - present)
    merged = merge_manifests(
        run_dir.name,
        manifests,
        shard_paths=[str(d.relative_to(run_dir)) for d in shards],
        missing_conditions=missing,
    )
    write_manifest(run_dir, merged)
    return merged


def claim_sweep_dir(run_dir: Path, sweep: str, conditions: list[str]) -> None:
    """Before a sweep launches: its run dir is new, or holds this very sweep (a resume). Another
    sweep under the same run id (other settings, another grid) or a single run is refused, never
    merged into (PdbenchError, exit 2); so is a folder holding a symbolic link."""
    from pdbench.core.errors import PdbenchError
    from pdbench.storage.safe_files import refuse_links

    refuse_links(run_dir)
    plan_path = run_dir / SWEEP_PLAN_FILE
    plan: dict = {}
    if plan_path.exists():
        try:
            plan = dict(orjson.loads(plan_path.read_bytes()))
        except (orjson.JSONDecodeError, TypeError, ValueError) as error:
            raise PdbenchError(f"{plan_path}: not a sweep plan ({error})") from None
    elif (run_dir / MANIFEST_FILE).exists():
        raise PdbenchError(
            f"{run_dir} already holds a single run, not a sweep; it is never merged into: pass "
            "another run.run_id=..."
        )
    known = plan.get("sweep_id")
    same_grid = sorted(plan.get("conditions", conditions)) == sorted(conditions)
    if (known is not None and known != sweep) or not same_grid:
        shown = f"sweep {known}, this one {sweep}" if known else "another grid"
        raise PdbenchError(
            f"{run_dir} already holds another sweep ({shown}: other settings, grid or config "
            "files); it is never merged into: pass another run.run_id=..."
        )
    run_dir.mkdir(parents=True, exist_ok=True)
    keyed = KEYED_PLAN if not plan_path.exists() else {}  # an older sweep stays as it began
    jsonl.write_json_atomic(
        plan_path, {**keyed, **plan, "sweep_id": sweep, "conditions": conditions}
    )
