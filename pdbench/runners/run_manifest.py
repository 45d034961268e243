"""The run's manifest, rebuilt from the experiment, its plan and its ledger at every status change."""

from __future__ import annotations

from typing import Any

from pdbench.runners.plan import PlannedMatch, replicate_sampling
from pdbench.runners.prepare import LoadedExperiment
from pdbench.storage import manifest as manifests
from pdbench.storage.run_store import RunStore
from pdbench.storage.schema import CallCounts


class RunManifests:
    """Builds the run's manifest at each save. What cannot change while the run plays (the
    config, the conditions, every match's seeds) is built once: a run saves its manifest several
    times, and rebuilding 3,600 seed records each time was a tenth of a round robin's time."""

    def __init__(
        self,
        loaded: LoadedExperiment,
        plan: list[PlannedMatch],
        store: RunStore,
        *,
        run_id: str,
        started_utc: str,
        hydra_overrides: list[str] | None,
        command: str | None,
    ) -> None:
        spec = loaded.spec
        earlier = store.manifest
        self.store = store
        self.facts: dict[str, Any] = dict(
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
                    **m.seeds,
                )
                for m in plan
            ],
            project_root=loaded.project_root,
        )

    def build(self, *, status: str, error: str | None, spend: CallCounts) -> manifests.RunManifest:
        """The manifest now: its status, the ledger so far and what was spent."""
        return manifests.build_manifest(
            **self.facts,
            status=status,
            error=error,
            ledger=self.store.completed.values(),
            spend=spend,
        )
