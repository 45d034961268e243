"""The base of every config model: frozen, unknown fields refused, finite numbers only."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    # allow_inf_nan=False: a payoff, probability or time limit must be a finite number.
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
