"""Arena agents in real matches: one child process per match, hooks, timeouts, errors, logs."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from helpers import TEST_DEAL
from reference_loop import MatchResult, play_match, play_match_sync

from pdbench.agents.arena import ArenaAgent
from pdbench.agents.base import AgentContext
from pdbench.agents.kinds import make_agent
from pdbench.config.schema import ArenaAgentSpec
from pdbench.core.actions import Action, C, D
from pdbench.core.game import Game
from pdbench.core.horizon import FixedHorizon
from pdbench.core.transcript import Observation
from pdbench.games.tables import GAMES
from pdbench.strategies import make_policy

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = "tests/fixtures/arena"
TFT = "examples/agents/tit_for_tat.py"
GRUDGER = "examples/agents/grudger.py"
PD = GAMES["pd"]


class Scripted:
    """An opponent that plays a fixed list of moves (Axelrod's MockPlayer)."""

    history_window = 1
    include_totals = False

    def __init__(self, moves: list[Action]) -> None:
        self.moves = moves
        self.name = "scripted"

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, obs: Observation) -> Action:
        return self.moves[obs.round_index - 1]


@pytest.fixture
def arena(tmp_path):
    """Build arena agents that log into this test's run dir; close them all at the end."""
    made: list[ArenaAgent] = []

    def build(path: str, game: Game = PD, side: str = "a", **fields) -> ArenaAgent:
        context = AgentContext(
            deal=TEST_DEAL,
            run_seed=0,
            condition="cond",
            replicate=0,
            side=side,
            project_root=ROOT,
            run_dir=tmp_path,
        )
        agent = ArenaAgent(ArenaAgentSpec(path=path, **fields), game=game, context=context)
        made.append(agent)
        return agent

    yield build
    for agent in made:
        agent.close()


def play(game: Game, n_rounds: int, agent_a, agent_b, *, completes: bool = True) -> MatchResult:
    result = play_match_sync(
        game, n_rounds, agent_a, agent_b, seed_a=1, seed_b=2, disclose_rounds=True
    )
    assert result.completed == completes, result.error
    return result


def moves_a(result: MatchResult) -> list[Action]:
    return [r.played.action_a for r in result.rounds]


# --- the examples ------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", ["pd", "split_or_steal"])
@pytest.mark.parametrize(
    ("path", "opponent", "expected"),
    [
        (TFT, "alld", [C, D, D, D, D]),
        (TFT, "allc", [C, C, C, C, C]),
        (TFT, [C, D, C, C, D], [C, C, D, C, C]),
        (GRUDGER, "alld", [C, D, D, D, D]),
        (GRUDGER, "allc", [C, C, C, C, C]),
        (GRUDGER, [C, D, C, C, C], [C, C, D, D, D]),
    ],
)
def test_examples_play_their_definition(arena, game_id, path, opponent, expected):
    game = GAMES[game_id]
    other = make_policy(opponent, game) if isinstance(opponent, str) else Scripted(opponent)
    result = play(game, 5, arena(path, game), other)
    assert moves_a(result) == expected
    assert all(r.decision_a.error is None and not r.decision_a.fallback for r in result.rounds)


def test_the_choice_is_recorded_as_an_attempt(arena):
    result = play(GAMES["split_or_steal"], 2, arena(TFT, GAMES["split_or_steal"]), Scripted([D, D]))
    attempt = result.rounds[1].decision_a.attempts[0]
    assert attempt.response == {"type": "commit", "choice": "steal"}


def test_state_persists_across_turns(arena):
    result = play(PD, 5, arena(f"{FIXTURES}/counter.py"), make_policy("allc", PD))
    assert moves_a(result) == [C, D, C, D, C]


def test_hooks_are_called_in_order_with_their_arguments(arena, tmp_path):
    game = GAMES["split_or_steal"]
    agent = arena(f"{FIXTURES}/recorder.py", game)
    play(game, 2, agent, Scripted([D, C]))
    agent.close()
    events = [
        json.loads(line.removeprefix("agent | EVENT "))  # what the agent printed
        for line in agent.log_path.read_text().splitlines()
        if line.startswith("agent | EVENT ")
    ]
    assert [e["hook"] for e in events] == [
        "on_match_start",
        "on_round_start",
        "on_turn",
        "on_round_end",
        "on_round_start",
        "on_turn",
        "on_round_end",
        "on_match_end",
    ]
    start, _, turn1, end1, _, turn2, end2, finish = (e["arg"] for e in events)
    assert start["opponent_name"] == "scripted"
    assert start["total_rounds"] == 2
    assert start["game"] == "split-or-steal"
    assert turn1["history"] == [] and turn1["pot"] == 100
    assert end1 == {
        "round": 1,
        "your_choice": "split",
        "opponent_choice": "steal",
        "points": 0,
        "opponent_points": 100,
        "your_score": 0,
        "opponent_score": 100,
    }
    assert turn2["history"][0]["opponent_choice"] == "steal"
    assert turn2["your_score"] == 0 and turn2["opponent_score"] == 100
    assert end2["opponent_choice"] == "split" and end2["points"] == 50
    assert finish == {"winner": "opponent", "your_total": 50, "opponent_total": 150, "rounds": 2}


# --- failures: recorded, and the timeout action played -----------------------------------------


def test_a_hanging_turn_is_cut_at_the_timeout(arena):
    agent = arena(f"{FIXTURES}/sleeper.py", timeout_s=0.5)
    started = time.perf_counter()
    result = play(PD, 5, agent, make_policy("alld", PD))
    elapsed = time.perf_counter() - started
    assert elapsed < 3.0
    third = result.rounds[2].decision_a
    assert third.timeout and third.fallback
    assert third.action is C  # the default timeout action: the cooperative label
    assert "0.5 s" in third.error and "state kept on self is lost" in third.error
    assert [r.decision_a.timeout for r in result.rounds] == [False, False, True, False, False]
    assert moves_a(result) == [C, C, C, C, C]
    assert agent.restarts == 1


def test_an_exception_is_recorded_with_its_traceback(arena):
    result = play(PD, 3, arena(f"{FIXTURES}/raiser.py"), make_policy("allc", PD))
    second = result.rounds[1].decision_a
    assert second.fallback and not second.timeout and second.invalid_outputs == 0
    assert "Traceback" in second.error and "RuntimeError: boom in round 2" in second.error
    assert moves_a(result) == [D, C, D]  # the timeout action between the agent's own choices


def test_the_configured_timeout_action_is_played(arena):
    game = GAMES["split_or_steal"]
    agent = arena(f"{FIXTURES}/maybe.py", game, timeout_action="steal")
    result = play(game, 2, agent, make_policy("allc", game))
    for round_ in result.rounds:
        decision = round_.decision_a
        assert decision.action is D
        assert decision.invalid_outputs == 1 and decision.fallback
        assert '"maybe"' in decision.error
        assert decision.attempts[0].response == {"choice": "maybe"}


def test_an_exception_in_another_hook_is_recorded_and_the_turn_still_counts(arena):
    result = play(PD, 3, arena(f"{FIXTURES}/hook_raiser.py"), make_policy("alld", PD))
    second = result.rounds[1].decision_a
    assert not second.fallback and second.action is C
    assert "on_round_start raised" in second.error and "KeyError" in second.error
    assert result.rounds[2].decision_a.error is None


def test_a_crashed_process_is_recorded_and_replaced(arena):
    agent = arena(f"{FIXTURES}/crasher.py")
    result = play(PD, 4, agent, make_policy("alld", PD))
    second = result.rounds[1].decision_a
    assert second.fallback and "exited with code 3" in second.error
    assert [r.decision_a.fallback for r in result.rounds] == [False, True, False, False]
    assert agent.restarts == 1


def test_an_agent_that_cannot_start_aborts_the_match_with_the_reason(arena):
    """Issue 41: an agent whose file never loaded played nothing: the match is aborted with the
    reason (so neither the aggregates nor the ladder count it as played), not filled with
    fallbacks; its log keeps the whole traceback."""
    agent = arena(f"{FIXTURES}/broken_init.py")
    result = play(PD, 3, agent, make_policy("alld", PD), completes=False)
    assert result.rounds == []
    assert "could not start" in result.error and "ValueError: cannot start" in result.error
    agent.close()
    log = agent.log_path.read_text()
    assert "Traceback" in log and "ValueError: cannot start" in log


def test_a_game_only_known_at_run_time_is_checked(arena):
    agent = arena(f"{FIXTURES}/computed_game.py")
    result = play(PD, 2, agent, make_policy("alld", PD), completes=False)
    assert result.rounds == [] and "split-or-steal" in result.error


def test_a_huge_print_goes_to_the_capped_log(arena, tmp_path):
    agent = arena(f"{FIXTURES}/printer.py", side="b")
    result = play(PD, 3, make_policy("allc", PD), agent)
    agent.close()
    assert [r.played.action_b for r in result.rounds] == [C, C, C]
    assert agent.log_path == tmp_path / "agent_logs" / "cond__rep0__b.log"
    size = agent.log_path.stat().st_size
    assert 1 << 20 <= size < (1 << 20) + 10_000
    text = agent.log_path.read_text()
    assert "output cut off after 1048576 bytes" in text
    assert "further bytes of output were discarded" in text


def test_the_registry_builds_arena_agents(tmp_path):
    context = AgentContext(
        deal=TEST_DEAL,
        run_seed=0,
        condition="c",
        replicate=1,
        side="a",
        project_root=ROOT,
        run_dir=tmp_path,
    )
    agent = make_agent(ArenaAgentSpec(path=TFT), game=PD, horizon=FixedHorizon(3), context=context)
    try:
        assert isinstance(agent, ArenaAgent) and agent.name == "tit_for_tat"
        assert moves_a(play(PD, 3, agent, make_policy("alld", PD))) == [C, D, D]
    finally:
        agent.close()
    assert (tmp_path / "agent_logs" / "c__rep1__a.log").exists()


# --- one event loop, several matches -----------------------------------------------------------


def test_a_hanging_agent_does_not_stall_other_matches(arena):
    async def both() -> tuple[float, float]:
        async def timed(agent_a, n_rounds) -> float:
            await play_match(
                PD,
                n_rounds,
                agent_a,
                make_policy("allc", PD),
                seed_a=1,
                seed_b=2,
                disclose_rounds=True,
            )
            return time.perf_counter()

        return await asyncio.gather(
            timed(arena(f"{FIXTURES}/sleeper.py", timeout_s=1.0), 3),
            timed(arena(TFT, side="b"), 3),
        )

    started = time.perf_counter()
    sleeper_done, tft_done = asyncio.run(both())
    assert tft_done - started < 0.8 < sleeper_done - started
