"""An Inspect eval log's header for one condition (issue 46): the eval spec (its name the task;
the resolved config, seeds, spend and run facts in the spec's metadata; pdbench's and the
packages' versions in `packages`; the git commit in `revision`; each role a model plays in
`model_roles`), the results (each player's mean outcome, then every metric of the condition as
pdbench computed it: mean and interval) and the stats (the tokens and cost paid, per model and
per role), and the log's status.

inspect_ai (the optional `inspect` group) is imported inside functions only.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pdbench.cli.inspect_transcript import Role

if TYPE_CHECKING:
    import pandas as pd
    from inspect_ai.log import EvalResults, EvalSample, EvalSpec, EvalStats

    from pdbench.storage.ledger import LedgerEntry
    from pdbench.storage.manifest import RunManifest

# Columns of aggregates.parquet that say which match or how many, not how it went.
_NOT_METRICS = {"replicate", "n_replicates", "n_finished", "n_aborted", "aborted_at_round"}
_INTERVAL = ("_std", "_n", "_ci_low", "_ci_high")
Status = Literal["started", "success", "cancelled", "error"]


def eval_id(manifest: RunManifest, condition: str) -> str:
    return hashlib.sha256(f"{manifest.run_id}\0{condition}".encode()).hexdigest()[:22]


def run_section(manifest: RunManifest, condition: str) -> dict[str, Any]:
    config = manifest.config.get(condition, {}) if manifest.kind == "sweep" else manifest.config
    return dict(config.get("run") or {})


def cell_value(value: Any) -> float | str | None:
    """A table cell as a score value: a number (a flag as 0 or 1), text, or None when missing
    (Inspect shows a true/false score as passed/failed, which a flag such as `collapsed` is not)."""
    import pandas as pd

    if value is None or isinstance(value, str):
        return value
    if not hasattr(value, "__len__") and pd.isna(value):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return None if math.isnan(number) else number


def metric_columns(table: pd.DataFrame) -> list[str]:
    """The metric columns: numbers about how matches went, an interval's parts left to their
    metric."""
    columns = set(table.columns)
    return [
        column
        for column in table.columns
        if column not in _NOT_METRICS
        and str(table[column].dtype) not in ("object", "string", "str")
        and not any(column.endswith(s) and column[: -len(s)] in columns for s in _INTERVAL)
    ]


def log_status(manifest: RunManifest, entries: list[LedgerEntry]) -> tuple[Status, str | None]:
    """Inspect's status of a condition: success when the run completed (or ended `aborted` and
    this condition has a finished match), cancelled when it was stopped or interrupted (it
    resumes), error otherwise."""
    finished = any(not entry.error for entry in entries)
    if manifest.status == "complete" or (manifest.status == "aborted" and finished):
        return "success", None
    reason = f"pdbench run status {manifest.status}" + (
        f": {manifest.error}" if manifest.error else ""
    )
    if manifest.status == "aborted":
        return "error", "every match of this condition was aborted (see each sample's error)"
    if manifest.status in ("stopped", "interrupted"):
        return "cancelled", reason
    return "error", reason


def eval_spec(
    manifest: RunManifest,
    condition: str,
    roles: dict[str, Role],
    samples: list[EvalSample],
    run: dict[str, Any],
) -> EvalSpec:
    from importlib.metadata import version

    from inspect_ai.log import EvalConfig, EvalDataset, EvalRevision, EvalSpec
    from inspect_ai.model import GenerateConfig, ModelConfig

    models = {
        r.name: ModelConfig(model=r.model, config=GenerateConfig(**r.generate))
        for r in roles.values()
        if r.model
    }
    main = next(iter(models.values()), None)
    git = manifest.git or {}
    packages = {name: str(v) for name, v in manifest.packages.items() if v}
    packages["inspect_ai"] = version("inspect_ai")
    calls = manifest.provider_calls_by_condition.get(condition)
    facts = {
        "run_id": manifest.run_id,
        "condition": condition,
        "run_status": manifest.status,
        "run_error": manifest.error,
        "pdbench_command": manifest.pdbench_command,
        "config_source": manifest.config_source,
        "config_hash": manifest.config_hash,
        "config": manifest.condition_config(condition),
        "run": run,
        "overrides": manifest.overrides,
        "factors": manifest.factors.get(condition, {}),
        "matchup": m.model_dump() if (m := manifest.matchups.get(condition)) else None,
        "sampling": s.model_dump() if (s := manifest.sampling.get(condition)) else None,
        "run_seed": manifest.run_seed,
        "seeds": [s.model_dump() for s in manifest.seeds if s.condition == condition],
        "spend": calls.to_json() if calls else None,
        "run_spend": manifest.spend.to_json(),
        "estimate": manifest.estimate,
        "python_version": manifest.python_version,
        "platform": manifest.platform,
    }
    return EvalSpec(
        eval_id=eval_id(manifest, condition),
        run_id=manifest.run_id,
        created=manifest.started_utc or "1970-01-01T00:00:00Z",
        task=condition,
        task_id=eval_id(manifest, condition),
        task_display_name=condition,
        task_args=manifest.factors.get(condition, {}),
        solver="pdbench",
        dataset=EvalDataset(
            name=manifest.run_id, samples=len(samples), sample_ids=[int(s.id) for s in samples]
        ),
        model=main.model if main else "none/none",
        model_generate_config=main.config if main else GenerateConfig(),
        model_roles=dict(models) or None,
        config=EvalConfig(epochs=1),
        revision=EvalRevision(
            type="git",
            origin=str(git.get("origin") or ""),
            commit=str(git["commit"]),
            dirty=git.get("dirty"),
        )
        if git.get("commit")
        else None,
        packages=packages,
        metadata={"pdbench": facts},
    )


def eval_results(samples: list[EvalSample], row: pd.DataFrame, metrics: list[str]) -> EvalResults:
    """The outcome's mean per player over finished matches, then every metric of the
    condition as pdbench computed it (its mean over finished matches and its interval)."""
    from inspect_ai.log import EvalMetric, EvalResults, EvalScore

    finished = [s for s in samples if s.error is None]
    scores = []
    for player in sorted({str(p) for s in finished for p in _outcome(s)}):
        values = [
            v
            for s in finished
            if isinstance(v := _outcome(s).get(player), int | float) and not isinstance(v, bool)
        ]
        if values:
            mean = EvalMetric(name="mean", value=sum(values) / len(values))
            scores.append(
                EvalScore(
                    name=player,
                    scorer="outcome",
                    scored_samples=len(values),
                    metrics={"mean": mean},
                )
            )
    if len(row):
        cells = row.iloc[0]
        for metric in metrics:
            value = cell_value(cells[metric])
            if not isinstance(value, float):
                continue
            parts = {"mean": EvalMetric(name="mean", value=value)}
            for suffix in ("_ci_low", "_ci_high", "_std"):
                extra = cell_value(cells.get(metric + suffix))
                if isinstance(extra, float):
                    parts[suffix[1:]] = EvalMetric(name=suffix[1:], value=extra)
            scores.append(EvalScore(name=metric, scorer="metrics", metrics=parts))
    return EvalResults(total_samples=len(samples), completed_samples=len(finished), scores=scores)


def _outcome(sample: EvalSample) -> Mapping[str, Any]:
    """Each player's score in one sample's `outcome`."""
    score = (sample.scores or {}).get("outcome")
    return score.value if score is not None and isinstance(score.value, Mapping) else {}


def eval_stats(manifest: RunManifest, samples: list[EvalSample]) -> EvalStats:
    """The tokens and cost paid for this condition's calls, per model and per role."""
    from inspect_ai.log import EvalStats

    usage: dict[str, dict[str, Any]] = {"model": {}, "role": {}}
    for sample in samples:
        for kind, found in (("model", sample.model_usage), ("role", sample.role_usage)):
            for key, value in found.items():
                usage[kind][key] = value if key not in usage[kind] else usage[kind][key] + value
    return EvalStats(
        started_at=manifest.started_utc or "",
        completed_at=(manifest.updated_utc or "") if manifest.status == "complete" else "",
        model_usage=usage["model"],
        role_usage=usage["role"],
    )
