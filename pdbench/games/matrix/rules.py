"""A 2x2 matrix game (`pdbench.core.game.Game`: the dilemmas, split or steal) played for `rounds`
rounds as a turn game: pure methods over an immutable state (`state`), the same rounds the
reference match loop (tests/reference_loop.py) and the numpy fast path
(`pdbench.games.matrix.vectorised`) play.

Each round:
- `talk` (only when the game has a negotiation, `core.talk.Negotiation`): one seat to move per
  message, in `Negotiation.speakers(round)` order, `{"type": "message", "text": "..."}`. The text
  is delivered stripped and cut to `max_chars` (marked `cut`), a promise marked as the
  reference loop's talk (tests/reference_talk.py) marks it; any string is legal, however long.
- `commit`: both seats at once, `{"type": "commit", "action": "C" | "D"}` (storage's spelling;
  the seat is shown the words its game uses for them). With `noise` > 0 each seat's commit is
  flipped by its trembling hand with that chance: round n flips when the n-th uniform draw of the
  seat's noise stream is below `noise`, the draws the reference loop's `TremblingHand` makes, so the
  same noise seeds flip the same rounds. The flipped move is the one played, scored and shown.

Scores are the cumulative payoffs (each round's added as a float, in order, as the match loop
sums them); `revealed` after a commit is the round's played actions and payoffs, after a
message the message as delivered. Fallbacks (no legal answer): the timeout message (the
negotiation's `timeout_message`) for a timeout and silence otherwise; at the commit, D (an LLM
agent's default `fallback_action`).

Chance: a match's noise streams are dealt with it (`dealt`: the runner passes the seeds its plan
derived for each side); `initial_state(seed)` alone derives them from the seed (a standalone
match, `pdbench check-game`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np

from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.rng import make_rng
from pdbench.core.talk import cut_to_limit, is_promise
from pdbench.games.base import FixedLength
from pdbench.games.matrix.observation import Terms, history_entry, round_state, terms_of
from pdbench.games.matrix.state import LETTER, MOVE, FinishedRound, MatrixState, Message

# The catalogue's default game (`games.tables.DEFAULT_GAME`), taken from its package and not from
# the catalogue: the catalogue is built from the registry, which imports plugins' games while it
# loads, and a plugin's 2x2 rules import this module.
from pdbench.games.pd import TABLE as DEFAULT_GAME

SEATS = ("a", "b")
_LETTERS = ("C", "D")
_COMMIT = "commit"
_TALK = "talk"


def flip_draws(noise_seed: int, noise: float, rounds: int) -> np.ndarray:
    """Per round, whether the trembling hand of the stream `noise_seed` flips the move: one
    uniform draw per round, in order, below `noise` (the reference loop's `TremblingHand`'s draws).
    The one definition both paths use: `flips` below, a match at a time; `vectorised`, a
    condition's matches stacked."""
    return make_rng(noise_seed).random(rounds) < noise


@functools.lru_cache(maxsize=4096)
def flips(noise_seed: int, noise: float, rounds: int) -> tuple[bool, ...]:
    """`flip_draws` as a tuple. Cached: a match asks once per round, and the draws are a pure
    function of the three."""
    if noise <= 0:
        return (False,) * rounds
    return tuple(bool(f) for f in flip_draws(noise_seed, noise, rounds))


@dataclass(frozen=True)
class MatrixGame:
    """The rules (module docstring). `game` is the condition's 2x2 game from seat a's side
    (payoffs and labels as the condition changed them), `rounds` the match's length."""

    id: ClassVar[str] = "matrix"
    platform_name: ClassVar[str] = "matrix"
    third_roles: ClassVar[tuple[str, ...]] = ()
    seats: ClassVar[tuple[str, ...]] = SEATS
    # A game of perfect information: a seat's observation is a pure function of the earlier
    # turns' stored lines, so none is stored as a digest (`games.matrix.stored`), and the batch
    # path need not hash a whole history per round per seat.
    stores_observations: ClassVar[bool] = False
    # Its only chance, the trembling hand, is drawn from the noise seeds the plan deals each
    # side (`dealt`), not from the game seed: a match's record keeps no game seed.
    draws_from_game_seed: ClassVar[bool] = False

    game: Game = DEFAULT_GAME
    rounds: int = 10
    noise: float = 0.0
    rounds_shown: bool = True  # whether a seat is told the match's length (a fixed horizon)

    def __post_init__(self) -> None:
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or self.rounds < 1:
            raise ValueError(f"rounds must be a whole number of at least 1, got {self.rounds!r}")
        if not 0 <= self.noise <= 1:
            raise ValueError(f"noise must be between 0 and 1, got {self.noise!r}")

    # --- the match -----------------------------------------------------------------------

    def initial_state(self, seed: int) -> MatrixState:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"a match's seed is a whole number of at least 0, got {seed!r}")
        drawn = np.random.Generator(np.random.PCG64([seed, 1])).integers(2**63, size=2)
        return self.dealt(seed, noise_seeds=(int(drawn[0]), int(drawn[1])))

    def dealt(self, seed: int, *, noise_seeds: tuple[int, int]) -> MatrixState:
        """The state before round 1 of a match whose noise streams the runner dealt."""
        return MatrixState(
            seed=seed, noise_seeds=noise_seeds, round_number=1, phase=self._opening()
        )

    def _opening(self) -> str:
        return _TALK if self.game.negotiation is not None else _COMMIT

    def to_move(self, state: MatrixState) -> tuple[str, ...]:
        if state.phase == _COMMIT:
            return SEATS
        if state.phase == _TALK:
            return (self._speaker(state),)
        return ()

    def _speaker(self, state: MatrixState) -> str:
        number = state.round_number
        order = self._talk_orders.get(number)
        if order is None:
            talk = self.game.negotiation
            assert talk is not None
            order = self._talk_orders[number] = talk.speakers(number)
        return order[len(state.conversation)]

    @functools.cached_property
    def _talk_orders(self) -> dict[int, tuple[str, ...]]:
        """Each round's order of speakers (`Negotiation.speakers`), made at the round's first
        ask: a talk turn asks who speaks several times (to move, each answer's check, apply)."""
        return {}

    def observe(self, state: MatrixState, seat: str) -> dict[str, Any]:
        if seat not in SEATS:
            raise ValueError(f"{seat!r} is not a seat of a 2x2 game")
        shown = self.rounds if self.rounds_shown else None
        return round_state(self._terms[seat], self.platform_name, shown, state, seat)

    @functools.cached_property
    def _terms(self) -> dict[str, Terms]:
        """Each seat's terms of the game, the same at every turn: made once per match."""
        return {seat: terms_of(self.game, seat) for seat in SEATS}

    # --- answers -------------------------------------------------------------------------

    def problem(self, state: MatrixState, seat: str, action: Mapping[str, Any]) -> str | None:
        phase = state.phase
        if seat not in (SEATS if phase == _COMMIT else self.to_move(state)):
            return f"{seat} does not act now (phase {phase})"
        # a dict first: the check against the abstract Mapping costs more than the whole rest
        if not isinstance(action, dict) and not isinstance(action, Mapping):
            return 'an answer is a JSON object with a "type"'
        wanted = "message" if phase == _TALK else _COMMIT
        if action.get("type") != wanted:
            return f'type must be "{wanted}" in the {phase} phase, got {action.get("type")!r}'
        if phase == _TALK:
            text = action.get("text")
            return None if isinstance(text, str) else '"text" is the message, a string'
        if action.get("action") not in _LETTERS:
            labels = ", ".join(f"{move} ({self.game.label(Action(move))})" for move in "CD")
            return f'"action" must be one of {labels}, got {action.get("action")!r}'
        return None

    def fallback(self, state: MatrixState, seat: str, reason: str) -> dict[str, Any]:
        if state.phase == _TALK:
            talk = self.game.negotiation
            assert talk is not None
            return {"type": "message", "text": talk.timeout_message if reason == "timeout" else ""}
        return {"type": _COMMIT, "action": "D"}

    # --- applying a turn -----------------------------------------------------------------

    def apply(self, state: MatrixState, actions: Mapping[str, Mapping[str, Any]]) -> MatrixState:
        moving = self.to_move(state)
        if actions.keys() != set(moving):
            raise ValueError(f"{', '.join(moving)} act now ({state.phase}), got {sorted(actions)}")
        for seat, action in actions.items():
            reason = self.problem(state, seat, action)
            if reason is not None:
                raise ValueError(f"{seat}: {reason}")
        if state.phase == _TALK:
            return self._after_message(state, moving[0], actions[moving[0]]["text"])
        return self._after_commit(state, MOVE[actions["a"]["action"]], MOVE[actions["b"]["action"]])

    def _after_message(self, state: MatrixState, seat: str, said: str) -> MatrixState:
        talk = self.game.negotiation
        assert talk is not None
        text, cut = cut_to_limit(said.strip(), talk.max_chars)
        message = Message(
            speaker=seat,
            turn=len(state.conversation) + 1,
            text=text,
            cut=cut,
            promise=is_promise(text, talk.promise_phrases),
        )
        conversation = (*state.conversation, message)
        done = len(conversation) == talk.messages_per_round
        return replace(state, conversation=conversation, phase=_COMMIT if done else _TALK)

    def _after_commit(
        self, state: MatrixState, intended_a: Action, intended_b: Action
    ) -> MatrixState:
        number = state.round_number
        played_a, played_b = intended_a, intended_b
        if self.noise > 0:  # each seat's trembling hand (no draws to look up without one)
            seed_a, seed_b = state.noise_seeds
            if flips(seed_a, self.noise, self.rounds)[number - 1]:
                played_a = played_a.flipped
            if flips(seed_b, self.noise, self.rounds)[number - 1]:
                played_b = played_b.flipped
        payoff_a, payoff_b = payoffs = self._payoffs[played_a, played_b]
        totals, cooperations = state.totals, state.cooperations
        # Made whole, not with dataclasses.replace (which costs as much as the rest of the
        # round): every field of MatrixState is named here.
        return MatrixState(
            seed=state.seed,
            noise_seeds=state.noise_seeds,
            round_number=number + 1,
            phase="over" if number >= self.rounds else self._opening(),
            totals=(totals[0] + payoff_a, totals[1] + payoff_b),
            cooperations=(
                cooperations[0] + (played_a is Action.C),
                cooperations[1] + (played_b is Action.C),
            ),
            finished=(
                *state.finished,
                FinishedRound(
                    number,
                    (intended_a, intended_b),
                    (played_a, played_b),
                    payoffs,
                    state.conversation,
                ),
            ),
            history=(
                (*state.history[0], history_entry(number, played_a, played_b, payoff_a, payoff_b)),
                (*state.history[1], history_entry(number, played_b, played_a, payoff_b, payoff_a)),
            ),
            conversation=(),
        )

    @functools.cached_property
    def _payoffs(self) -> dict[tuple[Action, Action], tuple[float, float]]:
        """Each pair of played moves' payoffs (seat a's, seat b's): made once per match."""
        table = self.game.payoffs
        return {
            (a, b): table.payoffs(a, b) for a in (Action.C, Action.D) for b in (Action.C, Action.D)
        }

    # --- what is known -------------------------------------------------------------------

    def round_number(self, state: MatrixState) -> int:
        return state.round_number

    def phase(self, state: MatrixState) -> str:
        return state.phase

    def revealed(self, before: MatrixState, after: MatrixState) -> dict[str, Any] | None:
        """For the stored record: after a message, the message as delivered; after a commit,
        the round's played actions and payoffs (what both seats are shown next)."""
        if before.phase == _TALK:
            said = after.conversation[-1]  # the talk is kept until the round is scored
            return {
                "round": before.round_number,
                "message": {
                    "speaker": said.speaker,
                    "turn": said.turn,
                    "text": said.text,
                    "cut": said.cut,
                    "promise": said.promise,
                },
            }
        played = after.finished[-1]
        (move_a, move_b), (payoff_a, payoff_b) = played.played, played.payoffs
        return {
            "round": played.round_number,
            "actions": {"a": LETTER[move_a], "b": LETTER[move_b]},
            "payoffs": {"a": payoff_a, "b": payoff_b},
        }

    def match_over(self, state: MatrixState) -> bool:
        return state.phase == "over"

    def scores(self, state: MatrixState) -> dict[str, float]:
        return dict(zip(SEATS, state.totals, strict=True))

    def fixed_length(self) -> FixedLength:
        talk = self.game.negotiation
        messages = 0 if talk is None else talk.messages_per_round
        exchanges = 0 if talk is None else talk.exchanges
        return FixedLength(
            rounds=self.rounds,
            turns=self.rounds * (messages + 1),
            turns_per_seat=self.rounds * (exchanges + 1),
            talks_per_round=exchanges,  # a message each exchange, one call (no retry)
        )

    def setting_warnings(self, agent: Any, seat: str) -> list[Any]:
        """The agent's settings that probably do not mean what they say with this table
        (`games.base.setting_warnings`): a classic policy's, read from the seat's payoffs."""
        found: list[Any] = agent.warnings(self.agent_game(seat))
        return found

    def agent_game(self, seat: str) -> Game:
        """What an agent of `seat` is built with (`games.base.agent_game`): the 2x2 agents read
        the game's table from their own side (payoffs and labels as that seat sees them)."""
        return self.game.seen_by(seat)

    def redraw_hidden(self, state: MatrixState, seat: str, rng: Any) -> MatrixState:
        """The same state with what `seat` may not see drawn again (`pdbench check-game`): the
        seed and both noise streams (the flips to come) and the other seat's intended moves
        (a seat is shown what was played, never what the other meant to play)."""
        other = 1 - SEATS.index(seat)
        finished = tuple(
            replace(r, intended=_with(r.intended, other, Action("CD"[int(rng.integers(2))])))
            for r in state.finished
        )
        seeds = rng.integers(2**63, size=3)
        return replace(
            state,
            seed=int(seeds[0]),
            noise_seeds=(int(seeds[1]), int(seeds[2])),
            finished=finished,
        )


def _with(pair: tuple[Action, Action], index: int, move: Action) -> tuple[Action, Action]:
    return (move, pair[1]) if index == 0 else (pair[0], move)
