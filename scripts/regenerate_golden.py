"""Regenerate tests/golden/rounds.jsonl and aggregates.parquet from tests/golden/experiment.yaml.

Run it only when a change in behaviour is intended, and say why in the commit:
    uv run python scripts/regenerate_golden.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
GOLDEN = PROJECT / "tests" / "golden"


def _run(output_dir: Path) -> Path:
    """Run the golden experiment into output_dir; its run dir."""
    import os

    from pdbench.runners.experiment import run_experiment
    from pdbench.runners.prepare import load

    os.environ["PDBENCH_CACHE_DIR"] = str(output_dir / "cache")
    loaded = load(
        GOLDEN / "experiment.yaml",
        [f"run.output_dir={output_dir}"],
        run_id="golden",
        project_root=PROJECT,
    )
    return run_experiment(loaded).run_dir


def golden_rounds(output_dir: Path) -> bytes:
    """Run the golden experiment into output_dir and return its rounds without run-local fields."""
    import orjson

    lines = []
    for line in (_run(output_dir) / "rounds.jsonl").read_bytes().splitlines():
        record = orjson.loads(line)
        record.pop("timestamp_utc")
        lines.append(orjson.dumps(record, option=orjson.OPT_SORT_KEYS))
    return b"\n".join(lines) + b"\n"


def golden_aggregates(output_dir: Path) -> bytes:
    """Run the golden experiment into output_dir and return its aggregates.parquet."""
    return (_run(output_dir) / "aggregates.parquet").read_bytes()


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        (GOLDEN / "rounds.jsonl").write_bytes(golden_rounds(Path(folder) / "rounds"))
    with tempfile.TemporaryDirectory() as folder:
        (GOLDEN / "aggregates.parquet").write_bytes(golden_aggregates(Path(folder)))
    print(f"wrote {GOLDEN / 'rounds.jsonl'} and {GOLDEN / 'aggregates.parquet'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
