"""`pdbench cache list | merge | verify | prune`: replay caches and a sweep's cache shards.

A cache folder is diskcache's SQLite database of answers (providers/cache.py); a sweep's jobs
write the answers they buy to shards of their own, `<sweep run dir>/cache/<job>.jsonl`
(providers/cache_shards.py), which the launching process merges into its cache when the sweep
ends, and keep a copy in their own cache folder (`<cache folder>/shards/<sweep>/<job>.jsonl`).
These commands do the same by hand, on any machine, and check what a cache holds: a cache folder
is read with the shards kept in it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer

from pdbench.cli import exits
from pdbench.core.errors import PdbenchError

if TYPE_CHECKING:
    from pdbench.providers.cache import ReplayCache

cache_app = typer.Typer(
    help="Replay caches: list, merge (a sweep's shards or another cache), verify, prune.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

IntoOption = Annotated[
    Path | None,
    typer.Option(
        "--into",
        help="The cache folder to write (default: $PDBENCH_CACHE_DIR, else data/cache).",
        show_default=False,
    ),
]
FolderArg = Annotated[
    Path | None,
    typer.Argument(
        help="A cache folder (default: $PDBENCH_CACHE_DIR, else data/cache).", show_default=False
    ),
]


def _default_cache() -> Path:
    from pdbench.config.tree import find_project_root
    from pdbench.providers.cache import resolve_cache_dir

    return resolve_cache_dir("data/cache", find_project_root())


def _open_cache(folder: Path, *, create: bool = False) -> ReplayCache:
    from pdbench.providers.cache import DATABASE, ReplayCache

    if not create and not (folder / DATABASE).is_file():
        raise PdbenchError(f"{folder}: not a replay cache folder (no {DATABASE})")
    return ReplayCache(folder, warn=lambda message: exits.say(f"warning: {message}"))


def _shard_folder(source: Path) -> Path | None:
    """The folder of cache shards a source names: a sweep run dir (its cache/), a shard folder,
    or None (not shards)."""
    from pdbench.providers.cache import DATABASE
    from pdbench.providers.cache_shards import SHARDS_FOLDER, shard_files

    if (source / DATABASE).is_file():
        return None  # a cache folder (its pruned-*.jsonl are not shards)
    if (source / SHARDS_FOLDER).is_dir():
        return source / SHARDS_FOLDER
    if source.is_dir() and shard_files(source):
        return source
    return None


def merge_sweep_cache(run_dir: Path, target: Path | None) -> None:
    """Merge a sweep's cache shards (the answers its jobs bought) into a cache folder (default:
    $PDBENCH_CACHE_DIR, else data/cache), saying how many in one line; nothing without shards."""
    from pdbench.providers.cache_shards import SHARDS_FOLDER, merge_shards, shard_files

    folder = run_dir / SHARDS_FOLDER
    if not shard_files(folder):
        return
    target = target or _default_cache()
    cache = _open_cache(target, create=True)
    try:
        added, _, problems = merge_shards(folder, cache)
    finally:
        cache.close()
    for problem in problems[:5]:
        exits.say(f"warning: a cache shard line was not merged: {problem}")
    if added:
        exits.say(f"cache: {added} answers from the jobs' shards merged into {target}")


@cache_app.command("list")
def list_caches(
    sources: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Cache folders or sweep run dirs (default: the cache folder).", show_default=False
        ),
    ] = None,
) -> None:
    """One line per cache folder (entries, size on disk) and per cache shard of a sweep
    (entries, damaged lines)."""
    from pdbench.providers.cache_shards import kept_shard_files, read_shard, shard_files

    for source in sources or [_default_cache()]:
        shards = _shard_folder(source)
        if shards is None:
            cache = _open_cache(source)
            try:
                size = sum(p.stat().st_size for p in source.rglob("*") if p.is_file())
                typer.echo(f"{source}: cache, {len(cache)} entries, {size / 1e6:.1f} MB")
            finally:
                cache.close()
        for path in shard_files(shards) if shards is not None else kept_shard_files(source):
            lines = list(read_shard(path))
            bad = sum(1 for line in lines if line[2] is None)
            typer.echo(f"{path}: shard, {len(lines) - bad} answers, {bad} damaged")


@cache_app.command("merge")
def merge(
    sources: Annotated[
        list[Path],
        typer.Argument(
            help="Sweep run dirs (their cache/ shards), shard folders or other cache folders.",
            show_default=False,
        ),
    ],
    into: IntoOption = None,
) -> None:
    """Copy every answer of the sources that passes its checksum into a cache (created when
    missing). Entries the cache already holds are kept as they are; damaged ones are named and
    skipped (exit 1)."""
    from pdbench.providers.cache import DATABASE
    from pdbench.providers.cache_shards import merge_shards

    for source in sources:  # every source is checked before anything is written
        if _shard_folder(source) is None and not (source / DATABASE).is_file():
            raise PdbenchError(
                f"{source}: neither a sweep run dir with cache shards, nor a folder of shards, "
                f"nor a replay cache folder (no {DATABASE})"
            )
    target = into or _default_cache()
    cache = _open_cache(target, create=True)
    problems: list[str] = []
    added = present = 0
    try:
        for source in sources:
            shards = _shard_folder(source)
            if shards is not None:
                new, old, bad = merge_shards(shards, cache)
            else:
                new, old, bad = _merge_cache(source, cache)
            added, present, problems = added + new, present + old, problems + bad
    finally:
        cache.close()
    typer.echo(f"merged into {target}: {added} answers added, {present} already there")
    for problem in problems:
        exits.say(f"skipped: {problem}")
    if problems:
        raise typer.Exit(exits.BUG)


def _merge_cache(source: Path, cache: ReplayCache) -> tuple[int, int, list[str]]:
    """A cache folder's entries, then the shards sweep jobs kept in it."""
    from pdbench.providers.cache_shards import kept_shard_files, merge_shards

    other = _open_cache(source)
    added = present = 0
    problems = []
    try:
        for key in other.stored_keys():
            value, problem = other.check(key)
            if value is None:
                problems.append(f"{source} key {key[:12]}: {problem or 'gone'}")
            elif cache.get(key) is not None:
                present += 1
            else:
                cache.set(key, value)
                added += 1
    finally:
        other.close()
    new, old, bad = merge_shards(source, cache, kept_shard_files(source))
    return added + new, present + old, problems + bad


@cache_app.command("verify")
def verify(folder: FolderArg = None) -> None:
    """Check every entry of a cache folder (or every shard of a sweep): it decodes as JSON and
    its checksum matches its key and answer (an entry damaged, edited, or copied under another
    key fails). Names each bad one; exit 1 when any is bad."""
    from pdbench.providers.cache_shards import kept_shard_files, read_shard, shard_files

    source = folder or _default_cache()
    bad: list[str] = []
    total = 0
    shards = _shard_folder(source)
    for path in shard_files(shards) if shards is not None else kept_shard_files(source):
        for number, _, value, problem in read_shard(path):
            total += 1
            if value is None:
                bad.append(f"{path} line {number}: {problem}")
    if shards is None:
        cache = _open_cache(source)
        try:
            for key in cache.stored_keys():
                total += 1
                value, problem = cache.check(key)
                if value is None:
                    bad.append(f"{source} key {key[:12]}: {problem or 'gone'}")
        finally:
            cache.close()
    for line in bad:
        exits.say(f"bad: {line}")
    typer.echo(f"{source}: {total} entries checked, {len(bad)} bad")
    if bad:
        raise typer.Exit(exits.BUG)


@cache_app.command("prune")
def prune(folder: FolderArg = None) -> None:
    """Remove the entries of a cache folder that fail `verify`, after writing each one as it
    was stored to `<folder>/pruned-<UTC time>.jsonl` (kept, never dropped silently). Good
    entries are never removed: nothing is evicted for age or size."""
    source = folder or _default_cache()
    cache = _open_cache(source)
    try:
        bad: dict[str, bytes] = {}
        for key in cache.stored_keys():
            value, problem = cache.check(key)
            if value is None and problem is not None:
                stored = {"key": key, "problem": problem, "stored": str(cache.raw(key))}
                bad[key] = orjson.dumps(stored)
        if not bad:
            typer.echo(f"{source}: nothing to prune (every entry is good)")
            return
        kept = source / f"pruned-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}.jsonl"
        kept.write_bytes(b"\n".join(bad.values()) + b"\n")  # written before anything goes
        for key in bad:
            cache.delete(key)
    finally:
        cache.close()
    typer.echo(f"{source}: removed {len(bad)} bad entries, kept in {kept}")
