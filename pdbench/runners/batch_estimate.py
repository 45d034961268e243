"""The pace of a batch run, for the estimate (run.batch, issue 46): the batches one after another
the longest match needs (each round: one for the move, one per negotiate turn of a batched agent,
one per retry at most), times `run.batch_latency_s`, an assumption the user sets (OpenAI promises
each batch within 24 h, and that bounds it). The batch prices are in runners/estimate.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from pdbench.config.schema import LLMAgentSpec
from pdbench.runners.plan import PlannedMatch

BATCH_WINDOW_S = 24 * 3600  # OpenAI completes a batch within its 24 h window, or expires it


@dataclass(frozen=True)
class BatchPace:
    """With run.batch: the batches one after another the longest match needs (a batch holds one
    step of every match), expected and with every retry; None when a turn game's length is not
    known in advance."""

    batches_expected: int | None
    batches_max: int | None
    latency_s: float


def batch_pace(plan: Sequence[PlannedMatch], latency_s: float) -> BatchPace:
    """The batches one after another that the plan's longest match needs: each round, one for
    the move (both sides ask at once), one per negotiate turn of a batched agent, and one per
    retry at most."""
    from pdbench.providers.openai_batches import batch_support

    supported: dict[Any, bool] = {}

    def batched(spec: Any) -> bool:
        if not spec.uses_provider:
            return False
        provider = cast(LLMAgentSpec, spec).provider
        if provider not in supported:
            supported[provider] = batch_support(provider) is None
        return supported[provider]

    expected = most = 0
    for match in plan:
        sides = [s for s in (match.condition.agent_a, match.condition.agent_b) if batched(s)]
        if not sides:
            continue
        length = match.horizon_length
        if length is None:  # its rules decide its length: not known before play
            return BatchPace(None, None, latency_s)
        talk_steps = length.talks_per_round * len(sides)
        retries = max(cast(LLMAgentSpec, side).max_retries for side in sides)
        expected = max(expected, match.n_rounds * (1 + talk_steps))
        most = max(most, match.n_rounds * (1 + retries + talk_steps))
    return BatchPace(expected, most, latency_s)


def pace_line(pace: BatchPace) -> str:
    latency = f"run.batch_latency_s={pace.latency_s:g} s"
    if pace.batches_expected is None or pace.batches_max is None:
        return (
            "  batches       one per turn of a turn-based game, whose length its rules decide: "
            f"the wall time is not estimated (each batch {latency}, an assumption; at most 24 h)"
        )
    if pace.batches_expected == 0:
        return "  batches       none: no call of the plan can go into a batch"
    expected, most = pace.batches_expected, pace.batches_max
    return (
        f"  batches       {expected:,} in a row ({most:,} if every retry is used); wall time "
        f"{_duration(expected * pace.latency_s)} expected ({expected:,} x {latency}, an "
        f"assumption), at most {_duration(most * BATCH_WINDOW_S)} (OpenAI completes each batch "
        "within 24 h)"
    )


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 72 * 3600:
        return f"{seconds / 3600:.1f} h".replace(".0 h", " h")
    return f"{seconds / 86400:.1f} days".replace(".0 days", " days")
