"""Ctrl-C the instant a run has written its first manifest (found by the Hydra door's Ctrl-C
test under load: exit 130, but the manifest still said `started`). From the first manifest on,
an interrupted run says so."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENT = ROOT / "tests" / "fixtures" / "experiments" / "metrics.yaml"


def test_a_ctrl_c_right_after_the_first_manifest_leaves_it_interrupted(tmp_path, monkeypatch):
    monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path / "cache"))
    loaded = load(EXPERIMENT, [f"run.output_dir={tmp_path}"], run_id="r", project_root=ROOT)

    def ctrl_c(planned: int, skipped: int) -> None:  # where the signal lands: just after it
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_experiment(loaded, on_start=ctrl_c)
    manifest = orjson.loads((tmp_path / "r" / "run_manifest.json").read_bytes())
    assert manifest["status"] == "interrupted"


def test_a_ctrl_c_landing_as_the_first_manifest_is_written_leaves_it_interrupted(
    tmp_path, monkeypatch
):
    """The signal may land in the instant after the first manifest is on disk and before the
    run's first step (found again by the Hydra door's Ctrl-C test in CI: exit 130, `started`)."""
    from pdbench.runners import experiment
    from pdbench.storage import manifest as manifests

    monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path / "cache"))
    loaded = load(EXPERIMENT, [f"run.output_dir={tmp_path}"], run_id="r", project_root=ROOT)
    save = experiment.ManifestWriter.save

    def save_then_ctrl_c(self, status, *args, **kwargs):  # type: ignore[no-untyped-def]
        save(self, status, *args, **kwargs)
        if status == manifests.STATUS_STARTED:
            raise KeyboardInterrupt

    monkeypatch.setattr(experiment.ManifestWriter, "save", save_then_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        run_experiment(loaded)
    manifest = orjson.loads((tmp_path / "r" / "run_manifest.json").read_bytes())
    assert manifest["status"] == "interrupted"
