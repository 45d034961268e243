"""Hydra's own compositions in the Hydra door: the defaults list and the config of a set of group
choices are built once per process while the config tree does not change.

`python -m pdbench ...` composes one command line three times before its job starts: pdbench's
preflight (every job checked before Hydra launches anything), Hydra's `get_mode` (a whole
composition only to read `hydra.mode`) and Hydra's `run`; a sweep composes its grid twice more
(`get_mode`, the multirun's own config) and, serially, each job once more in Hydra's launcher.
Each costs about 0.2 CPU s, and only the two expensive steps of one are needed: the defaults
list (`create_defaults_list`, which reads the group files the choices name) and the merge of those
files (`ConfigLoaderImpl._compose_config_from_defaults_list`). Both depend on the primary config's
name, the group choices, the config tree's files and Hydra's ConfigStore, never on
a field override (`run.output_dir=...`, `hydra.mode=RUN`): those Hydra applies after, as every
other step of its composition (the hydra node's overrides, choices, job name and working folder),
which still runs whole each time. So the result is Hydra's own, step for step.

Which override is a group choice is Hydra's own rule (`hydra._internal.defaults_list.Overrides`),
and, as there, a sweep's values take no part in the defaults list (Hydra composes a multirun's
jobs one by one). A search path outside the config tree, or any error, is composed by Hydra as if
this were not here: only a defaults list Hydra built without error is kept. A defaults list
built for a run (`skip_missing` False: no group left `???`) serves a multirun composition of the
same choices too (`get_mode`): with no group missing, skipping missing groups changes nothing.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pdbench.config.composition_memo import is_group_choice, store_state

MAX_ENTRIES = 64  # (defaults list, composed config) pairs kept: a few hundred KB each at most


@dataclasses.dataclass
class _Kept:
    defaults_list: Any  # hydra._internal.defaults_list.DefaultsList, as Hydra built it
    composed: Any = None  # the merged config of its defaults (DictConfig), once Hydra merged it


class LoaderMemo:
    """The compositions of one config tree, as far as their key goes: the entries are the
    process's (`_KEPT`), shared by every activation; the key holds the tree's digest."""

    def __init__(self, config_dir: Path, tree_key: bytes) -> None:
        self.config_dir = str(config_dir.resolve())
        self.tree_key = tree_key

    def key(
        self, repo: Any, config_name: str | None, overrides: list[Any], prepend_hydra: bool
    ) -> tuple[Any, ...] | None:
        """The key of a composition, or None when the memo cannot vouch for it."""
        sources = []
        for source in repo.get_sources():
            scheme = source.scheme()
            if scheme == "file" and str(Path(source.path).resolve()) != self.config_dir:
                return None  # another folder joins the search path: its files are not keyed
            sources.append((source.provider, scheme, source.path))
        group_lines = []
        for override in overrides:
            # Hydra's defaults list leaves a sweep's values out (defaults_list.Overrides skips
            # them; a multirun's jobs are composed one by one), and so does the key.
            if not override.is_sweep_override() and is_group_choice(override, repo):
                group_lines.append(override.input_line)
        return (
            self.tree_key,
            tuple(sources),
            config_name,
            tuple(group_lines),
            prepend_hydra,
            store_state(),
        )


_KEPT: dict[tuple[Any, ...], _Kept] = {}  # (key..., skip_missing) -> entry, oldest first
_BY_DEFAULTS: dict[int, _Kept] = {}  # id(defaults) of a kept list -> its entry
_ACTIVE: list[tuple[str, bytes]] = []  # the (config dir, tree key) of each activation in force


def _keep(key: tuple[Any, ...], skip_missing: bool, defaults_list: Any) -> None:
    entry = _Kept(defaults_list)
    _KEPT[(*key, skip_missing)] = entry
    _BY_DEFAULTS[id(defaults_list.defaults)] = entry
    if len(_KEPT) > MAX_ENTRIES:
        dropped = _KEPT.pop(next(iter(_KEPT)))
        _BY_DEFAULTS.pop(id(dropped.defaults_list.defaults), None)


def _find(key: tuple[Any, ...], skip_missing: bool) -> _Kept | None:
    found = _KEPT.get((*key, skip_missing))
    if found is None and skip_missing:  # nothing missing in a run's list: the same list
        found = _KEPT.get((*key, False))
    return found


def _with_field_overrides(kept: Any, overrides: list[Any], repo: Any) -> Any:
    """The kept defaults list with this command line's field overrides, in their order (what
    Hydra's `Overrides` keeps as `config_overrides`)."""
    fields = [o for o in overrides if not (o.is_sweep_override() or is_group_choice(o, repo))]
    chosen = copy.copy(kept.overrides)
    chosen.config_overrides = fields
    return dataclasses.replace(kept, config_overrides=fields, overrides=chosen)


@contextlib.contextmanager
def hydra_compositions_memoized(config_dir: Path, tree_key: bytes) -> Iterator[LoaderMemo]:
    """While it lasts, every Hydra composition in this process from `config_dir` (whose files'
    digest is `tree_key`: hydra_compose.check_config_tree) shares its defaults lists and merged
    configs. Restores Hydra's own functions on exit."""
    from hydra._internal import config_loader_impl
    from hydra._internal.config_loader_impl import ConfigLoaderImpl

    memo = LoaderMemo(config_dir, tree_key)
    if _ACTIVE and _ACTIVE[-1] == (memo.config_dir, tree_key):
        yield memo  # already in place for this tree (compose_primary inside a door's job)
        return
    create_defaults_list = config_loader_impl.create_defaults_list
    compose_from_defaults = ConfigLoaderImpl._compose_config_from_defaults_list

    def memo_create_defaults_list(
        repo: Any,
        config_name: str | None,
        overrides_list: list[Any],
        prepend_hydra: bool,
        skip_missing: bool,
    ) -> Any:
        key = memo.key(repo, config_name, overrides_list, prepend_hydra)
        kept = None if key is None else _find(key, skip_missing)
        if kept is not None:
            return _with_field_overrides(kept.defaults_list, overrides_list, repo)
        built = create_defaults_list(
            repo=repo,
            config_name=config_name,
            overrides_list=overrides_list,
            prepend_hydra=prepend_hydra,
            skip_missing=skip_missing,
        )
        if key is not None:
            _keep(key, skip_missing, built)
        return built

    def memo_compose_from_defaults(self: Any, defaults: list[Any], repo: Any) -> Any:
        kept = _BY_DEFAULTS.get(id(defaults))
        if kept is None or kept.defaults_list.defaults is not defaults:
            return compose_from_defaults(self, defaults, repo)
        if kept.composed is None:
            kept.composed = compose_from_defaults(self, defaults, repo)
        return copy.deepcopy(kept.composed)  # the caller sets flags and applies overrides: a copy

    config_loader_impl.create_defaults_list = memo_create_defaults_list
    ConfigLoaderImpl._compose_config_from_defaults_list = memo_compose_from_defaults  # type: ignore[method-assign]
    _ACTIVE.append((memo.config_dir, tree_key))
    try:
        yield memo
    finally:
        _ACTIVE.pop()
        config_loader_impl.create_defaults_list = create_defaults_list
        ConfigLoaderImpl._compose_config_from_defaults_list = compose_from_defaults  # type: ignore[method-assign]
