"""Composition: experiment file and Hydra primary config -> one validated, frozen spec.

Everything here is in-process config work (`pdbench.config.load`); nothing runs and nothing is
written. Fixtures live in tests/fixtures/configs/; refs in them are relative to conf/, like every
ref, so the fixture refs reach back with "../tests/fixtures/configs/refs/...".
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from pydantic import ValidationError

from pdbench.config.schema import (
    ArenaAgentSpec,
    ExperimentSpec,
    FixedHorizonSpec,
    GeometricHorizonSpec,
    LLMAgentSpec,
    PolicyAgentSpec,
    ProviderSpec,
)
from pdbench.core.errors import ConfigError
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "configs"
EXPERIMENT = ROOT / "conf" / "experiment.yaml"
PRIMARY = ROOT / "conf" / "config.yaml"


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path / "cache"))


def load_fixture(name: str, overrides=(), **kwargs):
    return load(FIXTURES / name, list(overrides), project_root=ROOT, **kwargs)


def conditions(loaded) -> dict:
    return {c.name: c for c in loaded.spec.conditions}


@pytest.fixture(scope="module")
def composed():
    return load(FIXTURES / "compose.yaml", [], project_root=ROOT)


# --- the experiment file -------------------------------------------------------------------------


def test_experiment_file_keeps_conditions_in_order_with_run_settings(composed):
    spec = composed.spec
    assert [c.name for c in spec.conditions] == [
        "tft_vs_alld",
        "llm_ref_vs_grim",
        "nested_ref",
        "wsls_vs_tft_geometric",
        "dotlist_overrides",
        "stag_arena",
        "condition_agent_overrides",
    ]
    assert spec.run.seed == 7
    assert spec.run.replicates == 2
    assert spec.n_matches == 14
    assert spec.source == "tests/fixtures/configs/compose.yaml"


def test_shared_game_and_horizon_apply_to_every_condition_without_its_own(composed):
    by_name = conditions(composed)
    first = by_name["tft_vs_alld"]
    assert first.game.id == "pd"
    assert first.horizon == FixedHorizonSpec(rounds=5)
    assert by_name["stag_arena"].game.id == "stag_hunt"
    assert by_name["stag_arena"].horizon == FixedHorizonSpec(rounds=5)


def test_group_name_is_the_agent_file(composed):
    first = conditions(composed)["tft_vs_alld"]
    assert first.agent_a == PolicyAgentSpec(policy="tft")
    assert first.agent_b == PolicyAgentSpec(policy="alld")


def test_ref_with_overrides_changes_only_the_overridden_fields(composed):
    agent = conditions(composed)["llm_ref_vs_grim"].agent_a
    assert isinstance(agent, LLMAgentSpec)
    assert agent.persona == "exploitative"
    assert agent.history_window == 3
    # Everything else comes from conf/agent/llm_default.yaml ...
    assert agent.max_tokens is None and agent.answer_max_tokens == 16  # null: per format
    assert agent.max_retries == 2
    assert agent.system_prompt == "prompts/pd_system.md"
    # ... and ${provider} from the experiment's shared provider.
    assert agent.provider.name == "mock"
    assert agent.provider.mock.strategy == "reciprocate"


def test_nested_ref_applies_overrides_of_every_level(composed):
    agent = conditions(composed)["nested_ref"].agent_a
    assert isinstance(agent, LLMAgentSpec)
    assert agent.name == "deep"  # outer ref file
    assert agent.max_tokens == 32  # outer ref file
    assert agent.persona == "exploitative"  # inner ref file
    assert agent.temperature == 0.5  # inner ref file
    assert agent.history_window is None  # conf/agent/llm_default.yaml: the whole match


def test_ref_overrides_merge_into_nested_mappings(composed):
    agent = conditions(composed)["nested_ref"].agent_b
    assert agent == PolicyAgentSpec(policy="gtft", params={"generous_prob": 0.25})


def test_condition_override_can_change_the_horizon_type(composed):
    horizon = conditions(composed)["wsls_vs_tft_geometric"].horizon
    # Replaced whole: the fixed horizon's `rounds` must not leak into the geometric one.
    assert horizon == GeometricHorizonSpec(type="geometric", stop_prob=0.2, max_rounds=30)


def test_condition_overrides_as_a_dotlist(composed):
    condition = conditions(composed)["dotlist_overrides"]
    assert condition.horizon == FixedHorizonSpec(rounds=7)
    assert condition.agent_a.max_retries == 0
    assert condition.agent_a.persona == "cooperative"  # the experiment's shared persona


def test_condition_overrides_merge_into_an_agent_or_replace_it_when_its_type_changes(composed):
    condition = conditions(composed)["condition_agent_overrides"]
    assert isinstance(condition.agent_a, LLMAgentSpec)
    assert condition.agent_a.history_window == 5
    assert condition.agent_a.persona == "wsls"
    assert condition.agent_a.max_tokens is None  # kept from llm_default (null: per format)
    assert condition.agent_b == PolicyAgentSpec(policy="alld")


def test_discriminated_union_picks_the_agent_class_from_type(composed):
    kinds = {name: (type(c.agent_a), type(c.agent_b)) for name, c in conditions(composed).items()}
    assert kinds["tft_vs_alld"] == (PolicyAgentSpec, PolicyAgentSpec)
    assert kinds["llm_ref_vs_grim"] == (LLMAgentSpec, PolicyAgentSpec)
    assert kinds["stag_arena"] == (PolicyAgentSpec, ArenaAgentSpec)
    assert conditions(composed)["stag_arena"].agent_b.path == "tests/fixtures/arena/counter.py"


def test_discriminated_union_directly_on_the_spec():
    spec = ExperimentSpec.model_validate(
        {
            "conditions": [
                {
                    "name": "x",
                    "agent_a": {"type": "llm", "persona": None},
                    "agent_b": {"type": "arena", "path": "a.py"},
                    "horizon": {"type": "geometric", "stop_prob": 0.5},
                },
                {
                    "name": "y",
                    "agent_a": {"type": "policy", "policy": "wsls"},
                    "agent_b": {"type": "policy", "policy": "tft"},
                },
            ]
        }
    )
    x, y = spec.conditions
    assert isinstance(x.agent_a, LLMAgentSpec)
    assert isinstance(x.agent_b, ArenaAgentSpec)
    assert isinstance(x.horizon, GeometricHorizonSpec)
    assert isinstance(y.agent_a, PolicyAgentSpec)
    assert isinstance(y.horizon, FixedHorizonSpec)  # the default
    with pytest.raises(ValidationError, match=r"union_tag_invalid|does not match any of"):
        ExperimentSpec.model_validate(
            {
                "conditions": [
                    {
                        "name": "z",
                        "agent_a": {"type": "robot"},
                        "agent_b": {"type": "policy", "policy": "tft"},
                    }
                ]
            }
        )


def test_referenced_files_are_checked_and_hashed(composed):
    files = composed.referenced_files
    for path in (
        "prompts/pd_system.md",
        "prompts/pd_round.md",
        "prompts/personas/exploitative.md",
        "prompts/personas/cooperative.md",
        "prompts/personas/wsls.md",
        "tests/fixtures/arena/counter.py",
    ):
        assert path in files
        assert len(files[path]) == 64


def test_the_shipped_experiment_file():
    loaded = load(EXPERIMENT, [], project_root=ROOT)
    by_name = conditions(loaded)
    assert list(by_name) == [
        "llm_cooperative_vs_tft",
        "llm_exploitative_vs_grim",
        "gtft_vs_alld",
        "wsls_vs_tft_geometric",
    ]
    exploitative = by_name["llm_exploitative_vs_grim"].agent_a
    assert exploitative.persona == "exploitative"
    assert exploitative.temperature == 0.7
    # A nested override merges into the shared provider rather than replacing it.
    shared = by_name["llm_cooperative_vs_tft"].agent_a.provider
    assert shared.name == "mock"
    assert exploitative.provider.name == "mock"
    assert exploitative.provider.model == shared.model
    assert shared.mock.strategy == "reciprocate"
    assert exploitative.provider.mock.strategy == "random"
    assert exploitative.provider.mock.cooperate_prob == 0.3
    assert by_name["llm_cooperative_vs_tft"].agent_a.persona == "cooperative"
    assert by_name["wsls_vs_tft_geometric"].horizon == GeometricHorizonSpec(
        type="geometric", stop_prob=0.1, max_rounds=60
    )
    assert by_name["gtft_vs_alld"].horizon == FixedHorizonSpec(rounds=20)


def test_command_line_overrides_and_options_on_an_experiment_file():
    loaded = load(EXPERIMENT, ["run.seed=5", "horizon.rounds=8"], replicates=2, project_root=ROOT)
    assert loaded.spec.run.seed == 5
    assert loaded.spec.run.replicates == 2
    assert conditions(loaded)["gtft_vs_alld"].horizon.rounds == 8
    # The condition's own horizon override still wins over the shared one.
    assert conditions(loaded)["wsls_vs_tft_geometric"].horizon.type == "geometric"
    assert loaded.spec.overrides == ("run.seed=5", "horizon.rounds=8")


def test_llm_agent_without_a_shared_provider_gets_the_default_mock():
    """An experiment file with no top-level provider: or persona: (regression: ${provider}
    used to resolve to None and fail validation)."""
    loaded = load_fixture("no_provider.yaml")
    agent = loaded.spec.conditions[0].agent_a
    assert agent.provider == ProviderSpec()
    assert agent.persona is None


# --- refs --------------------------------------------------------------------------------------


def test_ref_cycle_is_an_error_naming_the_chain():
    with pytest.raises(ConfigError) as caught:
        load_fixture("bad/ref_cycle.yaml")
    error = caught.value
    assert "ref cycle" in error.reason
    assert "cycle_a.yaml -> " in error.reason and "cycle_b.yaml" in error.reason
    assert error.field == "conditions[0](ref_cycle).agent_a.ref"


def test_missing_ref_file_is_an_error_naming_the_ref():
    with pytest.raises(ConfigError) as caught:
        load_fixture("bad/missing_ref.yaml")
    assert caught.value.file == "tests/fixtures/configs/bad/missing_ref.yaml"
    assert caught.value.field == "conditions[0](missing_ref).agent_a.ref"
    assert "agent/llm_defualt.yaml" in caught.value.reason


# --- the Hydra primary config ------------------------------------------------------------------


def compose(*overrides: str):
    return load(PRIMARY, list(overrides), project_root=ROOT)


def only_condition(loaded):
    (condition,) = loaded.spec.conditions
    return condition


def test_primary_config_defaults():
    loaded = compose()
    condition = only_condition(loaded)
    assert condition.name == "tft_vs_tft"
    assert condition.agent_a == PolicyAgentSpec(policy="tft")
    assert condition.agent_b == PolicyAgentSpec(policy="tft")
    assert condition.game.id == "pd"
    assert condition.horizon == FixedHorizonSpec(rounds=20)
    assert loaded.spec.run.replicates == 3
    assert loaded.spec.source == "conf/config.yaml"


def test_primary_config_group_choices():
    condition = only_condition(compose("agent_a=grim", "agent_b=alld", "game=stag_hunt"))
    assert condition.agent_a.policy == "grim"
    assert condition.agent_b.policy == "alld"
    assert condition.game.id == "stag_hunt"
    assert condition.game.build().cooperate_label == "stag"
    # The condition is named after its overrides, sorted.
    assert condition.name == "agent_a=grim,agent_b=alld,game=stag_hunt"


def test_primary_config_geometric_horizon_with_a_field_override():
    condition = only_condition(compose("horizon=geometric", "horizon.stop_prob=0.05"))
    assert condition.horizon == GeometricHorizonSpec(type="geometric", stop_prob=0.05)


def test_primary_config_field_override_inside_a_chosen_agent():
    condition = only_condition(compose("agent_a=gtft", "agent_a.params.generous_prob=0.5"))
    assert condition.agent_a == PolicyAgentSpec(policy="gtft", params={"generous_prob": 0.5})
    assert condition.agent_b == PolicyAgentSpec(policy="tft")


@pytest.mark.parametrize(
    ("persona_override", "expected"),
    [(None, "cooperative"), ("persona=exploitative", "exploitative"), ("persona=none", None)],
)
def test_primary_config_persona_reaches_the_llm_agent(persona_override, expected):
    overrides = ["agent_a=llm_default"] + ([persona_override] if persona_override else [])
    loaded = compose(*overrides)
    agent = only_condition(loaded).agent_a
    assert isinstance(agent, LLMAgentSpec)
    assert agent.persona == expected
    assert agent.provider.name == "mock"
    if expected:
        assert f"prompts/personas/{expected}.md" in loaded.referenced_files


def test_primary_config_provider_group_reaches_the_llm_agent():
    agent = only_condition(compose("agent_b=llm_default", "provider=litellm")).agent_b
    assert agent.provider.name == "litellm"
    assert agent.provider.model == "openai/gpt-4o-mini"


def test_primary_config_run_options():
    loaded = load(PRIMARY, ["run.seed=11"], replicates=4, run_id="named", project_root=ROOT)
    assert loaded.spec.run.seed == 11
    assert loaded.spec.run.replicates == 4
    assert loaded.run_id == "named"
    # run.* overrides do not rename the condition.
    assert only_condition(loaded).name == "tft_vs_tft"


# --- frozen specs ------------------------------------------------------------------------------


def test_spec_objects_are_frozen(composed):
    spec = composed.spec
    condition = spec.conditions[0]
    with pytest.raises(ValidationError, match="frozen"):
        spec.run.seed = 1
    with pytest.raises(ValidationError, match="frozen"):
        condition.agent_a.policy = "alld"
    with pytest.raises(ValidationError, match="frozen"):
        condition.horizon.rounds = 99
    with pytest.raises(ValidationError, match="frozen"):
        condition.game.id = "chicken"
    with pytest.raises(ValidationError, match="frozen"):
        spec.conditions = ()
    llm = conditions(composed)["llm_ref_vs_grim"].agent_a
    with pytest.raises(ValidationError, match="frozen"):
        llm.provider.model = "other"
    assert isinstance(spec.conditions, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        composed.spec = spec  # type: ignore[misc]


# --- run ids from the config hash --------------------------------------------------------------


def test_run_id_is_derived_from_the_config_hash():
    first = load_fixture("policies.yaml")
    again = load_fixture("policies.yaml")
    assert first.config_hash == again.config_hash
    assert first.run_id == again.run_id == f"policies-{first.config_hash[:10]}"
    assert len(first.config_hash) == 64


@pytest.mark.parametrize(
    "change",
    [["run.seed=4"], ["horizon.rounds=5"], ["run.replicates=2"], ["metrics.collapse.k=3"]],
    ids=["seed", "rounds", "replicates", "collapse_k"],
)
def test_a_different_config_gets_a_different_run_id(change):
    base = load_fixture("policies.yaml")
    changed = load_fixture("policies.yaml", change)
    assert changed.config_hash != base.config_hash
    assert changed.run_id != base.run_id


def test_a_changed_prompt_file_changes_the_hash(tmp_path):
    """Referenced files are part of the identity: editing a prompt is a different experiment."""
    import shutil

    root = tmp_path / "project"
    shutil.copytree(ROOT / "conf", root / "conf", symlinks=True)
    shutil.copytree(ROOT / "prompts", root / "prompts")
    before = load(root / "conf" / "config.yaml", ["agent_a=llm_default"], project_root=root)
    with (root / "prompts" / "pd_round.md").open("a") as handle:
        handle.write("\n")
    after = load(root / "conf" / "config.yaml", ["agent_a=llm_default"], project_root=root)
    assert before.config_hash != after.config_hash


def test_primary_config_run_id_follows_the_composition():
    assert compose().run_id == compose().run_id
    assert compose().run_id.startswith("config-")
    assert compose("agent_a=grim").run_id != compose().run_id


def test_naming_an_experiment_run_keeps_its_identity():
    base = load_fixture("policies.yaml")
    named = load_fixture("policies.yaml", run_id="my-run")
    assert named.run_id == "my-run"
    assert named.run_dir.name == "my-run"
    assert named.config_hash == base.config_hash


def test_run_id_given_as_an_override_keeps_the_identity():
    """`--run-id r` and `run.run_id=r` are the same run (regression: overrides were hashed)."""
    base = load_fixture("policies.yaml", run_id="r")
    as_override = load_fixture("policies.yaml", ["run.run_id=r"])
    assert as_override.run_id == "r"
    assert as_override.config_hash == base.config_hash


def test_naming_a_primary_config_run_keeps_its_identity():
    assert load(PRIMARY, [], run_id="named", project_root=ROOT).config_hash == compose().config_hash


def test_where_and_how_fast_a_run_is_stored_does_not_change_its_identity(tmp_path):
    base = load_fixture("policies.yaml")
    moved = load_fixture(
        "policies.yaml",
        [
            f"run.output_dir={tmp_path}",
            "run.max_concurrency=1",
            f"run.cache.dir={tmp_path / 'cache'}",
        ],
    )
    assert moved.run_dir.parent == tmp_path
    assert moved.config_hash == base.config_hash
    assert moved.run_id == base.run_id
