"""One checker over every registered policy (Gymnasium's check_env, for policies), the same checker
on a user's own policy, and proof that it catches each kind of misbehaviour it claims to.

`check_policy` plays each policy against every registered policy in every 2x2 game given: Actions
only, seeded determinism, reset that forgets, a seed that a deterministic policy ignores, and a
batch form that plays the loop form's moves. The runner-level test then plays each policy as an
agent of the real match runner and checks the round records it produces.
"""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import Field
from reference_loop import play_match_sync

from pdbench.agents.base import Agent
from pdbench.core.actions import Action, C, D
from pdbench.games.tables import GAMES
from pdbench.strategies import (
    POLICIES,
    NoParams,
    Policy,
    PolicyConformanceError,
    PolicyParams,
    check_policy,
    make_policy,
)
from pdbench.strategies.base import LastRounds
from pdbench.strategies.classic import GrimTrigger, TitForTat

PD = GAMES["pd"]


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_every_registered_policy_conforms(policy):
    check_policy(policy, games=GAMES.values())


@pytest.mark.parametrize(
    ("policy", "params"),
    [
        ("random", {"cooperate_prob": 0.2}),
        ("memory_one", {"after_cc": 0.9, "after_cd": 0.1, "after_dc": 0.7, "after_dd": 0.3}),
        ("memory_one", {"initial": 0.5}),
        ("gtft", {"generous_prob": 0.6}),
        ("wsls", {"rule": "payoff"}),
        ("defect_at", {"rounds": [1, 4, 9]}),
        ("scripted", {"moves": "DDCDC"}),
    ],
)
def test_registered_policies_conform_with_other_parameters(policy, params):
    check_policy(policy, games=GAMES.values(), params=params)


# --- a user's own policy ------------------------------------------------------------------------


class PatientGrimParams(PolicyParams):
    patience: int = Field(2, ge=1, description="opponent defections tolerated before defecting")


class PatientGrim(Policy[PatientGrimParams]):
    """Patient Grim (an example of a user's policy): cooperates until the opponent has defected
    `patience` times, then defects for the rest of the match."""

    params_model = PatientGrimParams
    stochastic = False

    def reset(self, seed: int | None = None) -> None:
        self.opponent_defections = 0

    def act(self, obs):
        if obs.last is not None and obs.last.opponent_action is D:
            self.opponent_defections += 1
        return D if self.opponent_defections >= self.params.patience else C

    def reset_batch(self, seeds, n_rounds):
        super().reset_batch(seeds, n_rounds)
        self.defections_batch = np.zeros(len(seeds), dtype=int)

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        if last is not None:
            self.defections_batch += ~last.opponent_coop
        return self.defections_batch < self.params.patience


def test_a_users_policy_passes_without_being_registered():
    check_policy(PatientGrim, games=GAMES.values())
    check_policy(PatientGrim, params={"patience": 1}, games=[PD], seeds=[1, 2])


class CooperateOnOddRounds(Policy[NoParams]):
    """Cooperates on odd rounds (a user's loop-only policy: no batch form to compare)."""

    stochastic = False

    def act(self, obs):
        return C if obs.round_index % 2 else D


def test_a_policy_without_a_batch_form_passes_on_its_loop_form():
    assert not CooperateOnOddRounds.has_batch_form
    check_policy(CooperateOnOddRounds, games=[PD])


# --- what the checker catches -------------------------------------------------------------------


def fails(policy, match: str, **kwargs) -> str:
    with pytest.raises(PolicyConformanceError, match=match) as raised:
        check_policy(policy, games=[PD], **kwargs)
    return str(raised.value)


class Undocumented(TitForTat):
    stochastic = False


class Undeclared(Policy[NoParams]):
    """Does not say whether it is stochastic."""

    def act(self, obs):
        return C


class ReturnsStrings(Policy[NoParams]):
    """Answers "C" instead of Action.C."""

    stochastic = False

    def act(self, obs):
        return "C"


class NeverForgets(GrimTrigger):
    """Grim without a reset: once triggered, it stays triggered in the next match."""

    def reset(self, seed: int | None = None) -> None:
        if not hasattr(self, "triggered"):
            self.triggered = False


class GlobalRandom(Policy[NoParams]):
    """Draws from one stream shared by all instances and never reseeded (a global RNG)."""

    stochastic = True
    shared = np.random.default_rng(0)

    def act(self, obs):
        return C if self.shared.random() < 0.5 else D


class SaysDeterministicButUsesItsSeed(Policy[NoParams]):
    """Claims stochastic = False, yet its moves follow its seed."""

    stochastic = False

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed or 0

    def act(self, obs):
        return C if (self.seed + obs.round_index) % 3 else D


class BatchDisagrees(TitForTat):
    """TFT whose batch form forgets to open with C."""

    def act_batch(self, round_index, last):
        if last is None:
            return np.zeros(self.batch_size, dtype=bool)
        return last.opponent_coop.copy()


class BatchAnswersInts(TitForTat):
    """TFT whose batch form answers 1/0 instead of True/False."""

    def act_batch(self, round_index, last):
        return np.ones(self.batch_size, dtype=int)


class ParamsNotDescribed(PolicyParams):
    level: int = 1


class UndescribedParameter(TitForTat):
    """TFT with a parameter nobody explained."""

    params_model = ParamsNotDescribed


def test_a_policy_without_a_docstring_fails():
    message = fails(Undocumented, "has no docstring")
    assert "Undocumented" in message  # the unregistered class is named


def test_a_policy_that_does_not_declare_stochastic_fails():
    fails(Undeclared, "does not declare `stochastic")


def test_a_policy_that_returns_strings_fails_naming_the_round():
    fails(ReturnsStrings, "act returned 'C' in round 1, not an Action")


def test_a_reset_that_does_not_forget_fails():
    fails(NeverForgets, "reset does not forget.*against alld in pd")


def test_randomness_not_from_the_seed_fails():
    fails(GlobalRandom, "a fresh instance with the same seeds played differently")


def test_a_deterministic_policy_that_follows_its_seed_fails():
    fails(SaysDeterministicButUsesItsSeed, "it is deterministic but seed 12 and seed 11")


def test_a_batch_form_that_differs_from_the_loop_fails_naming_the_round():
    message = fails(BatchDisagrees, "its batch form differs from its loop form against allc in pd")
    assert "its move in round 1: loop C, batch D" in message


def test_a_batch_form_that_answers_the_wrong_type_fails():
    fails(BatchAnswersInts, "act_batch returned int64 array")


def test_undescribed_parameters_fail():
    fails(UndescribedParameter, "ParamsNotDescribed does not describe level")


def test_the_games_to_check_in_are_the_callers_and_none_is_refused():
    """strategies import only core: the caller names the games (the catalogue is
    pdbench.games.tables'); an empty list would pass a policy it never played."""
    with pytest.raises(TypeError, match="games"):
        check_policy("tft")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="at least one game"):
        check_policy("tft", games=[])


def test_a_registered_policy_is_named_by_its_registered_name():
    with pytest.raises(PolicyConformanceError, match=r'^policy "tft" fails check_policy'):
        check_policy("tft", games=[PD], params={"x": 1})


# --- the same policies as agents of the real match runner ---------------------------------------


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_every_policy_plays_through_the_match_runner(policy, game_id):
    game = GAMES[game_id]
    agent = make_policy(policy, game)
    opponent = make_policy("scripted", game, {"moves": "CDDCCDCDDDCC"})  # every outcome occurs
    assert isinstance(agent, Agent)
    result = play_match_sync(game, 30, agent, opponent, seed_a=5, seed_b=6, disclose_rounds=True)

    assert result.completed and result.error is None
    assert [r.played.round_index for r in result.rounds] == list(range(1, 31))
    running_a = running_b = 0.0
    for record in result.rounds:
        played = record.played
        assert isinstance(played.action_a, Action) and record.decision_a.action is played.action_a
        assert (played.payoff_a, played.payoff_b) == game.payoffs.payoffs(
            played.action_a, played.action_b
        )
        running_a += played.payoff_a
        running_b += played.payoff_b
        assert (record.cum_payoff_a, record.cum_payoff_b) == (running_a, running_b)
