"""NIL Recruitment's page (`pdbench.ui.game_views`): the shared debate transcript
(`pdbench.games.debate.view`) in the game's words, two universities pitching to an athlete, and
its measures: the win rate overall and speaking first (a side is a university, different in every
scenario, so there is no fixed side to rate)."""

from __future__ import annotations

from pdbench.games.debate.view import (
    WIN_RATE,
    WIN_SPEAKING_FIRST,
    DebateWords,
)
from pdbench.games.debate.view import (
    render_transcript as debate,
)
from pdbench.ui.game_views import MatchView

MEASURES = (WIN_RATE, WIN_SPEAKING_FIRST)
WORDS = DebateWords(
    title="NIL Recruitment", judge="athlete", side="university", sides="universities", context=""
)


def render_transcript(match: MatchView) -> None:
    debate(match, "nil_recruitment", WORDS)
