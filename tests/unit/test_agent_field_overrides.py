"""Issue 40: `+agent_b.memory_mb=256` (a field arena agents have) was refused as
`agent_b.path: no such field (did you mean "path"?)`: `key in node` is False for a required value
(`path: ???`), so the first override checked was blamed and its own name suggested. Every agent
kind, every field of it, both front doors: an override of a field the kind has is accepted (the
experiment-file door), or refused only for Hydra's own reason, in words that name that field and
say what to write (`+` on a field that holds a value); a misspelt field is named as written and
only that kind's fields are suggested.

The Hydra door's checks run on one composition per kind; the command lines themselves are rows
of tests/e2e/bad_input_cases.py (AGENT_FIELDS), run through both front doors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from pdbench.config.agent_spec import AGENT_SPECS
from pdbench.config.hydra_compose import field_override_problem
from pdbench.config.override_fields import has_key
from pdbench.config.overrides import Overrides, apply_overrides
from pdbench.core.errors import ConfigError

PROJECT = Path(__file__).resolve().parents[2]
REQUIRED = {"arena": {"path": "examples/agents/tit_for_tat.py"}, "policy": {"policy": "tft"}}
KINDS = sorted(AGENT_SPECS)


def _fields(kind: str) -> list[str]:
    return [field for field in AGENT_SPECS[kind].model_fields if field != "type"]


def _suggested(message: str) -> list[str]:
    return re.findall(r'did you mean "([^"]+)"', message)


def _experiment(kind: str):
    """An experiment file's config whose agent_b is a mapping with only its kind's required
    fields (every other field left to the spec's default)."""
    agent = {"type": kind, **REQUIRED.get(kind, {})}
    return OmegaConf.create({"conditions": [{"name": "x", "agent_a": "tft", "agent_b": agent}]})


@pytest.mark.parametrize("kind", KINDS)
def test_every_field_of_the_kind_can_be_set_in_an_experiment_file(kind):
    for field in _fields(kind):
        cfg = apply_overrides(_experiment(kind), [f"conditions.0.agent_b.{field}=null"], "x.yaml")
        assert field in cfg.conditions[0].agent_b, field


@pytest.mark.parametrize("kind", KINDS)
def test_a_misspelt_field_is_named_and_only_the_kinds_fields_suggested(kind):
    for field in _fields(kind):
        typo = f"{field}_x"
        with pytest.raises(ConfigError) as refused:
            apply_overrides(_experiment(kind), [f"conditions.0.agent_b.{typo}=1"], "x.yaml")
        assert refused.value.field == f"conditions.0.agent_b.{typo}", refused.value
        assert set(_suggested(str(refused.value))) <= set(_fields(kind)), refused.value
        assert "+conditions" not in str(refused.value), "adding it would be refused as well"


def test_a_required_field_not_yet_set_is_a_field():
    """`path: ???` (conf/agent/arena.yaml) exists: a ref's overrides may set it."""
    cfg = OmegaConf.create({"agent": OmegaConf.load(PROJECT / "conf/agent/arena.yaml")})
    done = apply_overrides(cfg, ["agent.path=examples/agents/grudger.py"], "x.yaml")
    assert done.agent.path == "examples/agents/grudger.py"


def _composed(kind: str):
    """conf/config.yaml composed with agent_b set to the kind's own group option."""
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(PROJECT / "conf"), version_base="1.3"):
        return compose(
            config_name="config", overrides=[f"agent_b={AGENT_SPECS[kind].kind_example}"]
        )


def _parsed(line: str):
    return Overrides.parse([line], "conf/config.yaml").parsed[0]


@pytest.mark.parametrize("kind", KINDS)
def test_hydra_door_plus_on_a_field_that_holds_a_value_says_what_to_write(kind):
    cfg = _composed(kind)
    for field in _fields(kind):
        node = cfg.agent_b
        line = f"+agent_b.{field}=7"
        problem = field_override_problem(cfg, _parsed(line))
        holds_value = (
            has_key(node, field)
            and OmegaConf.select(node, field, throw_on_missing=False) is not None
        )
        if holds_value:  # Hydra's own rule: `+` adds only where nothing is
            assert problem is not None and f"write agent_b.{field}=7" in problem, (field, problem)
        else:
            assert problem is None, (field, problem)


@pytest.mark.parametrize("kind", KINDS)
def test_hydra_door_a_field_the_option_leaves_out_points_to_adding_it(kind):
    cfg = _composed(kind)
    for field in _fields(kind):
        problem = field_override_problem(cfg, _parsed(f"agent_b.{field}=7"))
        if has_key(cfg.agent_b, field):
            assert problem is None, (field, problem)
        else:  # a field of the kind that its group file does not list: Hydra adds it with +
            assert problem is not None and f"+agent_b.{field}=7" in problem, (field, problem)
        typo = field_override_problem(cfg, _parsed(f"agent_b.{field}_x=7"))
        assert typo is not None and f"{field}_x" in typo, (field, typo)
        assert set(_suggested(typo)) <= set(_fields(kind)), typo
