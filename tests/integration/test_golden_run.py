"""A tiny seeded run compared with its checked-in rounds and aggregates (see
scripts/regenerate_golden.py)."""

from __future__ import annotations

from pathlib import Path

from docs_script import golden_script

PROJECT = Path(__file__).resolve().parents[2]


def test_golden_run_is_unchanged(tmp_path):
    expected = (PROJECT / "tests" / "golden" / "rounds.jsonl").read_bytes().splitlines()
    actual = golden_script().golden_rounds(tmp_path).splitlines()
    assert len(actual) == len(expected)
    for number, (got, want) in enumerate(zip(actual, expected, strict=True), start=1):
        assert got == want, f"golden line {number} differs:\n got  {got!r}\n want {want!r}"


def test_golden_aggregates_are_unchanged(tmp_path):
    """aggregates.parquet of the golden run, byte for byte: the metrics, their order, their
    types and the condition statistics (regenerated with the rounds)."""
    expected = (PROJECT / "tests" / "golden" / "aggregates.parquet").read_bytes()
    assert golden_script().golden_aggregates(tmp_path) == expected
