"""`pdbench list`: what the config tree offers (agents, personas, games, providers, horizons,
keepers, judges), one line of description each."""

from __future__ import annotations

from typing import Annotated

import typer

from pdbench.core.errors import PdbenchError

LISTABLE = {
    "agents": "agent",
    "personas": "persona",
    "games": "game",
    "providers": "provider",
    "horizons": "horizon",
    "keepers": "keeper",
    "judges": "judge",
}


def list_options(
    what: Annotated[
        str | None,
        typer.Argument(
            help="agents, personas, games, providers, horizons, keepers or judges; default: all."
        ),
    ] = None,
) -> None:
    """Show what the config tree offers, one line of description each."""
    from pdbench.config.tree import describe_option, find_project_root, group_options
    from pdbench.core.errors import unknown_choice

    root = find_project_root()
    if what is not None and what not in LISTABLE:
        raise PdbenchError(unknown_choice("list", what, LISTABLE))
    for title, group in LISTABLE.items():
        if what not in (None, title):
            continue
        typer.echo(f"{title} (conf/{group}/):")
        options = group_options(group, root)
        width = max((len(o) for o in options), default=0)
        for option in options:
            typer.echo(f"  {option.ljust(width)}  {describe_option(group, option, root)}")
