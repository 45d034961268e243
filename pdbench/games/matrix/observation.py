"""What one seat of a 2x2 match is shown (`MatrixGame.observe`), its round_state, and the
`core.transcript.Observation` a 2x2 agent reads, rebuilt from it (`observation_of`): the turn
contract's observation carries everything a 2x2 agent of any kind may be shown, and each agent's
own `history_window` and `include_totals` cut it down exactly as `Transcript.observe` does.
Neither is remade from every finished round at each turn: the round_state's history is a copy
of the entries the state keeps for the seat (`MatrixState.history`, each made once by
`history_entry`), and a seat reads each past round of its round_states once over a match
(`PastRounds`).

- `game` (the platform's spelling: "prisoners-dilemma", ...), `phase` ("talk" | "commit"),
  `round` (from 1), `turn` (the talk turn about to be taken, from 1 over both speakers; at the
  commit, one past the last message), `rounds` (the match's length, null when the horizon is
  not disclosed).
- `actions`: storage's two moves and the words the seat is shown for them, `{"C": "split",
  "D": "steal"}`; `payoffs`: the table from the seat's own side, `{"CD": [own, opponent], ...}`
  (the first letter is the seat's own move).
- `history`: every finished round, oldest first, from the seat's side: `{"round",
  "your_action", "opponent_action", "your_points", "opponent_points"}`, the actions as played
  (after the trembling hand: nobody is shown what the other meant to play).
- `your_score`, `opponent_score`, `your_cooperations`, `opponent_cooperations`: the totals and
  the counts of C played so far.
- `messages`: this round's talk so far, `{"turn", "mine", "text"}` (at the commit, all of it).

Nothing else: never the other seat's commit before the round is scored, never an intended move,
never the seed or the noise streams.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.talk import Said
from pdbench.core.transcript import Observation, PastRound
from pdbench.games.matrix.state import LETTER, MOVE, HistoryEntry, MatrixState

RoundState = dict[str, Any]
_MOVES = (Action.C, Action.D)


@dataclass(frozen=True)
class Terms:
    """What a seat is shown of the game itself, the same at every turn of a match: the words
    for the two moves and the table from its own side ("CD": [own, opponent])."""

    actions: tuple[tuple[str, str], ...]
    payoffs: tuple[tuple[str, tuple[float, float]], ...]


def terms_of(game: Game, seat: str) -> Terms:
    """`seat`'s `Terms` of `game` (from seat a's side)."""
    seen = game.seen_by(seat)
    return Terms(
        actions=tuple((move.value, game.label(move)) for move in _MOVES),
        payoffs=tuple(
            (mine.value + theirs.value, seen.payoffs.payoffs(mine, theirs))
            for mine in _MOVES
            for theirs in _MOVES
        ),
    )


def round_state(
    terms: Terms, platform_name: str, rounds: int | None, state: MatrixState, seat: str
) -> RoundState:
    """`seat`'s round_state in `state` of a match (`terms`: what it is shown of the game) that
    lasts `rounds` rounds (None: not told). Every part is new (a consumer that changes its
    round_state changes nothing the state or another turn holds)."""
    own = 0 if seat == "a" else 1
    other = 1 - own
    return {
        "game": platform_name,
        "phase": state.phase,
        "round": state.round_number,
        "turn": len(state.conversation) + 1,
        "rounds": rounds,
        "actions": dict(terms.actions),
        "payoffs": {
            key: [own_points, other_points] for key, (own_points, other_points) in terms.payoffs
        },
        "history": [entry.copy() for entry in state.history[own]],
        "your_score": state.totals[own],
        "opponent_score": state.totals[other],
        "your_cooperations": state.cooperations[own],
        "opponent_cooperations": state.cooperations[other],
        "messages": [
            {"turn": m.turn, "mine": m.speaker == seat, "text": m.text} for m in state.conversation
        ],
    }


def history_entry(
    number: int, own_move: Action, other_move: Action, own_points: float, other_points: float
) -> HistoryEntry:
    """Round `number` as one seat's round_state lists it, from its side (`MatrixState.history`):
    made once, when the round is scored, and copied into every later round_state."""
    return MappingProxyType(
        {
            "round": number,
            "your_action": LETTER[own_move],
            "opponent_action": LETTER[other_move],
            "your_points": own_points,
            "opponent_points": other_points,
        }
    )


class PastRounds:
    """One seat's past rounds as `PastRound`s, read from its round_states over one match: each
    round_state repeats every finished round, and each is converted once (`read`), so a long
    match is not quadratic in the conversions."""

    def __init__(self) -> None:
        self.rounds: list[PastRound] = []

    def read(self, history: Sequence[Mapping[str, Any]]) -> Sequence[PastRound]:
        """The rounds of `history` (a round_state's, oldest first), as `PastRound`s."""
        known = len(self.rounds)
        if known > len(history) or (
            known and history[known - 1]["round"] != self.rounds[-1].round_index
        ):  # not the history this reader read so far (another match's): read it afresh
            self.rounds, known = [], 0
        for index in range(known, len(history)):  # one a turn, after the first of a match
            self.rounds.append(past_round(history[index]))
        return self.rounds


def past_round(entry: Mapping[str, Any]) -> PastRound:
    """One entry of a round_state's history as the `PastRound` the match loop shows."""
    return PastRound(
        entry["round"],
        MOVE[entry["your_action"]],
        MOVE[entry["opponent_action"]],
        entry["your_points"],
        entry["opponent_points"],
    )


def observation_of(
    seen: RoundState,
    *,
    history_window: int | None,
    include_totals: bool,
    past: PastRounds | None = None,
) -> Observation:
    """The `Observation` a 2x2 agent with this window and totals setting is given at this
    turn: what `Transcript.observe` and `with_conversation` give it in the reference match
    loop (tests/reference_loop.py), field for field. `past`: the seat's reader of its past
    rounds over the match (each converted once), else every round of `seen` is converted now."""
    rounds = (
        past.read(seen["history"])
        if past is not None
        else [past_round(entry) for entry in seen["history"]]
    )
    if history_window is None:
        history = tuple(rounds)
    elif history_window <= 0:
        history = ()
    else:
        history = tuple(rounds[-history_window:])
    said = seen["messages"]
    messages = tuple([Said(m["turn"], m["mine"], m["text"]) for m in said]) if said else ()
    if not include_totals:
        return Observation(seen["round"], history, messages=messages, turn=seen["turn"])
    return Observation(
        seen["round"],
        history,
        seen["your_score"],
        seen["opponent_score"],
        seen["your_cooperations"],
        seen["opponent_cooperations"],
        messages,
        seen["turn"],
    )
