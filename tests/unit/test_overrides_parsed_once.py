"""Overrides are read once (issue 28): each front door (an experiment file, the Hydra primary
config, a tournament on it) parses the command line's overrides into one `Overrides` value that
every step takes, and validates the assembled spec once."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser

from pdbench.config import validation
from pdbench.config.load import load_config
from pdbench.config.overrides import Overrides

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENT = ROOT / "tests" / "fixtures" / "experiments" / "metrics.yaml"
PRIMARY = ROOT / "conf" / "config.yaml"


@pytest.fixture
def reads(monkeypatch):
    """How often pdbench's own code (not Hydra's compose) hands each line to Hydra's parser,
    and how often a spec is validated."""
    lines: Counter[str] = Counter()
    original = OverridesParser.parse_overrides

    def counted(self, overrides, *args, **kwargs):
        if sys._getframe(1).f_globals.get("__name__", "").startswith("pdbench."):
            lines.update(str(o) for o in overrides)
        return original(self, overrides, *args, **kwargs)

    monkeypatch.setattr(OverridesParser, "parse_overrides", counted)
    validated = []
    original_validate = validation.validate_spec

    def validate(*args, **kwargs):
        validated.append(1)
        return original_validate(*args, **kwargs)

    monkeypatch.setattr(validation, "validate_spec", validate)
    return lines, validated


@pytest.mark.parametrize(
    ("path", "overrides"),
    [
        (EXPERIMENT, ["horizon.rounds=4", "run.replicates=2"]),
        (PRIMARY, ["agent_b=grim", "horizon.rounds=7"]),
        (PRIMARY, ["tournament.agents=[tft,grim,alld]", "horizon.rounds=5"]),
    ],
    ids=["experiment_file", "hydra_primary", "tournament"],
)
def test_each_front_door_reads_each_override_once_and_validates_once(reads, path, overrides):
    lines, validated = reads
    loaded = load_config(path, overrides, project_root=ROOT)
    assert dict(lines) == dict.fromkeys(overrides, 1)
    assert len(validated) == 1
    assert list(loaded.spec.overrides) == overrides


def test_an_overrides_value_carries_its_parse():
    parsed = Overrides.parse(["a.b=1", "+c=x", "tournament.agents=[tft,grim]"], "here")
    assert Overrides.parse(parsed, "here") is parsed
    assert parsed.keys() == ["a.b", "c", "tournament.agents"]
    kept = parsed.where(lambda o: o.key_or_group.startswith("tournament"))
    assert list(kept) == ["tournament.agents=[tft,grim]"]
    assert kept.parsed == parsed.parsed[2:]
    more = parsed.plus(["run.replicates=3"], "here")
    assert list(more) == [*parsed, "run.replicates=3"] and more.parsed[:3] == parsed.parsed
