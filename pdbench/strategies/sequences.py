"""Policies that follow a plan whatever the opponent does: ALTERNATOR, "defect at rounds {k, ...}"
and a scripted sequence. Each is a deterministic function of the round number (and, for the
alternator, of its own last move)."""

from __future__ import annotations

import numpy as np
from pydantic import Field, field_validator

from pdbench.core.actions import Action, C, D
from pdbench.core.game import Game
from pdbench.core.transcript import Observation
from pdbench.strategies.base import LastRounds, NoParams, Policy, PolicyParams, register_policy


@register_policy("alternator")
class Alternator(Policy[NoParams]):
    """Alternator (Axelrod 1984; "Alternator" in Axelrod; also Periodic player CD).

    Cooperates in round 1, then plays the opposite of its own previous move: C, D, C, D, ...
    """

    stochastic = False

    def act(self, obs: Observation) -> Action:
        if obs.last is None:
            return C
        return obs.last.own_action.flipped

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        if last is None:
            return np.ones(self.batch_size, dtype=bool)
        return ~last.own_coop


class DefectAtParams(PolicyParams):
    rounds: tuple[int, ...] = Field(
        (1,),
        description="the rounds (counted from 1) in which it defects; default [1]: defect once, "
        "first (Akata et al.'s defect-once opponent)",
    )

    @field_validator("rounds", mode="before")
    @classmethod
    def _one_round_is_a_list_of_one(cls, rounds: object) -> object:
        return [rounds] if isinstance(rounds, int) else rounds

    @field_validator("rounds")
    @classmethod
    def _rounds_count_from_1(cls, rounds: tuple[int, ...]) -> tuple[int, ...]:
        if any(k < 1 for k in rounds):
            raise ValueError(f"rounds are counted from 1, got {list(rounds)}")
        return tuple(sorted(set(rounds)))


@register_policy("defect_at")
class DefectAt(Policy[DefectAtParams]):
    """Defect at rounds {k, ...} (covers Akata et al. 2025's "defect once" with rounds [1]; in
    Axelrod a Cycler whose cycle is the whole match, e.g. Cycler("D" + "C" * 199) for 200 rounds).

    Defects in the given rounds and cooperates in every other round, whatever the opponent does.
    """

    params_model = DefectAtParams
    stochastic = False

    def act(self, obs: Observation) -> Action:
        return D if obs.round_index in self.params.rounds else C

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        return np.full(self.batch_size, round_index not in self.params.rounds)


class ScriptedParams(PolicyParams):
    moves: str = Field(
        "CCD",
        description='the moves to play, e.g. "CCD" (or a list: [C, C, D]); repeated from the '
        "start once used up",
    )

    @field_validator("moves", mode="before")
    @classmethod
    def _a_list_of_moves_is_a_string(cls, moves: object) -> object:
        if isinstance(moves, list | tuple) and all(isinstance(m, str) for m in moves):
            return "".join(moves)
        return moves

    @field_validator("moves")
    @classmethod
    def _only_c_and_d(cls, moves: str) -> str:
        if not moves or set(moves) - {"C", "D"}:
            raise ValueError('must be a non-empty string of C and D, e.g. "CCD"')
        return moves


@register_policy("scripted")
class Scripted(Policy[ScriptedParams]):
    """A scripted sequence ("Cycler" in Axelrod, whose default cycle is also CCD).

    Plays `moves` in order, whatever the opponent does, and when the sequence is used up repeats
    it from the start: with moves "CCD", round 4 plays C again.
    """

    params_model = ScriptedParams
    stochastic = False

    def __init__(self, game: Game, params: ScriptedParams | None = None) -> None:
        super().__init__(game, params)
        self.moves = [Action(move) for move in self.params.moves]
        self.moves_coop = np.array([move is C for move in self.moves])

    def act(self, obs: Observation) -> Action:
        return self.moves[(obs.round_index - 1) % len(self.moves)]

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        cooperates = self.moves_coop[(round_index - 1) % len(self.moves_coop)]
        return np.full(self.batch_size, cooperates)
