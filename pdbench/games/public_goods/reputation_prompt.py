"""The reputation block of a public goods prompt (round_state's `reputation`, module
`reputation`), written in CoopEval's words where they fit and read back by the offline mock.

CoopEval's text (Xiao215/CoopEval@8559e85 src/coopeval/mechanisms/prompts.py:145-163,
REPUTATION_PLAYERS_HEADER and REPUTATION_NO_HISTORY_DESCRIPTION; reputation.py:120-160 and
262-335 for the tree):

    You are playing with 2 other agent(s): Agent #4, Agent #7.
    Your history of play:
    └─ [Round 4] You (played A0, received 1.0pts) vs Agent #2 (played A1, received 2.0pts) ...
       └─ History of Agent #2 before this match:
          └─ [Round 3] Agent #2 (played A1, received 1.5pts) vs ...
    Agent #7 has no prior history of playing this game.

Here "played A0" is "contributed <amount>" (a player answers an amount, not an action token),
each listed co-player also gets its label this round ("Agent #4 (P2)"), so the block and the
rest of the prompt name the same players, and a first line says the window. Rounds are newest
first, as CoopEval lists them. The block sits in the prompt's `{state}` after the past rounds (the
templates in prompts/public_goods/ are unchanged, so a game without reputation sends the prompt
it always sent).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pdbench.core.phrases import Phrase, written_number
from pdbench.games.reputation_tree import (
    NO_WINDOW,
    coopeval_phrases,
    read_listed_players,
    render_players,
)

_AGENT = r"(?:You|Agent #\d+)"
_NUMBER = r"-?\d+(?:\.\d+)?"

WINDOW = Phrase(
    "Reputation: the rounds {first} to {last} of you and of the players in your group this "
    "round (the last {depth}), newest first.",
    slots={"first": r"\d+", "last": r"\d+", "depth": r"\d+"},
)
PHRASES = coopeval_phrases(label=r"[A-Za-z0-9]+")
# a top-level round line: the listed player's own round (nested lines are indented)
ROUND_LINE = Phrase(
    "{branch} [Round {round}] {agent} (contributed {amount}, received {points}pts){rest}",
    slots={
        "branch": r"[├└]─",
        "agent": _AGENT,
        "amount": r"\d+",
        "points": _NUMBER,
        "rest": r".*",
    },
)


def _side(agent: str, contribution: int, earnings: float) -> str:
    return f"{agent} (contributed {contribution}, received {written_number(earnings)}pts)"


def _side_of(agent: str, entry: Mapping[str, Any]) -> str:
    return _side(agent, entry["contribution"], entry["earnings"])


def render(reputation: dict[str, Any]) -> list[str]:
    """The block's lines, from round_state's `reputation`."""
    window = reputation["rounds"]
    lines = [
        WINDOW.render(first=window[0], last=window[1], depth=window[1] - window[0] + 1)
        if window
        else NO_WINDOW.render()
    ]
    return [*lines, *render_players(reputation["players"], _side_of, PHRASES)]


def read_co_players(prompt: str) -> dict[str, list[int]] | None:
    """The co-players' own shown contributions, by "Agent #n", oldest first (round_state's
    order), read back from a prompt's block (None: the prompt has no reputation block). A
    co-player without history maps to []."""
    if NO_WINDOW.pattern.search(prompt) is None and WINDOW.pattern.search(prompt) is None:
        return None
    found = {
        listed.agent: [int(r["amount"]) for r in listed.rounds]
        for listed in read_listed_players(prompt, PHRASES, ROUND_LINE)
    }
    return found
