"""The 2x2 games' catalogue: every registered 2x2 game's table (`pdbench.core.game.Game`), as its
package declares it (`pdbench.games.<id>.TABLE`, carried by its entry), so a plugin's 2x2 game
joins it as a built-in one does (`registry.MATRIX_GAMES`).

`GAMES` (id -> table), `get_game` (an unknown id is a ConfigError naming the choices) and
`DEFAULT_GAME`, the game a config that names none plays and a prompt check renders its templates
with. The classic strategies (`pdbench.strategies`, which import only core) are given their game
by their caller, never this catalogue.
"""

from __future__ import annotations

from pdbench.core.errors import ConfigError, unknown_choice
from pdbench.core.game import Game
from pdbench.games import pd
from pdbench.games.registry import MATRIX_GAMES

GAMES: dict[str, Game] = {
    game_id: entry.table for game_id, entry in MATRIX_GAMES.items() if entry.table is not None
}
DEFAULT_GAME: Game = pd.TABLE


def get_game(game_id: str) -> Game:
    try:
        return GAMES[game_id]
    except KeyError:
        raise ConfigError(unknown_choice("game", game_id, GAMES), field="game.id") from None
