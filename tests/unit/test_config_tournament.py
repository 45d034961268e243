"""The tournament block: which pairs a round robin plays, the labels that name the players, and
the one-line refusals (two agents with one label, both conditions and a tournament, ...)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdbench.config.load import load_config
from pdbench.config.tournament import round_robin
from pdbench.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def load(tmp_path: Path, tournament: str, *overrides: str, extra: str = ""):
    path = tmp_path / "tournament.yaml"
    path.write_text(
        "run: {replicates: 2}\nhorizon: {type: fixed, rounds: 5}\n" + extra + tournament
    )
    return load_config(path, list(overrides), project_root=ROOT).spec


def test_round_robin_pairs_follow_the_agent_list():
    players = ["a", "b", "c"]
    assert round_robin(players, self_play=True, pairs="unordered") == [
        ("a", "a"), ("a", "b"), ("a", "c"), ("b", "b"), ("b", "c"), ("c", "c"),
    ]  # fmt: skip
    assert round_robin(players, self_play=False, pairs="unordered") == [
        ("a", "b"), ("a", "c"), ("b", "c"),
    ]  # fmt: skip
    ordered = round_robin(players, self_play=False, pairs="ordered")
    assert len(ordered) == 6 and ("b", "a") in ordered and ("a", "a") not in ordered
    assert len(round_robin(players, self_play=True, pairs="ordered")) == 9


def test_conditions_are_named_by_labels_which_are_the_display_names(tmp_path):
    spec = load(
        tmp_path,
        "tournament:\n"
        "  agents:\n"
        "    - tft\n"
        "    - {ref: agent/llm_default.yaml, overrides: {persona: exploitative}}\n"
        "    - {label: gtft_10, type: policy, policy: gtft, params: {generous_prob: 0.1}}\n"
        "  self_play: false\n",
    )
    names = [condition.name for condition in spec.conditions]
    assert names == ["tft_vs_llm_default", "tft_vs_gtft_10", "llm_default_vs_gtft_10"]
    last = spec.conditions[2]
    assert last.factors == {"player_a": "llm_default", "player_b": "gtft_10"}
    assert last.agent_a.display_name == "llm_default" and last.agent_a.persona == "exploitative"
    assert last.agent_b.display_name == "gtft_10" and last.agent_b.params == {"generous_prob": 0.1}


def test_the_command_line_changes_the_tournament_as_any_key(tmp_path):
    spec = load(
        tmp_path,
        "tournament: {agents: [tft, grim, alld]}\n",
        "tournament.agents=[allc,alld]",
        "tournament.pairs=ordered",
    )
    assert [c.name for c in spec.conditions] == [
        "allc_vs_allc", "allc_vs_alld", "alld_vs_allc", "alld_vs_alld",
    ]  # fmt: skip


def test_the_hydra_form_composes_the_shared_settings(tmp_path):
    spec = load_config(
        ROOT / "conf" / "config.yaml",
        ["tournament.agents=[tft,llm_default]", "persona=exploitative", "horizon.rounds=7"],
        project_root=ROOT,
    ).spec
    assert [c.name for c in spec.conditions] == [
        "tft_vs_tft",
        "tft_vs_llm_default",
        "llm_default_vs_llm_default",
    ]
    llm = spec.conditions[1].agent_b
    assert llm.persona == "exploitative" and llm.provider.name == "mock"
    assert all(c.horizon.rounds == 7 for c in spec.conditions)


@pytest.mark.parametrize(
    ("tournament", "extra", "field", "message"),
    [
        ("tournament: {agents: [tft, tft]}\n", "", "tournament.agents[1]", "already used"),
        (
            "tournament: {agents: [tft, {type: policy, policy: grim}]}\n",
            "",
            "tournament.agents[1]",
            "needs a label",
        ),
        ("tournament: {agents: [tft, grim], pairs: both}\n", "", "tournament.pairs", "ordered"),
        (
            "tournament: {agents: [tft, grim], self_ply: true}\n",
            "",
            "tournament.self_ply",
            "self_play",
        ),
        ("tournament: {agents: [tft], self_play: false}\n", "", "tournament.agents", "two agents"),
        ("tournament: {agents: [tft, grimm]}\n", "", "tournament.agents[1]", 'did you mean "grim"'),
        (
            "tournament: {agents: [tft, grim]}\n",
            "conditions: [{name: x, agent_a: tft, agent_b: tft}]\n",
            "tournament",
            "not both",
        ),
    ],
)
def test_a_bad_tournament_is_one_line_naming_the_field(tmp_path, tournament, extra, field, message):
    with pytest.raises(ConfigError) as raised:
        load(tmp_path, tournament, extra=extra)
    assert raised.value.field == field
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_a_tournament_is_never_a_sweep():
    with pytest.raises(ConfigError, match="not a sweep"):
        load_config(
            ROOT / "conf" / "config.yaml", ["tournament.self_play=true,false"], project_root=ROOT
        )
