"""Each turn game's page in the viewer: its transcript, and the measures its Metrics tab shows.

One module per game, registered in `GAME_VIEWS` by the module's name and imported only when a
run of that game is opened (as the games' own registry names their rules). A module holds

- `MEASURES`: the game's measures (`Measure`), stored per player in aggregates.parquet
  (`<stem>_a`, `<stem>_b`, ... one per seat, one value per match), shown with their intervals
  per condition;
- `render_transcript(match: MatchView)`: one match as a reader wants it, showing at each point
  only what the rules had revealed by then (dice, words), as the players saw it.

A page may live in its game's package instead, as `pdbench/games/<id>/view.py`, found there with
no row here (the layering rules let a game's `view` module import ui); the next milestone moves
the others there, each module leaving its row here.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

# game id -> the module of its page, for the games whose page is not in their package yet
# (tests/unit/test_judged_transcripts.py: every turn game has a page, here or in its package)
GAME_VIEWS: dict[str, str] = {
    "liars_dice": "pdbench.ui.game_views.liars_dice",
    "passcode": "pdbench.ui.game_views.passcode",
    "nuclear_war": "pdbench.ui.game_views.nuclear_war",
    "nil_recruitment": "pdbench.ui.game_views.nil_recruitment",
}

MeasureKind = Literal["share", "count", "round", "signed"]


@dataclass(frozen=True)
class Measure:
    """A per-player measure of a game: `stem` names the aggregates' columns, one per player seat
    (`<stem>_a`, `<stem>_b`, and a group's `<stem>_c` ... `<stem>_j`); a "share" lies in [0, 1],
    a "count" is at least 0, a "round" at least 1 (the interval is kept inside that range), a
    "signed" value (a slope, a difference) has no bound."""

    stem: str
    label: str
    kind: MeasureKind
    help: str
    decimals: int = 2


@dataclass(frozen=True)
class MatchView:
    """What a game's transcript reads: one match's stored turn lines and what the run says of it."""

    turns: list[dict[str, Any]]
    names: Mapping[str, str]  # every player seat ("a", "b", "c", ...) -> "A · NAME"
    options: Mapping[str, Any]  # the condition's game options
    seed: int | None  # the match's game seed (the ledger's), None when not stored
    third_parties: Mapping[str, str] = field(default_factory=dict)  # role -> who played it


class GameView(Protocol):
    MEASURES: tuple[Measure, ...]

    def render_transcript(self, match: MatchView) -> None: ...


def game_view(game_id: str) -> GameView | None:
    """The page of `game_id`: its row in GAME_VIEWS, else its package's `view` module
    (`pdbench/games/<id>/view.py`); None when it has neither."""
    module = GAME_VIEWS.get(game_id) or _package_view(game_id)
    return None if module is None else importlib.import_module(module)


def _package_view(game_id: str) -> str | None:
    """`pdbench.games.<id>.view` when the game is a package holding a view module. The id is
    read from a run's files: only a plain name is looked up, never a dotted path."""
    if not game_id.isidentifier():
        return None
    package = f"pdbench.games.{game_id}"
    try:
        found = importlib.util.find_spec(f"{package}.view")
    except ModuleNotFoundError:  # no such package (a game of one module, or no game)
        return None
    return None if found is None else found.name
