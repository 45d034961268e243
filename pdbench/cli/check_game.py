"""`pdbench check-game ID`: the contract checks of the turn contract (pdbench.games.check), one
line per check, on any registered game (a 2x2 game's rules are `pdbench.games.matrix`'s). Exit 0 when every check passes, 7 when one fails (each
failure says where: the seed, the turn, the seat), 2 for a game pdbench does not know."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from pdbench.cli import exits


def check_game(
    game: Annotated[
        str,
        typer.Argument(
            help="A game's id or AgentDuel name (pdbench list games).", show_default=False
        ),
    ],
    seeds: Annotated[
        int, typer.Option("--seeds", help="Seeded matches each check plays.", min=1)
    ] = 6,
) -> None:
    """Check that a game keeps the turn contract pdbench's runner relies on: whole legal
    matches of its house players, the same match from the same seed, a resume from the stored
    actions, JSON observations, refusals with a reason and legal fallbacks."""
    from pdbench.games.check import check_game as run_checks
    from pdbench.games.check import not_checked
    from pdbench.games.registry import game_id

    name = game_id(game)
    results = run_checks(name, seeds=seeds)
    typer.echo(f"check-game {name} ({seeds} seeded matches a check)")
    for result in results:
        typer.echo(f"  {'ok  ' if result.problem is None else 'FAIL'}  {result.name}")
        if result.problem is not None:
            typer.echo(f"        {result.problem}")
    typer.echo("not checked here: " + "; ".join(not_checked(name)))
    failed = sum(result.problem is not None for result in results)
    if failed:
        exits.say(f"{name} fails {failed} of {len(results)} contract checks (above)")
        sys.exit(exits.CONTRACT_BROKEN)
