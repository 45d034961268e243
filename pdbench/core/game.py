"""Games as data: an id, a payoff matrix, the labels agents see, and what kind of dilemma it is.

The registry below is the built-in catalogue. A condition may replace payoffs or labels of any of
them; `Game.with_changes` keeps the invariants checked. A game may be asymmetric (the battle of
the sexes): `Game.seen_by(side)` is the game from one side's point of view, the form every agent
is given, so an agent's "own" payoffs are always its own.
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


PD = Game(
    id="pd",
    arena_id="prisoners-dilemma",
    description="Prisoner's dilemma: T=5 > R=3 > P=1 > S=0",
    payoffs=PayoffMatrix(reward=3, sucker=0, temptation=5, punishment=1),
)

STAG_HUNT = Game(
    id="stag_hunt",
    arena_id="stag-hunt",
    description="Stag hunt: cooperation pays most but only if both hunt the stag (R=4 > T=3 >= P=2 > S=0)",
    payoffs=PayoffMatrix(reward=4, sucker=0, temptation=3, punishment=2),
    cooperate_label="stag",
    defect_label="hare",
    is_prisoners_dilemma=False,
)

CHICKEN = Game(
    id="chicken",
    arena_id="chicken",
    description="Chicken (hawk-dove): mutual defection is the worst outcome (T=5 > R=3 > S=1 > P=0)",
    payoffs=PayoffMatrix(reward=3, sucker=1, temptation=5, punishment=0),
    cooperate_label="swerve",
    defect_label="straight",
    is_prisoners_dilemma=False,
)

SPLIT_OR_STEAL = Game(
    id="split_or_steal",
    arena_id="split-or-steal",
    description="Split or steal (AgentDuel rules): pot of 100, split 50/50, a lone stealer takes all",
    payoffs=PayoffMatrix(reward=50, sucker=0, temptation=100, punishment=0),
    cooperate_label="split",
    defect_label="steal",
    # P == S: a weak prisoner's dilemma, so the strict inequalities do not hold.
    is_prisoners_dilemma=False,
    pot=100,
    ranked_on="wins",  # an AgentDuel contest: the higher total wins the match, a tie is a draw
)

BATTLE_OF_THE_SEXES = Game(
    id="battle_of_the_sexes",
    arena_id="battle-of-the-sexes",
    description="Battle of the sexes (Akata et al. 2025's payoffs): both gain by matching, but "
    "agent a prefers J/J (10/7) and agent b F/F (7/10); a mismatch pays 0/0",
    payoffs=PayoffMatrix.from_outcomes((10, 7), (0, 0), (0, 0), (7, 10)),
    cooperate_label="J",
    defect_label="F",
    # A coordination game: "C" is only the first action, cooperation has no meaning here.
    is_prisoners_dilemma=False,
)

GAMES: dict[str, Game] = {
    game.id: game for game in (PD, STAG_HUNT, CHICKEN, SPLIT_OR_STEAL, BATTLE_OF_THE_SEXES)
}
# The game a config that names none plays, and a prompt check renders its templates with.
DEFAULT_GAME: Game = PD


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


def get_game(game_id: str) -> Game:
    try:
        return GAMES[game_id]
    except KeyError:
        raise ConfigError(unknown_choice("game", game_id, GAMES), field="game.id") from None
