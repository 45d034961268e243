"""The base of every config model: frozen, unknown fields refused, finite numbers only, and no
boolean where a number is wanted (`replicates: yes` is not 1)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from pdbench.core.numbers import refuse_booleans_in_fields


class Frozen(BaseModel):
    # allow_inf_nan=False: a payoff, probability or time limit must be a finite number.
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _no_booleans_as_numbers(cls, data: Any) -> Any:
        return refuse_booleans_in_fields(cls, data)
