"""Relatives of Tit For Tat that react to more than the opponent's last move, or start differently:
STFT, TF2T, Gradual and Prober. Each plays exactly as its namesake in Axelrod-Python 4.14 (checked
move for move against recorded play: tests/unit/test_strategies_axelrod.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pdbench.core.actions import Action, C, D
from pdbench.core.transcript import Observation
from pdbench.strategies.base import LastRounds, NoParams, Policy, register_policy


@register_policy("stft")
class SuspiciousTitForTat(Policy[NoParams]):
    """Suspicious Tit For Tat (STFT; Hilbe et al. 2013; "SuspiciousTitForTat" in Axelrod; also
    Mistrust, Beaufils et al. 1997).

    Defects in round 1, then plays whatever the opponent played in the previous round.
    """

    stochastic = False

    def act(self, obs: Observation) -> Action:
        if obs.last is None:
            return D
        return obs.last.opponent_action

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        if last is None:
            return np.zeros(self.batch_size, dtype=bool)
        return last.opponent_coop.copy()


@register_policy("tf2t")
class TitForTwoTats(Policy[NoParams]):
    """Tit For Two Tats (TF2T; Maynard Smith, Axelrod 1984; "TitFor2Tats" in Axelrod; also Slow
    Tit For Two Tats).

    Cooperates, and defects only after two consecutive defections of the opponent (in the two
    previous rounds); it forgives as soon as the opponent cooperates once.
    """

    stochastic = False

    def reset(self, seed: int | None = None) -> None:
        self.opponent_defected_before_last = False

    def act(self, obs: Observation) -> Action:
        if obs.last is None:
            return C
        defected_last = obs.last.opponent_action is D
        twice = defected_last and self.opponent_defected_before_last
        self.opponent_defected_before_last = defected_last
        return D if twice else C

    def reset_batch(self, seeds: Sequence[int], n_rounds: int) -> None:
        super().reset_batch(seeds, n_rounds)
        self.defected_before_last_batch = np.zeros(len(seeds), dtype=bool)

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        if last is None:
            return np.ones(self.batch_size, dtype=bool)
        defected_last = ~last.opponent_coop
        twice = defected_last & self.defected_before_last_batch
        self.defected_before_last_batch = defected_last
        return ~twice


@register_policy("gradual")
class Gradual(Policy[NoParams]):
    """Gradual (Beaufils, Delahaye & Mathieu 1996; "Gradual" in Axelrod, the CRISTAL-SMAC 2018
    version that Axelrod's authors found to reproduce the published results).

    Cooperates in round 1. When the opponent's last move was D and Gradual is neither punishing
    nor calming down, it defects as many times in a row as the opponent has defected so far in
    the whole match (this D included), then cooperates twice to calm things down; while punishing
    or calming it ignores what the opponent does. Against ALLD: C, D, C, C, then D x4, C, C, D x10,
    C, C, ...

    Axelrod's "OriginalGradual" (counting only the defections that start a punishment) is a
    different policy and is not this one.
    """

    stochastic = False

    def reset(self, seed: int | None = None) -> None:
        self.opponent_defections = 0
        self.punishments_left = 0
        self.calm_rounds_left = 0

    def act(self, obs: Observation) -> Action:
        if obs.last is None:
            return C
        if obs.last.opponent_action is D:
            self.opponent_defections += 1
        if self.punishments_left > 0:
            self.punishments_left -= 1
            return D
        if self.calm_rounds_left > 0:
            self.calm_rounds_left -= 1
            return C
        if obs.last.opponent_action is D:
            self.punishments_left = self.opponent_defections - 1  # this round's D is the first
            self.calm_rounds_left = 2
            return D
        return C

    def reset_batch(self, seeds: Sequence[int], n_rounds: int) -> None:
        super().reset_batch(seeds, n_rounds)
        size = len(seeds)
        self.defections_batch = np.zeros(size, dtype=np.int64)
        self.punishments_batch = np.zeros(size, dtype=np.int64)
        self.calm_batch = np.zeros(size, dtype=np.int64)

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        if last is None:
            return np.ones(self.batch_size, dtype=bool)
        opponent_defected = ~last.opponent_coop
        self.defections_batch += opponent_defected
        punishing = self.punishments_batch > 0
        calming = ~punishing & (self.calm_batch > 0)
        starts = ~punishing & ~calming & opponent_defected
        self.punishments_batch[punishing] -= 1
        self.calm_batch[calming] -= 1
        self.punishments_batch[starts] = self.defections_batch[starts] - 1
        self.calm_batch[starts] = 2
        return ~(punishing | starts)


@register_policy("prober")
class Prober(Policy[NoParams]):
    """Prober (Li, Hingston & Kendall 2011; "Prober" in Axelrod).

    Opens D, C, C. If the opponent cooperated in both rounds 2 and 3 it takes it for a sucker
    and defects for the rest of the match; otherwise it plays Tit For Tat from round 4 on.
    """

    stochastic = False

    def reset(self, seed: int | None = None) -> None:
        self.opponent_cooperations_in_2_and_3 = 0

    def act(self, obs: Observation) -> Action:
        last = obs.last
        if last is None:
            return D
        if last.round_index in (2, 3) and last.opponent_action is C:
            self.opponent_cooperations_in_2_and_3 += 1
        if obs.round_index <= 3:
            return C
        if self.opponent_cooperations_in_2_and_3 == 2:
            return D
        return last.opponent_action

    def reset_batch(self, seeds: Sequence[int], n_rounds: int) -> None:
        super().reset_batch(seeds, n_rounds)
        self.cooperations_batch = np.zeros(len(seeds), dtype=np.int64)

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        if last is None:
            return np.zeros(self.batch_size, dtype=bool)
        if round_index in (3, 4):  # `last` is round 2 or round 3
            self.cooperations_batch += last.opponent_coop
        if round_index <= 3:
            return np.ones(self.batch_size, dtype=bool)
        return last.opponent_coop & (self.cooperations_batch < 2)
