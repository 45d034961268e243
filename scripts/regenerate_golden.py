"""Regenerate tests/golden/rounds.jsonl and aggregates.parquet from tests/golden/experiment.yaml,
and the golden runs of every game (tests/golden/every_game/<name>.yaml -> <name>.rounds.jsonl and
<name>.matches.jsonl).

Run it only when a change in behaviour is intended, and say why in the commit:
    uv run python scripts/regenerate_golden.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
GOLDEN = PROJECT / "tests" / "golden"


EVERY_GAME = GOLDEN / "every_game"
# what a stored line holds that is the moment it was written, not what was played
RUN_LOCAL_FIELDS = {"rounds.jsonl": "timestamp_utc", "matches.jsonl": "finished_utc"}


def run_golden(output_dir: Path, experiment: Path = GOLDEN / "experiment.yaml") -> Path:
    """Run a golden experiment into output_dir; its run dir."""
    import os

    from pdbench.runners.experiment import run_experiment
    from pdbench.runners.prepare import load

    os.environ["PDBENCH_CACHE_DIR"] = str(output_dir / "cache")
    loaded = load(
        experiment,
        [f"run.output_dir={output_dir}"],
        run_id="golden",
        project_root=PROJECT,
    )
    return run_experiment(loaded).run_dir


def every_game_experiments() -> list[Path]:
    """The golden experiments of every game, one per family (a run plays one family)."""
    return sorted(EVERY_GAME.glob("*.yaml"))


def every_game_records(experiment: Path, output_dir: Path) -> dict[str, bytes]:
    """Run one every-game experiment; its rounds and matches ledger as stored, in the order
    stored, each line with its keys sorted and without the time it was written."""
    import orjson

    run_dir = run_golden(output_dir, experiment)
    records = {}
    for name, when in RUN_LOCAL_FIELDS.items():
        lines = []
        for line in (run_dir / name).read_bytes().splitlines():
            record = orjson.loads(line)
            record.pop(when)
            lines.append(orjson.dumps(record, option=orjson.OPT_SORT_KEYS))
        records[f"{experiment.stem}.{name}"] = b"\n".join(lines) + b"\n"
    return records


def golden_rounds(output_dir: Path) -> bytes:
    """Run the golden experiment into output_dir and return its rounds without run-local fields."""
    import orjson

    lines = []
    for line in (run_golden(output_dir) / "rounds.jsonl").read_bytes().splitlines():
        record = orjson.loads(line)
        record.pop("timestamp_utc")
        lines.append(orjson.dumps(record, option=orjson.OPT_SORT_KEYS))
    return b"\n".join(lines) + b"\n"


def golden_aggregates(output_dir: Path) -> bytes:
    """Run the golden experiment into output_dir and return its aggregates.parquet."""
    return (run_golden(output_dir) / "aggregates.parquet").read_bytes()


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        (GOLDEN / "rounds.jsonl").write_bytes(golden_rounds(Path(folder) / "rounds"))
    with tempfile.TemporaryDirectory() as folder:
        (GOLDEN / "aggregates.parquet").write_bytes(golden_aggregates(Path(folder)))
    print(f"wrote {GOLDEN / 'rounds.jsonl'} and {GOLDEN / 'aggregates.parquet'}")
    for experiment in every_game_experiments():
        with tempfile.TemporaryDirectory() as folder:
            for name, content in every_game_records(experiment, Path(folder)).items():
                (EVERY_GAME / name).write_bytes(content)
                print(f"wrote {EVERY_GAME / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
