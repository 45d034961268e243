"""Axelrod-style test helpers: a scripted opponent and `versus_test`.

    versus_test(make_policy("tft", PD), opponent_moves="CDDC", expected_moves="CCDD")

plays a match of len(expected_moves) rounds against an opponent that plays `opponent_moves` in
order, and fails naming every round where the policy's move differs from the expected one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from reference_loop import MatchResult, play_match_sync

from pdbench.agents.base import Agent
from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.rng import DealKey
from pdbench.core.transcript import Observation
from pdbench.games.tables import GAMES

# A fixed deal key for tests that fix a plan's or an agent's numbers without a run folder (a run
# is dealt with its own folder's key: pdbench.runners.deal). Public, so never a run's key.
TEST_DEAL = DealKey(bytes(range(32)))


def only_run_dir(runs: Path) -> Path:
    """The one run folder in a runs folder (`run.output_dir`), beside the workspace's deal.key."""
    (run_dir,) = [path for path in runs.iterdir() if path.is_dir()]
    return run_dir


Moves = str | Sequence[Action]


def as_actions(moves: Moves) -> list[Action]:
    """Accept a list of Actions or a shorthand string such as "CCD" (spaces ignored)."""
    if isinstance(moves, str):
        moves = moves.replace(" ", "")
    return [Action.parse(move) for move in moves]


def moves_text(actions: Sequence[Action]) -> str:
    return "".join(action.value for action in actions)


class ScriptedAgent:
    """Plays a fixed list of actions in order ("MockPlayer" in Axelrod); it never looks back."""

    history_window: int | None = 0
    include_totals = False

    def __init__(self, moves: Moves, name: str = "SCRIPTED") -> None:
        self.moves = as_actions(moves)
        self.name = name
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.played = 0

    def act(self, obs: Observation) -> Action:
        if self.played >= len(self.moves):
            raise AssertionError(
                f"the script has {len(self.moves)} moves but round {obs.round_index} was asked for"
            )
        move = self.moves[self.played]
        self.played += 1
        return move


def play(
    agent: Agent,
    opponent: Agent,
    n_rounds: int,
    *,
    game: Game = GAMES["pd"],
    seed: int | None = None,
    opponent_seed: int | None = None,
) -> MatchResult:
    """A match with `agent` as side a; policies never need the horizon disclosed."""
    return play_match_sync(
        game, n_rounds, agent, opponent, seed_a=seed, seed_b=opponent_seed, disclose_rounds=False
    )


def versus_test(
    policy: Agent,
    opponent_moves: Moves,
    expected_moves: Moves,
    *,
    game: Game = GAMES["pd"],
    seed: int | None = None,
) -> MatchResult:
    """Play `policy` against the scripted moves and check its moves, round by round."""
    opponent = as_actions(opponent_moves)
    expected = as_actions(expected_moves)
    assert len(opponent) == len(expected), (
        f"{len(opponent)} opponent moves but {len(expected)} expected moves"
    )
    result = play(policy, ScriptedAgent(opponent), len(expected), game=game, seed=seed)
    actual = [r.played.action_a for r in result.rounds]
    not_actions = [(i, a) for i, a in enumerate(actual, start=1) if not isinstance(a, Action)]
    assert not not_actions, f"{policy.name} returned non-Actions (round, value): {not_actions}"
    assert [r.played.action_b for r in result.rounds] == opponent
    wrong = [
        f"round {index}: expected {want.value}, got {got.value}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True), start=1)
        if want is not got
    ]
    assert not wrong, (
        f"{policy.name} against {moves_text(opponent)}: "
        + "; ".join(wrong)
        + f" (expected {moves_text(expected)}, played {moves_text(actual)})"
    )
    return result
