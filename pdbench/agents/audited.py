"""A third party with an audit (issue 30; a role that `audits` another, `pdbench.games.roles`):
every request the played agent answers is put, the same (so an LLM audit reads the same
prompt), to the audit agent too. The played agent's answer is played; the audit's is stored
with the turn, never played: the action gets `audit` (the audit's `text`, None when it gave no
legal answer), and the turn's attempts hold the played agent's calls then the audit's (each
through the gateway: cached, counted in spend). `pdbench.games.passcode.measures` reads
the pairs back."""

from __future__ import annotations

import asyncio

from pdbench.agents.base import AgentBase, MatchInfo, TurnDecision, TurnRequest


class Audited(AgentBase):
    def __init__(self, played: AgentBase, audit: AgentBase) -> None:
        self.played = played
        self.audit = audit
        self.name = played.name
        # asked together: the seat waits when either agent waits on a provider or a process
        self.waits = played.waits or audit.waits

    def reset(self, seed: int | None = None) -> None:
        self.played.reset(seed)
        self.audit.reset(seed)

    def start_match(self, info: MatchInfo) -> None:
        self.played.start_match(info)
        self.audit.start_match(info)

    def close(self) -> None:
        self.played.close()
        self.audit.close()

    def stop_now(self) -> None:
        self.played.stop_now()
        self.audit.stop_now()

    async def take_turn(self, request: TurnRequest) -> TurnDecision:
        played, audited = await asyncio.gather(
            self.played.take_turn(request), self.audit.take_turn(request)
        )
        legal = audited.action is not None and request.check(audited.action) is None
        audit_text = audited.action.get("text") if legal and audited.action else None
        action = None if played.action is None else {**played.action, "audit": audit_text}
        return TurnDecision(
            action=action,
            attempts=(*played.attempts, *audited.attempts),
            invalid_outputs=played.invalid_outputs,
            timeout=played.timeout,
            error=played.error,
        )
