"""How long a match lasts: a fixed number of rounds, or a seeded geometric stopping rule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from pdbench.core.errors import ConfigError


@dataclass(frozen=True, slots=True)
class FixedHorizon:
    """Exactly `rounds` rounds."""

    rounds: int
    type: Literal["fixed"] = "fixed"

    def __post_init__(self) -> None:
        if self.rounds <= 0:
            raise ConfigError(
                f"must be a positive number of rounds, got {self.rounds}", field="horizon.rounds"
            )

    def sample_length(self, rng: np.random.Generator | None = None) -> int:
        return self.rounds

    @property
    def fixed_n(self) -> int | None:
        return self.rounds

    @property
    def stop_prob(self) -> float | None:
        return None

    @property
    def max_length(self) -> int:
        return self.rounds


@dataclass(frozen=True, slots=True)
class GeometricHorizon:
    """After every round the match stops with probability `stop_prob` (mean length 1/stop_prob).

    The length is drawn once, up front, from the match's horizon stream: the number of Bernoulli
    trials up to and including the first stop, capped at `max_rounds` when one is given.
    """

    stop_prob: float
    max_rounds: int | None = None
    type: Literal["geometric"] = "geometric"

    def __post_init__(self) -> None:
        if not 0 < self.stop_prob < 1:
            raise ConfigError(
                f"must be strictly between 0 and 1, got {self.stop_prob}", field="horizon.stop_prob"
            )
        if self.max_rounds is not None and self.max_rounds <= 0:
            raise ConfigError(
                f"must be a positive number of rounds, got {self.max_rounds}",
                field="horizon.max_rounds",
            )

    def sample_length(self, rng: np.random.Generator) -> int:
        length = int(rng.geometric(self.stop_prob))
        return min(length, self.max_rounds) if self.max_rounds is not None else length

    @property
    def fixed_n(self) -> int | None:
        return None

    @property
    def max_length(self) -> int | None:
        return self.max_rounds


Horizon = FixedHorizon | GeometricHorizon
