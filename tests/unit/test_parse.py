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
        # issue 27: json.loads keeps the last value, which was stored as a valid "split"
        ('{"action": "steal", "action": "split"}', '"action" appears twice'),
        ('{"action": "split", "reason": "a", "reason": "b"}', '"reason" appears twice'),
    ],
)
def test_invalid_json(text, message):
    parsed = parse_answer(text, SPLIT, "json")
    assert not parsed.valid
    assert message in parsed.error


def test_unknown_format_is_a_bug():
    with pytest.raises(ValueError, match="unknown response format"):
        parse_answer("C", PD, "xml")


# --- reasoning first, the action on the last line (Payne and Alloui-Cros 2025) -----------------


@pytest.mark.parametrize(
    ("text", "expected", "reasoning"),
    [
        (
            "They cooperated last round.\nSo I will too.\nC",
            C,
            "They cooperated last round.\nSo I will too.",
        ),
        ("Defecting protects me.\n\n  d  \n\n", D, "Defecting protects me."),
        ("C", C, None),  # no reasoning is still a valid move
        # only the last line counts: a move named in the reasoning is never read
        ("I should defect, D is best.\nC", C, "I should defect, D is best."),
    ],
)
def test_reasoning_answers_are_read_from_their_last_line_only(text, expected, reasoning):
    assert parse_answer(text, PD, "reasoning") == ParsedAnswer(
        valid=True, action=expected, reasoning=reasoning
    )


@pytest.mark.parametrize(
    "text",
    [
        "I will cooperate.\nI choose C.",  # a sentence, not the label alone
        "C\nbecause they cooperated",  # the move first, reasoning after
        "Final answer: D",
        "",
        "   \n  ",
    ],
)
def test_a_reasoning_answer_whose_last_line_is_not_a_label_is_invalid(text):
    parsed = parse_answer(text, PD, "reasoning")
    assert not parsed.valid and parsed.action is None
    assert '"C" or "D"' in (parsed.error or "")


def test_an_invalid_reasoning_answer_keeps_its_reasoning():
    parsed = parse_answer("Hard to say.\nMaybe C?", SPLIT, "reasoning")
    assert parsed.reasoning == "Hard to say."
    assert parsed.error == 'the last line must be exactly "split" or "steal" and nothing else'
