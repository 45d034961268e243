"""Issue 43: a game declares its third roles as data (`pdbench.games.roles.ThirdRole`), and the
config binds them generically: a condition's role fields, the experiment file's keys, the Hydra
door's keys and groups are exactly the roles the registered games declare; a role a new game
declares is a field like the others and is left out of every stored condition that leaves it
unbound (so adding it changes no other run's config or hash); the roles that were fields before
keep their stored null."""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf

from pdbench.config import experiment_file, hydra_compose, role_fields, tree
from pdbench.config.schema import ConditionFields, ConditionSpec
from pdbench.games import registry
from pdbench.games.roles import ThirdRole

ROOT = Path(__file__).resolve().parents[2]
TFT = {"type": "policy", "policy": "tft"}


def test_the_condition_binds_exactly_the_roles_the_games_declare():
    roles = tuple(registry.declared_roles())
    assert roles == role_fields.role_names() and roles
    assert tuple(ConditionSpec.model_fields)[len(ConditionFields.model_fields) :] == roles
    for keys in (
        experiment_file.CONDITION_KEYS,
        experiment_file.TOP_LEVEL_KEYS,
        hydra_compose.PRIMARY_KEYS,
        tree.HYDRA_GROUPS,
    ):
        assert set(roles) <= set(keys)
    # each is a Hydra group of the primary config, chosen from its options folder
    defaults = OmegaConf.load(ROOT / "conf" / "config.yaml").defaults
    chosen = {key for entry in defaults if not isinstance(entry, str) for key in entry}
    for name, role in registry.declared_roles().items():
        assert name in chosen, f"conf/config.yaml's defaults list binds no {name}"
        assert (ROOT / "conf" / name).is_dir(), f"no conf/{name}/ (a link for an audit)"
        assert tree.group_options(tree.group_folder(name), ROOT), name
        assert tree.group_folder(name) == role.options_group


def test_every_game_declares_its_roles_in_its_entry_as_its_rules_play_them():
    for game_id in registry.TURN_GAMES:
        played = registry.third_roles(game_id)
        assert played == tuple(registry.build_turn_game(game_id).third_roles), game_id
        assert set(registry.default_third_parties(game_id)) == set(played), game_id


def test_a_role_is_declared_consistently():
    with pytest.raises(ValueError, match="house party"):
        ThirdRole(name="herald", shown="x")
    with pytest.raises(ValueError, match="no house party or panel"):
        ThirdRole(name="herald_audit", shown="x", audits="herald", panel=True)
    with pytest.raises(ValueError, match="field name"):
        ThirdRole(name="agent_k", shown="x", house="m:X")


def test_a_role_a_new_game_declares_is_a_field_left_out_when_unbound(monkeypatch):
    herald = ThirdRole(name="herald", shown="the proclamations", house="m:HERALDS", panel=True)
    roles = {**registry.declared_roles(), "herald": herald}
    monkeypatch.setattr(role_fields, "declared_roles", lambda: roles)
    monkeypatch.setattr(registry, "declared_roles", lambda: roles)
    model = role_fields.with_role_fields(ConditionFields, "ConditionSpec")
    plain = model(name="c", agent_a=TFT, agent_b=TFT)
    stored = plain.model_dump(mode="json")
    assert "herald" not in stored  # unbound: absent, the condition stored as before
    assert {"keeper": None, "keeper_audit": None, "judge": None}.items() <= stored.items()
    with pytest.raises(ValueError, match=r"herald: the 2x2 game pd has no herald role \(it has"):
        model(name="c", agent_a=TFT, agent_b=TFT, herald=TFT)
    with pytest.raises(ValueError, match="a panel playing herald is an odd number"):
        model(name="c", agent_a=TFT, agent_b=TFT, herald=[TFT, TFT])


def test_a_roles_own_measures_are_found_through_its_declaration():
    """`pdbench analyze` asks a game's roles for their measures (tested end to end in
    tests/integration/test_judged_runs.py and test_keeper_audit.py): each declared one exists."""
    measured = [role for role in registry.declared_roles().values() if role.measures]
    assert measured
    for role in measured:
        assert callable(registry.role_measures(role)) and role.missing, role.name
