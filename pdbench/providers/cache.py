"""The replay cache: every answer a provider gave, keyed by `CompletionRequest.cache_key()`.

Backed by `diskcache` (SQLite, safe across processes) with eviction turned off, so nothing paid
for is ever dropped silently. Values are JSON text, not pickles: readable by any tool, and a
Python upgrade cannot make them unloadable.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import diskcache
import orjson

CACHE_DIR_ENV = "PDBENCH_CACHE_DIR"


def resolve_cache_dir(configured: str, project_root: Path) -> Path:
    """The cache folder: $PDBENCH_CACHE_DIR when set (relative to the working directory),
    otherwise `configured` (RunSpec.cache.dir), relative to the project root."""
    from_env = os.environ.get(CACHE_DIR_ENV)
    if from_env:
        return Path(from_env).expanduser().resolve()
    path = Path(configured).expanduser()
    return path if path.is_absolute() else (project_root / path).resolve()


class ReplayCache:
    """A persistent key -> JSON object store."""

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)
        self._cache = diskcache.Cache(str(self.directory), eviction_policy="none")

    def get(self, key: str) -> dict[str, Any] | None:
        raw = self._cache.get(key)
        return None if raw is None else orjson.loads(raw)

    def set(self, key: str, value: dict[str, Any]) -> None:
        # A str (not bytes, not a dict) so diskcache stores it as text rather than a pickle.
        self._cache.set(key, orjson.dumps(value).decode())

    def __contains__(self, key: str) -> bool:
        return key in self._cache

    def __len__(self) -> int:
        return len(self._cache)

    def close(self) -> None:
        self._cache.close()

    def __enter__(self) -> ReplayCache:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
