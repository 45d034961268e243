"""Seed derivation: every random stream is a pure function of where it is used.

A stream's seed is a hash of (run seed, replicate, stream name), where the stream name says whose
randomness it is ("horizon", "agent_a", "mock_provider_b", ...). The condition's name is not part
of it, on purpose: the same replicate index means the same match length and the same opponent
randomness in every condition (common random numbers), so a comparison between conditions compares
like with like. Adding a condition, reordering the plan or running matches in another process
never changes another match's numbers. (Answers meant as fresh samples from a model are told
apart by condition in the replay cache's key, not here.)
"""

from __future__ import annotations

import hashlib

import numpy as np

# The named streams in use. Keeping them in one place makes collisions impossible by accident.
HORIZON = "horizon"
MOCK_PROVIDER = "mock_provider"
GAME = "game"  # a turn game's chance (Liar's Dice's dice), shared by both seats
NOISE = "noise"  # per side: the trembling hand's flips (side_stream(NOISE, side))
OPTION_ORDER = "option_order"  # per side: the order an LLM agent's two options are named in


def agent_stream(side: str) -> str:
    """The stream of an agent's own randomness (GTFT's forgiveness draws, for instance)."""
    return f"agent_{side}"


def side_stream(name: str, side: str) -> str:
    """A named stream of one side of the match (the mock provider answering for side a, ...)."""
    return f"{name}_{side}"


def derive_seed(run_seed: int, replicate: int, stream: str) -> int:
    """A 63-bit seed for one stream of one replicate, stable across processes and versions."""
    key = f"{run_seed}\x1f{replicate}\x1f{stream}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") >> 1


def make_rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))
