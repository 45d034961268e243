"""The classic strategies, each a few lines that read like its definition."""

from __future__ import annotations

import numpy as np

from pdbench.core.actions import Action, C, D
from pdbench.core.errors import ConfigError
from pdbench.core.game import Game
from pdbench.core.rng import make_rng
from pdbench.core.transcript import Observation
from pdbench.strategies.base import LastRounds, Policy, register_policy


@register_policy("allc")
class AlwaysCooperate(Policy):
    """Always Cooperate (ALLC, "Cooperator" in Axelrod): plays C every round."""

    def act(self, obs: Observation) -> Action:
        return C

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        return np.ones(self.batch_size, dtype=bool)


@register_policy("alld")
class AlwaysDefect(Policy):
    """Always Defect (ALLD, "Defector" in Axelrod): plays D every round."""

    def act(self, obs: Observation) -> Action:
        return D

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        return np.zeros(self.batch_size, dtype=bool)


@register_policy("tft")
class TitForTat(Policy):
    """Tit For Tat (Rapoport, winner of Axelrod's 1980 tournaments).

    Cooperates in round 1, then plays whatever the opponent played in the previous round.
    """

    def act(self, obs: Observation) -> Action:
        if obs.last is None:
            return C
        return obs.last.opponent_action

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        if last is None:
            return np.ones(self.batch_size, dtype=bool)
        return last.opponent_coop.copy()


@register_policy("grim")
class GrimTrigger(Policy):
    """Grim Trigger (Friedman 1971; "Grudger" in Axelrod).

    Cooperates until the opponent defects once, then defects for the rest of the match.
    """

    def reset(self, seed: int | None = None) -> None:
        self.triggered = False

    def act(self, obs: Observation) -> Action:
        if obs.last is not None and obs.last.opponent_action is D:
            self.triggered = True
        return D if self.triggered else C

    def reset_batch(self, seeds: list[int], n_rounds: int) -> None:
        super().reset_batch(seeds, n_rounds)
        self.triggered_batch = np.zeros(len(seeds), dtype=bool)

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        if last is not None:
            self.triggered_batch |= ~last.opponent_coop
        return ~self.triggered_batch


def default_generosity(game: Game) -> float:
    """Nowak & Sigmund's (1992) generosity: min(1 - (T-R)/(R-S), (R-P)/(T-P)); 1/3 in the
    default game (3, 0, 5, 1), clamped into [0, 1] for games where it would leave it."""
    R, S, T, P = game.payoffs.R, game.payoffs.S, game.payoffs.T, game.payoffs.P
    if R == S or T == P:
        raise ConfigError(
            "the default generous_prob needs R != S and T != P; set generous_prob explicitly",
            field="generous_prob",
        )
    generosity = min(1 - (T - R) / (R - S), (R - P) / (T - P))
    # Outside the prisoner's dilemma the formula can leave [0, 1] (stag hunt: 1.25); as a
    # probability it is clamped, so gtft stays usable in every game without an explicit value.
    return min(1.0, max(0.0, generosity))


@register_policy("gtft")
class GenerousTitForTat(Policy):
    """Generous Tit For Tat (Nowak & Sigmund 1992).

    Like Tit For Tat, but after an opponent's D it still cooperates with probability
    `generous_prob`. It draws one uniform number per round from its own seeded stream, whether or
    not it needs it, so its n-th round always uses the n-th draw.
    """

    def __init__(self, game: Game, generous_prob: float | None = None) -> None:
        prob = default_generosity(game) if generous_prob is None else float(generous_prob)
        if not 0 <= prob <= 1:
            raise ConfigError(f"must be between 0 and 1, got {prob}", field="generous_prob")
        self.generous_prob = prob
        super().__init__(game)

    def reset(self, seed: int | None = None) -> None:
        self.rng: np.random.Generator = make_rng(0 if seed is None else seed)

    def act(self, obs: Observation) -> Action:
        draw = self.rng.random()
        if obs.last is None or obs.last.opponent_action is C:
            return C
        return C if draw < self.generous_prob else D

    def reset_batch(self, seeds: list[int], n_rounds: int) -> None:
        super().reset_batch(seeds, n_rounds)
        # Row i holds match i's draws, the same numbers `act` takes one per round.
        self.draws = np.stack([make_rng(seed).random(n_rounds) for seed in seeds])

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        if last is None:
            return np.ones(self.batch_size, dtype=bool)
        return last.opponent_coop | (self.draws[:, round_index - 1] < self.generous_prob)


@register_policy("wsls")
class WinStayLoseShift(Policy):
    """Win-Stay Lose-Shift (Pavlov; Nowak & Sigmund 1993).

    Cooperates in round 1; afterwards repeats its own last action if its last payoff was at least
    `win_threshold` (default R, the reward for mutual cooperation) and switches otherwise.
    """

    def __init__(self, game: Game, win_threshold: float | None = None) -> None:
        self.win_threshold = game.payoffs.R if win_threshold is None else float(win_threshold)
        super().__init__(game)

    def act(self, obs: Observation) -> Action:
        if obs.last is None:
            return C
        if obs.last.own_payoff >= self.win_threshold:
            return obs.last.own_action
        return obs.last.own_action.flipped

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        if last is None:
            return np.ones(self.batch_size, dtype=bool)
        won = last.own_payoff >= self.win_threshold
        return np.where(won, last.own_coop, ~last.own_coop)
