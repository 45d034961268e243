"""How a run is made: its seed, where it is stored, how many matches, its budget and its
replay cache (`RunSpec`, the `run` block of every config)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from pdbench.config.frozen import Frozen
from pdbench.config.limits import LimitsSpec
from pdbench.config.names import run_id_problem


class CacheSpec(Frozen):
    dir: str = Field("data/cache", description="replay cache folder (env PDBENCH_CACHE_DIR wins)")
    mode: Literal["readwrite", "off", "replay"] = Field(
        "readwrite", description="off: never cached; replay: fail on the first miss, no live call"
    )
    namespace: str | None = Field(
        None,
        description="a name in every cache key: a new one draws fresh answers on purpose "
        "(the run's results change, so it is part of the config hash)",
    )


class RunSpec(Frozen):
    run_id: str | None = Field(None, description="folder name under output_dir; default derived")
    # Within 64 bits: the seed is hashed with the config, as JSON.
    seed: int = Field(
        0, ge=-(2**63), lt=2**63, description="the one run seed every random stream derives from"
    )
    output_dir: str = Field("data/runs", description="where run folders are created")
    # The key is the run's secret, not its config: the run folder keeps its own copy and the
    # manifest its fingerprint, so the path is left out of the config hash (a run copied to
    # another machine names the key at another path and is still the same run).
    deal_key_file: str | None = Field(
        None,
        description="the deal key file a new run is dealt with (default: <output_dir>/deal.key, "
        "made once); docs/security.md",
    )
    replicates: int = Field(3, gt=0, description="matches per condition")
    max_concurrency: int = Field(8, gt=0, description="provider calls in flight at once")
    store_prompts: bool | Literal["hash"] = Field(
        True, description="log prompts and raw answers on every round (hash: their sha256)"
    )
    max_cost_usd: float | None = Field(None, gt=0, description="stop starting calls past this")
    allow_unpriced_calls: bool = Field(
        False,
        description="with max_cost_usd: run although a model's price is unknown (its calls are "
        "counted but cost nothing against the budget, which cannot stop them)",
    )
    batch: bool = Field(
        False,
        description="send the provider calls as batches where the provider offers them "
        "(OpenAI's Batch API): half the price, a batch per round (docs/costs.md)",
    )
    batch_latency_s: float = Field(
        3600.0,
        gt=0,
        description="the wall time one round's batch is expected to take, for the estimate "
        "(an assumption: OpenAI promises at most 24 h)",
    )
    batch_poll_s: float = Field(60.0, gt=0, description="seconds between two polls of a batch")
    cache: CacheSpec = CacheSpec()
    limits: LimitsSpec = LimitsSpec()

    @field_validator("run_id")
    @classmethod
    def _one_folder_name(cls, value: str | None) -> str | None:
        problem = None if value is None else run_id_problem(value)
        if problem:
            raise ValueError(problem)
        return value
