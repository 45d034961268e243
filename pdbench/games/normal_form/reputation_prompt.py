"""The reputation block of a normal-form prompt under `mechanism: reputation` (round_state's
`reputation`, module `reputation`), in CoopEval's words, and read back by the offline mock.

CoopEval's text (Xiao215/CoopEval@8559e85 src/coopeval/mechanisms/prompts.py:145-163, the
preamble, REPUTATION_PLAYERS_HEADER and REPUTATION_NO_HISTORY_DESCRIPTION; reputation.py:262-335
for the tree, drawn by the shared `pdbench.games.reputation_tree.render_tree`):

    You are playing this game repeatedly but with varying players who you encounter at random.
    The action you play in the current round will be visible to the players you encounter in
    future rounds. ...
    You are playing with 1 other agent(s): Agent #4 (Player 2).
    Your history of play:
    └─ [Round 4] You (played A0, received 2pts) vs Agent #2 (played A1, received 3pts)
       └─ History of Agent #2 before this match:
          └─ [Round 3] Agent #2 (played A1, received 1pts) vs ...
    Agent #4 (Player 2) has no prior history of playing this game.

With `discount` < 1 or a `continuation` the preamble tells the continuation chance
(`PREAMBLE_CONTINUING`, CoopEval's); else no chance is told, so it tells the number of rounds.
Each listed co-player also gets its position this round, and a line says the window.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pdbench.core.phrases import Phrase, written_number
from pdbench.games.normal_form import image_prompt
from pdbench.games.reputation_tree import (
    NO_WINDOW,
    YOU,
    coopeval_phrases,
    read_listed_players,
    render_players,
)

_AGENT = r"(?:You|Agent #\d+)"
_NUMBER = r"-?\d+(?:\.\d+)?"

PREAMBLE = Phrase(
    "You are playing this game repeatedly but with varying players who you encounter at "
    "random, {limit} rounds in all. The action you play in the current round will be visible "
    "to the players you encounter in future rounds. You have already played this game for "
    "{played} round(s) in the past.",
    slots={"limit": r"\d+", "played": r"\d+"},
)
# with `discount` < 1: CoopEval's continuation chance instead of the rounds (prompts.py@8559e85:
# 145-154, `int(self.discount*100)` at reputation.py:90)
PREAMBLE_CONTINUING = Phrase(
    "You are playing this game repeatedly but with varying players who you encounter at "
    "random. The action you play in the current round will be visible to the players you "
    "encounter in future rounds. After each round, there is a {chance}% chance probability "
    "that an additional round will take place. You have already played this game for "
    "{played} round(s) in the past.",
    slots={"chance": r"\d+(?:\.\d+)?", "played": r"\d+"},
)
WINDOW = Phrase(
    "Reputation: the rounds {first} to {last} of you and of the players you meet this round "
    "(the last {depth}), newest first.",
    slots={"first": r"\d+", "last": r"\d+", "depth": r"\d+"},
)
PHRASES = coopeval_phrases(label=r"Player \d+")
# a top-level round line: the listed player's own round (nested lines are indented)
ROUND_LINE = Phrase(
    "{branch} [Round {round}] {agent} (played {action}, received {points}pts){rest}",
    slots={
        "branch": r"[├└]─",
        "agent": _AGENT,
        "action": r"A\d+",
        "points": _NUMBER,
        "rest": r".*",
    },
)


def _side(agent: str, entry: Mapping[str, Any]) -> str:
    return f"{agent} (played {entry['action']}, received {written_number(entry['points'])}pts)"


def render(round_state: Mapping[str, Any]) -> list[str]:
    """The block's lines: the preamble, the window, and every listed player's tree; under
    `reputation_shown: image` the norm and the partner's image instead (`image_prompt`)."""
    if "partner_image" in round_state:
        return image_prompt.render(round_state)
    reputation = round_state["reputation"]
    window = reputation["rounds"]
    preamble = image_prompt.told_preamble(round_state, PREAMBLE, PREAMBLE_CONTINUING)
    lines = [
        preamble,
        "",
        WINDOW.render(first=window[0], last=window[1], depth=window[1] - window[0] + 1)
        if window
        else NO_WINDOW.render(),
    ]
    return [*lines, *render_players(reputation["players"], _side, PHRASES)]


def read_reputation(prompt: str) -> dict[str, Any] | None:
    """round_state's `reputation` as far as a house player reads it (the co-players' own shown
    rounds, first level, oldest first), read back from a prompt's block; None: no block."""
    if all(p.pattern.search(prompt) is None for p in (PREAMBLE, PREAMBLE_CONTINUING)):
        return None
    players: list[dict[str, Any]] = [{"label": "", "agent": YOU, "history": []}]
    for listed in read_listed_players(prompt, PHRASES, ROUND_LINE):
        history = [{"round_number": int(r["round"]), "action": r["action"]} for r in listed.rounds]
        players.append({"label": listed.label, "agent": listed.agent, "history": history})
    return {"players": players}
