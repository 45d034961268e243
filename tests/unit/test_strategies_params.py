"""The policy contract around the moves: typed parameters (through make_policy and through a
config's PolicyAgentSpec), the `stochastic` flags, which classes have a batch form, and the
warnings about defaults that silently turn one policy into another."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pdbench.config.schema import PolicyAgentSpec
from pdbench.core.errors import ConfigError
from pdbench.games.tables import GAMES
from pdbench.strategies import (
    POLICIES,
    NoParams,
    Policy,
    make_policy,
    policy_has_batch_form,
    policy_warnings,
)
from pdbench.strategies.classic import TitForTat

PD = GAMES["pd"]
STAG_HUNT = GAMES["stag_hunt"]

# As Axelrod classifies each strategy ("stochastic" in its classifier).
AXELROD_STOCHASTIC = {"gtft", "random", "memory_one"}


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_stochastic_flags_follow_axelrod(name):
    assert POLICIES[name].stochastic is (name in AXELROD_STOCHASTIC)


@pytest.mark.parametrize(
    ("name", "params", "stochastic"),
    [
        ("random", {"cooperate_prob": 0.5}, True),
        ("random", {"cooperate_prob": 0.0}, False),  # Axelrod: Random(0) is a Defector
        ("random", {"cooperate_prob": 1.0}, False),
        ("memory_one", {}, False),  # the default (1, 0, 0, 1), initial 1: WSLS
        ("memory_one", {"after_cd": 0.25}, True),
        ("memory_one", {"initial": 0.5}, True),
        ("gtft", {}, True),  # 1/3 in the PD
        ("gtft", {"generous_prob": 0.0}, False),  # TFT
        ("tft", {}, False),
    ],
)
def test_an_instance_says_whether_its_parameters_make_it_random(name, params, stochastic):
    assert make_policy(name, PD, params).is_stochastic is stochastic


def test_every_registered_policy_has_a_batch_form():
    assert all(policy_has_batch_form(name) for name in POLICIES)


class LoopOnly(TitForTat):
    """TFT's rule written again without a batch form (a user's policy, say)."""

    def act(self, obs):
        return super().act(obs)


class WithoutEither(Policy[NoParams]):
    """A bare policy."""


def test_a_subclass_that_changes_act_does_not_inherit_the_batch_form():
    assert TitForTat.has_batch_form
    assert not LoopOnly.has_batch_form  # act is its own, act_batch its parent's
    assert not WithoutEither.has_batch_form
    assert not Policy.has_batch_form


def test_the_spec_tells_the_runner_whether_to_batch():
    assert PolicyAgentSpec(policy="gradual").has_batch_form


# --- parameters through make_policy --------------------------------------------------------------


def test_unknown_parameter_suggests_the_closest():
    with pytest.raises(ConfigError, match='unknown parameter "cooperate_pro" for random') as raised:
        make_policy("random", PD, {"cooperate_pro": 0.3})
    assert 'did you mean "cooperate_prob"' in str(raised.value)
    assert raised.value.field == "cooperate_pro"


def test_a_policy_without_parameters_says_so():
    with pytest.raises(ConfigError, match="it takes no parameters"):
        make_policy("tft", PD, {"p": 1})


@pytest.mark.parametrize(
    ("name", "params", "field", "message"),
    [
        ("random", {"cooperate_prob": 1.5}, "cooperate_prob", "must be between 0 and 1"),
        ("memory_one", {"after_dd": -0.1}, "after_dd", "must be between 0 and 1"),
        ("defect_at", {"rounds": [0]}, "rounds", "counted from 1"),
        ("defect_at", {"rounds": ["x"]}, "rounds.0", "valid integer"),
        ("scripted", {"moves": "CXD"}, "moves", "string of C and D"),
        ("scripted", {"moves": ""}, "moves", "non-empty"),
        ("wsls", {"rule": "payof"}, "rule", "'outcome' or 'payoff'"),
    ],
)
def test_a_wrong_value_names_its_parameter(name, params, field, message):
    with pytest.raises(ConfigError, match=message) as raised:
        make_policy(name, PD, params)
    assert raised.value.field == field


def test_parameters_are_typed_and_frozen():
    policy = make_policy("defect_at", PD, {"rounds": [5, 1, 5]})
    assert policy.params.rounds == (1, 5)  # a set of rounds, kept sorted
    with pytest.raises(ValidationError):
        policy.params.rounds = (2,)  # type: ignore[misc]


# --- parameters through a config's PolicyAgentSpec -----------------------------------------------


def test_the_spec_keeps_the_given_parameters_as_the_model_reads_them():
    spec = PolicyAgentSpec(policy="random", params={"cooperate_prob": 1})
    assert spec.params == {"cooperate_prob": 1.0}
    assert isinstance(spec.params["cooperate_prob"], float)
    # Only the names given: defaults stay out of the config (and of its hash).
    assert PolicyAgentSpec(policy="memory_one", params={"after_cd": 0.5}).params == {
        "after_cd": 0.5
    }
    assert PolicyAgentSpec(policy="defect_at", params={"rounds": [3, 1]}).params == {
        "rounds": [1, 3]
    }


def test_the_spec_refuses_an_unknown_parameter_with_a_suggestion():
    with pytest.raises(ValidationError, match='unknown parameter "round" for defect_at') as raised:
        PolicyAgentSpec(policy="defect_at", params={"round": [1]})
    assert 'did you mean "rounds"' in str(raised.value)


def test_the_spec_puts_a_wrong_value_under_its_parameter():
    with pytest.raises(ValidationError) as raised:
        PolicyAgentSpec(policy="memory_one", params={"after_dc": 3})
    problem = raised.value.errors()[0]
    assert problem["loc"] == ("params", "after_dc")
    assert "must be between 0 and 1" in problem["msg"]


def test_an_unknown_policy_is_the_only_complaint():
    with pytest.raises(ValidationError) as raised:
        PolicyAgentSpec(policy="gradul", params={"x": 1})
    assert [e["loc"] for e in raised.value.errors()] == [("policy",)]
    assert 'did you mean "gradual"' in str(raised.value)


# --- warnings: defaults that turn one policy into another -----------------------------------------


@pytest.mark.parametrize(
    ("game_id", "shown", "plays_as"),
    [
        # stag hunt (R=4, S=0, T=3, P=2): min(1 + 1/4, 2/1) = 1.25, clamped to 1
        ("stag_hunt", "is 1.25, clamped to 1 in stag_hunt", "ALLC"),
        # chicken (R=3, S=1, T=5, P=0): min(1 - 2/2, 3/5) = 0
        ("chicken", "is 0 in chicken", "TFT"),
        # split or steal (R=50, S=0, T=100, P=0): min(1 - 50/50, 50/100) = 0
        ("split_or_steal", "is 0 in split_or_steal", "TFT"),
    ],
)
def test_gtft_warns_when_its_default_generosity_degenerates(game_id, shown, plays_as):
    warnings = policy_warnings("gtft", GAMES[game_id])
    assert [warning.field for warning in warnings] == ["generous_prob"]
    message = str(warnings[0])
    assert message.startswith("generous_prob: the default generosity")
    assert shown in message and f"GTFT plays as {plays_as}" in message
    assert "set generous_prob" in message


def test_gtft_does_not_warn_in_the_pd_or_when_generous_prob_is_given():
    assert policy_warnings("gtft", PD) == []
    assert policy_warnings("gtft", STAG_HUNT, {"generous_prob": 1.0}) == []  # asked for


def test_the_spec_gives_the_warnings_for_its_game():
    assert len(PolicyAgentSpec(policy="gtft").warnings(STAG_HUNT)) == 1
    assert PolicyAgentSpec(policy="gtft", params={"generous_prob": 0.2}).warnings(STAG_HUNT) == []


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_no_other_policy_warns_with_its_defaults(game_id):
    warned = [name for name in POLICIES if name != "gtft" and policy_warnings(name, GAMES[game_id])]
    assert warned == []
