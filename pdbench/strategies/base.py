"""What a policy is: the `Policy` base class, its batch form, and the registry of policies by name.

Every policy sees only the last round (its `history_window` is 1) and keeps whatever memory its
definition needs on `self`; `reset` clears it. Policies are registered by name with
`@register_policy`, and `make_policy` answers "did you mean" on a miss.

Each policy also has a batch form, `reset_batch` + `act_batch`, that plays many matches of one
condition at once with numpy arrays (True = C). It is the same rule written over arrays; a test
checks that both forms play identical moves for the same seeds, and the runner uses the batch
form for policy-only conditions (see pdbench/runners/batch.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pdbench.core.actions import Action
from pdbench.core.errors import ConfigError, unknown_choice
from pdbench.core.game import Game
from pdbench.core.transcript import Observation

POLICIES: dict[str, type[Policy]] = {}


@dataclass(frozen=True, slots=True)
class LastRounds:
    """The previous round of every match in a batch, from the policy's own side."""

    own_coop: np.ndarray  # bool, True where the policy played C
    opponent_coop: np.ndarray
    own_payoff: np.ndarray  # float


def register_policy(name: str) -> Callable[[type[Policy]], type[Policy]]:
    def register(cls: type[Policy]) -> type[Policy]:
        cls.policy_name = name
        POLICIES[name] = cls
        return cls

    return register


def make_policy(name: str, game: Game, params: dict | None = None) -> Policy:
    """Instantiate a registered policy for a game with its parameters."""
    try:
        cls = POLICIES[name]
    except KeyError:
        raise ConfigError(unknown_choice("policy", name, POLICIES), field="policy") from None
    return cls(game, **(params or {}))


class Policy:
    """Base class: a deterministic (or explicitly seeded) function of the last round."""

    policy_name = "policy"
    history_window: int | None = 1
    include_totals = False

    def __init__(self, game: Game) -> None:
        self.game = game
        self.name = self.policy_name.upper()
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the previous match. Subclasses with memory extend this."""

    def act(self, obs: Observation) -> Action:
        raise NotImplementedError

    def reset_batch(self, seeds: list[int], n_rounds: int) -> None:
        """Start len(seeds) matches of at most n_rounds rounds each."""
        self.batch_size = len(seeds)

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        """Moves of every match in the batch for `round_index` (True = C)."""
        raise NotImplementedError
