"""Command-line overrides reach every documented field of an experiment file, set or not."""

from __future__ import annotations

from pathlib import Path

from pdbench.runners.prepare import load

PROJECT = Path(__file__).resolve().parents[2]


def test_fields_the_file_leaves_out_can_be_overridden():
    loaded = load(
        PROJECT / "conf" / "experiment.yaml",
        [
            "provider.mock.latency_s=0.02",  # the file sets only provider.mock.strategy
            "game.labels=[coop,defect]",
            "horizon.rounds=30",
            "run.max_cost_usd=2.5",
            "metrics.collapse.k=5",
        ],
        project_root=PROJECT,
    )
    llm = loaded.spec.conditions[0].agent_a
    assert llm.provider.mock.latency_s == 0.02
    assert loaded.spec.conditions[0].game.labels == ("coop", "defect")
    assert loaded.spec.conditions[0].horizon.rounds == 30
    assert loaded.spec.run.max_cost_usd == 2.5
    assert loaded.spec.metrics.collapse.k == 5


def test_defaults_filled_in_do_not_change_the_run_identity():
    plain = load(PROJECT / "conf" / "experiment.yaml", project_root=PROJECT)
    explicit = load(
        PROJECT / "conf" / "experiment.yaml", ["provider.mock.latency_s=0.0"], project_root=PROJECT
    )
    assert plain.config_hash == explicit.config_hash
