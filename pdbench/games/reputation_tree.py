"""CoopEval's reputation tree, shared by the games that play its reputation mechanism (public
goods' `reputation_depth`, a 2x2 game's `mechanism=reputation`): what a player of a re-matched
population is shown before a round, for itself and each member of its new group, their rounds
among the last k. Read from Xiao215/CoopEval@8559e85 src/coopeval/mechanisms/reputation.py
(`_format_reputation`, `_format_player_history_recursive`):

- The window is the global rounds [t - k, t - 1] for round t (every player plays every round).
- Each listed player's rounds in the window, each with its move and the round's points, and
  every co-player it met there with theirs (CoopEval: "played A1, received 1pts" for both sides).
- `order` levels (CoopEval's `max_recursion_depth`: 1 for Reputation-, 3 for Reputation+): at
  level l < order each co-player met in a round r is expanded with its own rounds of the window
  before r (`idx < encounter_round`), to `order` levels in all.
- Players are named "You" (the observer, wherever it appears) or "Agent #n", a number fixed for
  the whole match. CoopEval's n is the player's index in its population list, which says nothing
  an agent could use; a seat letter here is the runner's binding, never shown, so n is a seeded
  per-match permutation of the population (`pseudonyms`), not the seat's position.

A game names the two fields of an entry (`Fields`: public goods' "contribution" and "earnings",
a 2x2 game's "action" and "points") and writes one side of a round line (`render_tree`'s
`side`); everything else is the same code. Every function is generic over the player key (a
population index in the rules, a seat id when the measures read the stored rounds), so the
observation and the measures read the same rounds the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pdbench.core.phrases import Phrase

# the seeded stream's purpose, (seed, 6, 0): public goods' matching streams are 1-5
_PSEUDONYMS = 6
YOU = "You"


@dataclass(frozen=True)
class Fields:
    """The keys of a shown round's move and points (round_state's words for them)."""

    move: str
    points: str


@dataclass(frozen=True)
class Played[P: Hashable]:
    """One finished round as reputation reads it: the groups (members in label or position
    order), each player's move and the round's points."""

    round_number: int
    groups: Sequence[Sequence[P]]
    moves: Mapping[P, Any]
    points: Mapping[P, float]

    def group_of(self, player: P) -> Sequence[P]:
        return next(group for group in self.groups if player in group)


def pseudonyms(seed: int, population: int) -> tuple[str, ...]:
    """Each population index's name for the match: "Agent #1" .. "Agent #<population>"."""
    rng = np.random.Generator(np.random.PCG64([seed, _PSEUDONYMS, 0]))
    return tuple(f"Agent #{int(n) + 1}" for n in rng.permutation(population))


def window(current: int, depth: int) -> tuple[int, int]:
    """The rounds shown before round `current`: [max(1, current - depth), current - 1]."""
    return max(1, current - depth), current - 1


def _entries[P: Hashable](
    rounds: Sequence[Played[P]],
    player: P,
    before: int,
    first: int,
    level: int,
    order: int,
    name: Callable[[P], str],
    fields: Fields,
) -> list[dict[str, Any]]:
    """`player`'s rounds from `first` to before `before`, oldest first; co-players expanded
    while `level` < `order`."""
    found = []
    for played in rounds:
        if not first <= played.round_number < before:
            continue
        co_players = []
        for other in played.group_of(player):
            if other == player:
                continue
            seen: dict[str, Any] = {
                "agent": name(other),
                fields.move: played.moves[other],
                fields.points: played.points[other],
            }
            if level < order:
                seen["history"] = _entries(
                    rounds, other, played.round_number, first, level + 1, order, name, fields
                )
            co_players.append(seen)
        found.append(
            {
                "round_number": played.round_number,
                fields.move: played.moves[player],
                fields.points: played.points[player],
                "co_players": co_players,
            }
        )
    return found


def shown_reputation[P: Hashable](
    rounds: Sequence[Played[P]],
    current: int,
    depth: int,
    order: int,
    listed: Sequence[tuple[P, str]],
    name: Callable[[P], str],
    fields: Fields,
) -> dict[str, Any]:
    """round_state's `reputation` before round `current`: `listed` are (player, its label this
    round), the observer first; `name` gives "You" or "Agent #n"; `rounds` the finished rounds
    (only those in the window are read)."""
    first, last = window(current, depth)
    return {
        "rounds": [first, last] if first <= last else [],
        "players": [
            {
                "label": label,
                "agent": name(player),
                "history": _entries(rounds, player, current, first, 1, order, name, fields),
            }
            for player, label in listed
        ],
    }


def render_tree(
    agent: str,
    entries: Sequence[Mapping[str, Any]],
    side: Callable[[str, Mapping[str, Any]], str],
    indent: str = "",
) -> list[str]:
    """CoopEval's `_format_player_history_recursive`: `agent`'s shown rounds newest first, each
    "[Round r] <side> vs <side> ...", co-players' earlier rounds under each round; `side(agent,
    entry)` writes one player's part from its entry (its move and points)."""
    lines = []
    newest_first = list(reversed(entries))
    for i, entry in enumerate(newest_first):
        last = i == len(newest_first) - 1
        branch = "└─" if last else "├─"
        child = indent + ("   " if last else "│  ")
        sides = [side(agent, entry)] + [side(co["agent"], co) for co in entry["co_players"]]
        lines.append(f"{indent}{branch} [Round {entry['round_number']}] " + " vs ".join(sides))
        for k, co in enumerate(entry["co_players"]):
            if not co.get("history"):
                continue
            inner = child + ("   " if k == len(entry["co_players"]) - 1 else "│  ")
            lines.append(f"{child}└─ History of {co['agent']} before this match:")
            lines += render_tree(co["agent"], co["history"], side, inner)
    return lines


@dataclass(frozen=True)
class TreePhrases:
    """The sentences a game's reputation block lists its players with (each game words its
    own, as CoopEval's prompts do: `pdbench.core.phrases.Phrase` objects, read back by the mock
    and the house players)."""

    players_header: Any  # "You are playing with {count} other agent(s): {agents}."
    your_history: Any  # "Your history of play:"
    history_of: Any  # "History of play of {agent} ({label}):"
    no_history: Any  # "{agent} has no prior history of playing this game."
    you_no_history: Any  # "You have no prior history of playing this game."


_LISTED_AGENT = r"(?:You|Agent #\d+)"

# The block's first line when nothing has been played yet (a game's window line says which
# rounds it shows otherwise: its own words, "of the players in your group", "you meet").
NO_WINDOW = Phrase("Reputation: no round has been played yet.")


def coopeval_phrases(label: str) -> TreePhrases:
    """CoopEval's sentences for the players of a reputation block (Xiao215/CoopEval@8559e85
    src/coopeval/mechanisms/prompts.py:145-163: REPUTATION_PLAYERS_HEADER and
    REPUTATION_NO_HISTORY_DESCRIPTION), each co-player followed by its label this round;
    `label` is the pattern a game's labels match ("Player 2" in a 2x2 game, "P2" in public
    goods), so the mock reads back exactly what the game wrote."""
    return TreePhrases(
        players_header=Phrase(
            "You are playing with {count} other agent(s): {agents}.", slots={"agents": r".+?"}
        ),
        your_history=Phrase("Your history of play:"),
        history_of=Phrase(
            "History of play of {agent} ({label}):",
            slots={"agent": _LISTED_AGENT, "label": label},
        ),
        no_history=Phrase(
            "{agent} has no prior history of playing this game.",
            slots={"agent": rf"Agent #\d+ \({label}\)"},
        ),
        you_no_history=Phrase("You have no prior history of playing this game."),
    )


@dataclass(frozen=True)
class ListedPlayer:
    """A co-player as a reputation block lists it, read back: its name, its label this round
    and its own top-level round lines (`round_line` matches), oldest first."""

    agent: str
    label: str
    rounds: list[re.Match[str]]


def read_listed_players(
    prompt: str, phrases: TreePhrases, round_line: Phrase
) -> list[ListedPlayer]:
    """Every co-player a block written by `render_players` lists, in its order, with its own
    rounds (the nested lines of the players it met are not read)."""
    players: list[ListedPlayer] = []
    listed: ListedPlayer | None = None
    for line in prompt.splitlines():
        if (header := phrases.history_of.pattern.fullmatch(line)) is not None:
            listed = ListedPlayer(header["agent"], header["label"], [])
            players.append(listed)
        elif phrases.your_history.pattern.fullmatch(line) is not None:
            listed = None
        elif (empty := phrases.no_history.pattern.fullmatch(line)) is not None:
            agent, label = empty["agent"].removesuffix(")").split(" (", 1)
            players.append(ListedPlayer(agent, label, []))
            listed = None
        elif listed is not None and (own := round_line.pattern.fullmatch(line)) is not None:
            listed.rounds.insert(0, own)  # the block lists newest first
    return players


def render_players(
    players: Sequence[Mapping[str, Any]],
    side: Callable[[str, Mapping[str, Any]], str],
    phrases: TreePhrases,
) -> list[str]:
    """The block's lines after its window: who the player meets, then each listed player's tree
    (you first), or that it has no history yet. `players` is round_state's
    `reputation.players`; `side` writes one side of a round (`render_tree`)."""
    others = [p for p in players if p["agent"] != YOU]
    lines = [
        phrases.players_header.render(
            count=len(others), agents=", ".join(f"{p['agent']} ({p['label']})" for p in others)
        )
    ]
    for listed in players:
        mine = listed["agent"] == YOU
        if not listed["history"]:
            lines.append(
                phrases.you_no_history.render()
                if mine
                else phrases.no_history.render(agent=f"{listed['agent']} ({listed['label']})")
            )
            continue
        lines.append(
            phrases.your_history.render()
            if mine
            else phrases.history_of.render(agent=listed["agent"], label=listed["label"])
        )
        lines += render_tree(listed["agent"], listed["history"], side)
    return lines
