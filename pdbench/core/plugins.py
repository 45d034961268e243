"""Extensions found through package entry points, the one registration shape of every extension
point: a package declares, in its pyproject.toml,

    [project.entry-points."pdbench.agents"]      # an agent kind: its spec class
    constant = "my_package.constant_agent:ConstantAgentSpec"
    [project.entry-points."pdbench.providers"]   # a provider kind: its ProviderKind
    always_cooperate = "my_package.always_cooperate:KIND"
    [project.entry-points."pdbench.metrics"]     # a metric: its decorated computation
    mutual_defection_rate = "my_package.metrics:mutual_defection_rate"

and loading an entry point imports its module, whose registration (`@agent_kind`,
`register_provider`, `@metric_row`) puts it in the registry as an in-process registration does.
pdbench declares its own built-ins the same way; they are imported directly too, so a plugin
that fails can never hide them.

Each group is loaded once, when its registry is first asked (a config validated, a provider
named, the metric columns listed), never at import. An entry point that fails to load is left
out and said once, in one line naming the plugin and why, on stderr; never a traceback.
"""

from __future__ import annotations

import sys
from importlib.metadata import EntryPoint, entry_points
from typing import Any

_loaded: dict[str, dict[str, Any]] = {}
# The plugins left out, one line each, as they were said (a test or `pdbench list` may show them).
FAILED: list[str] = []


def load_group(group: str) -> dict[str, Any]:
    """Every entry point of `group` loaded, by name (the first time; after that, as loaded)."""
    if group not in _loaded:
        _loaded[group] = {}  # set first: a plugin whose import asks its registry does not recurse
        for entry in _entry_points(group):
            loaded = _load(entry, group)
            if loaded is not None:
                _loaded[group][entry.name] = loaded
    return _loaded[group]


def forget(group: str) -> None:
    """Load `group` again when it is next asked (a test that installs or removes a plugin)."""
    _loaded.pop(group, None)


def _entry_points(group: str) -> list[EntryPoint]:
    # One distribution installed twice (an editable install and a copy) lists its entry twice.
    unique = {(entry.name, entry.value): entry for entry in entry_points(group=group)}
    return sorted(unique.values(), key=lambda entry: (entry.name, entry.value))


def _load(entry: EntryPoint, group: str) -> Any:
    try:
        return entry.load()
    except Exception as error:  # any failure of a third party's import is that plugin's
        reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
        line = (
            f"warning: plugin {entry.name} ({group}, {entry.value}) was not loaded: "
            f"{type(error).__name__}{': ' + reason if reason else ''}"
        )
        FAILED.append(line)
        print(line, file=sys.stderr)
        return None
