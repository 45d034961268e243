"""What a researcher asks of a judged game's match, per player, from its final state alone.

Passcode (`passcode_metrics`), over the words of the match:
- words, solved: words played, and words the player guessed right; solved_rate = solved / words.
- rounds_to_solve: the mean round of its right guesses (None without one).
- questions_per_solve: questions it asked over all words / words solved (None without one).
- wrong_guesses: guesses that were not the word.

The debates (`debate_metrics`), over the rounds of the match:
- rounds, won; win_rate = won / rounds.
- per side: {side: (won, played)}: "for" / "against" in nuclear_war, the university in
  nil_recruitment, so a side's advantage shows apart from the player's.
- won_first / first: rounds it spoke first and won, and rounds it spoke first.
"""

from __future__ import annotations

from dataclasses import dataclass

from pdbench.games.debate.rules import PLAYER_SEATS, DebateState
from pdbench.games.passcode.rules import PasscodeState


@dataclass(frozen=True)
class PasscodeMetrics:
    words: int
    solved: int
    rounds_to_solve: float | None
    questions: int
    wrong_guesses: int

    @property
    def solved_rate(self) -> float | None:
        return self.solved / self.words if self.words else None

    @property
    def questions_per_solve(self) -> float | None:
        return self.questions / self.solved if self.solved else None


def passcode_metrics(state: PasscodeState, seat: str) -> PasscodeMetrics:
    me = PLAYER_SEATS.index(seat)
    solved = [word for word in state.finished if word.solved[me]]
    return PasscodeMetrics(
        words=len(state.finished),
        solved=len(solved),
        rounds_to_solve=sum(w.rounds for w in solved) / len(solved) if solved else None,
        questions=sum(word.questions[me] for word in state.finished),
        wrong_guesses=sum(word.wrong_guesses[me] for word in state.finished),
    )


@dataclass(frozen=True)
class DebateMetrics:
    rounds: int
    won: int
    per_side: dict[str, tuple[int, int]]  # side -> (won, played)
    first: int
    won_first: int

    @property
    def win_rate(self) -> float | None:
        return self.won / self.rounds if self.rounds else None


def debate_metrics(state: DebateState, seat: str) -> DebateMetrics:
    me = PLAYER_SEATS.index(seat)
    per_side: dict[str, tuple[int, int]] = {}
    for verdict in state.verdicts:
        side = verdict.sides[me]
        won, played = per_side.get(side, (0, 0))
        per_side[side] = (won + (verdict.winner_seat == seat), played + 1)
    return DebateMetrics(
        rounds=len(state.verdicts),
        won=sum(v.winner_seat == seat for v in state.verdicts),
        per_side=per_side,
        first=sum(v.first_speaker == seat for v in state.verdicts),
        won_first=sum(v.first_speaker == seat and v.winner_seat == seat for v in state.verdicts),
    )
