"""Seed derivation: every random stream is a pure function of where it is used.

A stream's seed is a hash of (run seed, condition name, replicate, stream name). Adding a condition,
reordering the plan or running matches in another process never changes another match's numbers.
"""

from __future__ import annotations

import hashlib

import numpy as np

# The named streams in use. Keeping them in one place makes collisions impossible by accident.
HORIZON = "horizon"
MOCK_PROVIDER = "mock_provider"


def agent_stream(side: str) -> str:
    """The stream of an agent's own randomness (GTFT's forgiveness draws, for instance)."""
    return f"agent_{side}"


def derive_seed(run_seed: int, condition: str, replicate: int, stream: str) -> int:
    """A 63-bit seed for one stream of one match, stable across processes and Python versions."""
    key = f"{run_seed}\x1f{condition}\x1f{replicate}\x1f{stream}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") >> 1


def make_rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))
