"""Seed derivation: every random stream is a pure function of where it is used, and, for play,
of a secret.

A stream's seed is a hash of (run seed, replicate, stream name), where the stream name says whose
randomness it is ("horizon", "agent_a", "mock_provider_b", ...). The condition's name is not part
of it, on purpose: the same replicate index means the same match length and the same opponent
randomness in every condition (common random numbers), so a comparison between conditions compares
like with like. Adding a condition, reordering the plan or running matches in another process
never changes another match's numbers. (Answers meant as fresh samples from a model are told
apart by condition in the replay cache's key, not here.)

Two derivations, and the name says which:

- `DealKey.derive` deals a match: the dice, the secret word, a debate's scenario, a geometric
  horizon's length, the policies' and the mock model's draws, the noise, the option order. It is
  HMAC-SHA256 keyed by the run's deal key (32 random bytes kept in the run folder, which no agent
  can reach: docs/security.md). The run seed and the replicate are public (the seed is in the
  docs, the replicate in an arena agent's working folder name) and pdbench's code is open, so an
  unkeyed hash of them would let an agent compute the opponent's dice before a showdown.
- `derive_seed` is the unkeyed hash, for randomness that hides nothing from a player: an
  analysis's bootstrap draws (pdbench.analysis, pdbench.ladder), which must be reproducible from
  the public seed alone. It also deals the runs made before deals were keyed (their manifests have
  no `deal` record: `UnkeyedDeal`), so those resume exactly as they began.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

import numpy as np

# The named streams in use. Keeping them in one place makes collisions impossible by accident.
HORIZON = "horizon"
MOCK_PROVIDER = "mock_provider"
GAME = "game"  # a turn game's chance (Liar's Dice's dice), shared by both seats
NOISE = "noise"  # per side: the trembling hand's flips (side_stream(NOISE, side))
OPTION_ORDER = "option_order"  # per side: the order an LLM agent's two options are named in

DEAL_KEY_BYTES = 32
KEYED_DERIVATION = "hmac-sha256"  # the manifest's name for DealKey.derive


def agent_stream(side: str) -> str:
    """The stream of an agent's own randomness (GTFT's forgiveness draws, for instance)."""
    return f"agent_{side}"


def side_stream(name: str, side: str) -> str:
    """A named stream of one side of the match (the mock provider answering for side a, ...)."""
    return f"{name}_{side}"


def _stream_message(run_seed: int, replicate: int, stream: str) -> bytes:
    return f"{run_seed}\x1f{replicate}\x1f{stream}".encode()


def _seed_of(digest: bytes) -> int:
    return int.from_bytes(digest[:8], "big") >> 1  # 63 bits: a valid seed everywhere


def derive_seed(run_seed: int, replicate: int, stream: str) -> int:
    """A 63-bit seed for one stream of one replicate, stable across processes and versions, and
    computable by anyone who knows the three: never for what a player must not know (see the
    module docstring)."""
    return _seed_of(hashlib.sha256(_stream_message(run_seed, replicate, stream)).digest())


class DealKey:
    """A run's deal key: every stream of its matches is HMAC-SHA256(key, run seed, replicate,
    stream), so the public numbers alone predict nothing. Its `fingerprint` names it (in the
    manifest, in messages); its bytes are never shown."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) != DEAL_KEY_BYTES:
            raise ValueError(f"a deal key is {DEAL_KEY_BYTES} bytes, got {len(secret)}")
        self._secret = bytes(secret)

    @classmethod
    def new(cls) -> DealKey:
        """A fresh key from the operating system's randomness."""
        return cls(secrets.token_bytes(DEAL_KEY_BYTES))

    @property
    def secret(self) -> bytes:
        """The key itself: for the file that keeps it, nothing else."""
        return self._secret

    @property
    def fingerprint(self) -> str:
        """The first 16 hex digits of sha256(key): tells keys apart, reveals nothing of them."""
        return hashlib.sha256(self._secret).hexdigest()[:16]

    def derive(self, run_seed: int, replicate: int, stream: str) -> int:
        """The 63-bit seed of one stream of one replicate under this key."""
        message = _stream_message(run_seed, replicate, stream)
        return _seed_of(hmac.new(self._secret, message, hashlib.sha256).digest())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DealKey) and hmac.compare_digest(self._secret, other._secret)

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    def __repr__(self) -> str:
        return f"DealKey(fingerprint={self.fingerprint})"


class UnkeyedDeal:
    """How runs were dealt before deals were keyed: `derive_seed` of the public numbers. Kept only
    so that such a run (its manifest has no `deal` record) resumes as it began; a new run is
    always dealt with a `DealKey`."""

    def derive(self, run_seed: int, replicate: int, stream: str) -> int:
        return derive_seed(run_seed, replicate, stream)

    def __repr__(self) -> str:
        return "UnkeyedDeal()"


UNKEYED = UnkeyedDeal()
Deal = DealKey | UnkeyedDeal


def make_rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))
