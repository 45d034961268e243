"""What one seat of a 2x2 match is shown (`MatrixGame.observe`), its round_state, and the
`core.transcript.Observation` a 2x2 agent reads, rebuilt from it (`observation_of`): the turn
contract's observation carries everything a 2x2 agent of any kind may be shown, and each agent's
own `history_window` and `include_totals` cut it down exactly as `Transcript.observe` does.

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

from typing import Any

from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.talk import Said
from pdbench.core.transcript import Observation, PastRound
from pdbench.games.matrix.state import MatrixState

RoundState = dict[str, Any]
_MOVES = (Action.C, Action.D)
_LETTER = {move: move.value for move in _MOVES}  # a lookup: an enum's .value costs a call


def round_state(
    game: Game, platform_name: str, rounds: int | None, state: MatrixState, seat: str
) -> RoundState:
    """`seat`'s round_state in `state` of a match of `game` (from seat a's side) that lasts
    `rounds` rounds (None: not told)."""
    own = 0 if seat == "a" else 1
    other = 1 - own
    seen = game.seen_by(seat)
    history = [
        {
            "round": r.round_number,
            "your_action": _LETTER[r.played[own]],
            "opponent_action": _LETTER[r.played[other]],
            "your_points": r.payoffs[own],
            "opponent_points": r.payoffs[other],
        }
        for r in state.finished
    ]
    return {
        "game": platform_name,
        "phase": state.phase,
        "round": state.round_number,
        "turn": len(state.conversation) + 1,
        "rounds": rounds,
        "actions": {move.value: game.label(move) for move in _MOVES},
        "payoffs": {
            mine.value + theirs.value: list(seen.payoffs.payoffs(mine, theirs))
            for mine in _MOVES
            for theirs in _MOVES
        },
        "history": history,
        "your_score": state.totals[own],
        "opponent_score": state.totals[other],
        "your_cooperations": state.cooperations[own],
        "opponent_cooperations": state.cooperations[other],
        "messages": [
            {"turn": m.turn, "mine": m.speaker == seat, "text": m.text} for m in state.conversation
        ],
    }


def observation_of(
    seen: RoundState, *, history_window: int | None, include_totals: bool
) -> Observation:
    """The `Observation` a 2x2 agent with this window and totals setting is given at this
    turn: what `Transcript.observe` and `runners.negotiation.with_conversation` give it in the
    match loop, field for field."""
    rounds = seen["history"]
    if history_window is None:
        shown = rounds
    elif history_window <= 0:
        shown = []
    else:
        shown = rounds[-history_window:]
    history = tuple(
        PastRound(
            r["round"],
            Action(r["your_action"]),
            Action(r["opponent_action"]),
            r["your_points"],
            r["opponent_points"],
        )
        for r in shown
    )
    messages = tuple(Said(m["turn"], m["mine"], m["text"]) for m in seen["messages"])
    if not include_totals:
        return Observation(seen["round"], history, messages=messages, turn=seen["turn"])
    return Observation(
        seen["round"],
        history,
        own_total=seen["your_score"],
        opponent_total=seen["opponent_score"],
        own_cooperations=seen["your_cooperations"],
        opponent_cooperations=seen["opponent_cooperations"],
        messages=messages,
        turn=seen["turn"],
    )
