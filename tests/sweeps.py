"""A Hydra sweep run in this process in the shared copy of the committed project, and what the
sweep tests read back from its run folder (the game sweeps of issues 44 and 45: public goods,
the donor game, the mechanisms)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from in_process import Ran, run_front_door
from project_copy import command_env, shared_copy


def run_sweep(tmp_path: Path, name: str, args: list[str]) -> tuple[Path, Ran]:
    """`python -m pdbench -m <args>` into tmp_path/<name>: its one run folder and what it
    printed (the sweep must exit 0)."""
    output = tmp_path / name
    done = run_front_door(
        "module",
        ["-m", *args, f"run.output_dir={output}", f"hydra.sweep.dir={tmp_path / 'hydra' / name}"],
        cwd=shared_copy(),
        env=command_env(tmp_path),
    )
    assert done.code == 0, done.stdout + done.stderr
    (run_dir,) = [d for d in output.iterdir() if d.is_dir()]
    return run_dir, done


def stored_rounds(run_dir: Path) -> list[dict[str, Any]]:
    """rounds.jsonl's lines without what differs between two runs of one sweep (the run id,
    the times)."""
    lines = [json.loads(line) for line in (run_dir / "rounds.jsonl").read_text().splitlines()]
    for line in lines:
        line.pop("timestamp_utc"), line.pop("run_id")
    return lines


def provider_calls(run_dir: Path) -> dict[str, int]:
    """The manifest's provider call counts (live, cached, ...)."""
    counts: dict[str, int] = json.loads((run_dir / "run_manifest.json").read_text())[
        "provider_calls"
    ]
    return counts
