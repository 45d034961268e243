"""The offline mock model's own options (`provider.mock` in a config), the options spec the mock
provider kind registers (`pdbench.config.provider_spec.MOCK`, `ProviderKind.options`)."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from pdbench.config.frozen import Frozen
from pdbench.config.policy_params import checked_params, known_policy_name


class MockBehaviour(Frozen):
    """How the offline mock model answers (deterministic from the seed and the prompt).

    With `strategy: policy` it answers as the registered `policy` would (a scripted model): it
    reads the rules and the history from the prompt it receives, replays that history through
    the policy and answers the policy's move in the requested format."""

    strategy: Literal["cooperate", "defect", "reciprocate", "random", "policy"] = "reciprocate"
    cooperate_prob: float = Field(0.5, ge=0, le=1, description="P(C) for strategy=random")
    invalid_rate: float = Field(0.0, ge=0, le=1, description="share of answers that are garbage")
    latency_s: float = Field(0.0, ge=0, description="simulated seconds per call (benchmarks)")
    policy: str | None = Field(
        None, description="strategy=policy: the registered policy it plays, e.g. grim, random"
    )
    params: dict[str, Any] = Field(
        default_factory=dict, description="strategy=policy: that policy's parameters"
    )

    @field_validator("policy")
    @classmethod
    def _known_policy(cls, value: str | None) -> str | None:
        return None if value is None else known_policy_name(value)

    @field_validator("params")
    @classmethod
    def _params_fit_the_policy(cls, params: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        return checked_params(info.data.get("policy") or "", params)

    @model_validator(mode="after")
    def _policy_with_its_strategy(self) -> MockBehaviour:
        if self.strategy == "policy" and self.policy is None:
            raise ValueError("strategy: policy needs the policy to play, e.g. policy: grim")
        if self.strategy != "policy" and (self.policy is not None or self.params):
            raise ValueError(
                f"policy and params apply only with strategy: policy (strategy is {self.strategy})"
            )
        return self

    def __hash__(self) -> int:  # params is a dict; a provider spec is a key of client caches
        return hash(json.dumps(self.model_dump(mode="json"), sort_keys=True))

    def key_items(self) -> tuple[tuple[str, Any], ...]:
        """What decides the mock's answers besides the request: every field but the latency; the
        policy and its params only when it plays one (so the keys of other mocks are unchanged).
        The mock itself may add to it (pdbench.providers.mock.cache_key_options)."""
        exclude = {"latency_s"} if self.strategy == "policy" else {"latency_s", "policy", "params"}
        return tuple(sorted(self.model_dump(mode="json", exclude=exclude).items()))
