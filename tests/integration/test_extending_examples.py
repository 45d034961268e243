"""docs/extending.md's examples run as the page shows them (issue 28): a metric, a provider
client and an agent kind, each one module with its registration (examples/extending/), used
without an edit anywhere else in pdbench."""

from __future__ import annotations

import importlib
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import orjson
import pandas as pd
import pytest
from helpers import TEST_DEAL
from reference_loop import play_match_sync

from pdbench.agents.base import AgentContext
from pdbench.agents.kinds import make_agent
from pdbench.analysis.metrics import catalog
from pdbench.config.agent_spec import AGENT_SPECS
from pdbench.config.provider_spec import PROVIDER_KINDS
from pdbench.core import plugins
from pdbench.core.errors import ConfigError
from pdbench.core.horizon import FixedHorizon
from pdbench.games.matrix.stored import as_rounds
from pdbench.games.pd import TABLE as PD
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "extending"
PAGE = ROOT / "docs" / "extending.md"


@pytest.fixture
def example(monkeypatch):
    """Import an example module from examples/extending/ (its registration runs), and take its
    registrations out again afterwards."""
    monkeypatch.syspath_prepend(str(EXAMPLES))
    metrics = catalog.registered_metrics()
    providers, kinds = dict(PROVIDER_KINDS), dict(AGENT_SPECS)
    imported: list[str] = []

    def load_example(name: str):
        imported.append(name)
        return importlib.import_module(name)

    yield load_example
    for group in ("pdbench.agents", "pdbench.providers", "pdbench.metrics"):
        plugins.forget(group)  # loaded again, with only the installed entry points
    for name in imported:
        sys.modules.pop(name, None)
    for added in set(catalog.registered_metrics()) - set(metrics):
        catalog.unregister_metric(added)
    PROVIDER_KINDS.clear()
    PROVIDER_KINDS.update(providers)
    AGENT_SPECS.clear()
    AGENT_SPECS.update(kinds)


def _run(experiment: Path, tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path / "cache"))
    loaded = load(experiment, [f"run.output_dir={tmp_path}"], run_id="x", project_root=ROOT)
    return run_experiment(loaded).run_dir


def test_the_page_shows_each_example_as_it_is():
    page = PAGE.read_text()
    # The example files, not what Python leaves beside them (__pycache__ once one is imported).
    shown = [p for p in sorted(EXAMPLES.iterdir()) if p.is_file() and p.suffix in (".py", ".yaml")]
    assert len(shown) >= 4, shown
    for path in shown:
        assert path.read_text().strip() in page, f"docs/extending.md does not show {path.name}"


def test_a_metric_is_one_function_and_its_row(example, tmp_path, monkeypatch):
    example("mutual_defection")
    experiment = ROOT / "tests" / "fixtures" / "experiments" / "metrics.yaml"
    table = pd.read_parquet(_run(experiment, tmp_path, monkeypatch) / "aggregates.parquet")
    rows = table[(table["level"] == "replicate") & (table["condition"] == "tft_vs_alld")]
    assert rows["mutual_defection_rate"].tolist() == [0.9] * len(rows)  # 9 of 10 rounds DD
    condition = table[(table["level"] == "condition") & (table["condition"] == "tft_vs_alld")]
    assert condition["mutual_defection_rate_n"].tolist() == [len(rows)]
    assert catalog.metric("mutual_defection_rate").label == "Mutual defection rate"


def test_a_provider_is_one_client_and_its_registration(example, tmp_path, monkeypatch):
    example("always_cooperate")
    run_dir = _run(EXAMPLES / "always_cooperate.yaml", tmp_path, monkeypatch)
    stored = (run_dir / "rounds.jsonl").read_bytes().splitlines()
    rounds = list(as_rounds(orjson.loads(line) for line in stored))  # as the readers read them
    assert len(rounds) == 2 * 2 * 4
    assert {r["agent_a_action"] for r in rounds} == {"C"}
    manifest = orjson.loads((run_dir / "run_manifest.json").read_bytes())
    assert manifest["status"] == "complete"


def test_an_agent_kind_is_one_spec_one_agent_and_its_registration(example, tmp_path):
    module = example("constant_agent")
    spec = module.ConstantAgentSpec(action="D")
    assert AGENT_SPECS["constant"] is module.ConstantAgentSpec
    assert spec.is_deterministic and not spec.uses_provider
    horizon = FixedHorizon(3)
    agents = [
        make_agent(
            spec,
            game=PD,
            horizon=horizon,
            context=AgentContext(
                deal=TEST_DEAL, run_seed=1, condition="c", replicate=0, side=side, project_root=ROOT
            ),
        )
        for side in ("a", "b")
    ]
    result = play_match_sync(PD, 3, *agents, seed_a=1, seed_b=2, disclose_rounds=False)
    assert [(r.played.action_a, r.played.action_b) for r in result.rounds] == [("D", "D")] * 3


def test_a_registered_agent_kind_is_validated_from_a_config(example, tmp_path, monkeypatch):
    """The kind is registered after pdbench's config schema was imported, and a config file
    naming it validates and runs (issue 43: the union of kinds was built once, at import, and
    refused `type: constant` with "does not match any of the expected tags")."""
    example("constant_agent")
    run_dir = _run(EXAMPLES / "constant_agent.yaml", tmp_path, monkeypatch)
    stored = (run_dir / "rounds.jsonl").read_bytes().splitlines()
    rounds = list(as_rounds(orjson.loads(line) for line in stored))  # as the readers read them
    played = {(r["condition"], r["agent_a_action"], r["agent_b_action"]) for r in rounds}
    assert played == {
        ("always_d_vs_tft", "D", "C"),
        ("always_d_vs_tft", "D", "D"),
        ("always_c_vs_alld", "C", "D"),
    }
    manifest = orjson.loads((run_dir / "run_manifest.json").read_bytes())
    assert manifest["config"]["conditions"][0]["agent_a"] == {
        "type": "constant",
        "action": "D",
        "name": None,
    }


def test_a_registered_kind_s_bad_field_is_one_line_naming_it(example, tmp_path):
    example("constant_agent")
    experiment = tmp_path / "bad.yaml"
    experiment.write_text(
        (EXAMPLES / "constant_agent.yaml").read_text().replace("action: D}", "action: X}")
    )
    with pytest.raises(ConfigError) as raised:
        load(experiment, [f"run.output_dir={tmp_path}"], run_id="x", project_root=ROOT)
    message = str(raised.value)
    assert message.count("\n") == 0, message
    assert str(experiment.name) in message and "agent_a.action" in message, message


def test_an_unregistered_kind_names_the_registered_ones(tmp_path):
    with pytest.raises(ConfigError) as raised:
        load(EXAMPLES / "constant_agent.yaml", [], run_id="x", project_root=ROOT)
    message = str(raised.value)
    assert "agent_a" in message and "'constant'" in message and "'policy'" in message, message


def _installed_with(monkeypatch, *extra: EntryPoint) -> None:
    """The installed entry points and `extra`, as if a package declaring them were installed."""
    installed = plugins.entry_points

    def entry_points(*, group: str) -> list[EntryPoint]:
        return [*installed(group=group), *(e for e in extra if e.group == group)]

    monkeypatch.setattr(plugins, "entry_points", entry_points)
    monkeypatch.syspath_prepend(str(EXAMPLES))
    for group in ("pdbench.agents", "pdbench.providers", "pdbench.metrics"):
        plugins.forget(group)


def test_the_built_ins_are_entry_points_of_pdbench_itself():
    """pyproject.toml declares them as a plugin would (uv sync installs pdbench editable, so its
    entry points are in every environment it runs in)."""
    assert set(plugins.load_group("pdbench.agents")) >= {"policy", "llm", "arena"}
    assert set(plugins.load_group("pdbench.providers")) >= {"mock", "litellm"}
    assert "built_in" in plugins.load_group("pdbench.metrics")


def test_plugins_are_found_through_entry_points(example, tmp_path, monkeypatch, capsys):
    """An agent kind, a provider and a metric of an installed package are used from a config
    with no import of theirs anywhere; a plugin that fails to import is one line naming it and
    hides nothing else."""
    _installed_with(
        monkeypatch,
        EntryPoint("constant", "constant_agent:ConstantAgentSpec", "pdbench.agents"),
        EntryPoint("always_cooperate", "always_cooperate:KIND", "pdbench.providers"),
        EntryPoint(
            "mutual_defection_rate", "mutual_defection:mutual_defection_rate", "pdbench.metrics"
        ),
        EntryPoint("broken", "no_such_plugin_module:Spec", "pdbench.agents"),
    )
    example("constant_agent")  # only so that the fixture takes its registrations out afterwards
    sys.modules.pop("constant_agent")
    run_dir = _run(EXAMPLES / "constant_agent.yaml", tmp_path, monkeypatch)
    table = pd.read_parquet(run_dir / "aggregates.parquet")
    assert "mutual_defection_rate" in table.columns
    cooperate = _run(EXAMPLES / "always_cooperate.yaml", tmp_path / "c", monkeypatch)
    assert (cooperate / "rounds.jsonl").is_file()
    said = [line for line in capsys.readouterr().err.splitlines() if "plugin" in line]
    assert said == [
        "warning: plugin broken (pdbench.agents, no_such_plugin_module:Spec) was not loaded: "
        "ModuleNotFoundError: No module named 'no_such_plugin_module'"
    ]
