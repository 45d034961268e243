"""A run dir -> its outcomes, by the reader of its stored format (one per format:
pdbench.ladder.matrix_reader, pdbench.ladder.turn_reader).

Apart from pdbench.ladder.outcomes (the rows every reader returns) because the readers build
those rows: with the choice of reader in outcomes, outcomes and the readers imported one another.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pdbench.core.errors import PdbenchError
from pdbench.ladder.matrix_reader import matrix_outcomes
from pdbench.ladder.outcomes import Outcomes
from pdbench.ladder.turn_reader import turn_outcomes
from pdbench.storage.manifest import RunManifest


def _reads_matrix_games(manifest: RunManifest) -> bool:
    from pdbench.games.registry import MATRIX_GAMES

    return all(matchup.game in MATRIX_GAMES for matchup in manifest.matchups.values())


def _reads_turn_games(manifest: RunManifest) -> bool:
    from pdbench.games.registry import TURN_GAMES

    return all(matchup.game in TURN_GAMES for matchup in manifest.matchups.values())


# A stored format: does it hold this run's matches, and how its outcomes are read.
OUTCOME_READERS: dict[str, tuple[Callable[[RunManifest], bool], Callable[[Path], Outcomes]]] = {
    "matrix": (_reads_matrix_games, matrix_outcomes),
    "turn": (_reads_turn_games, turn_outcomes),
}


def read_outcomes(run_dir: Path) -> Outcomes:
    """The outcomes of one run dir, by the reader of its stored format. A run dir holding a
    symbolic link anywhere inside is refused (PdbenchError naming it): a link could make it read
    another run's rounds as its own."""
    from pdbench.storage.reader import RunReader
    from pdbench.storage.safe_files import refuse_links

    refuse_links(Path(run_dir).expanduser().resolve())  # before anything in it is read
    reader = RunReader.open(run_dir)
    manifest = reader.manifest()
    for accepts, read in OUTCOME_READERS.values():
        if accepts(manifest):
            return read(reader.run_dir)
    games = sorted({m.game for m in manifest.matchups.values()})
    raise PdbenchError(
        f"{run_dir}: no outcome reader for game {', '.join(games)} yet "
        f"(readers: {', '.join(OUTCOME_READERS)})"
    )
