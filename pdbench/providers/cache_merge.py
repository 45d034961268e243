"""Merging replay caches (`pdbench cache merge`, and a sweep's shards when it ends): every answer
of the sources that passes its check is copied into one cache, and two different answers for
one key are a conflict, never settled silently.

A conflict is two different answers (the text a model returned, or the reasoning it returned
with it: `ANSWER_FIELDS`) for one key, between two sources or between a source and the cache
merged into. The same answer bought twice (by two jobs at once, with two response ids) is no
conflict: the copy already held is kept. What a conflict becomes is the caller's choice:

- `fail`: nothing is written and every conflict is reported. `pdbench cache merge` does this
  unless told otherwise: which answer a key holds decides what every later run replays, so the
  user chooses, knowing which machine's runs used which answer;
- `keep`: the answer the cache already holds (else the earlier source's) stays;
- `replace`: the later source's answer replaces it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from pdbench.core.visible import visible
from pdbench.providers.cache import ReplayCache
from pdbench.providers.cache_shards import read_shard

ANSWER_FIELDS = ("text", "reasoning")  # what a replay of the entry gives the agent
OnConflict = Literal["fail", "keep", "replace"]
PREVIEW_CHARS = 40


@dataclass(frozen=True, slots=True)
class Found:
    """One entry of a source: where it is, its key, and its answer or what is wrong with it."""

    where: str
    key: str
    value: dict[str, Any] | None
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class Conflict:
    key: str
    first: str  # where the answer held first is, and how it begins
    second: str  # the same of the answer that disagrees with it

    def line(self) -> str:
        return f"conflict: key {self.key[:12]}: {self.first}, {self.second}"


@dataclass
class Merged:
    added: int = 0
    present: int = 0  # the same answer was already held
    written: bool = True  # False: refused for its conflicts (on_conflict "fail")
    problems: list[str] = field(default_factory=list)  # "<where>: <why>", skipped
    conflicts: list[Conflict] = field(default_factory=list)


def merge(
    entries: Callable[[], Iterable[Found]], into: ReplayCache, on_conflict: OnConflict
) -> Merged:
    """Copy every good entry of `entries()` into `into`. With "fail", the entries are first
    read without writing, and nothing is written when two answers disagree (`written` False);
    `entries` is called again for the writing pass."""
    if on_conflict == "fail":
        looked = _merge(entries(), into, "keep", write=False)
        if looked.conflicts:
            looked.written = False
            return looked
    return _merge(entries(), into, "keep" if on_conflict == "fail" else on_conflict, write=True)


def _merge(found: Iterable[Found], into: ReplayCache, on_conflict: str, *, write: bool) -> Merged:
    merged = Merged()
    # key -> (the digest of the answer it holds after this merge, where that answer is from)
    held: dict[str, tuple[bytes, str]] = {}
    for entry in found:
        if entry.value is None:
            merged.problems.append(f"{entry.where}: {entry.problem}")
            continue
        this = (answer_digest(entry.value), described(entry.where, entry.value))
        before = held.get(entry.key) or _in_cache(into, entry.key)
        if before is not None and before[0] == this[0]:
            merged.present += 1
            held[entry.key] = before
            continue
        if before is not None:
            merged.conflicts.append(Conflict(entry.key, before[1], this[1]))
            if on_conflict != "replace":
                held[entry.key] = before
                continue
        else:
            merged.added += 1
        if write:
            into.set(entry.key, entry.value)
        held[entry.key] = this
    return merged


def _in_cache(into: ReplayCache, key: str) -> tuple[bytes, str] | None:
    value, _ = into.check(key)  # a damaged entry counts as absent: it is replaced
    if value is None:
        return None
    return answer_digest(value), described(f"{into.directory} (the cache merged into)", value)


def answer_digest(value: dict[str, Any]) -> bytes:
    answer = {name: value.get(name) for name in ANSWER_FIELDS}
    return hashlib.sha256(orjson.dumps(answer, option=orjson.OPT_SORT_KEYS)).digest()


def described(where: str, value: dict[str, Any]) -> str:
    """`<where> answers "<the answer's first words>"`, spelled out for a terminal."""
    text = str(value.get("text"))
    shown = text[:PREVIEW_CHARS] + ("..." if len(text) > PREVIEW_CHARS else "")
    return f'{where} answers "{visible(shown)}"'


def shard_entries(files: Iterable[Path]) -> Iterator[Found]:
    for path in files:
        for line in read_shard(path):
            yield Found(line.where, line.key, line.value, line.problem)


def cache_entries(other: ReplayCache) -> Iterator[Found]:
    """The entries of another cache folder's database (not the shards kept in it)."""
    for key in other.stored_keys():
        value, problem = other.check(key)
        if value is None:
            yield Found(f"{other.directory} key {key[:12]}", key, None, problem or "gone")
        else:
            yield Found(str(other.directory), key, value)
