"""Provider calls counted: live and cached, the tokens and cost of the live ones, and the calls a
provider may have billed though no answer came (estimated, kept apart). One type for a match, a
condition, a run, a sweep and the run's spend, added with `+`."""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, fields
from typing import Any


@dataclass(slots=True)
class CallCounts:
    """Provider calls: live and cached, the tokens and cost of the live ones, what the cached
    ones cost when they were first bought, and live calls whose price is unknown. Arena agents'
    turns are counted apart: they are not provider calls and cost nothing."""

    live: int = 0
    cached: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cost_usd_saved: float = 0.0
    unknown_price: int = 0
    agent_turns: int = 0
    # Live answers whose reported usage was impossible (negative or not a number): counted as
    # zero tokens at an unknown price, and said (see ProviderGateway).
    impossible_usage: int = 0
    # Live answers the server says came from another model than the one asked.
    other_model: int = 0
    # Of input_tokens, those the server read from its prompt cache (priced at the provider's
    # cached-input rate), and those Anthropic wrote into its cache (issue 33).
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    # Calls the client gave up on (timed out) after sending them: the provider may still have
    # answered and billed them. Estimated, never counted with the live calls: the prompt's
    # tokens as counted before sending, at most max_tokens of answer, at the model's price (at
    # most; calls at an unknown price add no cost and are counted in estimated_unknown_price).
    estimated_calls: int = 0
    estimated_input_tokens: int = 0
    estimated_output_tokens: int = 0
    estimated_cost_usd: float = 0.0
    estimated_unknown_price: int = 0

    def __add__(self, other: CallCounts) -> CallCounts:
        # Field by field, spelled out: the manifest sums one per match each time it is written,
        # and a loop over dataclasses.fields() cost a third of a second per 3,600-match run.
        return CallCounts(
            self.live + other.live,
            self.cached + other.cached,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cost_usd + other.cost_usd,
            self.cost_usd_saved + other.cost_usd_saved,
            self.unknown_price + other.unknown_price,
            self.agent_turns + other.agent_turns,
            self.impossible_usage + other.impossible_usage,
            self.other_model + other.other_model,
            self.cached_input_tokens + other.cached_input_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.estimated_calls + other.estimated_calls,
            self.estimated_input_tokens + other.estimated_input_tokens,
            self.estimated_output_tokens + other.estimated_output_tokens,
            self.estimated_cost_usd + other.estimated_cost_usd,
            self.estimated_unknown_price + other.estimated_unknown_price,
        )

    def __iadd__(self, other: CallCounts) -> CallCounts:
        """Add in place: a counter others hold (the progress display holds the gateway's)
        stays the one that is counted."""
        total = self + other
        for name in self.__slots__:
            setattr(self, name, getattr(total, name))
        return self

    def paid(self) -> CallCounts:
        """Only what was paid for: the live calls, their tokens and cost (and, apart, the
        estimated calls that may have been billed)."""
        return CallCounts(
            live=self.live,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost_usd=self.cost_usd,
            unknown_price=self.unknown_price,
            impossible_usage=self.impossible_usage,
            other_model=self.other_model,
            cached_input_tokens=self.cached_input_tokens,
            cache_write_tokens=self.cache_write_tokens,
            **{name: getattr(self, name) for name in self.ESTIMATED},
        )

    # The counters of calls that may have been billed though no answer came (see above).
    ESTIMATED: typing.ClassVar[tuple[str, ...]] = (
        "estimated_calls",
        "estimated_input_tokens",
        "estimated_output_tokens",
        "estimated_cost_usd",
        "estimated_unknown_price",
    )
    # Counters a stored answer never carries (they are said when a call is paid, in spend):
    # left out of a ledger line when zero, so its bytes are what they were before they existed.
    FLAGS: typing.ClassVar[tuple[str, ...]] = (
        "impossible_usage",
        "other_model",
        "cached_input_tokens",
        "cache_write_tokens",
        *ESTIMATED,
    )

    @property
    def cost_usd_at_most(self) -> float:
        """What may have been billed: the paid cost and the estimated one (the budget's)."""
        return self.cost_usd + self.estimated_cost_usd

    def to_json(self, *, omit_zero_flags: bool = False) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        if omit_zero_flags:
            for flag in self.FLAGS:
                if not data[flag]:
                    del data[flag]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> CallCounts:
        data = data or {}
        return cls(**{f.name: data.get(f.name, 0) for f in fields(cls)})

    @classmethod
    def total(cls, counts: typing.Iterable[CallCounts]) -> CallCounts:
        result = cls()
        for count in counts:
            result = result + count
        return result
