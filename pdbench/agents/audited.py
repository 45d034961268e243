"""A Keeper with an audit (issue 30, `keeper_audit`): every question the Keeper answers is put,
with the same request (so an LLM audit reads the same Keeper prompt), to the audit agent too. The
Keeper's answer is played; the audit's is stored with the turn, never played: the action gets
`audit` (the audit's text, None when it gave no legal answer), and the turn's attempts hold the
Keeper's calls then the audit's (each through the gateway: cached, counted in spend).
`pdbench.analysis.judging.stored.keeper_audit_pairs` reads the pairs back."""

from __future__ import annotations

import asyncio

from pdbench.agents.base import AgentBase, MatchInfo, TurnDecision, TurnRequest


class AuditedKeeper(AgentBase):
    def __init__(self, keeper: AgentBase, audit: AgentBase) -> None:
        self.keeper = keeper
        self.audit = audit
        self.name = keeper.name

    def reset(self, seed: int | None = None) -> None:
        self.keeper.reset(seed)
        self.audit.reset(seed)

    def start_match(self, info: MatchInfo) -> None:
        self.keeper.start_match(info)
        self.audit.start_match(info)

    def close(self) -> None:
        self.keeper.close()
        self.audit.close()

    def stop_now(self) -> None:
        self.keeper.stop_now()
        self.audit.stop_now()

    async def take_turn(self, request: TurnRequest) -> TurnDecision:
        played, audited = await asyncio.gather(
            self.keeper.take_turn(request), self.audit.take_turn(request)
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
