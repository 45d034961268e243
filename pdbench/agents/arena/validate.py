"""Checks of an arena agent file before anything runs, and the files it reads: read them with
`ast`, run none of them."""

from __future__ import annotations

import ast
from pathlib import Path

from pdbench.agents.arena.protocol import label_to_action
from pdbench.agents.arena.sandbox import require_sandbox
from pdbench.config.schema import ArenaAgentSpec
from pdbench.core.errors import ConfigError, InvalidActionError
from pdbench.core.game import Game
from pdbench.games.base import TurnGame
from pdbench.games.registry import known_game_id


def resolve_agent_path(spec: ArenaAgentSpec, project_root: Path) -> Path:
    path = Path(spec.path).expanduser()
    return path if path.is_absolute() else Path(project_root) / path


def platform_name(game: Game | TurnGame) -> str:
    """The game's id on the platform, as an agent file's GAME says it (`Game.arena_id`,
    `TurnGameEntry.platform_name`)."""
    return game.platform_name if isinstance(game, TurnGame) else game.arena_id


def check_arena_file(spec: ArenaAgentSpec, game: Game | TurnGame, project_root: Path) -> None:
    """Raise `ConfigError` if the file is missing, has no class `Agent`, declares another game,
    or `timeout_action` is not one of the game's labels.

    Uses `ast` only, so no user code runs in this process. A `GAME` that is not a literal (or is
    inherited) cannot be seen here; the worker reports it at start-up and a mismatch then stops
    the agent, recorded on every decision.
    """
    path = resolve_agent_path(spec, project_root)
    if not path.is_file():
        raise ConfigError(f"no such file ({path})", file=spec.path, field="path")
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as error:
        raise ConfigError(
            f"not valid Python: {error.msg} (line {error.lineno})", file=spec.path, field="path"
        ) from None
    except UnicodeDecodeError:
        raise ConfigError("not a UTF-8 text file", file=spec.path, field="path") from None

    binding = _agent_binding(tree)
    if binding is None:
        raise ConfigError('defines no class named "Agent"', file=spec.path, field="Agent")
    if isinstance(binding, ast.ClassDef):
        declared = _declared_game(binding, spec.path)
        if declared is not None and known_game_id(declared) != game.id:
            raise ConfigError(
                f'GAME is "{declared}" but this condition plays "{platform_name(game)}" '
                f"(game {game.id}); change GAME or remove it to play every game",
                file=spec.path,
                field="Agent.GAME",
            )
        methods = {node.name for node in binding.body if isinstance(node, ast.FunctionDef)}
        if not binding.bases and "on_turn" not in methods:
            raise ConfigError("class Agent has no on_turn method", file=spec.path, field="Agent")
    if spec.timeout_action is not None and isinstance(game, TurnGame):
        raise ConfigError(
            f"a turn game ({game.id}) plays its own fallback action, not a label: leave it null",
            field="timeout_action",
        )
    if spec.timeout_action is not None and not isinstance(game, TurnGame):
        try:
            label_to_action(spec.timeout_action, game)
        except InvalidActionError as error:
            raise ConfigError(str(error), field="timeout_action") from None


def files_read(
    spec: ArenaAgentSpec, game: Game | TurnGame, horizon: object, project_root: Path
) -> list[str]:
    """The agent kind's check (see `pdbench.agents.kinds`): the agent's own file and the sibling
    modules it imports, which are the files its sandbox shows it. With `sandbox: required`, also
    that bubblewrap works here."""
    check_arena_file(spec, game, project_root)
    if spec.sandbox == "required":
        require_sandbox(spec.path)
    path = resolve_agent_path(spec, project_root)
    shown = Path(spec.path).parent
    read = [spec.path]
    for sibling in imported_siblings(path):
        files = (
            sorted(f for f in sibling.rglob("*") if f.is_file()) if sibling.is_dir() else [sibling]
        )
        read += [
            str(shown / f.relative_to(path.parent))
            for f in files
            if "__pycache__" not in f.relative_to(path.parent).parts
        ]
    return read


def imported_siblings(path: Path) -> list[Path]:
    """The modules in the agent's folder that it imports (`import helper`, `from helper import x`
    with helper.py or a package helper/ next to it), and those they import in turn.

    Only imports written in the source count (not `importlib` calls or `sys.path` changes), and
    only files that really live in that folder: a symlink that leads out of it is left out, so a
    folder cannot smuggle, say, the project's .env into the sandbox under a module's name.
    """
    folder = path.parent
    real_folder = folder.resolve()
    found: list[Path] = []
    todo = [path]
    while todo:
        for name in _imported_names(todo.pop()):
            module, package = folder / f"{name}.py", folder / name
            if module.is_file() and module != path:
                candidate, sources = module, [module]
            elif (package / "__init__.py").is_file():
                candidate, sources = package, sorted(package.rglob("*.py"))
            else:
                continue
            if candidate in found or candidate.resolve().parent != real_folder:
                continue
            found.append(candidate)
            todo.extend(sources)
    return sorted(found)


def _imported_names(source: Path) -> set[str]:
    """The top-level module names a Python file imports absolutely; none if it does not parse."""
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    return names


def _binds(node: ast.stmt, name: str) -> bool:
    """Whether a statement binds `name`: a class, an assignment or an import."""
    if isinstance(node, ast.ClassDef):
        return node.name == name
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name) and node.target.id == name
    if isinstance(node, ast.Import | ast.ImportFrom):
        return any((alias.asname or alias.name) == name for alias in node.names)
    return False


def _agent_binding(tree: ast.Module) -> ast.stmt | None:
    """The last top-level statement that binds the name `Agent`."""
    found = None
    for node in tree.body:
        if _binds(node, "Agent"):
            found = node
    return found


def _declared_game(agent: ast.ClassDef, shown_path: str) -> str | None:
    """The literal value of `GAME` in the class body; None when absent, None or not a literal."""
    value = None
    for node in agent.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and _binds(node, "GAME"):
            value = node.value
    if value is None:
        return None
    try:
        declared = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None  # computed at import time; the worker checks it
    if declared is not None and not isinstance(declared, str):
        raise ConfigError(
            f'GAME must be a game id such as "prisoners-dilemma", got {declared!r}',
            file=shown_path,
            field="Agent.GAME",
        )
    return declared
