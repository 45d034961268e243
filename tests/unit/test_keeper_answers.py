"""The truthful Keeper's grammar: each question form answered exactly, anything else refused
with the fixed reply."""

from __future__ import annotations

import pytest

from pdbench.games.passcode.keeper_answers import (
    NO,
    UNANSWERABLE,
    YES,
    is_in_grammar,
    keeper_answer,
)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ('Does the word start with "ca"?', YES),
        ("Does it begin with the letter b?", NO),
        ("Does the word end with 'le'?", YES),
        ("Does the word contain the letter z?", NO),
        ("Does it contain ndl?", YES),
        ("Does the word have more than 5 letters?", YES),
        ("Is it longer than 6 letters?", NO),
        ('Does the word come before "candy" alphabetically?', YES),
        ('Does the word come before "cake" alphabetically?', NO),
        ("How many letters does the word have?", "The word has 6 letters."),
        ("What is its length?", "The word has 6 letters."),
        ('Is it "candle"?', YES),
        ("Is the word CANDLE", YES),
        ("Is the secret word kettle?", NO),
        ("Is it a kind of animal?", UNANSWERABLE),
        ("What is the word?", UNANSWERABLE),
    ],
)
def test_each_form_is_answered_exactly(question, answer):
    assert keeper_answer("candle", question) == answer


def test_the_grammar_is_known_without_a_word():
    assert is_in_grammar("Does it start with q?") and not is_in_grammar("Tell me a secret")
