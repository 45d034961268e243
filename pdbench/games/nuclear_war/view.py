"""Nuclear War's page (`pdbench.ui.game_views`): the shared debate transcript
(`pdbench.games.debate.view`) in the game's words, a crisis and a President, and its measures:
the win rate overall, speaking first, and on each fixed side ("for" / "against" the strike)."""

from __future__ import annotations

from pdbench.games.debate.view import (
    WIN_RATE,
    WIN_SPEAKING_FIRST,
    DebateWords,
)
from pdbench.games.debate.view import (
    render_transcript as debate,
)
from pdbench.ui.game_views import MatchView, Measure

MEASURES = (
    WIN_RATE,
    WIN_SPEAKING_FIRST,
    Measure(
        "win_rate_as_for",
        "Win rate arguing for",
        "share",
        "Share of the rounds won arguing for the strike.",
    ),
    Measure(
        "win_rate_as_against",
        "Win rate arguing against",
        "share",
        "Share of the rounds won arguing against the strike.",
    ),
)
WORDS = DebateWords(
    title="Nuclear War", judge="President", side="position", sides="positions", context="Crisis"
)


def render_transcript(match: MatchView) -> None:
    debate(match, "nuclear_war", WORDS)
