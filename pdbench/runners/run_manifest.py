"""The run's manifest, rebuilt from the experiment, its plan and its ledger at every status change."""

from __future__ import annotations

from pdbench.runners.plan import PlannedMatch, replicate_sampling
from pdbench.runners.prepare import LoadedExperiment
from pdbench.storage import manifest as manifests
from pdbench.storage.run_store import RunStore
from pdbench.storage.schema import CallCounts


def run_manifest(
    loaded: LoadedExperiment,
    plan: list[PlannedMatch],
    store: RunStore,
    *,
    run_id: str,
    status: str,
    started_utc: str,
    error: str | None,
    hydra_overrides: list[str] | None,
    command: str | None,
    spend: CallCounts,
) -> manifests.RunManifest:
    spec = loaded.spec
    earlier = store.manifest
    return manifests.build_manifest(
        run_id=run_id,
        status=status,
        error=error,
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
        ledger=store.completed.values(),
        spend=spend,
        project_root=loaded.project_root,
    )
