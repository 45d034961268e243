"""The data flow runs one way (shared design, "Target layout"): each package imports only the
packages below it. Checked over every package, statically (imports anywhere in a module, lazy ones
included) and, for the viewer, at run time."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "pdbench"

# package -> the pdbench packages (or single modules, "package.module") it may import besides
# itself. Top-level modules (__init__, __main__) are the front door and may import anything.
# storage.schema is the typed records (attempts, call counts) that providers and agents produce;
# storage.spend the journal of paid calls the provider gateway appends to (storage.batch_journal
# the batches it submits).
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "strategies": {"core"},
    # turn-based games' rules, house players and metrics: pure, like core
    "games": {"core"},
    "config": {"core", "strategies", "games"},
    # configured by its validated spec; the gateway journals what it pays; the mock model can
    # answer as a policy would; cache shards are read as run folders are (storage.safe_files)
    "providers": {
        "core",
        "strategies",
        "games",
        "config",
        "storage.schema",
        "storage.spend",
        "storage.batch_journal",  # the batches a run submitted, journaled like its spend
        "storage.safe_files",
    },
    "agents": {"core", "strategies", "games", "config", "providers", "storage.schema"},
    # a 2x2 run's rounds are projected through storage.line_projection, registered by the front
    # door (pdbench/__init__): storage names no game family
    "storage": {"core"},
    "analysis": {"core", "storage", "strategies", "games"},
    # ratings across runs from stored outcomes; agent identities come from the specs (config)
    "ladder": {"core", "storage", "analysis", "config", "games"},
    "runners": {
        "core",
        "strategies",
        "games",
        "config",
        "providers",
        "agents",
        "storage",
        "analysis",
    },
    "cli": {
        "core",
        "strategies",
        "games",
        "config",
        "providers",
        "agents",
        "storage",
        "analysis",
        "runners",
        "ladder",
    },
    # ladder.output reads ladder.parquet with pandas only (no config)
    # games.registry: which module is a game's page (its entry's `view`), data only;
    # games.tables: the 2x2 games' tables (the words a run's players saw), data only
    "ui": {"core", "storage", "analysis", "ladder.output", "games.registry", "games.tables"},
}


# Inside a game's package (`pdbench/games/<id>/`, issue 43: everything that is one game's), a
# module named for its role imports what that role's layer may; any other module is rules,
# house players or metrics, pure like the rest of games. The prompt adapter (`prompts`) stays
# pure: text in, an action out.
GAME_MODULE_ROLES: dict[str, set[str]] = {
    # the offline mock's play (config: MockBehaviour); a 2x2 game's reads its prompt as a model
    # would (providers.prompt_reading) and plays as a classic strategy would (strategies)
    "mock": {"core", "games", "config", "strategies", "providers.prompt_reading"},
    "transcript": {"core", "games", "storage", "analysis"},  # read from stored runs
    # a third role's measures of a stored run (`ThirdRole.measures`), with analysis' statistics
    "measures": {"core", "games", "storage", "analysis"},
    "view": {"core", "games", "storage", "analysis", "ladder.output", "ui"},  # the viewer's page
    # the classic strategies of pdbench.strategies as a 2x2 game's house players
    "house": {"core", "games", "strategies"},
    # the ladder's reader of a run's matches of the game (`TurnGameEntry.outcomes`): read from
    # stored runs, into the ladder's outcome rows
    "outcomes": {"core", "games", "storage", "analysis", "ladder.outcomes"},
    # many matches at once (the entry's `vectorised`): a 2x2 game's plays the classic
    # strategies' numpy forms (strategies)
    "vectorised": {"core", "games", "strategies"},
    # any 2x2 agent seated in the turn loop (agents.base: the hooks it is called through)
    "seat": {"core", "games", "agents.base"},
    # what the game decides of its matches in the runner (the entry's `records`, a
    # runners.match_records.MatchRecords): its agents seated (agents.base), and what is stored
    # of a match the turn loop played, with the runners' generic writers of turn lines and
    # ledger entries, the storage records and the columns aggregation reads (analysis); never
    # the runner's play, plan or batch path (runners.plan only for the planned match's type)
    "records": {
        "core",
        "games",
        "agents.base",
        "analysis",
        "storage",
        "runners.match_records",
        "runners.plan",
        "runners.records",
        "runners.turn_records",
        "runners.turns",
    },
}


def _pdbench_imports(path: Path) -> set[str]:
    """The pdbench modules a file imports, as "package.module" (or "package" for the package)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pdbench."):
            found.add(".".join(node.module.split(".")[1:3]))
        elif isinstance(node, ast.Import):
            found.update(
                ".".join(alias.name.split(".")[1:3])
                for alias in node.names
                if alias.name.startswith("pdbench.")
            )
    return found


def _allowed(imported: str, package: str, role: str | None = None) -> bool:
    may = ALLOWED[package] if role is None else GAME_MODULE_ROLES[role]
    top = imported.split(".")[0]
    return top == package or top in may or imported in may


def _game_module_role(path: Path) -> str | None:
    """The role of a module inside a game's package (see GAME_MODULE_ROLES), else None: a module
    named for its role (games/<id>/view.py), or any module of a folder named for it
    (games/<id>/view/, a page too long for one module)."""
    inside = path.relative_to(PACKAGE).parts
    if len(inside) < 3 or inside[0] != "games":
        return None
    role = path.stem if len(inside) == 3 else inside[2]
    return role if role in GAME_MODULE_ROLES else None


def test_every_package_is_in_the_table():
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages == set(ALLOWED), "add the new package to ALLOWED with what it may import"


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_it_may(package):
    for path in sorted((PACKAGE / package).rglob("*.py")):
        role = _game_module_role(path)
        reached = sorted(m for m in _pdbench_imports(path) if not _allowed(m, package, role))
        assert not reached, f"{path.relative_to(PACKAGE.parent)} imports pdbench.{reached}"


def test_a_game_packages_modules_import_what_their_role_may():
    games = PACKAGE / "games"
    assert _game_module_role(games / "public_goods" / "view.py") == "view"
    assert _game_module_role(games / "public_goods" / "mock.py") == "mock"
    assert _game_module_role(games / "public_goods" / "payoff.py") is None  # rules: pure
    assert _game_module_role(games / "view.py") is None  # not inside a game's package
    assert _game_module_role(games / "matrix" / "view" / "match.py") == "view"  # a view's folder
    assert _game_module_role(games / "matrix" / "metrics.py") is None
    assert _allowed("ui.charts", "games", "view")
    assert not _allowed("ui.charts", "games")
    assert not _allowed("providers.mock", "games", "mock")  # the mock's play, not the provider
    assert not _allowed("runners.turns", "games", "view")


@pytest.mark.slow  # imports the whole viewer in a fresh interpreter
def test_the_viewer_pulls_in_no_runner_agent_or_provider_at_run_time():
    code = (
        "import sys, pdbench.ui.app, pdbench.storage.reader, pdbench.analysis.per_run.aggregates; "
        "print([m for m in sys.modules if m.startswith("
        "('pdbench.runners', 'pdbench.agents', 'pdbench.providers', 'pdbench.config'))])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=PACKAGE.parent,
        env=os.environ,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_imports(path: Path, modules: set[str]) -> set[str]:
    """The pdbench modules a file imports, wherever the import is written: at the top, under
    `if TYPE_CHECKING:`, or inside a function. A circle closed by an import put inside a function
    is still a circle (issue 43 found three, each closed that way: the two modules still need
    each other, a reader still cannot read one without the other, and the import now fails only
    when the function first runs); so lazy imports count too. A lazy import of a heavy library
    (litellm, streamlit, pandas) is no pdbench module, and is not concerned."""
    found = set()
    for statement in ast.walk(ast.parse(path.read_text())):
        if isinstance(statement, ast.ImportFrom) and (statement.module or "").startswith("pdbench"):
            module = statement.module or ""
            for alias in statement.names:  # `from pdbench.cli import exits`: a submodule
                submodule = f"{module}.{alias.name}"
                found.add(submodule if submodule in modules else module)
        elif isinstance(statement, ast.Import):
            found.update(a.name for a in statement.names if a.name in modules)
    return found & modules


def _with_package_doors(importer: str, imported: set[str], modules: set[str]) -> set[str]:
    """`imported` and the packages each of those modules is in: importing
    pdbench.agents.llm.templates from outside pdbench.agents.llm first runs that package's
    `__init__`, and whatever it imports (a module inside the package finds it already running)."""
    doors = set()
    for module in imported:
        parts = module.split(".")
        for end in range(2, len(parts)):
            package = ".".join(parts[:end])
            if package in modules and not importer.startswith(f"{package}."):
                doors.add(package)
    return imported | doors


def test_no_module_imports_itself_through_others():
    """No import circle among pdbench's modules (the kind issue 28 found: config/game_spec ->
    limits -> schema -> game_spec, and issue 43: arena agent -> rounds -> agent): each module
    can be read knowing only what it imports. Every import counts, lazy ones included
    (`_module_imports`), and so does the package door an import runs (`_with_package_doors`)."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    graph = {
        name: _with_package_doors(name, _module_imports(path, modules), modules) - {name}
        for name, path in paths.items()
    }
    circles = []
    state: dict[str, str] = {}  # "open" while on the current path, "done" after

    def visit(module: str, trail: list[str]) -> None:
        state[module] = "open"
        for imported in sorted(graph[module]):
            if state.get(imported) == "open":
                circles.append(" -> ".join([*trail[trail.index(imported) :], imported]))
            elif imported not in state:
                visit(imported, [*trail, imported])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert not circles, "import circles:\n" + "\n".join(circles)


# The spec classes of the agent kinds, and the ways code tells one kind from another.
_KIND_BRANCH = re.compile(
    r"""\.type\s*[!=]=\s*["'](?:policy|llm|arena)["']"""
    r"""|agent_type\s*[!=]=|isinstance\([^)]*(?:PolicyAgentSpec|LLMAgentSpec|ArenaAgentSpec)"""
)
# Where knowing the kind is the job: the kinds themselves and their specs.
_KIND_HOMES = (
    "agents/",
    "config/agent_spec.py",
    "config/agent_spec_base.py",
    "config/policy_agent_spec.py",
    "config/llm_agent_spec.py",
    "config/arena_agent_spec.py",
)


def _lines_matching(pattern: re.Pattern[str], homes: tuple[str, ...]) -> list[str]:
    """Every line of pdbench outside `homes` (paths relative to the package) that `pattern`
    finds, as path:line: text."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith(homes):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                found.append(f"pdbench/{relative}:{number}: {line.strip()}")
    return found


def test_nothing_outside_the_agent_kinds_branches_on_the_kind():
    """A new agent kind is one spec class, one module and one registration (issue 28): the
    runner, the planner, the checks and the viewer ask the spec (uses_provider,
    provider_calls_per_round, is_deterministic, warnings, problem_in_game, files it reads)
    instead of testing which kind it is."""
    found = _lines_matching(_KIND_BRANCH, _KIND_HOMES)
    assert not found, "branches on the agent kind:\n" + "\n".join(found)


# A provider told apart by its name, outside the registry and the providers themselves.
_PROVIDER_BRANCH = re.compile(r"""\.name\s*[!=]=\s*["'](?:mock|litellm)["']""")
_PROVIDER_HOMES = ("providers/", "config/provider_spec.py")


def test_nothing_outside_the_providers_branches_on_a_provider_name():
    """A new provider is one client module plus one `register_provider(ProviderKind(...))`
    (issue 28): the gateway, the LLM agent and the planner ask the kind (offline, deterministic,
    seeded per match, the options in its cache key) instead of its name."""
    found = _lines_matching(_PROVIDER_BRANCH, _PROVIDER_HOMES)
    assert not found, "branches on a provider name:\n" + "\n".join(found)


# Modules another change is splitting at the same time (issue 28 left them to it).
_LONG_FOR_NOW: set[str] = set()


def test_every_module_reads_in_one_sitting():
    """A module over ~400 lines has grown a second job; it splits by job (shared design)."""
    long = [
        f"pdbench/{relative}: {lines} lines"
        for path in sorted(PACKAGE.rglob("*.py"))
        if (relative := path.relative_to(PACKAGE).as_posix()) not in _LONG_FOR_NOW
        and (lines := len(path.read_text().splitlines())) > 400
    ]
    assert not long, "modules over 400 lines:\n" + "\n".join(long)


def test_the_analyses_are_grouped_by_job():
    """analysis/ is subpackages by job (metrics, stats, identification, tournaments, per_run),
    not flat modules; and no module there is named run_*, which reads like the runners."""
    analysis = PACKAGE / "analysis"
    flat = sorted(p.name for p in analysis.glob("*.py") if p.name != "__init__.py")
    assert not flat, f"flat modules in pdbench/analysis: {flat}"
    run_named = sorted(str(p.relative_to(PACKAGE)) for p in analysis.rglob("run_*.py"))
    assert not run_named, f"analysis modules named like runners: {run_named}"


# A line telling a 2x2 game from a turn game: the entry's table, a match's 2x2 table asked of
# its rules (`matrix_table`, `payoff_table`, `PlannedMatch.table`) and found missing, a spec's or
# a run's family test, the family's name compared, a turn line told apart by its keys.
_FAMILY_BRANCH = re.compile(
    r"\btable is (?:not )?None|\bentry\.table\b|\bmatrix_table\("
    r"|\bpayoff_table\([^)]*\) is (?:not )?None"
    r"|\b(?:planned|self|match|m|matches\[0\])\.game is (?:not )?None"
    r"|\bturn_game is (?:not )?None|\bmatrix_game\b"
    r"|\bis_turn_game\b|\bis_turn_run\b|\bplays_turn_game\b|\bturn_game=(?!turn_game|True)"
    r"""|["']n_turns["'] in\b|\b_reads_matrix_games\b"""
    r"|\bgame_family\(|\bGAME_FAMILIES\b"
    r"""|["'](?:matrix|turn)["']\s*(?:==|!=|in\b)|(?:==|!=)\s*["'](?:matrix|turn)["']"""
)
# Lines outside pdbench/games/ that branch on the family (counted 2026-11-29: 75 before the 2x2
# games' metric rows, mock and viewer page were named by their entries, 69 after, 67 once the
# ladder read every run through the games' entries, 65 with one end-of-run table, 62 with one
# entry point of aggregation, 44 once a planned match held its rules (no game/turn_game pair)
# and the 2x2 batch became the entries' vectorised path, counting the 2x2 table asked of the
# rules, 37 once analyze and tournament asked the entries whether a run's matches are 2x2 rounds
# (`reads_rounds`, no `is_turn_run`), 23 once training, the plan, the price estimate and the
# policies' warnings asked the entry (`game_ids`, `horizon_sets_length`) and the rules
# (`FixedLength.talks_per_round`, `draws_from_game_seed`, `payoff_table`, `setting_warnings`),
# 19 once the readers of rounds and of turn lines and the Inspect export asked the line's
# game's entry whether its matches are read as rounds (`aggregation_choice.reads_rounds_of`)
# instead of a line's `family` or `turn` key), 1 once the config and the policy spec asked the
# entries too (the settings a game takes, how a message names it, its seat check, a policy's
# house; no `is_turn_game`, no policy's `turn_game`), 0 once the runner played every match on
# one path, the game's entry saying how its agents are seated and what is stored (`records`).
# None is left: a new line branching on the family fails here; ask the game's entry.
FAMILY_CEILING = 0
# The modules that find a game's metric rows, its mock and its viewer page, and the 2x2 games'
# part modules, which only the entries name (as strings): the generic code asks the entry.
_PART_FINDERS = (
    "analysis/metrics/catalog.py",
    "providers/mock.py",
    "ui/app.py",
    "ui/game_views/__init__.py",
    "ui/turn_view.py",
)
_MATRIX_PARTS = re.compile(
    r"pdbench\.games\.matrix(?:\.| import )(?:metrics|mock|view|prompts|wording)\b"
)


def test_the_2x2_games_parts_are_found_through_their_entries():
    """The metric rows, the LLM prompts, the mock's play and the viewer's page of the 2x2 games
    are named by their entries (`games.matrix.matrix_entry`); the code that finds a game's parts asks the
    entry, never which family the game is, and nothing outside pdbench/games/ imports them."""
    branching = [
        line
        for line in _lines_matching(_FAMILY_BRANCH, ("cli/", "config/", "runners/", "agents/"))
        if line.removeprefix("pdbench/").startswith(_PART_FINDERS)
    ]
    assert not branching, "a part is found by the family:\n" + "\n".join(branching)
    importing = [
        line
        for line in _lines_matching(_MATRIX_PARTS, ("games/",))
        if " import " in line or "import_module" in line
    ]
    assert not importing, "a 2x2 part imported by name:\n" + "\n".join(importing)


def test_no_new_line_outside_the_games_branches_on_the_family():
    found = [
        line
        for line in _lines_matching(_FAMILY_BRANCH, ("games/",))
        if not line.split(": ", 1)[1].startswith("#")
    ]
    assert len(found) <= FAMILY_CEILING, (
        f"{len(found)} lines outside pdbench/games/ branch on the game's family (at most "
        f"{FAMILY_CEILING}): ask the game's entry instead:\n" + "\n".join(found)
    )
