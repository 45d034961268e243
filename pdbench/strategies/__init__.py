"""Classic strategies at the engine's level: pure functions of what a player has seen.

`base` holds the contract (`Policy`, typed parameters, the optional numpy batch form) and the
registry; each other module registers its policies on import, and importing this package
registers them all. `check.check_policy` is the public conformance checker.
"""

from pdbench.strategies import classic as _classic  # noqa: F401  (each registers its policies)
from pdbench.strategies import memory_one as _memory_one  # noqa: F401
from pdbench.strategies import reactive as _reactive  # noqa: F401
from pdbench.strategies import sequences as _sequences  # noqa: F401
from pdbench.strategies.base import (
    POLICIES,
    LastRounds,
    NoParams,
    Policy,
    PolicyParams,
    PolicyWarning,
    Probability,
    build_policy,
    make_policy,
    policy_class,
    policy_has_batch_form,
    policy_warnings,
    register_policy,
)
from pdbench.strategies.check import PolicyConformanceError, check_policy
from pdbench.strategies.generosity import default_generosity, describe_default_generosity

__all__ = [
    "POLICIES",
    "LastRounds",
    "NoParams",
    "Policy",
    "PolicyConformanceError",
    "PolicyParams",
    "PolicyWarning",
    "Probability",
    "build_policy",
    "check_policy",
    "default_generosity",
    "describe_default_generosity",
    "make_policy",
    "policy_class",
    "policy_has_batch_form",
    "policy_warnings",
    "register_policy",
]
