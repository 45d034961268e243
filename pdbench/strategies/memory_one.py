"""Policies given by cooperation probabilities: RANDOM(p) (memory zero) and the generic memory-one
strategy (one probability per outcome of the last round).

Both draw one uniform number per round from their own seeded stream (see `DrawsEachRound`) and
cooperate when it falls below the probability that applies; a probability of 0 or 1 therefore
plays deterministically.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from pdbench.core.actions import Action, C, D
from pdbench.core.game import Game
from pdbench.core.transcript import Observation
from pdbench.strategies.base import (
    DrawsEachRound,
    LastRounds,
    PolicyParams,
    Probability,
    register_policy,
)


class RandomParams(PolicyParams):
    cooperate_prob: Probability = Field(0.5, description="chance of playing C in each round")


@register_policy("random")
class Random(DrawsEachRound[RandomParams]):
    """RANDOM(p) (Axelrod 1980, 15th in the first tournament; "Random" in Axelrod; also Lunatic).

    Cooperates with probability `cooperate_prob` (p) in every round, whatever happened before.
    RANDOM(0) plays as ALLD, RANDOM(1) as ALLC.
    """

    params_model = RandomParams
    stochastic = True

    @property
    def is_stochastic(self) -> bool:
        return 0 < self.params.cooperate_prob < 1

    def act(self, obs: Observation) -> Action:
        return C if self.draw() < self.params.cooperate_prob else D

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        return self.batch_draw(round_index) < self.params.cooperate_prob


class MemoryOneParams(PolicyParams):
    after_cc: Probability = Field(1.0, description="P(C) after own C and opponent's C")
    after_cd: Probability = Field(0.0, description="P(C) after own C and opponent's D")
    after_dc: Probability = Field(0.0, description="P(C) after own D and opponent's C")
    after_dd: Probability = Field(1.0, description="P(C) after own D and opponent's D")
    initial: Probability = Field(1.0, description="P(C) in round 1")

    @property
    def after(self) -> tuple[float, float, float, float]:
        """The four-vector (P(C|CC), P(C|CD), P(C|DC), P(C|DD)), own move first."""
        return (self.after_cc, self.after_cd, self.after_dc, self.after_dd)


@register_policy("memory_one")
class MemoryOne(DrawsEachRound[MemoryOneParams]):
    """Generic memory-one strategy (Nowak & Sigmund 1990; "MemoryOnePlayer" in Axelrod).

    Cooperates in round 1 with probability `initial`, then with the probability given for the
    last round's outcome, own move first: `after_cc`, `after_cd`, `after_dc`, `after_dd`. The
    defaults (1, 0, 0, 1) with initial 1 are Axelrod's default, Win-Stay Lose-Shift; TFT is
    (1, 0, 1, 0), ALLC (1, 1, 1, 1). Stochastic unless every probability is 0 or 1.
    """

    params_model = MemoryOneParams
    stochastic = True

    def __init__(self, game: Game, params: MemoryOneParams | None = None) -> None:
        super().__init__(game, params)
        # Indexed by 2 * (own D) + (opponent D): CC, CD, DC, DD.
        self.after_probs = np.array(self.params.after)

    @property
    def is_stochastic(self) -> bool:
        probabilities = (*self.params.after, self.params.initial)
        return any(0 < p < 1 for p in probabilities)

    def act(self, obs: Observation) -> Action:
        draw = self.draw()
        last = obs.last
        if last is None:
            return C if draw < self.params.initial else D
        outcome = 2 * (last.own_action is D) + (last.opponent_action is D)
        return C if draw < self.after_probs[outcome] else D

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        draws = self.batch_draw(round_index)
        if last is None:
            return draws < self.params.initial
        outcome = 2 * (~last.own_coop).astype(np.intp) + (~last.opponent_coop).astype(np.intp)
        return draws < self.after_probs[outcome]
