"""A Hydra sweep as one run: each job writes a shard (a run dir of one condition) under
`<run_dir>/shards/`, and merging concatenates them into the run dir's own artifacts.

Shards are merged in the order of their condition names, so a serial sweep, a joblib sweep and a
SLURM sweep of the same grid produce the same rounds.jsonl.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

from pdbench.storage import jsonl
from pdbench.storage.manifest import (
    STATUS_COMPLETE,
    STATUS_FAILED,
    STATUS_STARTED,
    sum_calls,
    utc_now,
)
from pdbench.storage.run_store import read_ledger, read_manifest
from pdbench.storage.schema import LEDGER_FILE, MANIFEST_FILE, ROUNDS_FILE, SHARDS_DIR


def shard_dir_name(condition: str) -> str:
    """A file-system-safe folder name for a condition, unique through a short hash."""
    safe = re.sub(r"[^A-Za-z0-9_.=,+-]+", "_", condition)[:80]
    return f"{safe}-{hashlib.sha256(condition.encode()).hexdigest()[:6]}"


def shard_dirs(run_dir: Path) -> list[Path]:
    folder = run_dir / SHARDS_DIR
    if not folder.is_dir():
        return []
    shards = [d for d in folder.iterdir() if (d / MANIFEST_FILE).exists()]
    return sorted(shards, key=lambda d: read_manifest(d)["conditions"][0])


def merge_shards(run_dir: Path) -> dict[str, Any]:
    """Write the run dir's rounds.jsonl, matches.jsonl and run_manifest.json from its shards."""
    shards = shard_dirs(run_dir)
    manifests = [read_manifest(d) for d in shards]
    rounds_tmp = run_dir / (ROUNDS_FILE + ".tmp")
    ledger_tmp = run_dir / (LEDGER_FILE + ".tmp")
    offset = 0
    with rounds_tmp.open("wb") as rounds_out, ledger_tmp.open("wb") as ledger_out:
        for shard in shards:
            ledger = read_ledger(shard)
            end = max((entry["rounds_end_offset"] for entry in ledger), default=0)
            with (shard / ROUNDS_FILE).open("rb") as rounds_in:
                rounds_out.write(rounds_in.read(end))
            for entry in ledger:
                shifted = {**entry, "rounds_end_offset": entry["rounds_end_offset"] + offset}
                ledger_out.write(jsonl.dump_line(shifted))
            offset += end
    os.replace(rounds_tmp, run_dir / ROUNDS_FILE)
    os.replace(ledger_tmp, run_dir / LEDGER_FILE)

    statuses = {m["status"] for m in manifests}
    if statuses == {STATUS_COMPLETE}:
        status = STATUS_COMPLETE
    elif STATUS_FAILED in statuses:
        status = STATUS_FAILED
    else:
        status = STATUS_STARTED
    first = manifests[0] if manifests else {}
    merged = {
        "run_id": run_dir.name,
        "status": status,
        "kind": "sweep",
        "started_utc": min((m["started_utc"] for m in manifests), default=utc_now()),
        "updated_utc": utc_now(),
        "config_source": first.get("config_source"),
        "config_hash": hashlib.sha256(
            "".join(m["config_hash"] for m in manifests).encode()
        ).hexdigest(),
        "conditions": [m["conditions"][0] for m in manifests],
        "config": {m["conditions"][0]: m["config"] for m in manifests},
        "referenced_files": {k: v for m in manifests for k, v in m["referenced_files"].items()},
        "hydra_overrides": {m["conditions"][0]: m["hydra_overrides"] for m in manifests},
        "shards": {
            m["conditions"][0]: str(d.relative_to(run_dir))
            for m, d in zip(manifests, shards, strict=True)
        },
        "run_seed": first.get("run_seed"),
        "collapse": first.get("collapse"),
        "replicates": first.get("replicates"),
        "matches": {
            "planned": sum(m["matches"]["planned"] for m in manifests),
            "completed": sum(m["matches"]["completed"] for m in manifests),
            "failed": [f for m in manifests for f in m["matches"]["failed"]],
        },
        "seeds": [s for m in manifests for s in m["seeds"]],
        "provider_calls": sum_calls([m["provider_calls"] for m in manifests]),
        "provider_calls_by_condition": {
            k: v for m in manifests for k, v in m["provider_calls_by_condition"].items()
        },
        **{
            k: first.get(k)
            for k in ("python_version", "python_executable", "platform", "packages", "git")
        },
    }
    jsonl.write_json_atomic(run_dir / MANIFEST_FILE, merged)
    return merged
