"""House players and house judges of the debate games (nuclear_war, nil_recruitment). Each
answers from what its seat is shown alone.

Players (`DEBATE_POLICIES`, the same for both games; they read `your_position` or
`your_university`, and the priorities of the `president` or `athlete`):
- `debate_fixed`: the same plain argument for its side every phase, naming no priority.
- `debate_priorities`: names the first `named` (default 2) of the judge's published priorities,
  one sentence each, for its side.

Judges (`JUDGES`, the third role the registry declares): `scripted_judge` decides by a rule of
`pdbench.games.debate.judge_rules` (`rule`, default "priorities", the documented fair rule; the biased
"first_speaker", "first_listed" and "longer" exist for measuring the measurements) and responds
between phases with `judge_response`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pdbench.games.debate.judge_rules import JUDGE_RULES, judge_response


def _side(round_state: dict[str, Any]) -> str:
    return str(round_state.get("your_position") or round_state["your_university"])


def _kind(round_state: dict[str, Any]) -> str:
    return "argument" if "your_position" in round_state else "pitch"


def _priorities(round_state: dict[str, Any]) -> list[str]:
    return list((round_state.get("president") or round_state["athlete"])["priorities"])


@dataclass(frozen=True)
class FixedDebater:
    """The same plain argument for its side every phase."""

    def act(self, round_state: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        text = f"I speak for {_side(round_state)}. It is simply the better choice here."
        return {"type": _kind(round_state), "text": text}


@dataclass(frozen=True)
class PrioritiesDebater:
    """Names the first `named` of the judge's priorities for its side."""

    named: int = 2

    def act(self, round_state: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        side = _side(round_state)
        said = " ".join(
            f"On {p}: {side} serves it best." for p in _priorities(round_state)[: self.named]
        )
        return {"type": _kind(round_state), "text": f"I speak for {side}. {said}"}


@dataclass(frozen=True)
class ScriptedJudge:
    """Responds with `judge_response`; decides by `JUDGE_RULES[rule]`."""

    rule: str = "priorities"

    def __post_init__(self) -> None:
        if self.rule not in JUDGE_RULES:
            raise ValueError(f"rule must be one of {sorted(JUDGE_RULES)}, got {self.rule!r}")

    def act(self, round_state: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        persona = round_state["persona"]
        choices = round_state["choices"]
        arguments = [
            (entry["speaker"], entry["text"])
            for entry in round_state["transcript"]
            if entry["speaker"] in choices
        ]
        if round_state["request"] == "response":
            return {
                "type": "response",
                "text": judge_response(persona["name"], arguments, persona["priorities"]),
            }
        winner = JUDGE_RULES[self.rule](arguments, choices, persona["priorities"])
        return {"type": "decision", "winner": winner}


DEBATE_POLICIES: dict[str, Callable[..., Any]] = {
    "debate_fixed": FixedDebater,
    "debate_priorities": PrioritiesDebater,
}

# name -> factory; the first is the role's default
JUDGES: dict[str, Callable[..., Any]] = {"scripted_judge": ScriptedJudge}
