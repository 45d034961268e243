"""NIL Recruitment's page (`pdbench.ui.game_views`): the shared debate transcript
(`pdbench.ui.game_views.debate`) in the game's words, two universities pitching to an athlete, and
its measures: the win rate overall and speaking first (a side is a university, different in every
scenario, so there is no fixed side to rate)."""

from __future__ import annotations

from pdbench.ui.game_views import MatchView
from pdbench.ui.game_views.debate import (
    WIN_RATE,
    WIN_SPEAKING_FIRST,
    DebateWords,
)
from pdbench.ui.game_views.debate import (
    render_transcript as debate,
)

MEASURES = (WIN_RATE, WIN_SPEAKING_FIRST)
WORDS = DebateWords(
    title="NIL Recruitment", judge="athlete", side="university", sides="universities", context=""
)


def render_transcript(match: MatchView) -> None:
    debate(match, "nil_recruitment", WORDS)
