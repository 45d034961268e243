"""`pdbench cache list | merge | verify | prune | migrate`: replay caches and a sweep's shards.

A cache folder is diskcache's SQLite database of answers (providers/cache.py); a sweep's jobs
write the answers they buy to shards of their own, `<sweep run dir>/cache/<job>.jsonl`
(providers/cache_shards.py), which the launching process merges into its cache when the sweep
ends, and keep a copy in their own cache folder (`<cache folder>/shards/<sweep>/<job>.jsonl`).
These commands do the same by hand, on any machine, and check what a cache holds: a cache folder
is read with the shards kept in it. What the checks guarantee: docs/costs.md.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer

from pdbench.cli import exits
from pdbench.core.errors import PdbenchError

if TYPE_CHECKING:
    from pdbench.providers.cache import ReplayCache
    from pdbench.providers.cache_merge import Found, Merged

cache_app = typer.Typer(
    help="Replay caches: list, merge (a sweep's shards or another cache), verify, prune, migrate.",
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
    $PDBENCH_CACHE_DIR, else data/cache), saying how many in one line; nothing without shards.
    An answer that differs from the one the cache holds is not merged (the cache's is kept:
    nobody is there to choose), said in one warning line that names the command to choose."""
    from pdbench.providers.cache_merge import merge, shard_entries
    from pdbench.providers.cache_shards import SHARDS_FOLDER, shard_files

    folder = run_dir / SHARDS_FOLDER
    files = shard_files(folder)
    if not files:
        return
    target = target or _default_cache()
    cache = _open_cache(target, create=True)
    try:
        merged = merge(lambda: shard_entries(files), cache, "keep")
    finally:
        cache.close()
    for problem in merged.problems[:5]:
        exits.say(f"warning: a cache shard line was not merged: {problem}")
    if merged.conflicts:
        differ = "differs" if len(merged.conflicts) == 1 else "differ"
        exits.say(
            f"warning: {_count(len(merged.conflicts), 'answer')} of the jobs' shards {differ} "
            "from the one the cache held or an earlier shard gave (that one was kept); to see "
            f"them and choose: pdbench cache merge {run_dir} --into {target}"
        )
    if merged.added:
        exits.say(f"cache: {merged.added} answers from the jobs' shards merged into {target}")


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
    (entries, damaged lines); a shard that is not a regular file is named and skipped."""
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
            good = bad = 0
            for line in read_shard(path):
                if line.number == 0:
                    exits.say(f"skipped: {line.where}: {line.problem}")
                    break
                good, bad = (good + 1, bad) if line.value is not None else (good, bad + 1)
            else:
                typer.echo(f"{path}: shard, {good} answers, {bad} damaged")


class OnConflict(StrEnum):
    FAIL = "fail"
    KEEP = "keep"
    REPLACE = "replace"


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
    on_conflict: Annotated[
        OnConflict,
        typer.Option(
            "--on-conflict",
            help="When two sources (or a source and the cache) hold different answers for one "
            "key: fail (report them all, write nothing), keep (the answer the cache holds, else "
            "the earlier source's) or replace (the later source's).",
        ),
    ] = OnConflict.FAIL,
) -> None:
    """Copy every answer of the sources that passes its checksum into a cache (created when
    missing). The same answer already held is kept as it is; different answers for one key are
    reported, and nothing is merged unless --on-conflict says which wins (exit 2); damaged lines
    are named and skipped (exit 1)."""
    from pdbench.providers.cache import DATABASE
    from pdbench.providers.cache_merge import merge as merge_entries

    for source in sources:  # every source is checked before anything is written
        if _shard_folder(source) is None and not (source / DATABASE).is_file():
            raise PdbenchError(
                f"{source}: neither a sweep run dir with cache shards, nor a folder of shards, "
                f"nor a replay cache folder (no {DATABASE})"
            )
    target = into or _default_cache()
    cache = _open_cache(target, create=True)
    try:
        merged = merge_entries(lambda: _entries(sources), cache, on_conflict.value)
    finally:
        cache.close()
    _say_merged(merged, target, on_conflict)


def _entries(sources: list[Path]) -> Iterator[Found]:
    """Every entry of the sources, in order: a sweep's (or a folder's) shards; a cache folder's
    database, then the shards kept in it."""
    from pdbench.providers.cache_merge import cache_entries, shard_entries
    from pdbench.providers.cache_shards import kept_shard_files, shard_files

    for source in sources:
        shards = _shard_folder(source)
        if shards is not None:
            yield from shard_entries(shard_files(shards))
            continue
        other = _open_cache(source)
        try:
            yield from cache_entries(other)
        finally:
            other.close()
        yield from shard_entries(kept_shard_files(source))


def _say_merged(merged: Merged, target: Path, on_conflict: OnConflict) -> None:
    for conflict in merged.conflicts:
        exits.say(conflict.line())
    for problem in merged.problems:
        exits.say(f"skipped: {problem}")
    conflicts = _count(len(merged.conflicts), "key")
    if not merged.written:
        raise PdbenchError(
            f"{conflicts} {'holds' if len(merged.conflicts) == 1 else 'hold'} different answers "
            "in the sources (above): nothing was merged; choose which answer stays: "
            "--on-conflict keep (the one the cache holds, else the earlier source's) or "
            "--on-conflict replace (the later source's)"
        )
    outcome = ""
    if merged.conflicts:
        side = "the later source's" if on_conflict == OnConflict.REPLACE else "the first"
        outcome = f", {_count(len(merged.conflicts), 'conflict')} ({side} answer kept)"
    typer.echo(
        f"merged into {target}: {merged.added} answers added, {merged.present} already there"
        + outcome
    )
    if merged.problems:
        raise typer.Exit(exits.BUG)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@cache_app.command("verify")
def verify(folder: FolderArg = None) -> None:
    """Check every entry of a cache folder (or every shard of a sweep): it decodes as JSON,
    carries a checksum, and its checksum matches its key and answer (an entry damaged, truncated,
    rewritten without its checksum, or copied under another key fails; an edit that computed the
    checksum again passes: see docs/costs.md). Names each bad one; exit 1 when any is bad."""
    from pdbench.providers.cache import NO_CHECKSUM, migrate_hint
    from pdbench.providers.cache_shards import kept_shard_files, read_shard, shard_files

    source = folder or _default_cache()
    bad: list[str] = []
    total = 0
    unchecked = False
    shards = _shard_folder(source)
    for path in shard_files(shards) if shards is not None else kept_shard_files(source):
        for line in read_shard(path):
            total += 1
            if line.value is None:
                bad.append(f"{line.where}: {line.problem}")
    if shards is None:
        cache = _open_cache(source)
        try:
            for key in cache.stored_keys():
                total += 1
                value, problem = cache.check(key)
                if value is None:
                    bad.append(f"{source} key {key[:12]}: {problem or 'gone'}")
                    unchecked = unchecked or problem == NO_CHECKSUM
        finally:
            cache.close()
    for problem in bad:
        exits.say(f"bad: {problem}")
    if unchecked:
        exits.say(
            f"hint: entries without a checksum: {migrate_hint(NO_CHECKSUM, source)}; otherwise "
            f"`pdbench cache prune {source}` removes them"
        )
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


@cache_app.command("migrate")
def migrate(folder: FolderArg = None) -> None:
    """Give a checksum to the entries of a cache folder stored without one, as an older pdbench
    stored them (the answer itself), after listing each as it was in
    `<folder>/migrated-<UTC time>.jsonl`. Such entries are refused until then: pdbench cannot
    tell one written before checksums from one rewritten since, so migrate only a cache you
    trust. Other bad entries are left to `pdbench cache prune`."""
    source = folder or _default_cache()
    cache = _open_cache(source)
    try:
        old: dict[str, dict] = {}
        other_bad = 0
        for key in cache.stored_keys():
            value, problem = cache.check(key)
            answer = cache.without_checksum(key) if value is None else None
            if answer is not None:
                old[key] = answer
            elif problem is not None:
                other_bad += 1
        listed = source / f"migrated-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}.jsonl"
        if old:  # listed before anything changes
            listed.write_bytes(
                b"".join(orjson.dumps({"key": k, "stored": v}) + b"\n" for k, v in old.items())
            )
            for key, answer in old.items():
                cache.set(key, answer)
    finally:
        cache.close()
    if old:
        typer.echo(
            f"{source}: {len(old)} entries without a checksum were given one, as they were "
            f"(listed in {listed}); they replay from now on"
        )
    else:
        typer.echo(f"{source}: nothing to migrate (every entry carries a checksum)")
    if other_bad:
        typer.echo(
            f"{source}: {other_bad} other bad entries (`pdbench cache verify` names them, "
            "`pdbench cache prune` removes them)"
        )
