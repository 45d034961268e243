"""A panel in one third role's seat (issue 30; a role whose `ThirdRole.panel` allows one, in
the games of `pdbench.games.roles`): the first member listed (the chair) gives the responses
between votes; at a vote (the role's `PanelVote`: the request, the field voted on) every member
decides, each through its own agent (an LLM through the gateway, as alone), and the majority
verdict is the panel's. The panel knows no game: its role declares the vote.

A member whose verdict is missing or refused by the rules is left out of the count (its attempts
are still stored). The panel is odd, so with every verdict valid there is no tie; a tie left by a
missing verdict goes to the chair's side if the chair decided, else to the earliest listed member
among the tied sides. No valid verdict at all: the panel gives none, and the engine plays the
game's fallback or aborts per the chair's `on_invalid`.

The stored action is the majority's `{"type": <action_type>, <verdict>: ...}` plus `panel`: every
member's name (under the role's `member` key) and verdict (None when invalid), so the analysis
reads each member's verdict from the stored rounds."""

from __future__ import annotations

import asyncio
from collections import Counter

from pdbench.agents.base import AgentBase, MatchInfo, TurnDecision, TurnRequest
from pdbench.games.roles import PanelVote


class Panel(AgentBase):
    def __init__(self, members: list[AgentBase], names: list[str], vote: PanelVote) -> None:
        self.members = members
        self.names = names
        self.vote = vote
        # the turn loop awaits the panel as it would the members that wait on a provider or a
        # process (their calls then run alongside the other seats')
        self.waits = any(member.waits for member in members)
        self.name = "PANEL(" + ", ".join(names) + ")"

    def reset(self, seed: int | None = None) -> None:
        for member in self.members:
            member.reset(seed)

    def start_match(self, info: MatchInfo) -> None:
        for member in self.members:  # each an agent of its own (an arena file's on_match_start)
            member.start_match(info)

    def close(self) -> None:
        for member in self.members:
            member.close()

    def stop_now(self) -> None:
        for member in self.members:
            member.stop_now()

    async def take_turn(self, request: TurnRequest) -> TurnDecision:
        vote = self.vote
        if request.round_state.get("request") != vote.request:
            return await self.members[0].take_turn(request)
        decided = await asyncio.gather(*(member.take_turn(request) for member in self.members))
        verdicts = [
            None
            if d.action is None or request.check(d.action) is not None
            else d.action.get(vote.verdict)
            for d in decided
        ]
        attempts = tuple(a for d in decided for a in d.attempts)
        invalid = sum(d.invalid_outputs for d in decided)
        winner = majority(verdicts)
        panel = [
            {vote.member: n, vote.verdict: v} for n, v in zip(self.names, verdicts, strict=True)
        ]
        action = (
            None
            if winner is None
            else {"type": vote.action_type, vote.verdict: winner, "panel": panel}
        )
        return TurnDecision(action=action, attempts=attempts, invalid_outputs=invalid)


def majority(verdicts: list[str | None]) -> str | None:
    """The panel's verdict (see the module docstring for ties)."""
    counts = Counter(v for v in verdicts if v is not None)
    if not counts:
        return None
    top = max(counts.values())
    tied = [v for v in verdicts if v is not None and counts[v] == top]
    return tied[0]  # the chair's (the first listed) valid verdict among the tied, else the next
