"""What `pdbench train` needs to know about an agent file before and after it plays: the game it
declares, the mistakes that stop it from playing at all (shown with the file's own line, since
the file is the user's code being debugged), and tracebacks cut to the user's own frames.

No user code runs here: the file is compiled (not executed) and read with `ast`.
"""

from __future__ import annotations

import ast
import traceback
from pathlib import Path

from pdbench.agents.arena.validate import _agent_binding, _declared_game
from pdbench.core.errors import ConfigError, PdbenchError
from pdbench.games.registry import game_id, game_ids


class AgentFileError(PdbenchError):
    """The agent file cannot play: `shown` is what to print (the file's own line for a syntax
    error), the message its first line."""

    def __init__(self, message: str, shown: str = "") -> None:
        super().__init__(message)
        self.shown = shown


def declared_game(path: Path) -> str | None:
    """The file's `GAME` (None: it plays every game). Raises AgentFileError when the file is not
    valid Python or defines no `Agent`, ConfigError for a GAME that is not a string."""
    shown = str(path)
    if not path.is_file():
        raise AgentFileError(f"{shown}: no such file")
    try:
        source = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise AgentFileError(f"{shown}: not a UTF-8 text file") from None
    try:
        tree = ast.parse(source, filename=shown)
    except SyntaxError as error:
        lines = traceback.format_exception_only(error)
        raise AgentFileError(
            f"{shown}: not valid Python (line {error.lineno})", "".join(lines).rstrip()
        ) from None
    binding = _agent_binding(tree)
    if binding is None:
        raise AgentFileError(f'{shown}: Agent: defines no class named "Agent"')
    if not isinstance(binding, ast.ClassDef):
        return None  # Agent imported or assigned: its GAME is seen when it starts
    return _declared_game(binding, shown)


def game_of(path: Path, declared: str | None, asked: str | None) -> str:
    """The game to train in (its id: every registered game trains, `registry.game_ids`): the
    file's GAME, or --game for a file that plays every game, either named by its id or by the
    platform's spelling (`registry.game_id`). Raises ConfigError naming the file and field."""
    shown = str(path)
    ids: dict[str, str] = {}
    for name, field in ((declared, "Agent.GAME"), (asked, "--game")):
        if name is not None:
            try:
                ids[field] = game_id(name)
            except ConfigError as error:
                raise ConfigError(error.reason, file=shown, field=field) from None
    if len(set(ids.values())) > 1:
        raise ConfigError(
            f'GAME is "{declared}" but --game asks for "{asked}"; change one of them',
            file=shown,
            field="Agent.GAME",
        )
    if not ids:
        raise ConfigError(
            "not set: the agent plays every game; name one with --game ("
            + ", ".join(game_ids())
            + ")",
            file=shown,
            field="Agent.GAME",
        )
    return next(iter(ids.values()))


def own_traceback(lines: list[str]) -> list[str]:
    """A traceback from the agent's process without the frames of pdbench's own child script,
    so what is left starts at the user's file."""
    package = str(Path(__file__).resolve().parents[2])
    kept: list[str] = []
    skipping = False
    for line in lines:
        if line.startswith('  File "'):
            skipping = line[len('  File "') :].startswith(package) or "/arena/child.py" in line
        elif not line.startswith("  "):
            skipping = False
        if not skipping:
            kept.append(line)
    return kept
