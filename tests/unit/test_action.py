"""Action: exactly C and D, and a clear error for anything else."""

import pytest

from pdbench.core.actions import Action, C, D
from pdbench.core.errors import InvalidActionError, PdbenchError


@pytest.mark.parametrize(("value", "expected"), [("C", C), ("D", D), (C, C), (D, D)])
def test_parse_accepts_c_and_d(value, expected):
    assert Action.parse(value) is expected


@pytest.mark.parametrize("value", ["c", "d", "X", "", " C", "CD", "cooperate", None, 1, 0, True])
def test_parse_rejects_anything_else_and_names_the_value(value):
    with pytest.raises(InvalidActionError) as raised:
        Action.parse(value)
    assert repr(value) in str(raised.value)
    assert '"C" or "D"' in str(raised.value)


def test_invalid_action_is_a_pdbench_error():
    assert issubclass(InvalidActionError, PdbenchError)


def test_actions_are_stored_as_their_letters():
    assert [str(C), str(D)] == ["C", "D"]
    assert [C.value, D.value] == ["C", "D"]


def test_flipped():
    assert C.flipped is D
    assert D.flipped is C
