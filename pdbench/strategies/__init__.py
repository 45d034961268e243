"""Classic strategies at the engine's level: pure functions of what a player has seen.

`base` holds the contract and the registry; each other module registers its policies on import,
and importing this package registers them all.
"""

from pdbench.strategies import classic as _classic  # noqa: F401  (registers the policies)
from pdbench.strategies.base import POLICIES, LastRounds, Policy, make_policy, register_policy
from pdbench.strategies.classic import default_generosity

__all__ = [
    "POLICIES",
    "LastRounds",
    "Policy",
    "default_generosity",
    "make_policy",
    "register_policy",
]
