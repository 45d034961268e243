"""How big a run may be before pdbench asks for a word of confirmation (issue 20).

A mistyped size (a billion replicates, a trillion rounds, a stopping probability of 1e-9) would
otherwise hang for hours, fill the disk or run out of memory before a line is written. The run's
size is checked at validation, from the spec alone, before anything is planned or allocated:
a run beyond a limit is refused in one line that names the setting to lower and the one that
lifts the limit (`run.limits.*`: they change how big a run may be, never what it produces).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pdbench.core.numbers import refuse_booleans_in_fields

# A geometric horizon without max_rounds whose expected match is longer than this is a mistake
# (stop_prob 1e-9: a billion rounds); it asks for a cap.
MAX_EXPECTED_UNCAPPED_ROUNDS = 1_000_000


class LimitsSpec(BaseModel):
    """Sizes beyond which a run is refused; raise one to run a bigger experiment on purpose."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _no_booleans_as_numbers(cls, data: Any) -> Any:
        return refuse_booleans_in_fields(cls, data)

    rounds: int = Field(
        100_000_000,
        gt=0,
        description="rounds the whole run may play: conditions x replicates x rounds per match "
        "(a geometric horizon's expected length, or its max_rounds when lower)",
    )
    llm_rounds: int = Field(
        1_000_000,
        gt=0,
        description="rounds in which a model is asked (each one a provider call at least)",
    )
    matches: int = Field(1_000_000, gt=0, description="matches the run may plan")


@dataclass(frozen=True)
class PlannedCondition:
    """What the size check needs to know of one condition (the schema says it; this module
    imports no spec, so the specs can import the limits)."""

    rounds_per_match: float  # a geometric horizon's expected length, or its cap when lower
    rounds_field: str  # the horizon field that decides it
    asks_model: bool  # an agent of the condition asks a model every round


def check_size(limits: LimitsSpec, replicates: int, conditions: Sequence[PlannedCondition]) -> None:
    """Raise ValueError naming the setting to change when the run exceeds a limit."""
    matches = len(conditions) * replicates
    if matches > limits.matches:
        raise ValueError(
            f"run.replicates: {_conditions(conditions)} x {replicates} replicates = "
            f"{matches:.3g} matches, beyond run.limits.matches ({limits.matches}): lower "
            "run.replicates (--replicates), or raise run.limits.matches to run them anyway"
        )
    total = llm_total = 0.0
    longest, longest_field = 0.0, "horizon.rounds"
    for condition in conditions:
        per_match, field = condition.rounds_per_match, condition.rounds_field
        total += per_match * replicates
        if condition.asks_model:
            llm_total += per_match * replicates
        if per_match > longest:
            longest, longest_field = per_match, field
    for planned, limit, name, what in (
        (total, limits.rounds, "rounds", "rounds"),
        (llm_total, limits.llm_rounds, "llm_rounds", "rounds asking a model"),
    ):
        if planned > limit:
            # Name what made it big: the match length when one match alone is too long,
            # otherwise the number of replicates.
            field = longest_field if longest > limit else "run.replicates (--replicates)"
            raise ValueError(
                f"{field}: the run would play {planned:.3g} {what} ({_conditions(conditions)} x "
                f"{replicates} replicates x up to {longest:.3g} rounds), beyond "
                f"run.limits.{name} ({limit}): lower {field.split(' ')[0]}, or raise "
                f"run.limits.{name} to run it anyway"
            )


def _conditions(conditions: Sequence[PlannedCondition]) -> str:
    count = len(conditions)
    return f"{count} condition" + ("" if count == 1 else "s")
