"""A 2x2 game as data: an id, a payoff matrix, the labels agents see, and what kind of dilemma
it is; and the named pairs of action words a config may give.

Each 2x2 game's table is a `Game` in its own package (`pdbench.games.<id>`), gathered from the
registered entries by `pdbench.games.tables` (`GAMES`, `get_game`, `DEFAULT_GAME`). A condition
may replace payoffs or labels of any of them; `Game.with_changes` keeps the invariants checked.
A game may be asymmetric (the battle of the sexes): `Game.seen_by(side)` is the game from one
side's point of view, the form every agent is given, so an agent's "own" payoffs are always its
own.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from pdbench.core.actions import Action
from pdbench.core.errors import ConfigError, InvalidActionError, unknown_choice
from pdbench.core.payoff import PayoffMatrix
from pdbench.core.talk import Negotiation


@dataclass(frozen=True, slots=True)
class Game:
    """A 2x2 game. Agents see `labels`; storage always records C/D (C: the first action)."""

    id: str
    arena_id: str  # the id AgentDuel-style agent files declare in their GAME attribute
    description: str
    payoffs: PayoffMatrix
    cooperate_label: str = "C"
    defect_label: str = "D"
    is_prisoners_dilemma: bool = True
    pot: float | None = None  # a game played for a pot (split or steal): the stake each round
    negotiation: Negotiation | None = None  # talk before every commit (None: none)
    # What `pdbench ladder` ranks this game's agents on by default: "payoff" (the payoff an agent
    # earns, as Axelrod's tournaments score the dilemmas: a game that is not zero-sum rewards
    # earning together) or "wins" (who beat whom, as a contest such as AgentDuel's ranks).
    ranked_on: Literal["wins", "payoff"] = "payoff"

    def __post_init__(self) -> None:
        if self.cooperate_label.casefold() == self.defect_label.casefold():
            raise ConfigError(
                f'the two action labels must differ, got "{self.cooperate_label}" twice',
                field="game.labels",
            )
        if self.is_prisoners_dilemma:
            self.payoffs.check_prisoners_dilemma()

    @property
    def labels(self) -> tuple[str, str]:
        return (self.cooperate_label, self.defect_label)

    def label(self, action: Action) -> str:
        """The word agents see for an action."""
        return self.cooperate_label if action is Action.C else self.defect_label

    def action_for_label(self, label: str) -> Action:
        """Inverse of `label`, case-insensitive and whitespace-trimmed; strict otherwise."""
        word = label.strip().casefold()
        if word == self.cooperate_label.casefold():
            return Action.C
        if word == self.defect_label.casefold():
            return Action.D
        raise InvalidActionError(
            f'"{label}" is not one of this game\'s actions ({self.cooperate_label}, '
            f"{self.defect_label})"
        )

    def with_changes(self, **changes) -> Game:
        return replace(self, **changes)

    def seen_by(self, side: str) -> Game:
        """The game from side "a"'s or "b"'s point of view, that side as the row player (the
        same game unless the payoffs are asymmetric)."""
        payoffs = self.payoffs.seen_by(side)
        return self if payoffs is self.payoffs else replace(self, payoffs=payoffs)


# Named pairs of action words a config may give as `game.labels: JF` (cooperative word first).
LABEL_PRESETS: dict[str, tuple[str, str]] = {
    "CD": ("C", "D"),
    "JF": ("J", "F"),  # Akata et al. 2025's neutral option names
    "cooperate_defect": ("Cooperate", "Defect"),  # Fontana et al. 2025
    "split_steal": ("split", "steal"),
}


def label_preset(name: str) -> tuple[str, str]:
    try:
        return LABEL_PRESETS[name]
    except KeyError:
        raise ConfigError(
            unknown_choice("label preset", name, LABEL_PRESETS)
            + "; or give the two words, e.g. [J, F]",
            field="game.labels",
        ) from None
