"""The panel's majority (pdbench.agents.panel): the most named side; invalid verdicts (None) left
out; a tie they leave goes to the earliest listed judge among the tied; none valid: no verdict."""

from __future__ import annotations

import pytest

from pdbench.agents.panel import majority


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
