"""Record versions (issue 43): a 2x2 run is stored as turn lines (version 2) and read back through
one projection (pdbench.games.matrix.stored); runs stored as version 1 are still read.

tests/golden/v1/ keeps the 2x2 goldens as they were before version 2 (rounds.jsonl,
aggregates.parquet, experiment.yaml, dilemmas.*), and, under runs/, the two golden experiments
as the pdbench of commit 9cb691a stored them (run folders: manifest without record_version,
version-1 rounds, ledger). The same experiments run today are stored as version 2, and every
output derived from a run (aggregates, analyze, tournament, ladder, the CSV export, the prompts
report, the viewer's and the transcripts' round records, the audit columns) is the same for both.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pandas as pd
import pytest
from docs_script import golden_script
from in_process import run_front_door

from pdbench.analysis.metrics.aggregate import aggregate_run
from pdbench.analysis.metrics.round_checks import read_audit_columns
from pdbench.storage.manifest import RECORD_VERSION
from pdbench.storage.reader import RunReader

PROJECT = Path(__file__).resolve().parents[2]
V1 = PROJECT / "tests" / "golden" / "v1"
EXPERIMENTS = {
    "golden": PROJECT / "tests" / "golden" / "experiment.yaml",
    "dilemmas": PROJECT / "tests" / "golden" / "every_game" / "dilemmas.yaml",
}
GOLDEN_ROUNDS = {"golden": V1 / "rounds.jsonl", "dilemmas": V1 / "dilemmas.rounds.jsonl"}


def _sorted_without_times(path: Path) -> bytes:
    """A rounds file as the goldens hold it: keys sorted, write times left out."""
    lines = []
    for line in path.read_bytes().splitlines():
        record = orjson.loads(line)
        record.pop("timestamp_utc")
        lines.append(orjson.dumps(record, option=orjson.OPT_SORT_KEYS))
    return b"\n".join(lines) + b"\n"


def _v1_run(name: str, folder: Path) -> Path:
    run_dir = folder / "golden"
    shutil.copytree(V1 / "runs" / name, run_dir)
    return run_dir


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_the_version_1_runs_are_the_version_1_goldens_and_aggregate_as_they_did(name, tmp_path):
    run_dir = _v1_run(name, tmp_path)
    assert _sorted_without_times(run_dir / "rounds.jsonl") == GOLDEN_ROUNDS[name].read_bytes()
    manifest = RunReader.open(run_dir).manifest()
    assert "record_version" not in orjson.loads((run_dir / "run_manifest.json").read_bytes())
    assert manifest.record_version == 1  # a manifest without the field: version 1
    stored = (
        V1 / "aggregates.parquet" if name == "golden" else V1 / "runs" / name / "aggregates.parquet"
    )
    pd.testing.assert_frame_equal(aggregate_run(run_dir), pd.read_parquet(stored))


def _without(record: dict, *names: str) -> dict:
    return {key: value for key, value in record.items() if key not in names}


def _outputs(run_dir: Path) -> dict[str, object]:
    """Everything derived from a run that can be compared between two copies of it."""
    reader = RunReader.open(run_dir)
    outputs: dict[str, object] = {}
    for entry in reader.ledger():
        rounds = reader.match_rounds(entry.condition, entry.replicate)
        outputs[f"match {entry.key}"] = [_without(r, "timestamp_utc") for r in rounds]
    for condition in reader.manifest().conditions:
        outputs[f"condition {condition}"] = {
            replicate: [_without(r, "timestamp_utc") for r in rounds]
            for replicate, rounds in reader.condition_rounds(condition).items()
        }
    audit = read_audit_columns(run_dir)
    outputs["audit"] = [getattr(audit, f).tolist() for f in audit.__dataclass_fields__]
    commands = {
        "aggregate": ["aggregate", str(run_dir)],
        "analyze": ["analyze", str(run_dir), "--bootstrap", "20", "--permutations", "50"],
        "tournament": ["tournament", str(run_dir), "--runs", "20", "--generations", "10"],
        "ladder": ["ladder", str(run_dir), "--out", str(run_dir / "ladder")],
        "export": ["export", str(run_dir)],
        "prompts": ["prompts", str(run_dir)],
    }
    for name, argv in commands.items():
        done = run_front_door("cli", argv, cwd=PROJECT, env=dict(os.environ))
        said = (done.stdout + done.stderr).replace(str(run_dir), "RUN")
        outputs[f"{name} says"] = (done.code, said)
    for path in sorted(run_dir.rglob("*.parquet")) + sorted(run_dir.rglob("*.csv")):
        table = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
        outputs[str(path.relative_to(run_dir))] = table.drop(
            columns=[c for c in table.columns if c == "timestamp_utc"]
        )
    return outputs


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_a_run_stored_as_version_2_gives_every_output_the_version_1_run_gives(name, tmp_path):
    regenerator = golden_script()
    v2_dir = regenerator.run_golden(tmp_path / "v2", EXPERIMENTS[name])
    manifest = RunReader.open(v2_dir).manifest()
    assert manifest.record_version == RECORD_VERSION == 2
    first = orjson.loads((v2_dir / "rounds.jsonl").read_bytes().splitlines()[0])
    assert first["family"] == "matrix" and "observation_digest" not in first
    v1_dir = _v1_run(name, tmp_path / "v1")
    for stored in ("aggregates.parquet",):  # the run's own, made from the rounds in memory
        (v1_dir / stored).unlink(missing_ok=True)
    v2, v1 = _outputs(v2_dir), _outputs(v1_dir)
    assert v2.keys() == v1.keys()
    for key, value in v1.items():
        if isinstance(value, pd.DataFrame):
            pd.testing.assert_frame_equal(v2[key], value, obj=key)  # type: ignore[arg-type]
        else:
            assert v2[key] == value, key
    assert any(key.endswith("ladder.parquet") for key in v1)
    assert (v1_dir / "aggregates.parquet").read_bytes() == (
        v2_dir / "aggregates.parquet"
    ).read_bytes()


def test_a_version_1_run_resumed_goes_on_in_version_1(tmp_path):
    """A run an older pdbench began is resumed in the shape it began in: its new lines are the
    version-1 lines the projection gives (no second writer), and its manifest keeps saying 1."""
    run_dir = _v1_run("dilemmas", tmp_path / "runs")
    shutil.copy(PROJECT / "tests" / "golden" / "deal.key", run_dir / "deal.key")  # its own key
    ledger = (run_dir / "matches.jsonl").read_bytes().splitlines(keepends=True)
    (run_dir / "matches.jsonl").write_bytes(b"".join(ledger[:3]))  # the rest is played again
    resumed = golden_script().run_golden(tmp_path / "runs", EXPERIMENTS["dilemmas"])
    assert resumed == run_dir
    assert _sorted_without_times(run_dir / "rounds.jsonl") == GOLDEN_ROUNDS["dilemmas"].read_bytes()
    manifest = orjson.loads((run_dir / "run_manifest.json").read_bytes())
    assert manifest["record_version"] == 1
    assert manifest["matches"]["completed"] == len(ledger)


NOISY_TALK = """
run: {seed: 5, replicates: 2, store_prompts: hash, output_dir: OUT}
horizon: {type: geometric, stop_prob: 0.25, max_rounds: 8}
provider: {name: mock, model: mock, mock: {invalid_rate: 0.3}}
conditions:
  - name: talk
    game: {id: split_or_steal, noise: 0.2, negotiation: {exchanges: 1}}
    agent_a: {ref: agent/llm_default.yaml, overrides: {on_invalid: fallback, max_retries: 1}}
    agent_b: tft
  - {name: policies, game: {id: pd, noise: 0.3}, agent_a: gtft, agent_b: random}
"""


def test_the_columns_read_of_a_2x2_run_are_its_projected_rounds(tmp_path):
    """Aggregation and the round checks read version-2 lines in columns (no dict per line):
    every version-1 column equals what the line projection gives, with noise (the intended
    moves), talk (the conversations), an LLM's markers and the batch path's lines."""
    import pyarrow as pa
    import pyarrow.json as pa_json

    from pdbench.games.matrix.stored import as_round_lines, round_table
    from pdbench.runners.experiment import run_experiment
    from pdbench.runners.prepare import load
    from pdbench.storage.arrow_schema import round_arrow_schema
    from pdbench.storage.schema import DECISION_FIELDS, LINE_FIELDS

    experiment = tmp_path / "noisy_talk.yaml"
    experiment.write_text(NOISY_TALK.replace("OUT", str(tmp_path / "runs")))
    run_dir = run_experiment(load(experiment, project_root=PROJECT)).run_dir
    blob = (run_dir / "rounds.jsonl").read_bytes()
    names = [*LINE_FIELDS, *(f"agent_{s}_{m}" for m in DECISION_FIELDS for s in "ab")]
    schema = round_arrow_schema(names)
    projected = pa_json.read_json(
        pa.BufferReader(as_round_lines(blob)),
        parse_options=pa_json.ParseOptions(
            explicit_schema=schema, unexpected_field_behavior="ignore"
        ),
    )
    columns = round_table(blob, schema)
    for name in names:
        assert columns.column(name).to_pylist() == projected.column(name).to_pylist(), name
    assert columns.column("agent_a_intended").null_count == 0  # noise: every round says it
    assert any(columns.column("conversation").to_pylist())
    assert columns.column("agent_a_invalid_outputs").to_pylist().count(None) < len(columns)


NOTEBOOK = """
import json, sys
from pdbench.storage.reader import RunReader

reader = RunReader.open(sys.argv[1])
loaded_before = "pdbench.games.matrix.stored" in sys.modules
print(json.dumps({"loaded_before": loaded_before, "rounds": list(reader.rounds())}))
"""


def test_a_notebook_importing_only_the_reader_reads_a_2x2_runs_rounds(tmp_path):
    """Storage names no game family: the 2x2 projection reaches `RunReader` through
    `pdbench.storage.line_projection`, which pdbench's front door registers. A process that
    imports only the reader (a notebook) gets the round records every command reads, and the
    2x2 family is loaded at the first read, not at import."""
    import subprocess
    import sys

    from pdbench.runners.experiment import run_experiment
    from pdbench.runners.prepare import load

    experiment = tmp_path / "policies.yaml"
    experiment.write_text(
        "run: {seed: 3, replicates: 2, output_dir: OUT}\n"
        "horizon: {type: fixed, rounds: 4}\n"
        "conditions:\n"
        "  - {name: p, game: {id: pd, noise: 0.2}, agent_a: tft, agent_b: random}\n".replace(
            "OUT", str(tmp_path / "runs")
        )
    )
    run_dir = run_experiment(load(experiment, project_root=PROJECT)).run_dir
    assert orjson.loads((run_dir / "rounds.jsonl").read_bytes().splitlines()[0])["family"] == (
        "matrix"
    )
    done = subprocess.run(
        [sys.executable, "-c", NOTEBOOK, str(run_dir)],
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(PROJECT)},
    )
    seen = orjson.loads(done.stdout)
    assert seen["loaded_before"] is False
    assert seen["rounds"] == list(RunReader.open(run_dir).rounds())
    assert len(seen["rounds"]) == 2 * 4 and "agent_a_intended" in seen["rounds"][0]
