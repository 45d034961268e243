"""Hydra's batch check, skipped once pdbench's preflight has made it.

Before launching a sweep, Hydra's sweeper composes every job's config only to see that it can
(`Sweeper.validate_batch_is_legal`), and the launcher composes each one again to run it. The
preflight (`hydra_door.preflight`) has by then composed and validated every job, files and
pdbench's own rules included, and refused the command line in one line if one failed: Hydra's
pass would find nothing new and costs one more composition per job (about 0.1-0.4 s each, so
minutes before the first job of a grid of hundreds starts).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence


@contextlib.contextmanager
def batch_checked_by_preflight() -> Iterator[None]:
    """While it lasts, Hydra's sweepers take the batch as checked (restored after)."""
    from hydra.plugins.sweeper import Sweeper

    def checked(self: Sweeper, batch: Sequence[Sequence[str]]) -> None:
        return None  # composed and validated by the preflight, job by job

    original = Sweeper.validate_batch_is_legal
    Sweeper.validate_batch_is_legal = checked  # type: ignore[method-assign]
    try:
        yield
    finally:
        Sweeper.validate_batch_is_legal = original  # type: ignore[method-assign]
