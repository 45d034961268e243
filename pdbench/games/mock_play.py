"""What every game's offline mock (`pdbench/games/<id>/mock.py`) does alike: its draws, pure
functions of the request's cache key (`mock_rng`, `uniform`); an invalid answer at the
configured rate (`garbled`); the persona's lean, read from the prompt (`persona_lean`, `LEANS`);
and which house player it plays as, from the mock's strategy and the persona's lean
(`MockPlayers.choose`). A game's mock reads its own prompt and writes its own answers."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pdbench.core.actions import Action
from pdbench.games.prompt_adapter import MockSettings


@dataclass(frozen=True)
class PersonaLean:
    """How a persona's words tilt the mock's answers: `share` of the answers that would be
    `overridden` become the other action (the 2x2 games' mock); a turn game's mock reads only
    its `name`, and plays the house player of that lean."""

    name: str
    words: re.Pattern[str]
    overridden: Action
    share: float
    reason: str  # said (reasoning and JSON formats) when the lean decides the answer


LEANS = (
    PersonaLean(
        "competitive",
        re.compile(
            r"\b(exploit\w*|advantage|above all|competitive|selfish|ruthless|greedy)\b", re.I
        ),
        overridden=Action.C,
        share=0.35,
        reason="I take the chance to score more.",
    ),
    PersonaLean(
        "cooperative",
        re.compile(r"\b(cooperation|cooperative|trust\w*|forgiv\w*|altruis\w*)\b", re.I),
        overridden=Action.D,
        share=0.5,
        reason="I forgive and cooperate.",
    ),
)


def persona_lean(prompt_text: str) -> PersonaLean | None:
    """The lean whose words the prompt holds; None when no lean's or both leans' words occur."""
    found = [lean for lean in LEANS if lean.words.search(prompt_text)]
    return found[0] if len(found) == 1 else None


def uniform(key: str, salt: str) -> float:
    """A number in [0, 1) that is a pure function of (key, salt)."""
    digest = hashlib.sha256(f"{key}\x1f{salt}".encode()).digest()
    return int.from_bytes(digest[:7], "big") / 2**56


def mock_rng(key: str, salt: str) -> np.random.Generator:
    """A generator seeded from the request's cache key and what it draws for (`salt`), so an
    answer is the same whenever the same request is asked."""
    digest = hashlib.sha256(f"{key}\x1f{salt}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big"))


def garbled(
    key: str, behaviour: MockSettings, allowed: tuple[str, ...] | None, garbage: Sequence[str]
) -> str | None:
    """One of the game's unreadable answers at the mock's `invalid_rate` (never when the
    request constrains its answers: a grammar admits only legal ones), else None."""
    if allowed is None and mock_rng(key, "invalid").random() < behaviour.invalid_rate:
        return garbage[int(mock_rng(key, "garbage").integers(len(garbage)))]
    return None


@dataclass(frozen=True)
class MockPlayers:
    """The house players a game's mock plays as: by the mock's strategy (`cooperate`,
    `defect`, `random`, or `policy` naming one of `policies`), else by the persona's lean
    (`competitive`, `cooperative`), else `default`. Each is a factory of no argument."""

    cooperate: Callable[[], Any]
    defect: Callable[[], Any]
    random: Callable[[], Any]
    policies: Mapping[str, Callable[..., Any]]
    competitive: Callable[[], Any]
    cooperative: Callable[[], Any]
    default: Callable[[], Any]

    def choose(self, behaviour: MockSettings, lean: str | None) -> Any:
        if behaviour.strategy == "cooperate":
            return self.cooperate()
        if behaviour.strategy == "defect":
            return self.defect()
        if behaviour.strategy == "random":
            return self.random()
        policy = behaviour.policy
        if behaviour.strategy == "policy" and policy is not None and policy in self.policies:
            return self.policies[policy](**behaviour.params)
        if lean == "competitive":
            return self.competitive()
        if lean == "cooperative":
            return self.cooperative()
        return self.default()
