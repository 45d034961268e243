"""Issue 43: each provider kind's options live in the spec its kind registers
(`ProviderKind.options`: the mock's `MockBehaviour`), not in a field every `ProviderSpec` carries.
A config spells them as before (`provider.mock.strategy: policy`); what they decide stays what it
was: the cache keys (so an existing cache replays for free), the agents' identities and the
config hashes (so a run keeps its run id). The pinned values were computed before the change."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import Field

from pdbench.config.frozen import Frozen
from pdbench.config.llm_agent_spec import LLMAgentSpec
from pdbench.config.provider_spec import (
    MockBehaviour,
    ProviderKind,
    ProviderSpec,
    provider_kinds,
    register_provider,
)
from pdbench.core.errors import ConfigError
from pdbench.providers.base import CompletionRequest
from pdbench.providers.kinds import key_options
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]

SPECS = {
    "mock": {"name": "mock"},
    "mock_policy": {
        "name": "mock",
        "mock": {"strategy": "policy", "policy": "gtft", "params": {"generous_prob": 0.2}},
    },
    "mock_random": {"name": "mock", "mock": {"strategy": "random", "cooperate_prob": 0.3}},
    "litellm": {"name": "litellm", "model": "openai/gpt-4o-mini"},
    "litellm_with_mock_options": {
        "name": "litellm",
        "model": "openai/gpt-4o-mini",
        "mock": {"strategy": "defect"},
    },
}
# sha256 of each spec's cache key for one request, and the agent's identity key
PINNED = {
    "mock": (
        "83f2860eb7e5283b2cf112fe8d0df7513dad0f84ae0961db1174ebe2a4d09c5e",
        "9003e1fbaf941696ad364c912380e0b37902ec5f44b40d9526c2a2f42f2e4842",
    ),
    "mock_policy": (
        "7382f29f7ce5e4215dfebb2475e9dccbf28c6ce581cbea8e8fc531d92832a08b",
        "d07b3cf14aa6aa19021d53a1fb6262facd1c13cfceebdbddf5aadf1b71010627",
    ),
    "mock_random": (
        "45fb8a37a5b0544aed191f79e502c74496b92ab560221e4f12cec80f9248968d",
        "f57a80f4df1b7917dd344f7b58a0b324a64a3a0fcb8e264952565771ec38ec1e",
    ),
    "litellm": (
        "09f1f2962f52434593784cdbac5ad2d8a0bc2564f14e3872820dea1375c5b602",
        "7008cbff55f6dde5d80ecfa23c99714d7861405b34c9730d6c853f93ad1cd9ed",
    ),
    # the mock's options on litellm decide nothing: the same key as without them
    "litellm_with_mock_options": (
        "09f1f2962f52434593784cdbac5ad2d8a0bc2564f14e3872820dea1375c5b602",
        "7008cbff55f6dde5d80ecfa23c99714d7861405b34c9730d6c853f93ad1cd9ed",
    ),
}


def _request(spec: ProviderSpec) -> CompletionRequest:
    return CompletionRequest(
        provider=spec.name,
        model=spec.model,
        api_base=spec.api_base,
        system="You play a repeated game.",
        messages=(("user", "Round 1. Answer C or D."),),
        temperature=0.0,
        max_tokens=16,
        provider_options=key_options(spec),
    )


@pytest.mark.parametrize("name", sorted(SPECS))
def test_the_cache_key_and_the_identity_are_what_they_were(name):
    spec = ProviderSpec.model_validate(SPECS[name])
    agent = LLMAgentSpec(type="llm", provider=spec)
    found = (_request(spec).cache_key(), agent.identity({}).key)
    assert found == PINNED[name]


CONFIG_HASHES = {
    # the README's experiment, on the mock and on a hosted model (the mock's options then
    # ignored, with a warning)
    ("experiment.yaml",): "62d771d887a84695ce410d1b200d71347772478f86fd0bf94add24bc76286e68",
    ("experiment.yaml", "provider=openai", "provider.model=openai/gpt-4o-mini"): (
        "8e7cbde3fbaf4baf21f7e48bb3d3652e0f69798a99a5073e66671fdd1411148d"
    ),
    # Hydra's primary config: an LLM agent on the mock, and on a hosted model (whose config
    # sets none of the mock's options)
    ("config.yaml", "agent_a=llm_default"): (
        "a7c79253368373b51e6325a7fdfb5be0d2d5342533bed3cc4858a579499772fa"
    ),
    ("config.yaml", "provider=openai", "agent_a=llm_default"): (
        "6c4c960118d83cb3d0ed149b307d560318217feed90c6dd097adec2d2bc6f9f2"
    ),
}


@pytest.mark.parametrize("command", sorted(CONFIG_HASHES), ids=lambda c: "-".join(c))
def test_a_config_keeps_its_hash_and_its_run_id(command):
    config, *overrides = command
    loaded = load(ROOT / "conf" / config, overrides, project_root=ROOT)
    assert loaded.config_hash == CONFIG_HASHES[command]


# the hash of `_experiment(tmp_path, {"name": "litellm", "model": "openai/gpt-4o-mini"})`
LITELLM_FILE_HASH = "a8fc3d4b54e73f869487e7d7f290f63d57b1b8c3a6d98530d1c10ff3fb13fae2"


class EchoOptions(Frozen):
    """A plugin kind's own options."""

    prefix: str = ""
    repeat: int = Field(1, ge=1)


@pytest.fixture
def echo_kind():
    kind = register_provider(
        ProviderKind(
            name="echo",
            client_entry_point="tests.unit.test_provider_kind_options:no_client",
            offline=True,
            deterministic_at_temperature_0=True,
            seeded_per_match=False,
            options_field="echo",
            options=EchoOptions,
        )
    )
    yield kind
    del provider_kinds()[kind.name]


def test_a_kind_registers_its_own_options_spec(echo_kind):
    spec = ProviderSpec.model_validate({"name": "echo", "echo": {"prefix": ">", "repeat": 2}})
    assert spec.own_options == EchoOptions(prefix=">", repeat=2)
    assert ProviderSpec.model_validate({"name": "echo"}).own_options == EchoOptions()
    # the mock's options are the mock's: another kind's spec has none unless a config gives them
    assert isinstance(ProviderSpec().own_options, MockBehaviour)
    assert spec.options_of("mock") is None
    assert ProviderSpec.model_validate({"name": "litellm", "model": "x"}).own_options is None


def _experiment(folder: Path, provider: dict) -> Path:
    path = folder / "exp.yaml"
    condition = {"name": "c", "agent_a": {"ref": "agent/llm_default.yaml"}, "agent_b": "grim"}
    path.write_text(yaml.safe_dump({"provider": provider, "conditions": [condition]}))
    return path


def _refused(folder: Path, provider: dict) -> str:
    with pytest.raises(ConfigError) as refused:
        load(_experiment(folder, provider), project_root=ROOT)
    (line,) = str(refused.value).splitlines()
    return line.removeprefix(f"{folder / 'exp.yaml'}: conditions[0](c).agent_a.")


def test_a_kinds_options_are_validated_against_its_spec_with_their_path(echo_kind, tmp_path):
    assert _refused(tmp_path, {"name": "echo", "echo": {"repeat": 0}}) == (
        "provider.echo.repeat: Input should be greater than or equal to 1 (got 0)"
    )
    assert _refused(tmp_path, {"name": "echo", "echo": {"prefx": ">"}}) == (
        'provider.echo.prefx: unknown field (did you mean "prefix"?)'
    )
    assert _refused(tmp_path, {"name": "mock", "mock": {"stratgy": "defect"}}) == (
        'provider.mock.stratgy: unknown field (did you mean "strategy"?)'
    )
    assert _refused(tmp_path, {"name": "mock", "mock": {"cooperate_prob": True}}).startswith(
        "provider.mock.cooperate_prob: "
    )
    # a key that is no field and no kind's options
    assert _refused(tmp_path, {"name": "mock", "mocks": {}}) == (
        'provider.mocks: unknown field (did you mean "mock"?)'
    )


def test_a_provider_without_the_mocks_options_keeps_its_config_hash(tmp_path):
    """Before issue 43 every provider spec held the mock's options (their defaults when unset),
    and so did its config hash: a litellm provider given none keeps the hash (and its run id).
    (An LLM agent's file lists the mock's options, all null, so that `agent_a.provider.mock.*`
    can be overridden; merged onto a litellm provider they are its defaults, named nowhere.)"""
    path = _experiment(tmp_path, {"name": "litellm", "model": "openai/gpt-4o-mini"})
    assert load(path, project_root=ROOT).config_hash == LITELLM_FILE_HASH


def test_another_kinds_options_are_named_in_a_warning_not_used(echo_kind):
    spec = ProviderSpec.model_validate(
        {"name": "echo", "mock": {"strategy": "defect"}, "echo": {"repeat": 3}}
    )
    assert spec.ignored_options() == [("mock", "mock.strategy")]
    assert spec.own_options == EchoOptions(repeat=3)
