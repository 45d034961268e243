"""A provider reads its own kind's options only (issue 43): the mock's options given to a litellm
provider (an experiment written for the mock, run with `provider=openai`) were dropped in
silence; `validate` and `run` now say so in one warning line per agent, naming the options."""

from __future__ import annotations

from pathlib import Path

from pdbench.config.provider_spec import ProviderSpec
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]


def test_another_kinds_options_away_from_their_defaults_are_named():
    spec = ProviderSpec(name="litellm", model="openai/gpt-4o-mini", mock={"strategy": "defect"})
    assert spec.ignored_options() == [("mock", "mock.strategy")]
    # the mock's own options, and another kind's left at their defaults, are not
    assert ProviderSpec(name="mock", mock={"strategy": "defect"}).ignored_options() == []
    assert ProviderSpec(name="litellm", model="openai/gpt-4o-mini").ignored_options() == []


def test_the_readme_experiment_on_a_hosted_model_warns_about_the_mocks_sampling_options():
    loaded = load(
        ROOT / "conf" / "experiment.yaml",
        ["provider=openai", "provider.model=openai/gpt-4o-mini"],
        project_root=ROOT,
    )
    (warning,) = [w for w in loaded.warnings if "provider.mock" in w]
    assert "llm_exploitative_vs_grim).agent_a" in warning
    assert "provider.mock.cooperate_prob, provider.mock.strategy" in warning
    assert "the mock provider's options, which litellm does not read (ignored)" in warning
    # on the mock itself, nothing to say
    on_mock = load(ROOT / "conf" / "experiment.yaml", project_root=ROOT)
    assert not [w for w in on_mock.warnings if "provider.mock" in w]
