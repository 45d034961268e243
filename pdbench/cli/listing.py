"""`pdbench list`: what the config tree offers (agents, personas, games, mechanisms, providers,
horizons, and the options of each third role the games declare, `pdbench.games.roles`), each
with its description (the first sentence of its file's comment)."""

from __future__ import annotations

import shutil
import textwrap
from typing import Annotated

import typer

from pdbench.core.errors import PdbenchError

PLAYERS_AND_SETTINGS = {
    "agents": "agent",
    "personas": "persona",
    "games": "game",
    "mechanisms": "mechanism",
    "providers": "provider",
    "horizons": "horizon",
}


def listable() -> dict[str, str]:
    """What `pdbench list` may show -> its conf/ folder: the groups above, then each third
    role's options folder, by its plural."""
    from pdbench.config.tree import ROLES

    folders = dict.fromkeys(role.options_group for role in ROLES.values())
    return PLAYERS_AND_SETTINGS | {f"{folder}s": folder for folder in folders}


def list_options(
    what: Annotated[
        str | None,
        typer.Argument(
            help="agents, personas, games, mechanisms, providers, horizons, or a third role's "
            "options "
            "(the plural of its name); default: all."
        ),
    ] = None,
) -> None:
    """Show what the config tree offers, each option with its description."""
    from pdbench.config.tree import describe_option, find_project_root, group_options
    from pdbench.core.errors import unknown_choice

    root = find_project_root()
    choices = listable()
    if what is not None and what not in choices:
        raise PdbenchError(unknown_choice("list", what, choices))
    for title, group in choices.items():
        if what not in (None, title):
            continue
        typer.echo(f"{title} (conf/{group}/):")
        options = group_options(group, root)
        described = {option: describe_option(group, option, root) for option in options}
        width = max((len(o) for o in described), default=0)
        for option, description in described.items():
            # wrapped between words under its own column, never cut (the terminal's width)
            typer.echo(
                textwrap.fill(
                    description,
                    width=max(shutil.get_terminal_size().columns, width + 40),
                    initial_indent=f"  {option.ljust(width)}  ",
                    subsequent_indent=" " * (width + 4),
                    break_long_words=False,
                    break_on_hyphens=False,
                )
            )
