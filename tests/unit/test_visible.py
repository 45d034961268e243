"""pdbench.core.visible: what a terminal would act on is spelled out, ordinary text is kept."""

from __future__ import annotations

import pytest

from pdbench.cli import exits
from pdbench.core.visible import visible


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),  # OSC 0: the window title, BEL-terminated
        ("\x1b]52;c;eA==\x1b\\", "\\x1b]52;c;eA==\\x1b\\"),  # OSC 52: a clipboard write
        ("a\rb\nc\td", "a\\rb\\nc\\td"),
        ("\x9b31m", "\\x9b31m"),  # C1 CSI
        ("\u202eabc\u200b\u2028", "\\u202eabc\\u200b\\u2028"),  # bidi override, zero width, LS
        ("\ud800", "\\ud800"),  # a lone surrogate (cannot even be encoded)
        ("\U000e0041", "\\U000e0041"),  # a tag character
        ("café 日本 🎲 x \\x1b", "café 日本 🎲 x \\x1b"),  # kept as it is
    ],
)
def test_control_characters_are_spelled_out_and_text_is_kept(text, shown):
    assert visible(text) == shown
    assert visible(shown) == shown  # spelling out twice changes nothing


def test_error_lines_spell_out_what_they_quote(capsys):
    exits.say('error: Agent.GAME is "\x1b]52;c;eA==\x07"')
    assert capsys.readouterr().err == 'error: Agent.GAME is "\\x1b]52;c;eA==\\x07"\n'
