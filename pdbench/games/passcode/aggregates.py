"""Passcode's aggregates hook (the registry's `metrics`): per player seat, from a match's final
state, the metrics of `pdbench.games.judged_metrics.passcode_metrics` and the counts their pooled
ratios need (summed over a condition's matches by `pdbench.analysis.metrics.turn_aggregates`)."""

from __future__ import annotations

from pdbench.games.judged_metrics import passcode_metrics
from pdbench.games.passcode.rules import PasscodeState

METRICS: dict[str, str] = {
    "win_rate": "share of matches the player won (more points than the other player)",
    "solved_rate": "share of the match's words the player guessed right",
    "rounds_to_solve": "mean round of the player's right guesses",
    "questions_per_solve": "questions the player asked per word it solved",
    "wrong_guesses": "guesses that were not the word, per match",
}
# the run's end-of-run table (pdbench.cli.turn_report): column stem -> header
SHOWN = {
    "win_rate": "win",
    "solved_rate_pooled": "solved",
    "rounds_to_solve": "rounds/solve",
    "questions_per_solve_pooled": "questions/solve",
    "wrong_guesses": "wrong guesses",
}
# ratio stem -> (numerator, denominator) counts summed over matches
POOLED: dict[str, tuple[str, str]] = {
    "solved_rate": ("solved", "words"),
    "questions_per_solve": ("questions", "solved"),
}


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
