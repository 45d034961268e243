"""Text from outside pdbench (an agent's prints and answers, a model's answer, a file's content)
made safe to show on a terminal: every character a terminal would act on instead of showing is
spelled out.

A terminal obeys what it is sent: ESC starts sequences that set the window title (OSC 0), write
the clipboard (OSC 52), hide a link behind text (OSC 8) or move the cursor; CR returns to column
0 and overwrites what was shown; BEL rings; C1 controls (U+0080-U+009F, e.g. CSI U+009B) act
like ESC sequences on some terminals; format characters (right-to-left overrides, zero-width
characters) reorder or hide text; a line or paragraph separator breaks a line. `visible` writes
each such character as its escape (`\\x1b`, `\\r`, `\\u202e`), so what the text says is shown and
nothing it does is done. Ordinary text in any script, accents and emoji stay as they are.

Backslashes are not doubled: the text `\\x1b` and an escaped ESC look alike, which costs only a
moment's doubt, never an action of the terminal.
"""

from __future__ import annotations

SPELLED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def visible(text: str) -> str:
    """`text` with every non-printable character (Python's `str.isprintable`: Unicode's
    "Other" and "Separator" categories except the space) written as its escape."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _spelled(char) for char in text)


def _spelled(char: str) -> str:
    if char in SPELLED:
        return SPELLED[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"
