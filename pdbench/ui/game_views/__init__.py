"""Each turn game's page in the viewer: its transcript, and the measures its Metrics tab shows.

A game's page is a module of its own package (`pdbench/games/<id>/view.py`), named by its
registry entry's `view` and imported only when a run of that game is opened. A module holds

- `MEASURES`: the game's measures (`Measure`), stored per player in aggregates.parquet
  (`<stem>_a`, `<stem>_b`, ... one per seat, one value per match), shown with their intervals
  per condition;
- `render_transcript(match: MatchView)`: one match as a reader wants it, showing at each point
  only what the rules had revealed by then (dice, words), as the players saw it.

A game whose stored matches the turn-run page (`pdbench.ui.turn_view`) cannot show, one match's
turns at a time, names instead a page of the whole run (`RunPage`, a module with
`render_run(run)`): the 2x2 games' (`pdbench.games.matrix.view`), whose rounds of C and D are
shown with their own sidebar and tabs. The viewer asks the run's games' entries which page is
theirs (`run_page`), never which family they are.

This module holds what every page shares (the shapes above) and finds a game's page.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from pdbench.ui.loaders import LoadedRun

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
    """The page of the turn game `game_id` (its registry entry's `view`), or None when the game
    has no page (or is not a turn game)."""
    from pdbench.games.registry import TURN_GAMES

    entry = TURN_GAMES.get(game_id)
    return importlib.import_module(entry.view) if entry is not None and entry.view else None


class RunPage(Protocol):
    """A page showing a whole run of its games (below the viewer's header): its own sidebar
    (a condition, a replicate) and tabs; a run with no finished match yet shows its run facts
    (`ui.tabs.run_facts.render_nothing_finished`)."""

    def render_run(self, run: LoadedRun) -> None: ...


def run_page(game_ids: Iterable[str]) -> RunPage | None:
    """The page of a run playing `game_ids`: the module their entries' `view` names when it is
    one and shows whole runs (`render_run`; a run plays one family), else None (the turn-run
    page, each match shown by its game's own `GameView`)."""
    from pdbench.games.registry import MATRIX_GAMES, TURN_GAMES

    entries = [MATRIX_GAMES.get(game) or TURN_GAMES.get(game) for game in game_ids]
    views = {entry.view if entry is not None else "" for entry in entries}
    if len(views) != 1 or not (view := views.pop()):
        return None
    module = importlib.import_module(view)
    return module if hasattr(module, "render_run") else None
