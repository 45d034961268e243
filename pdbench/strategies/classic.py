"""The six classic strategies, each a few lines that read like its definition."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from pdbench.core.actions import Action, C, D
from pdbench.core.game import Game
from pdbench.core.transcript import Observation
from pdbench.strategies.base import (
    DrawsEachRound,
    LastRounds,
    NoParams,
    Policy,
    PolicyParams,
    PolicyWarning,
    Probability,
    register_policy,
)
from pdbench.strategies.generosity import default_generosity, describe_default_generosity


@register_policy("allc")
class AlwaysCooperate(Policy[NoParams]):
    """Always Cooperate (ALLC; "Cooperator" in Axelrod): plays C every round."""

    stochastic = False

    def act(self, obs: Observation) -> Action:
        return C

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        return np.ones(self.batch_size, dtype=bool)


@register_policy("alld")
class AlwaysDefect(Policy[NoParams]):
    """Always Defect (ALLD; "Defector" in Axelrod): plays D every round."""

    stochastic = False

    def act(self, obs: Observation) -> Action:
        return D

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        return np.zeros(self.batch_size, dtype=bool)


@register_policy("tft")
class TitForTat(Policy[NoParams]):
    """Tit For Tat (Rapoport; winner of Axelrod's 1980 tournaments; "TitForTat" in Axelrod).

    Cooperates in round 1, then plays whatever the opponent played in the previous round.
    """

    stochastic = False

    def act(self, obs: Observation) -> Action:
        if obs.last is None:
            return C
        return obs.last.opponent_action

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        if last is None:
            return np.ones(self.batch_size, dtype=bool)
        return last.opponent_coop.copy()


@register_policy("grim")
class GrimTrigger(Policy[NoParams]):
    """Grim Trigger (Friedman 1971; "Grudger" in Axelrod; also Spite, Spiteful).

    Cooperates until the opponent defects once, then defects for the rest of the match.
    """

    stochastic = False

    def reset(self, seed: int | None = None) -> None:
        self.triggered = False

    def act(self, obs: Observation) -> Action:
        if obs.last is not None and obs.last.opponent_action is D:
            self.triggered = True
        return D if self.triggered else C

    def reset_batch(self, seeds: Sequence[int], n_rounds: int) -> None:
        super().reset_batch(seeds, n_rounds)
        self.triggered_batch = np.zeros(len(seeds), dtype=bool)

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        if last is not None:
            self.triggered_batch |= ~last.opponent_coop
        return ~self.triggered_batch


class GenerousTitForTatParams(PolicyParams):
    generous_prob: Probability | None = Field(
        None,
        description="chance of cooperating after the opponent's D; null: Nowak & Sigmund's "
        "min(1 - (T-R)/(R-S), (R-P)/(T-P)) for the game's payoffs, clamped into [0, 1]",
    )


@register_policy("gtft")
class GenerousTitForTat(DrawsEachRound[GenerousTitForTatParams]):
    """Generous Tit For Tat (Nowak & Sigmund 1992; "GTFT" in Axelrod).

    Like Tit For Tat, but after an opponent's D it still cooperates with probability
    `generous_prob`. It draws one uniform number per round from its own seeded stream, whether or
    not it needs it, so its n-th round always uses the n-th draw.

    The default generosity is computed from the condition's payoffs. Outside the prisoner's
    dilemma it can reach 0 (when T - R >= R - S, exploiting gains as much as being exploited
    loses: GTFT plays as TFT) or leave [0, 1] and be clamped to 1 (when T < R, cooperating
    together pays most: GTFT plays as ALLC); `warnings` says so, naming the game. Axelrod instead
    computes it once from its default game and keeps 1/3 in every game.
    """

    params_model = GenerousTitForTatParams
    stochastic = True

    def __init__(self, game: Game, params: GenerousTitForTatParams | None = None) -> None:
        super().__init__(game, params)
        given = self.params.generous_prob
        self.generous_prob = default_generosity(game) if given is None else given

    @property
    def is_stochastic(self) -> bool:
        return 0 < self.generous_prob < 1

    @classmethod
    def warnings(cls, game: Game, params: PolicyParams) -> list[PolicyWarning]:
        if not isinstance(params, GenerousTitForTatParams) or params.generous_prob is not None:
            return []
        problem = describe_default_generosity(game).degenerate_because
        return [] if problem is None else [PolicyWarning("generous_prob", problem)]

    def act(self, obs: Observation) -> Action:
        draw = self.draw()
        if obs.last is None or obs.last.opponent_action is C:
            return C
        return C if draw < self.generous_prob else D

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        if last is None:
            return np.ones(self.batch_size, dtype=bool)
        return last.opponent_coop | (self.batch_draw(round_index) < self.generous_prob)


class WinStayLoseShiftParams(PolicyParams):
    rule: Literal["outcome", "payoff"] = Field(
        "outcome",
        description="outcome: cooperate after CC or DD, defect after CD or DC (Axelrod); "
        "payoff: repeat the last move after a payoff >= win_threshold, else switch",
    )
    win_threshold: float | None = Field(
        None, description="rule payoff only: the least payoff that counts as a win; null: R"
    )

    @field_validator("win_threshold")
    @classmethod
    def _only_with_the_payoff_rule(cls, value: float | None, info: ValidationInfo) -> float | None:
        if value is not None and info.data.get("rule") == "outcome":
            raise ValueError("applies only with rule: payoff (the outcome rule has no threshold)")
        return value


@register_policy("wsls")
class WinStayLoseShift(Policy[WinStayLoseShiftParams]):
    """Win-Stay Lose-Shift (Pavlov; Nowak & Sigmund 1993; "WinStayLoseShift" in Axelrod).

    Cooperates in round 1. Then, with `rule: outcome` (the default, as Axelrod), it cooperates
    after CC or DD and defects after CD or DC: it keeps its move when the opponent matched it.
    With `rule: payoff` it repeats its own last move if its last payoff was at least
    `win_threshold` (default R, the reward for mutual cooperation) and switches otherwise.

    The two rules play the same in every game where S < R, P < R and T >= R (the prisoner's
    dilemma among them): with the default threshold R, DC is a win and DD a loss, as the outcome
    rule reads them. Where T < R (cooperating together pays most) the payoff rule treats DC as a
    loss and switches to C where the outcome rule stays at D.
    """

    params_model = WinStayLoseShiftParams
    stochastic = False

    def __init__(self, game: Game, params: WinStayLoseShiftParams | None = None) -> None:
        super().__init__(game, params)
        threshold = self.params.win_threshold
        self.win_threshold = game.payoffs.R if threshold is None else threshold

    def act(self, obs: Observation) -> Action:
        last = obs.last
        if last is None:
            return C
        if self.params.rule == "outcome":
            return C if last.own_action is last.opponent_action else D
        if last.own_payoff >= self.win_threshold:
            return last.own_action
        return last.own_action.flipped

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        if last is None:
            return np.ones(self.batch_size, dtype=bool)
        if self.params.rule == "outcome":
            return last.own_coop == last.opponent_coop
        won = last.own_payoff >= self.win_threshold
        return np.where(won, last.own_coop, ~last.own_coop)
