"""The turn loop: any `pdbench.games.base.TurnGame` played between the agents bound to its roles.

Per turn: every seat of `to_move` is shown its observation, all taken before anyone acts; each
seat's agent answers through `take_turn`; the engine checks the answer with the rules' `problem`
itself (an agent is never trusted) and re-asks up to the agent's `turn_retries`, counting every
refused answer; with no legal action in the end it plays the game's `fallback` (marked) or aborts
the match, as the agent's `turn_on_invalid` says (an LLM agent's `on_invalid`). Nothing is
silently repaired: every turn's record says how its action was reached.

Roles are bound by name (`{"a": agent, "b": agent, "<role>": agent}`), so a third role is a
binding in the condition, not a change here. A match that reaches `max_turns` is aborted, saying
so. `pdbench.games.replay` rebuilds a match's state from its seed and stored actions.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import time
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pdbench.agents.base import AgentBase, MatchInfo, MatchSummary, TurnDecision, TurnRequest
from pdbench.core.errors import MatchAborted
from pdbench.games.base import PLAYER_SEATS, TurnGame, role_of
from pdbench.storage.schema import Attempt

OnInvalid = Literal["abort", "fallback"]
YIELD_EVERY_S = 0.02  # a match that never waits gives the event loop back at least this often


@dataclass(frozen=True)
class SeatRule:
    """How the engine treats one role's refused answers."""

    on_invalid: OnInvalid = "fallback"
    retries: int = 0  # re-asks after an answer the rules refuse


@dataclass(frozen=True)
class SeatTurn:
    """One seat's part of a turn: the action played and how it was reached."""

    action: dict[str, Any]
    asked: int  # how often the engine asked the agent (1 + re-asks)
    invalid_outputs: int  # answers refused, the agent's own retries and the engine's re-asks
    fallback: bool = False  # the game's fallback was played for this seat
    timeout: bool = False
    refused: str | None = None  # the rules' reason for the last refused answer
    error: str | None = None
    attempts: tuple[Attempt, ...] = ()


@dataclass(frozen=True)
class PlayedTurn:
    round: int  # the round the turn was played in
    turn: int  # within the match, from 1
    phase: str
    digests: dict[str, str]  # seat -> sha256 of its observation (what it was shown)
    seats: dict[str, SeatTurn]
    revealed: dict[str, Any] | None  # what the turn made public (a showdown's dice)
    finished_at: float


@dataclass
class TurnMatchResult:
    turns: list[PlayedTurn]
    scores: dict[str, float]
    final_state: Any
    error: str | None = None  # why the match ended early (abort, turn cap)
    aborted_attempts: tuple[Attempt, ...] = field(default_factory=tuple)

    @property
    def completed(self) -> bool:
        return self.error is None


def observation_digest(observation: Mapping[str, Any]) -> str:
    """A short hash of what a seat was shown (canonical JSON), to tell stored turns apart."""
    canonical = json.dumps(observation, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


async def _ask(
    game: TurnGame[Any],
    state: Any,
    seat: str,
    seen: dict[str, Any],
    agent: AgentBase,
    rule: SeatRule,
) -> SeatTurn:
    """One seat's action for this turn, re-asked and checked as the module docstring says."""
    attempts: tuple[Attempt, ...] = ()
    invalid = 0
    refused: str | None = None
    decision: TurnDecision | None = None
    check = functools.partial(game.problem, state, seat)  # the rules' verdict on an answer
    for asked in range(1, rule.retries + 2):
        request = TurnRequest(game.platform_name, seat, seen, check)
        try:
            decision = await agent.take_turn(request)
        except NotImplementedError as missing:
            raise MatchAborted(
                f"{agent.name} (seat {seat}) cannot play {game.id}: {missing}"
            ) from None
        attempts += tuple(decision.attempts)
        invalid += decision.invalid_outputs
        if decision.action is None:  # the agent gave up after its own retries (or timed out)
            break
        refused = game.problem(state, seat, decision.action)
        if refused is None:
            return SeatTurn(
                dict(decision.action), asked, invalid, error=decision.error, attempts=attempts
            )
        invalid += 1
    timed_out = decision is not None and decision.timeout
    error = decision.error if decision is not None else None
    if rule.on_invalid == "abort":
        why = refused or error or ("timed out" if timed_out else "no action")
        raise MatchAborted(
            f"{agent.name} (seat {seat}) gave no legal action in {game.id} after {asked} "
            f"ask(s): {why}",
            attempts=attempts,
        )
    fallback = game.fallback(state, seat, "timeout" if timed_out else "invalid")
    return SeatTurn(
        fallback,
        asked,
        invalid,
        fallback=True,
        timeout=timed_out,
        refused=refused,
        error=error,
        attempts=attempts,
    )


def _started[T](ask: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """`ask` as a task that starts at once: it runs here until it first waits, and one that
    never waits (a house player, a cached answer) is done on return, so the loop schedules
    nothing for it (a task the loop starts costs more than a policy's whole turn)."""
    return asyncio.Task(ask, loop=asyncio.get_running_loop(), eager_start=True)


class _Seated(dict[str, tuple[AgentBase, SeatRule]]):
    """Seat -> its role's agent and rule, each found from the seat's role on its first turn of
    the match, not again at every turn."""

    def __init__(self, agents: Mapping[str, AgentBase], rules: Mapping[str, SeatRule]) -> None:
        super().__init__()
        self.agents, self.rules = agents, rules

    def __missing__(self, seat: str) -> tuple[AgentBase, SeatRule]:
        role = role_of(seat)
        found = self[seat] = (self.agents[role], self.rules[role])
        return found


async def _answers(
    game: TurnGame[Any],
    state: Any,
    seats: tuple[str, ...],
    seen: Mapping[str, dict[str, Any]],
    seated: _Seated,
) -> dict[str, SeatTurn]:
    """Every seat's answer to this turn, by seat in `seats` order. The seats answer together
    (their calls wait together), and every answer is in before a failure is raised (an abort,
    a provider that failed; the first seat's in `seats` order), so no call is left running, as
    in the 2x2 match loop."""

    def ask(seat: str) -> Coroutine[Any, Any, SeatTurn]:  # made when awaited: none left unawaited
        return _ask(game, state, seat, seen[seat], *seated[seat])

    waiting = [seat for seat in seats if seated[seat][0].waits]
    answers: list[SeatTurn | BaseException]
    if len(waiting) > 1:
        answers = await asyncio.gather(*(_started(ask(s)) for s in seats), return_exceptions=True)
    else:
        # At most one seat waits on something outside the process (an LLM against house
        # players): the others answer without waiting, so asking them one after the other is
        # asking them together, and the waiting one is awaited here, not in a task of its own:
        # its answer resumes the match at once, not two passes of the event loop later (at 32
        # concurrent matches those passes were a third of a round's wait).
        found: dict[str, SeatTurn | BaseException] = {}
        for seat in (*[s for s in seats if s not in waiting], *waiting):  # the waiting one last
            try:
                found[seat] = await ask(seat)
            except Exception as failed:  # as gather's return_exceptions; a cancel is not caught
                found[seat] = failed
        answers = [found[seat] for seat in seats]
    played: dict[str, SeatTurn] = {}
    for seat, answer in zip(seats, answers, strict=True):
        if isinstance(answer, BaseException):
            raise answer
        played[seat] = answer
    return played


async def play_turn_match(
    game: TurnGame[Any],
    agents: Mapping[str, AgentBase],
    *,
    seed: int,
    agent_seeds: Mapping[str, int | None],
    rules: Mapping[str, SeatRule],
    max_turns: int,
    start: Any = None,
    record_digests: bool = True,
) -> TurnMatchResult:
    """Play one match of `game` from `seed` between `agents` (role -> agent: "a", "b" and the
    game's third roles), each reset with its seed from `agent_seeds`. `start` is the state a
    runner dealt the match when the rules take chance the plan derived on streams of its own
    (a 2x2 game's trembling hands: `MatrixGame.dealt`); None: `game.initial_state(seed)`.
    `record_digests` False leaves each turn's observation digests out (none computed): for a
    caller that stores none (a 2x2 game's rules: `stores_observations`)."""
    players = [role for role in agents if role not in game.third_roles]
    missing = [r for r in (*PLAYER_SEATS, *game.third_roles) if r not in agents]
    if missing:
        raise ValueError(f"{game.id} needs an agent for role(s) {', '.join(missing)}")
    for role, agent in agents.items():
        agent.reset(agent_seeds.get(role))
        others = [other.name for r, other in agents.items() if r != role]
        agent.start_match(MatchInfo(opponent_name=", ".join(others), total_rounds=None))
    state = game.initial_state(seed) if start is None else start
    seated = _Seated(agents, rules)
    turns: list[PlayedTurn] = []
    yielded = time.monotonic()
    error: str | None = None
    aborted: tuple[Attempt, ...] = ()
    try:
        while not game.match_over(state):
            if len(turns) >= max_turns:
                error = f"the match reached game.max_turns ({max_turns}) before it ended"
                break
            seats = game.to_move(state)
            seen = {seat: game.observe(state, seat) for seat in seats}  # before anyone acts
            played = await _answers(game, state, seats, seen, seated)
            before = state
            state = game.apply(state, {seat: turn.action for seat, turn in played.items()})
            turns.append(
                PlayedTurn(
                    round=game.round_number(before),
                    turn=len(turns) + 1,
                    phase=game.phase(before),
                    digests=(
                        {seat: observation_digest(seen[seat]) for seat in seats}
                        if record_digests
                        else {}
                    ),
                    seats=played,
                    revealed=game.revealed(before, state),
                    finished_at=time.time(),
                )
            )
            if time.monotonic() - yielded >= YIELD_EVERY_S:
                # A match whose seats all answer at once (house players, the mock, the cache)
                # never waits: let the other matches, the progress and the writer have their turn.
                await asyncio.sleep(0)
                yielded = time.monotonic()
    except MatchAborted as stopped:
        error = str(stopped)
        aborted = tuple(stopped.attempts)
    finally:
        scores = game.scores(state)
        for role in players:  # the others' mean: a pair's opponent's total
            opponents = [scores[other] for other in players if other != role]
            agents[role].end_match(
                MatchSummary(
                    your_total=scores[role],
                    opponent_total=sum(opponents) / len(opponents),
                    rounds=game.round_number(state) - 1,
                )
            )
    return TurnMatchResult(turns, scores, state, error, aborted)
