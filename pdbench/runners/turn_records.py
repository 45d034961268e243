"""From a played turn-game match to what is stored: one rounds.jsonl line per turn, the ledger
entry and call counts. `turn_line` writes every game's lines (record version 2): a 2x2 match's
too (`pdbench.games.matrix.records`, their shape in `pdbench.games.matrix.stored`).
`turn_shared_fields` and `turn_outcome_options` are what a turn game's lines hold of its match
(the default `MatchRecords`, `runners.turn_run.TURN_LINES`).

A turn line holds: the match's fields (run_id, condition, replicate, game, family "turn",
agent_a, agent_b), round, turn, phase, the seats that moved, the digest of each seat's
observation, the action each seat played, per seat how it was reached (asked, invalid_outputs,
fallback, timeout, refused, error, attempts; only when something is worth saying, or for agents
that can fail to answer), and `revealed` (what the turn made public: a showdown's dice). The last
line of a match carries `outcome` (scores, winner, error). Nothing a player could not see before
the rules revealed it is written: observations are stored as digests only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from pdbench.games.base import recorded_options
from pdbench.runners.plan import PlannedMatch
from pdbench.runners.records import timestamp_utc
from pdbench.runners.turns import PlayedTurn, SeatRule, SeatTurn, TurnMatchResult
from pdbench.storage.ledger import LedgerEntry, call_sources
from pdbench.storage.run_store import FinishedMatch
from pdbench.storage.schema import (
    Attempt,
    CallCounts,
    ProviderAttempt,
    StorePrompts,
    stored_attempts,
)

FAMILY = "turn"


def _seat_record(turn: SeatTurn, marked: bool, store_prompts: StorePrompts) -> dict[str, Any]:
    record: dict[str, Any] = {}
    if marked or turn.invalid_outputs or turn.fallback or turn.asked > 1:
        record = {
            "asked": turn.asked,
            "invalid_outputs": turn.invalid_outputs,
            "fallback": turn.fallback,
            "timeout": turn.timeout,
            "refused": turn.refused,
            "error": turn.error,
        }
    if turn.attempts:
        record["attempts"] = stored_attempts(turn.attempts, store_prompts)
    return record


def turn_line(
    shared: dict[str, Any],
    turn: PlayedTurn,
    *,
    marked: dict[str, bool],
    store_prompts: StorePrompts,
    outcome: dict[str, Any] | None = None,
    observations: bool = True,
    notes: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """One turn's line. `observations` False: the rules store no observation digests (a game
    of perfect information: `stores_observations`). `notes` per seat: what the game's own
    answer record adds to a written decision (a 2x2 agent's own fallback and option order)."""
    line: dict[str, Any] = {
        **shared,
        "round": turn.round,
        "turn": turn.turn,
        "phase": turn.phase,
        "seats": list(turn.seats),
    }
    if observations:
        line["observation_digest"] = turn.digests
    line["actions"] = {seat: played.action for seat, played in turn.seats.items()}
    decisions = {
        seat: {**record, **(notes or {}).get(seat, {})}
        for seat, played in turn.seats.items()
        if (record := _seat_record(played, marked.get(seat[:1], True), store_prompts))
    }
    if decisions:
        line["decisions"] = decisions
    line["revealed"] = turn.revealed
    line["timestamp_utc"] = timestamp_utc(turn.finished_at)
    if outcome is not None:
        line["outcome"] = outcome
    return line


def stores_observations(rules: Any) -> bool:
    """Whether a game's lines hold each seat's observation digest: yes, unless its rules say
    they hide nothing (`stores_observations = False`: a 2x2 game, whose seats' views are
    functions of the earlier lines)."""
    return bool(getattr(rules, "stores_observations", True))


def match_outcome(
    scores: dict[str, float], error: str | None, seed: int, options: dict[str, Any]
) -> dict[str, Any]:
    """The `outcome` on a match's last line: the scores, the winner (the one seat with the
    highest score; a tie, or a match that ended in an error, has none), why it ended early,
    and what a reader needs to replay it (the match's seed, the variant's options)."""
    winner = None
    if error is None:
        best = max(scores.values())
        leaders = [seat for seat, score in scores.items() if score == best]
        winner = leaders[0] if len(leaders) == 1 else None
    return {"scores": scores, "winner": winner, "error": error, "seed": seed, "options": options}


def turn_shared_fields(planned: PlannedMatch, run_id: str) -> dict[str, Any]:
    """The match's fields on every turn line, in line order."""
    condition = planned.condition
    return {
        "run_id": run_id,
        "condition": condition.name,
        "replicate": planned.replicate,
        "game": planned.game_id,
        "family": FAMILY,
        # agent_a, agent_b, and a group's further seats (agent_c, ...)
        **{side: spec.display_name for side, spec in condition.players.items()},
    }


def turn_outcome_options(planned: PlannedMatch) -> dict[str, Any]:
    """The variant's options as the outcome stores them: the fields the rules are built from
    (not those they derive, e.g. words loaded from a file), else the condition's options."""
    rules = planned.rules
    is_instance = dataclasses.is_dataclass(rules) and not isinstance(rules, type)
    options = recorded_options(rules) if is_instance else {}
    return options or dict(planned.condition.game.options)


def turn_lines(
    planned: PlannedMatch, result: TurnMatchResult, *, run_id: str, store_prompts: StorePrompts
) -> list[bytes]:
    condition = planned.condition
    shared = turn_shared_fields(planned, run_id)
    marked = {
        side.removeprefix("agent_"): spec.can_fail_to_answer
        for side, spec in condition.players.items()
    }
    # what a reader needs to replay the match: the dice's seed and the variant's options
    outcome = match_outcome(
        result.scores, result.error, planned.game_seed, turn_outcome_options(planned)
    )
    observations = stores_observations(planned.rules)
    last = len(result.turns) - 1
    return [
        orjson.dumps(
            turn_line(
                shared,
                turn,
                marked=marked,
                store_prompts=store_prompts,
                outcome=outcome if index == last else None,
                observations=observations,
            )
        )
        + b"\n"
        for index, turn in enumerate(result.turns)
    ]


def stored_order_turn_attempts(result: TurnMatchResult) -> list[Attempt]:
    """A match's attempts in the order its stored lines hold them: turn by turn, seat by seat
    as the turn lists them."""
    return [
        attempt
        for turn in result.turns
        for played in turn.seats.values()
        for attempt in played.attempts
    ]


def ledger_entry(
    planned: PlannedMatch,
    *,
    n_rounds: int,
    planned_rounds: int,
    error: str | None,
    attempts: Sequence[Attempt] = (),
    aborted: Sequence[Attempt] = (),
    store_prompts: StorePrompts = False,
) -> LedgerEntry:
    """Any match's ledger entry: what it counts in `n_rounds` and `planned_rounds` is its
    game's (a turn game's turns and turn cap, a 2x2 game's rounds). `attempts` are those its
    lines hold, in their order, and `aborted` those of the turn or round the match was aborted
    in, kept with the entry (paid, though no action came of them): the calls are counted over
    both, in that order."""
    every = [*attempts, *aborted]
    return LedgerEntry(
        condition=planned.condition.name,
        replicate=planned.replicate,
        n_rounds=n_rounds,
        planned_rounds=planned_rounds,
        seeds=planned.seeds,
        error=error,
        calls=CallCounts.total(attempt.calls() for attempt in every),
        aborted_round_attempts=stored_attempts(tuple(aborted), store_prompts) or None,
        call_sources=call_sources(
            attempt.cached for attempt in every if isinstance(attempt, ProviderAttempt)
        ),
    )


def turn_ledger_entry(
    planned: PlannedMatch, result: TurnMatchResult, store_prompts: StorePrompts
) -> LedgerEntry:
    """n_rounds counts the stored lines (turns); planned_rounds is the turn cap."""
    return ledger_entry(
        planned,
        n_rounds=len(result.turns),
        planned_rounds=planned.condition.game.max_turns,
        error=result.error,
        attempts=stored_order_turn_attempts(result),
        aborted=result.aborted_attempts,
        store_prompts=store_prompts,
    )


def finished_turn_match(
    planned: PlannedMatch, result: TurnMatchResult, *, run_id: str, store_prompts: StorePrompts
) -> FinishedMatch:
    """What the store writes for one turn-game match (aggregation reads its lines back)."""
    return FinishedMatch(
        lines=turn_lines(planned, result, run_id=run_id, store_prompts=store_prompts),
        ledger=turn_ledger_entry(planned, result, store_prompts),
        columns=None,
    )


def seat_rules(planned: PlannedMatch) -> dict[str, SeatRule]:
    """Each role's on_invalid and re-asks (the players' and the third parties'), from its
    agent's config."""
    condition = planned.condition
    roles = {side.removeprefix("agent_"): spec for side, spec in condition.players.items()}
    for role in planned.rules.third_roles:
        if condition.role_specs(role):  # a panel follows its chair's (the first member's)
            roles[role] = condition.role_specs(role)[0]
    return {
        role: SeatRule(on_invalid=spec.turn_on_invalid, retries=spec.turn_retries)
        for role, spec in roles.items()
    }
