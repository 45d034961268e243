"""A panel of judges in one judge seat (issue 30): the first judge listed (the chair) gives the
responses between phases; at the decision every judge decides, each through its own agent (an LLM
judge through the gateway, as alone), and the majority verdict is the panel's.

A judge whose verdict is missing or refused by the rules is left out of the count (its attempts
are still stored). The panel is odd, so with every verdict valid there is no tie; a tie left by a
missing verdict goes to the chair's side if the chair decided, else to the earliest listed judge
among the tied sides. No valid verdict at all: the panel gives none, and the engine plays the
game's fallback or aborts per the chair's `on_invalid`.

The stored action is the majority's `{"type": "decision", "winner": ...}` plus `panel`: every
judge's name and verdict (None when invalid), so the analysis reads each judge's verdict from
the stored rounds."""

from __future__ import annotations

import asyncio
from collections import Counter

from pdbench.agents.base import AgentBase, TurnDecision, TurnRequest


class PanelJudge(AgentBase):
    def __init__(self, judges: list[AgentBase], names: list[str]) -> None:
        self.judges = judges
        self.names = names
        self.name = "PANEL(" + ", ".join(names) + ")"

    def reset(self, seed: int | None = None) -> None:
        for judge in self.judges:
            judge.reset(seed)

    def close(self) -> None:
        for judge in self.judges:
            judge.close()

    def stop_now(self) -> None:
        for judge in self.judges:
            judge.stop_now()

    async def take_turn(self, request: TurnRequest) -> TurnDecision:
        if request.round_state.get("request") != "decision":
            return await self.judges[0].take_turn(request)
        decided = await asyncio.gather(*(judge.take_turn(request) for judge in self.judges))
        verdicts = [
            None
            if d.action is None or request.check(d.action) is not None
            else d.action.get("winner")
            for d in decided
        ]
        attempts = tuple(a for d in decided for a in d.attempts)
        invalid = sum(d.invalid_outputs for d in decided)
        winner = majority(verdicts)
        panel = [{"judge": n, "winner": v} for n, v in zip(self.names, verdicts, strict=True)]
        action = None if winner is None else {"type": "decision", "winner": winner, "panel": panel}
        return TurnDecision(action=action, attempts=attempts, invalid_outputs=invalid)


def majority(verdicts: list[str | None]) -> str | None:
    """The panel's verdict (see the module docstring for ties)."""
    counts = Counter(v for v in verdicts if v is not None)
    if not counts:
        return None
    top = max(counts.values())
    tied = [v for v in verdicts if v is not None and counts[v] == top]
    return tied[0]  # the chair's (the first listed) valid verdict among the tied, else the next
