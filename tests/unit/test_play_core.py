"""One match loop (issue 28): `strategies.play.play_rounds` plays every match's rounds, the
reference match's (tests/reference_loop.py, which adds waiting agents, negotiation, noise and
records; the runner plays 2x2 matches on the turn loop, held to it) and the policies' own `play_loop`
(which the conformance checker compares with the batch form)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import reference_loop as match
from reference_loop import play_match_sync

from pdbench.agents.policy import PolicyAgent
from pdbench.games.pd import TABLE as PD
from pdbench.strategies import make_policy
from pdbench.strategies import play as play_module
from pdbench.strategies.play import play_loop

PACKAGE = Path(__file__).resolve().parents[2] / "pdbench"


def test_a_round_is_played_in_one_place():
    """Only the match loop (and the numpy batch core beside it) turns two moves into a round.
    On the turn contract the 2x2 rules score a round as their own state (games/matrix/rules.py,
    held to the reference loop's rounds by tests/integration/test_matrix_equivalence.py); the
    one other module that builds a `PlayedRound` scores nothing, it rebuilds finished ones: a
    house player replaying the rounds it was shown to a classic strategy
    (games/matrix/house.py). The runner stores a 2x2 match from the rules' own rounds
    (games/matrix/records.py)."""
    built = [
        f"pdbench/{path.relative_to(PACKAGE).as_posix()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).as_posix() != "core/transcript.py"  # where it is defined
        for line in path.read_text().splitlines()
        if re.search(r"\bPlayedRound\(", line)
    ]
    rebuilt = ["pdbench/games/matrix/house.py"]
    assert built == [*rebuilt, "pdbench/strategies/play.py"], built


def test_the_runner_plays_its_rounds_through_the_one_loop(monkeypatch):
    calls = []
    original = play_module.play_rounds

    async def spy(*args, **kwargs):
        calls.append(args[1])
        return await original(*args, **kwargs)

    monkeypatch.setattr(match, "play_rounds", spy)
    result = play_match_sync(
        PD,
        5,
        PolicyAgent(make_policy("tft", PD)),
        PolicyAgent(make_policy("alld", PD)),
        seed_a=1,
        seed_b=2,
        disclose_rounds=False,
    )
    assert calls == [5]
    assert [r.played.action_a for r in result.rounds] == list("CDDDD")
    assert result.rounds[-1].cum_payoff_b == sum(r.played.payoff_b for r in result.rounds)


@pytest.mark.parametrize(("a", "b"), [("gtft", "random"), ("wsls", "tft")])
def test_the_runner_and_the_policies_loop_play_the_same_moves(a, b):
    seeds = {"seed_a": 11, "seed_b": 3}
    moves = play_loop(make_policy(a, PD), make_policy(b, PD), PD, 30, **seeds)
    result = play_match_sync(
        PD,
        30,
        PolicyAgent(make_policy(a, PD)),
        PolicyAgent(make_policy(b, PD)),
        disclose_rounds=False,
        **seeds,
    )
    assert moves.a == [r.played.action_a for r in result.rounds]
    assert moves.b == [r.played.action_b for r in result.rounds]
