"""`pdbench batch-status RUN`: poll a run's batches at the provider once, without playing (issue 46).

For each batch the run's journal holds outstanding (storage/batch_journal.py), one retrieve: a batch
that ended has its answers stored (the run's spend journal, at the batch rate, with their cache
keys: the run puts them into the replay cache when it resumes), a batch still running has its
status journaled. Nothing is submitted and no match is played. The run folder is locked meanwhile:
a run that is playing polls its own batches, and is left to it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pdbench.core.errors import PdbenchError


def batch_status(
    run_dir: Annotated[
        Path, typer.Argument(help="A run folder, e.g. data/runs/<run_id>.", show_default=False)
    ],
) -> None:
    """Poll the batches a run submitted (run.batch), once, without playing: print each one's
    status, store the answers of those that ended, and the run's batch progress."""
    from pdbench.storage.batch_journal import batch_journals, batch_progress
    from pdbench.storage.reader import is_run_dir
    from pdbench.storage.run_store import RunDirLock

    if not run_dir.is_dir() or not is_run_dir(run_dir):
        raise PdbenchError(f"{run_dir} is not a pdbench run dir (runs are under data/runs/)")
    journals = batch_journals(run_dir)
    if not journals:
        typer.echo(f"{run_dir}: no batch submitted (pdbench run --batch sends calls as batches)")
        return
    said = []
    for path in journals:
        folder = path.parent  # the run, or a sweep's shard
        lock = RunDirLock(folder).acquire()  # refused while the run plays: it polls them itself
        try:
            import asyncio  # here: `pdbench --help` should not import the event loop

            lines = asyncio.run(_poll(path, run_dir))
        finally:
            lock.release()
        prefix = "" if folder == run_dir else f"{folder.name}: "
        said += [prefix + line for line in lines]
    for line in said or ["no batch waiting"]:
        typer.echo(line)
    typer.echo(batch_progress(run_dir))


async def _poll(path: Path, run_dir: Path) -> list[str]:
    from pdbench.providers.batching import BatchSettings
    from pdbench.providers.gateway import ProviderGateway
    from pdbench.storage.batch_journal import BatchJournal
    from pdbench.storage.spend import SpendJournal, spend_file, sweep_job_journal

    journal = BatchJournal(path)
    source = next((batch.source for batch in journal.batches()), None)
    folder = path.parent
    spend = (
        SpendJournal(spend_file(run_dir), source=source)
        if folder == run_dir
        else sweep_job_journal(run_dir, folder.name, source or folder.name)
    )
    gateway = ProviderGateway(
        cache_mode="off",  # the answers go into the spend journal; the run caches them
        spend=spend,
        project_root=Path.cwd(),
        batching=BatchSettings(journal=journal, run_label=folder.name, poll_s=0.0, submit=False),
    )
    try:
        assert gateway.batches is not None
        return await gateway.batches.follower.poll_once()
    finally:
        gateway.close()
