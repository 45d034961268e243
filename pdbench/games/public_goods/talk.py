"""What counts as a stated contribution in a message (the talk-to-contribution consistency
measure reads messages with it; the house players speak so that it finds their amounts).

A statement is a first-person commitment to contribute an amount, matched case-insensitively:

    I [will | 'll | shall | am going to | 'm going to | plan to | intend to] (contribute | put in | give | invest) AMOUNT
    I'm / I am (contributing | putting in | giving | investing) AMOUNT

AMOUNT is a whole number, optionally after "$" (pgg_bench's players write "$10"), or a word:
"nothing" / "zero" (0), or "everything" / "all" / "fully" / "in full" / "my (whole | entire |
full) (endowment | amount)" / "the (whole | full) amount" (the endowment the round_state shows:
E, or the speaker's balance under balance accounting). The first
statement in a message counts; a message without one states nothing. Negations ("I will not
contribute 10", "I won't give 10") are not statements: the verb must follow the subject and
its auxiliary directly. Typographic apostrophes read as plain ones.
"""

from __future__ import annotations

import re

_AUXILIARY = r"(?:\s+will|'ll|\s+shall|(?:\s+am|'m)\s+going\s+to|\s+plan\s+to|\s+intend\s+to)?"
_VERB = r"(?:contribute|put\s+in|give|invest)"
_PROGRESSIVE = r"(?:'m|\s+am)\s+(?:contributing|putting\s+in|giving|investing)"
_EVERYTHING = (
    r"everything|all|fully|in\s+full|my\s+(?:whole|entire|full)\s+(?:endowment|amount)"
    r"|the\s+(?:whole|full)\s+amount"
)
_AMOUNT = rf"(?:\$\s*)?(?P<number>\d+)|(?P<none>nothing|zero)\b|(?P<all>{_EVERYTHING})\b"
STATEMENT = re.compile(
    rf"\bI(?:{_AUXILIARY}\s+{_VERB}|{_PROGRESSIVE})\s+(?:{_AMOUNT})", re.IGNORECASE
)


def stated_amount(text: str, endowment: int | float) -> int | None:
    """The contribution a message states (module docstring), or None."""
    found = STATEMENT.search(text.replace("\u2019", "'"))
    if found is None:
        return None
    if found.group("number") is not None:
        return int(found.group("number"))
    if found.group("none") is not None:
        return 0
    return int(endowment)
