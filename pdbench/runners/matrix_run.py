"""A 2x2 match played on the turn loop (`runners.turns`) with the rules of `pdbench.games.matrix`,
its result given back as the match loop's (`runners.match.MatchResult`), so that it is stored
exactly as the match loop stores it (`runners.records`: today's rounds.jsonl lines, ledger and
columns, byte for byte; tests/integration/test_matrix_equivalence.py and the golden runs hold
it to that). The numpy batch path (`runners.batch`) stays the fast path of policy-only
conditions.

Each seat's agent is seated by `games.matrix.seat.MatrixSeat`, which keeps its answers as the
agent gave them; a round's record is put together from the rules' finished round (the actions
played, the payoffs, the talk as delivered) and those answers (what each seat decided and how,
each message's calls and marks).
"""

from __future__ import annotations

from collections.abc import Iterator

from pdbench.agents.base import AgentBase, Utterance
from pdbench.core.transcript import PlayedRound
from pdbench.games.matrix.rules import MatrixGame
from pdbench.games.matrix.seat import MatrixSeat
from pdbench.games.matrix.state import MatrixState, Message
from pdbench.games.registry import build_turn_game
from pdbench.runners.match import MatchResult, RoundResult
from pdbench.runners.plan import PlannedMatch
from pdbench.runners.turns import PlayedTurn, SeatRule, TurnMatchResult, play_turn_match
from pdbench.storage.schema import Attempt, ConversationMessage

SEATS = ("a", "b")
# A 2x2 agent answers every turn itself (an LLM's retries and fallback are its own, and abort by
# raising): the engine asks once, and only a talk turn's timeout reaches the rules' fallback.
ASK_ONCE = SeatRule(on_invalid="fallback", retries=0)


def matrix_rules(planned: PlannedMatch) -> MatrixGame:
    """The rules of one planned 2x2 match, its game's entry's (`pdbench.games.<id>.rules`: its
    id and AgentDuel spelling): the condition's game (from seat a's side, as the condition changed
    it), the match's length (a geometric horizon's drawn one) and its noise."""
    rules = build_turn_game(
        planned.game_id,
        game=planned.matrix_game,
        rounds=planned.n_rounds,
        noise=planned.noise,
        rounds_shown=planned.horizon.type == "fixed",
    )
    assert isinstance(rules, MatrixGame), f"{planned.game_id} is no 2x2 game"
    return rules


async def play_matrix_match(
    planned: PlannedMatch, agent_a: AgentBase, agent_b: AgentBase
) -> MatchResult:
    """`planned` between the two agents on the turn loop, as `runners.match.play_match` would
    have played it (the same seeds, noise streams and observations)."""
    rules = matrix_rules(planned)
    played, seats = await play_matrix_turns(rules, planned, agent_a, agent_b)
    return match_result(rules, played, seats)


async def play_matrix_turns(
    rules: MatrixGame, planned: PlannedMatch, agent_a: AgentBase, agent_b: AgentBase
) -> tuple[TurnMatchResult, dict[str, MatrixSeat]]:
    """The turns of `planned` under `rules`, and the seats that played them (their answers)."""
    told = rules.rounds if rules.rounds_shown else None
    seats = {"a": MatrixSeat(agent_a, told), "b": MatrixSeat(agent_b, told)}
    played = await play_turn_match(
        rules,
        dict(seats),
        seed=planned.game_seed,
        agent_seeds={"a": planned.seed_a, "b": planned.seed_b},
        rules={"a": ASK_ONCE, "b": ASK_ONCE},
        max_turns=rules.fixed_length().turns,
        start=rules.dealt(planned.game_seed, noise_seeds=planned.noise_seeds),
        record_digests=False,  # stored as rounds, which hold no observation digests
    )
    return played, seats


def match_result(
    rules: MatrixGame, played: TurnMatchResult, seats: dict[str, MatrixSeat]
) -> MatchResult:
    """The match loop's result of a 2x2 match the turn loop played."""
    state: MatrixState = played.final_state
    commits = [turn for turn in played.turns if turn.phase == "commit"]
    talk_turns = iter([turn for turn in played.turns if turn.phase == "talk"])
    utterances = {seat: iter(seats[seat].utterances) for seat in SEATS}
    decisions = {seat: iter(seats[seat].decisions) for seat in SEATS}
    trembles = rules.noise > 0
    rounds: list[RoundResult] = []
    total_a = total_b = 0.0  # summed in order, as the match loop sums them
    for finished, commit in zip(state.finished, commits, strict=True):
        talk = tuple(_message(m, next(talk_turns), utterances) for m in finished.conversation)
        decision_a, decision_b = next(decisions["a"]), next(decisions["b"])
        total_a += finished.payoffs[0]
        total_b += finished.payoffs[1]
        rounds.append(
            RoundResult(
                PlayedRound(finished.round_number, *finished.played, *finished.payoffs),
                total_a,
                total_b,
                decision_a,
                decision_b,
                commit.finished_at,
                intended_a=decision_a.action if trembles else None,
                intended_b=decision_b.action if trembles else None,
                conversation=talk if rules.game.negotiation is not None else None,
            )
        )
    aborted: tuple[Attempt, ...] = ()
    if played.error is not None:
        # The match loop keeps the aborted round's talk when the abort came at the commit (the
        # talk was over, and its calls were paid), none of it when it came during the talk.
        talk_over = state.phase == "commit"
        said = [
            attempt
            for m in (state.conversation if talk_over else ())
            for attempt in _message(m, next(talk_turns), utterances).attempts
        ]
        aborted = (*said, *played.aborted_attempts)
    return MatchResult(
        rounds=rounds, planned_rounds=rules.rounds, error=played.error, aborted_attempts=aborted
    )


def _message(
    message: Message, turn: PlayedTurn, utterances: dict[str, Iterator[Utterance]]
) -> ConversationMessage:
    """One message as the match loop records it: the rules' delivery (cut, promise) and the
    speaker's answer (its calls, a timeout, an answer that was no message, an error)."""
    said = next(utterances[message.speaker])
    assert turn.seats.keys() == {message.speaker}, "the talk turns and the messages agree"
    return ConversationMessage(
        speaker=message.speaker,
        turn=message.turn,
        text=message.text,
        cut=message.cut,
        empty=not message.text,
        timeout=said.timeout,
        invalid=said.invalid,
        promise=message.promise,
        error=said.error,
        attempts=said.attempts,
    )
