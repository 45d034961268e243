"""The Keeper audit pairs read back from stored rounds (pdbench.games.passcode.measures)."""

from __future__ import annotations

import asyncio

import orjson

from pdbench.agents.audited import Audited
from pdbench.agents.base import AgentBase, TurnDecision, TurnRequest
from pdbench.games.passcode.measures import keeper_audit_pairs, keeper_audit_report


def line(condition: str, actions: dict) -> bytes:
    return orjson.dumps({"game": "passcode", "condition": condition, "actions": actions}) + b"\n"


def test_an_answer_the_audit_gave_nothing_legal_to_is_left_out_and_said(tmp_path):
    (tmp_path / "rounds.jsonl").write_bytes(
        line("c", {"keeper:a": {"type": "answer", "text": "Yes.", "audit": "No."},
                   "keeper:b": {"type": "answer", "text": "Yes.", "audit": None}})
        + line("c", {"a": {"type": "pass"}, "b": {"type": "pass"}})
        + line("plain", {"keeper:a": {"type": "answer", "text": "No."}})
    )  # fmt: skip
    pairs = keeper_audit_pairs(tmp_path / "rounds.jsonl")
    assert list(pairs) == ["c"] and len(pairs["c"]) == 2  # no audit: no pairs
    (report,) = keeper_audit_report(tmp_path)["c"]
    assert report.startswith("Keeper audit: disagreement 100.0 % (1/1;")
    assert "(1 answers the audit gave no legal answer to, left out)" in report


class Says(AgentBase):
    def __init__(self, text: str | None) -> None:
        self.text = text
        self.name = f"SAYS({text})"

    async def take_turn(self, request: TurnRequest) -> TurnDecision:
        action = None if self.text is None else {"type": "answer", "text": self.text}
        return TurnDecision(action=action)


def ask(agent: AgentBase) -> TurnDecision:
    request = TurnRequest(game="passcode", seat="keeper:a", round_state={}, check=lambda a: None)
    return asyncio.run(agent.take_turn(request))


def test_the_keeper_answer_is_played_and_the_audit_only_rides_along():
    assert ask(Audited(Says("Yes."), Says("No."))).action == {
        "type": "answer", "text": "Yes.", "audit": "No."
    }  # fmt: skip
    assert ask(Audited(Says("Yes."), Says(None))).action == {
        "type": "answer", "text": "Yes.", "audit": None
    }  # fmt: skip
    assert ask(Audited(Says(None), Says("No."))).action is None  # the Keeper's fallback
