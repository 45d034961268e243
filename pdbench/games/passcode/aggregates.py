"""Passcode's metrics (the module its entry's `metrics` names: rows of the one metric registry),
per player, from a match's final state, over the words of the match:

- words, solved: words played, and words the player guessed right; solved_rate = solved / words.
- rounds_to_solve: the mean round of its right guesses (None without one).
- questions_per_solve: questions it asked over all words / words solved (None without one).
- wrong_guesses: guesses that were not the word.

Each is stored per player seat with the counts its pooled ratio needs (summed over a
condition's matches by `pdbench.analysis.metrics.turn_aggregates`)."""

from __future__ import annotations

from dataclasses import dataclass

from pdbench.core.metric import Metric
from pdbench.games.metric_rows import register_game_rows
from pdbench.games.passcode.rules import PLAYER_SEATS, PasscodeState


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


def match_row(state: PasscodeState) -> dict[str, dict[str, object]]:
    rows: dict[str, dict[str, object]] = {}
    for seat, me, other in (("a", 0, 1), ("b", 1, 0)):
        found = passcode_metrics(state, seat)
        rows[seat] = {
            "win_rate": float(state.scores[me] > state.scores[other]),
            "solved_rate": found.solved_rate,
            "rounds_to_solve": found.rounds_to_solve,
            "questions_per_solve": found.questions_per_solve,
            "wrong_guesses": found.wrong_guesses,
            "solved": found.solved,
            "words": found.words,
            "questions": found.questions,
        }
    return rows


# Each stored per player seat; a pooled ratio sums its counts over a condition's finished
# matches before dividing; `shown`: the end-of-run table's columns (pdbench.cli.summary_table).
register_game_rows(
    ("passcode",),
    lambda match: match_row(match.state),
    (
        Metric(
            stem="win_rate",
            label="Win rate",
            short="win",
            help="share of matches the player won (more points than the other player)",
            kind="rate",
            per_agent=True,
            shown="win",
            shown_at=0,
        ),
        Metric(
            stem="solved_rate",
            label="Solved rate",
            short="solved",
            help="share of the match's words the player guessed right",
            kind="rate",
            per_agent=True,
            pooled=("solved", "words"),
            shown="solved",
            shown_value="pooled",
            shown_at=1,
        ),
        Metric(
            stem="rounds_to_solve",
            label="Rounds to solve",
            short="rounds/solve",
            help="mean round of the player's right guesses",
            kind="round",
            per_agent=True,
            shown="rounds/solve",
            shown_at=2,
        ),
        Metric(
            stem="questions_per_solve",
            label="Questions per solve",
            short="questions/solve",
            help="questions the player asked per word it solved",
            kind="count",
            per_agent=True,
            pooled=("questions", "solved"),
            shown="questions/solve",
            shown_value="pooled",
            shown_at=3,
        ),
        Metric(
            stem="wrong_guesses",
            label="Wrong guesses",
            short="wrong guesses",
            help="guesses that were not the word, per match",
            kind="count",
            per_agent=True,
            shown="wrong guesses",
            shown_at=4,
        ),
    ),
)
