"""Strict parsing of model answers: a label alone, or one JSON object; never prose."""

import pytest

from pdbench.core.actions import C, D
from pdbench.core.parse import ParsedAnswer, parse_answer

PD = ("C", "D")
SPLIT = ("split", "steal")


@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        ("C", PD, C),
        ("D", PD, D),
        ("c", PD, C),
        ("  D \n", PD, D),
        ("split", SPLIT, C),
        ("STEAL", SPLIT, D),
        ("\tSplit ", SPLIT, C),
    ],
)
def test_a_label_alone_is_valid(text, labels, expected):
    assert parse_answer(text, labels) == ParsedAnswer(valid=True, action=expected)


@pytest.mark.parametrize(
    "text",
    [
        "I will not defect",
        "I choose C",
        "C.",
        "C D",
        '"C"',
        "cooperate",
        "",
        "   ",
        '{"action": "C"}',
    ],
)
def test_anything_else_is_invalid(text):
    parsed = parse_answer(text, PD)
    assert not parsed.valid
    assert parsed.action is None
    assert parsed.error


def test_prose_containing_a_label_is_not_searched():
    parsed = parse_answer("I think I will split this time", SPLIT)
    assert not parsed.valid
    assert '"split" or "steal"' in parsed.error


def test_json_with_reason():
    parsed = parse_answer('{"action": "steal", "reason": "they stole last round"}', SPLIT, "json")
    assert parsed == ParsedAnswer(valid=True, action=D, reason="they stole last round")


def test_json_without_reason_and_with_spaces_and_case():
    parsed = parse_answer('  {"action":"Split"}\n', SPLIT, "json")
    assert parsed == ParsedAnswer(valid=True, action=C)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("split", "not a JSON object"),
        ('{"action": "split"', "not a JSON object"),
        ('```json\n{"action": "split"}\n```', "not a JSON object"),
        ('{"action": "split"} {"action": "steal"}', "not a JSON object"),
        ('["split"]', "must be a JSON object"),
        ('{"move": "split"}', "unexpected keys"),
        ('{"action": "split", "confidence": 0.9}', "unexpected keys"),
        ('{"action": 1}', '"action" must be'),
        ('{"action": "cooperate"}', 'got "cooperate"'),
        ('{"action": "split", "reason": 5}', '"reason" must be a string'),
    ],
)
def test_invalid_json(text, message):
    parsed = parse_answer(text, SPLIT, "json")
    assert not parsed.valid
    assert message in parsed.error


def test_unknown_format_is_a_bug():
    with pytest.raises(ValueError, match="unknown response format"):
        parse_answer("C", PD, "xml")
