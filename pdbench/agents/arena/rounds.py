"""An arena agent's round of a 2x2 game (`pdbench.core.game`): on_round_start and the other
once-a-round hooks, the negotiate turns (a message) and the commit turn (a choice), each an
on_turn(round_state) call in the agent's process; what fails plays the marked fallback. The turn
games' hook is `arena.turns`; the agent's lifecycle and its process are `arena.agent`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

from pdbench.agents.arena.process import WorkerDied, WorkerTimeout
from pdbench.agents.arena.protocol import (
    history_entries,
    match_start_info,
    parse_choice,
    parse_message,
    round_info,
    round_result,
    round_state_head,
    totals,
    turn_attempts,
)
from pdbench.agents.arena.session import ArenaSession, gist
from pdbench.agents.base import Decision, Utterance
from pdbench.core.errors import InvalidActionError
from pdbench.core.transcript import Observation
from pdbench.storage.schema import HookAttempt


def run_round(agent: ArenaSession, obs: Observation) -> Decision:
    """The round's commit turn: the agent's choice, or the marked fallback (a timeout, a crash,
    an exception, an answer that is not a choice)."""
    notes: list[str] = []
    broken = begin_round(agent, obs, notes)
    if broken is not None:
        return fallback(agent, broken)
    try:
        reply, elapsed = on_turn_call(agent, obs, "commit", notes, agent.spec.timeout_s)
    except WorkerTimeout as timeout:
        return fallback(agent, str(timeout), notes, timeout=True)
    except WorkerDied as died:
        return fallback(agent, str(died), notes)
    if not reply["ok"]:
        return fallback(agent, f"on_turn raised:\n{reply['error'].rstrip()}", notes)
    raw = reply.get("result")
    attempts = turn_attempts(raw, elapsed)
    try:
        action = parse_choice(raw, agent.game)
    except InvalidActionError as invalid:
        agent._log.note(f"round {obs.round_index}: invalid on_turn answer: {invalid}")
        return fallback(agent, str(invalid), notes, attempts=attempts, invalid=True)
    return Decision(action=action, attempts=attempts, error="\n".join(notes) or None)


def negotiate_blocking(agent: ArenaSession, obs: Observation) -> Utterance:
    """One negotiate turn. Whatever is not a message in time (a timeout, a crash, an
    exception, another answer) says nothing and is marked, as a timeout is on AgentDuel."""
    notes: list[str] = []
    broken = begin_round(agent, obs, notes)
    if broken is not None:
        return Utterance(text="", error=broken)
    negotiation = agent.game.negotiation
    limit = (negotiation.message_timeout_s if negotiation else None) or agent.spec.timeout_s
    try:
        reply, elapsed = on_turn_call(agent, obs, "negotiate", notes, limit)
    except WorkerTimeout as timeout:
        return Utterance(text="", timeout=True, error="\n".join([*notes, str(timeout)]))
    except WorkerDied as died:
        return Utterance(text="", invalid=True, error="\n".join([*notes, str(died)]))
    if not reply["ok"]:
        why = f"on_turn raised:\n{reply['error'].rstrip()}"
        return Utterance(text="", invalid=True, error="\n".join([*notes, why]))
    raw = reply.get("result")
    attempts = turn_attempts(raw, elapsed)
    try:
        text = parse_message(raw)
    except InvalidActionError as invalid:
        agent._log.note(f"round {obs.round_index} turn {obs.turn}: {invalid}")
        return Utterance(
            text="", attempts=attempts, invalid=True, error="\n".join([*notes, str(invalid)])
        )
    return Utterance(text=text, attempts=attempts, error="\n".join(notes) or None)


def begin_round(agent: ArenaSession, obs: Observation, notes: list[str]) -> str | None:
    """Before the round's first turn (a negotiate turn or the commit): start the process if
    none runs and deliver on_match_start, the last round's on_round_end and on_round_start,
    once per round. Returns why the agent cannot play, if it cannot."""
    fresh = agent._worker is None
    if fresh and agent._broken is None:
        agent._start_worker()
    agent.abort_if_never_started()
    if agent._broken is not None:
        if agent._broken_reported:
            return f"the agent is not running ({gist(agent._broken)})"
        agent._broken_reported = True
        agent._log.note(agent._broken)
        return agent._broken
    if not fresh and agent._round_begun == obs.round_index:
        return None
    try:
        if fresh and "on_match_start" in agent._hooks and agent._match_info is not None:
            start = match_start_info(agent._match_info, agent.game, agent.seed)
            agent._call("on_match_start", start, notes)
        if not fresh and obs.last is not None:
            own, opponent = totals(obs)
            agent._call("on_round_end", round_result(obs.last, agent.game, own, opponent), notes)
        agent._call("on_round_start", round_info(obs, agent.game), notes)
    except (WorkerTimeout, WorkerDied) as lost:
        return str(lost)
    agent._round_begun = obs.round_index
    return None


def on_turn_call(
    agent: ArenaSession, obs: Observation, phase: str, notes: list[str], limit: float
) -> tuple[dict, float]:
    """One on_turn call and how long it took. Only the rounds the process has not seen
    travel, so a turn costs the same in round 1000 as in round 2; the worker rebuilds
    round_state["history"] (and "rounds_history")."""
    started = time.perf_counter()
    worker = agent._live_worker()
    new_rounds = history_entries(obs.history[worker.history_sent :], agent.game)
    worker.history_sent = len(obs.history)
    head = round_state_head(obs, agent.game, phase)
    where = f"round {obs.round_index} turn {obs.turn} ({phase})"
    if agent.spec.trace:  # training: the whole round_state as the agent receives it
        seen = {**head, "history": history_entries(obs.history, agent.game)}
        agent._log.note(f"{where} saw: {json.dumps(seen, ensure_ascii=False)}")
    reply = agent._call(
        "on_turn", head, notes, required=True, history_add=new_rounds, timeout=limit
    )
    if agent.spec.trace:
        agent._log.note(
            f"{where} answered: {json.dumps(reply.get('result'), ensure_ascii=False)}"
            if reply["ok"]
            else f"{where} on_turn raised:\n{reply['error'].rstrip()}"
        )
    return reply, time.perf_counter() - started


def fallback(
    agent: ArenaSession,
    error: str,
    notes: Sequence[str] = (),
    *,
    timeout: bool = False,
    invalid: bool = False,
    attempts: tuple[HookAttempt, ...] = (),
) -> Decision:
    """The agent's `timeout_action` (by default the cooperative label), marked with why."""
    return Decision(
        action=agent.timeout_action,
        attempts=attempts,
        invalid_outputs=1 if invalid else 0,
        fallback=True,
        timeout=timeout,
        error="\n".join([*notes, error]),
    )
