"""A run dir -> its outcomes, every run read the same way: each condition's game says how its
matches are read and checked (its entry's `outcomes`, "module:function"; an entry naming none is
read by replaying its stored turn lines through its rules, `pdbench.ladder.replay_reader`). So a
run mixing games, or a plugin's game, needs no reader of its own; a game no registered entry
declares (a plugin no longer installed) cannot be read, and its run is refused.

Apart from pdbench.ladder.outcomes (the rows every reader returns) because the readers build
those rows: with the choice of reader in outcomes, outcomes and the readers imported one another.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection
from pathlib import Path

from pdbench.core.errors import ConfigError, PdbenchError
from pdbench.ladder.outcomes import Outcomes

# How a game whose entry names no reader is read: its stored turn lines replayed.
REPLAY_READER = "pdbench.ladder.replay_reader:replayed_outcomes"

OutcomeReader = Callable[[Path, Collection[str] | None], Outcomes]


def outcome_reader(game_id: str) -> str | None:
    """The reader ("module:function") of a game's stored matches, from its entry; None for a
    game no registered entry declares."""
    from pdbench.games.registry import game_entry

    try:
        entry = game_entry(game_id)
    except ConfigError:
        return None
    return entry.outcomes or REPLAY_READER


def _resolve(reader: str) -> OutcomeReader:
    module, _, function = reader.partition(":")
    found: OutcomeReader = getattr(importlib.import_module(module), function)
    return found


def read_outcomes(run_dir: Path) -> Outcomes:
    """The outcomes of one run dir, each condition's matches by its game's reader. A run dir
    holding a symbolic link anywhere inside is refused (PdbenchError naming it): a link could make
    it read another run's rounds as its own."""
    from pdbench.storage.reader import RunReader
    from pdbench.storage.safe_files import refuse_links

    refuse_links(Path(run_dir).expanduser().resolve())  # before anything in it is read
    reader = RunReader.open(run_dir)
    manifest = reader.manifest()
    by_reader: dict[str, list[str]] = {}  # reader -> the conditions it reads, in the run's order
    unread: set[str] = set()
    for name, matchup in manifest.matchups.items():
        found = outcome_reader(matchup.game)
        if found is None:
            unread.add(matchup.game)
        else:
            by_reader.setdefault(found, []).append(name)
    if unread:
        raise PdbenchError(
            f"{run_dir}: no outcome reader for game {', '.join(sorted(unread))}: no installed "
            "game declares it (pdbench list games)"
        )
    if len(by_reader) <= 1:  # one reader reads every stored match (one of no condition: refused)
        return _resolve(next(iter(by_reader), REPLAY_READER))(reader.run_dir, None)
    return Outcomes.concatenate(
        [_resolve(found)(reader.run_dir, names) for found, names in by_reader.items()]
    )
