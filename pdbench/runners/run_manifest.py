"""The run's manifest: rebuilt from the experiment, its plan, its ledger and its spend journal at
every status change, and while the run plays whenever there is something new to say."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from pdbench.core.errors import WriteFailed
from pdbench.core.rng import Deal
from pdbench.runners.estimate import estimate_plan
from pdbench.runners.plan import PlannedMatch, replicate_sampling
from pdbench.runners.prepare import LoadedExperiment
from pdbench.storage import manifest as manifests
from pdbench.storage.deal_key import deal_record
from pdbench.storage.run_store import RunStore
from pdbench.storage.schema import CallCounts
from pdbench.storage.spend import SpendJournal

# While a run plays, its manifest is rewritten after a stored batch at least this often.
MANIFEST_EVERY_S = 2.0


class ManifestWriter:
    """Writes the run's manifest. What cannot change while the run plays (the config, the
    conditions, every match's seeds) is built once: a run saves its manifest several times, and
    rebuilding 3,600 seed records each time was a tenth of a round robin's time."""

    def __init__(
        self,
        loaded: LoadedExperiment,
        plan: list[PlannedMatch],
        store: RunStore,
        *,
        deal: Deal,
        run_id: str,
        started_utc: str,
        hydra_overrides: list[str] | None,
        command: str | None,
        journal: SpendJournal,
        cache_rejected: Callable[[], int],
    ) -> None:
        spec = loaded.spec
        earlier = store.manifest
        self.store = store
        self.journal = journal
        self.cache_rejected = cache_rejected  # answers the cache refused in this attempt
        self.rejected_before = earlier.cache_rejected if earlier else 0
        self.moved_aside = list(earlier.moved_aside) if earlier else []
        if store.moved_to is not None:
            self.moved_aside.append(str(store.moved_to.relative_to(store.run_dir)))
        estimates = estimate_plan(plan, loaded.project_root, batch=spec.run.batch)
        self.estimate = [e.to_json() for e in estimates]
        self.saved_spend = CallCounts()
        self.saved_at = time.monotonic()
        self.facts: dict[str, Any] = dict(
            record_version=store.record_version,  # a run goes on in the version it began in
            run_id=run_id,
            started_utc=(earlier.started_utc if earlier else None) or started_utc,
            command=(earlier.pdbench_command if earlier else None) or command,
            config_source=spec.source,
            config_hash=loaded.config_hash,
            config=spec.model_dump(mode="json"),
            referenced_files=loaded.referenced_files,
            overrides=spec.overrides,
            hydra_overrides=hydra_overrides or [],
            run_seed=spec.run.seed,
            deal=deal_record(deal),
            collapse=manifests.Collapse(
                k=spec.metrics.collapse.k, threshold=spec.metrics.collapse.threshold
            ),
            conditions=[c.name for c in spec.conditions],
            factors={c.name: c.factors for c in spec.conditions},
            sampling={c.name: replicate_sampling(c, spec.run.replicates) for c in spec.conditions},
            matchups={
                c.name: manifests.Matchup(
                    agent_a=c.agent_a.display_name,
                    agent_b=c.agent_b.display_name,
                    game=c.game.id,
                    horizon_type=c.horizon.type,
                    type_a=c.agent_a.type,
                    type_b=c.agent_b.type,
                    third_parties=c.third_party_labels,
                    further_seats={  # agent_c, ..., a population's beyond j too
                        side: spec.display_name
                        for side, spec in c.players.items()
                        if side not in ("agent_a", "agent_b")
                    },
                )
                for c in spec.conditions
            },
            replicates=spec.run.replicates,
            planned=len(plan),
            seeds=[
                manifests.MatchSeeds(
                    condition=m.condition.name,
                    replicate=m.replicate,
                    n_rounds=m.n_rounds,
                    horizon=m.horizon_seed,
                    agent_a=m.seed_a,
                    agent_b=m.seed_b,
                )
                for m in plan
            ],
            project_root=loaded.project_root,
        )

    def spent(self) -> CallCounts:
        """What this run (a sweep's job: its condition) paid over all its attempts."""
        journal = self.journal
        return journal.total_of(journal.source) if journal.source else journal.total()

    def save(self, status: str, error: str | None = None) -> None:
        """Write the manifest now: its status, the ledger so far and what was spent."""
        self.saved_spend, self.saved_at = self.spent(), time.monotonic()
        manifest = manifests.build_manifest(
            **self.facts,
            status=status,
            error=error,
            ledger=self.store.completed.values(),
            spend=self.saved_spend,
        )
        self.store.write_manifest(
            manifest.model_copy(
                update={
                    "cache_rejected": self.rejected_before + self.cache_rejected(),
                    "moved_aside": self.moved_aside,
                    "estimate": self.estimate,
                }
            )
        )

    def save_after_store(self) -> None:
        """After a stored batch. The ledger on disk already says which matches are stored; the
        manifest follows when money was spent since it was last written (a killed run's
        manifest must say what was paid), or every few seconds so that a long run shows its
        progress in the viewer."""
        if self.spent() != self.saved_spend or time.monotonic() - self.saved_at >= MANIFEST_EVERY_S:
            self.save(manifests.STATUS_STARTED)

    def save_failed_if_possible(self, error: str) -> None:
        """Mark the run failed when the disk still takes the manifest; otherwise its last good
        version stays (writing it never leaves a half-written file)."""
        with contextlib.suppress(WriteFailed):
            self.save(manifests.STATUS_FAILED, error)
