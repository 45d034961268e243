"""The panel's majority (pdbench.agents.panel): the most named side; invalid verdicts (None) left
out; a tie they leave goes to the earliest listed judge among the tied; none valid: no verdict."""

from __future__ import annotations

import asyncio

import pytest

from pdbench.agents.base import AgentBase, MatchInfo, TurnDecision, TurnRequest
from pdbench.agents.panel import Panel, majority
from pdbench.games.roles import PanelVote


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        (["for", "against", "for"], "for"),
        (["against", "for", "for"], "for"),
        (["against", "against", "for"], "against"),
        ([None, "against", "for"], "against"),  # tie left by an invalid chair: next listed
        (["for", None, "against"], "for"),  # tie: the chair's side
        (["for", None, None], "for"),
        ([None, None, None], None),
        (["UCLA", "Ohio State", "Ohio State", "UCLA", "UCLA"], "UCLA"),
    ],
)
def test_the_majority_verdict_and_its_documented_ties(verdicts, expected):
    assert majority(verdicts) == expected


class _Says(AgentBase):
    """A member that answers every turn with one fixed action."""

    def __init__(self, action: dict | None) -> None:
        self.action = action
        self.name = "SAYS"

    async def take_turn(self, request: TurnRequest) -> TurnDecision:
        return TurnDecision(action=self.action)


def _request(kind: str) -> TurnRequest:
    legal = {"left", "right"}
    return TurnRequest(
        game="made-up",
        seat="referee",
        round_state={"request": kind},
        check=lambda action: None if action.get("choice") in legal else "choose left or right",
    )


def test_a_panel_votes_as_its_role_declares_not_as_a_debate_judge_does():
    """The panel knows no game: the role it plays declares at which request its members vote,
    the field they vote on, the action the majority's verdict is, and the key each member is
    stored under (here a made-up referee role; the debates' judge declares their own)."""
    vote = PanelVote(request="call", action_type="call", verdict="choice", member="referee")
    members = [
        _Says({"type": "call", "choice": "left"}),
        _Says({"type": "call", "choice": "up"}),  # illegal: left out of the count
        _Says({"type": "call", "choice": "right"}),
    ]
    panel = Panel(members, ["R1", "R2", "R3"], vote)
    decided = asyncio.run(panel.take_turn(_request("call")))
    assert decided.action == {
        "type": "call",
        "choice": "left",  # the tie the invalid member leaves goes to the chair
        "panel": [
            {"referee": "R1", "choice": "left"},
            {"referee": "R2", "choice": None},
            {"referee": "R3", "choice": "right"},
        ],
    }
    # between votes, the chair answers alone
    between = asyncio.run(panel.take_turn(_request("question")))
    assert between.action == {"type": "call", "choice": "left"}


def test_the_debates_judge_declares_the_vote_its_stored_records_hold():
    """Stored debate verdicts name each member under "judge" and vote on "winner" (the first
    panels' records, read back by the debate's measures and transcript)."""
    from pdbench.games.registry import game_roles

    (judge,) = (role for role in game_roles("nuclear_war") if role.panel)
    assert judge.panel == PanelVote(
        request="decision", action_type="decision", verdict="winner", member="judge"
    )


class _Remembers(_Says):
    """A member that waits on something outside the process and remembers what it was told."""

    waits = True

    def __init__(self, action: dict | None) -> None:
        super().__init__(action)
        self.told: list[MatchInfo] = []

    def start_match(self, info: MatchInfo) -> None:
        self.told.append(info)


def test_a_panel_tells_every_member_the_match_and_waits_when_one_does():
    """Each member is an agent of its own (an arena file's on_match_start, an LLM's calls): the
    panel passes the match's start to all of them, and the turn loop awaits it as it would
    await a member that waits on a provider or a process."""
    members = [_Remembers(None), _Says(None), _Remembers(None)]
    panel = Panel(members, ["R1", "R2", "R3"], PanelVote("call", "call", "choice", "referee"))
    info = MatchInfo(opponent_name="A, B", total_rounds=None)
    panel.start_match(info)
    assert members[0].told == members[2].told == [info]
    assert panel.waits
    assert not Panel([_Says(None)] * 3, ["R1", "R2", "R3"], panel.vote).waits


def test_an_audited_seat_waits_when_either_of_its_agents_does():
    from pdbench.agents.audited import Audited

    assert Audited(_Says(None), _Remembers(None)).waits
    assert Audited(_Remembers(None), _Says(None)).waits
    assert not Audited(_Says(None), _Says(None)).waits
