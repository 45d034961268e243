"""Actions and the small value types that every other part passes around."""

from __future__ import annotations

from enum import StrEnum

from pdbench.core.errors import InvalidActionError


class Action(StrEnum):
    """The two moves of a 2x2 social dilemma, always stored as C and D.

    A game may *show* other labels to agents (split/steal, stag/hare); the engine and every artifact
    only ever use C (the cooperative move) and D.
    """

    C = "C"
    D = "D"

    @classmethod
    def parse(cls, value: object) -> Action:
        """Accept an Action or the exact strings "C"/"D"; anything else is an error."""
        if isinstance(value, Action):
            return value
        if value == "C":
            return cls.C
        if value == "D":
            return cls.D
        raise InvalidActionError(f'an action must be "C" or "D", got {value!r}')

    @property
    def flipped(self) -> Action:
        return Action.D if self is Action.C else Action.C


C = Action.C
D = Action.D
