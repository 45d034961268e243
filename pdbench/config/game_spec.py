"""The game a condition plays and how long its matches last: payoffs, labels, noise, the
negotiation phase, fixed and geometric horizons (pydantic models, frozen after validation)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from pdbench.config.limits import MAX_EXPECTED_UNCAPPED_ROUNDS
from pdbench.config.names import name_problem
from pdbench.core.game import Game, label_preset
from pdbench.core.horizon import FixedHorizon, GeometricHorizon
from pdbench.core.payoff import PayoffMatrix
from pdbench.core.talk import PROMISE_PHRASES, Negotiation
from pdbench.games.registry import build_turn_game, game_family, game_id, rules_class_of
from pdbench.games.tables import DEFAULT_GAME, GAMES

if TYPE_CHECKING:
    from pdbench.games.base import TurnGame

from pdbench.config.frozen import Frozen

# A turn game's match ends by its rules; this caps it for safety (a pair of agents that never end
# a round), and a match that reaches it is stored as aborted, saying so.
DEFAULT_MAX_TURNS = 2_000

# --- game and horizon --------------------------------------------------------------------------


class NegotiationSpec(Frozen):
    """Cheap talk before every commit, as on AgentDuel: the two agents alternate messages, then
    both choose at the same time."""

    exchanges: int = Field(
        2, ge=1, description="exchanges per round; one exchange is a message from each side"
    )
    max_chars: int = Field(
        280, ge=1, description="characters per message; a longer one is cut and marked"
    )
    first_speaker: Literal["alternate", "a", "b"] = Field(
        "alternate",
        description="who opens each round's talk: alternate (A in round 1, B in round 2, ...), "
        "or always a, or always b",
    )
    message_timeout_s: float | None = Field(
        None,
        gt=0,
        description="seconds an arena agent gets per negotiate turn (AgentDuel: 15); null: its "
        "own timeout_s",
    )
    timeout_message: str = Field(
        "", description="what is said for an agent that did not answer a negotiate turn in time"
    )
    promise_phrases: tuple[str, ...] = Field(
        PROMISE_PHRASES,
        description="phrases that make a message a promise (whole words, any case), e.g. "
        '"I will split", "let\'s cooperate"; the talk metrics promise_share and '
        "promise_keeping count them",
    )

    def build(self) -> Negotiation:
        return Negotiation(**self.model_dump())


class GameSpec(Frozen):
    """A built-in game by id: a 2x2 matrix game, optionally with its payoffs or labels replaced and
    the noise it is played with, or a turn-based game (`pdbench.games`) with its variant's
    options and a turn cap."""

    id: str = Field(
        DEFAULT_GAME.id,
        description="a registered game's id (`pdbench list games`: the 2x2 games, the turn "
        "games and plugins' games); its platform spelling (an agent file's GAME) is read as the id",
    )
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="a turn game's variant (its rules' options, e.g. how many dice); omitted "
        "options keep the game's defaults (2x2 games have none)",
    )
    max_turns: int = Field(
        DEFAULT_MAX_TURNS,
        gt=0,
        description="turn games: the most turns a match may take (a safety cap: the rules end "
        "a match; one that reaches the cap is stored as aborted); 2x2 games: unused",
    )
    payoffs: dict[Literal["CC", "CD", "DC", "DD"], tuple[float, float]] | None = Field(
        None, description="payoff pairs (agent a, agent b) per outcome; default: the game's own"
    )
    labels: tuple[str, str] | None = Field(
        None,
        description="the words agents see for the cooperative and the defecting action, e.g. "
        "[J, F], or a preset: CD, JF, cooperate_defect, split_steal",
    )
    check_pd: bool | None = Field(
        None, description="check T > R > P > S and 2R > T + S; default: when the game is a PD"
    )
    description: str | None = None
    noise: float = Field(
        0.0,
        ge=0,
        le=1,
        description="trembling hand: the probability that an agent's intended action is flipped, "
        "each round and each side on its own seeded stream (0: never)",
    )
    negotiation: NegotiationSpec | None = Field(
        None,
        description="a negotiation phase before every commit (null: none, the classic games)",
    )

    @field_validator("id")
    @classmethod
    def _known_game(cls, value: str) -> str:
        from pdbench.core.errors import ConfigError

        try:
            return game_id(value)  # either spelling (id, platform's); else "did you mean"
        except ConfigError as error:
            raise ValueError(error.reason) from None

    @property
    def is_turn_game(self) -> bool:
        return game_family(self.id) == "turn"

    @model_validator(mode="after")
    def _settings_fit_the_family(self) -> GameSpec:
        if not self.is_turn_game:
            if self.options:
                first = sorted(self.options)[0]
                raise ValueError(f"options.{first}: the 2x2 game {self.id} has no options")
            return self
        matrix_only = {
            "payoffs": self.payoffs is not None,
            "labels": self.labels is not None,
            "check_pd": self.check_pd is not None,
            "negotiation": self.negotiation is not None,
            "noise": self.noise != 0,
        }
        for name, set_ in matrix_only.items():
            if set_:
                raise ValueError(f"{name}: only 2x2 games have it, {self.id} is turn-based")
        self.build_turn()  # the options, checked by the rules class
        return self

    def build_turn(self) -> TurnGame:
        """A turn game's rules for this variant; a bad option raises ValueError naming
        `options.<name>`."""
        import dataclasses

        from pdbench.games.registry import _resolve, turn_game_entry

        rules_class = _resolve(turn_game_entry(self.id).rules)
        fields = {f.name: f for f in dataclasses.fields(rules_class) if f.init}
        options = dict(self.options)
        for name, value in self.options.items():
            if name not in fields:
                from pdbench.core.errors import unknown_choice

                raise ValueError(f"options.{name}: " + unknown_choice("option", name, fields))
            default = fields[name].default
            declared = str(fields[name].type)  # e.g. "int | None", "tuple[int, int] | None"
            if value is None and "None" in declared:
                continue  # an optional option left unset
            if isinstance(value, list) and declared.startswith(("tuple", "tuple[")):
                value = options[name] = tuple(value)  # YAML has lists; the rules take tuples
            if default is None:
                continue  # no default to compare with: the rules check the value themselves
            if isinstance(default, float) and type(value) is int:
                value = options[name] = float(value)  # a whole number where a number is asked
            if isinstance(default, bool) != isinstance(value, bool) or not isinstance(
                value, type(default)
            ):
                raise ValueError(
                    f"options.{name}: must be {type(default).__name__} like the default "
                    f"{default!r}, got {value!r}"
                )
        try:
            return build_turn_game(self.id, **options)
        except ValueError as error:
            # the longest option the message starts with (talk_max_words, not talk)
            named = max((n for n in fields if str(error).startswith(n)), key=len, default=None)
            raise ValueError(f"options.{named or ''}: {error}") from None

    @field_validator("labels", mode="before")
    @classmethod
    def _preset_labels(cls, value: object) -> object:
        if isinstance(value, str):
            from pdbench.core.errors import ConfigError

            try:
                return label_preset(value)
            except ConfigError as error:
                raise ValueError(error.reason) from None
        return value

    @field_validator("labels")
    @classmethod
    def _readable_labels(cls, value: tuple[str, str] | None) -> tuple[str, str] | None:
        for label in value or ():
            problem = name_problem(label, "a label")
            if problem:
                raise ValueError(problem)
        if value is not None and value[0].casefold() == value[1].casefold():
            raise ValueError(f'the two action labels must differ, got "{value[0]}" twice')
        return value

    @field_validator("payoffs")
    @classmethod
    def _all_outcomes(cls, value):
        if value is not None and len(value) != 4:
            missing = sorted({"CC", "CD", "DC", "DD"} - set(value))
            raise ValueError(f"all four outcomes are needed, missing {', '.join(missing)}")
        return value

    def rules_builder(self, *, rounds_shown: bool) -> Callable[[int], TurnGame]:
        """The rules of this game's matches by their length: a turn game's variant whatever the
        length (`build_turn`: its rules end the match), a 2x2 game's rules class with the
        condition's table (`build`, made once), the match's rounds and the game's noise,
        telling the seats the length when `rounds_shown` (a fixed horizon)."""
        if self.is_turn_game:
            variant = self.build_turn()
            return lambda rounds: variant
        rules_class = rules_class_of(self.id)
        table, noise = self.build(), self.noise
        return lambda rounds: rules_class(
            game=table, rounds=rounds, noise=noise, rounds_shown=rounds_shown
        )

    def build(self) -> Game:
        """The engine's Game, with the PD inequalities checked when it claims to be one (2x2
        games only: a turn game's rules are `build_turn`)."""
        if self.is_turn_game:
            raise TypeError(f"{self.id} is a turn game: build_turn() builds its rules")
        base = GAMES[self.id]
        changes: dict[str, Any] = {}
        if self.payoffs is not None:
            changes["payoffs"] = PayoffMatrix.from_outcomes(
                self.payoffs["CC"], self.payoffs["CD"], self.payoffs["DC"], self.payoffs["DD"]
            )
        if self.labels is not None:
            changes["cooperate_label"], changes["defect_label"] = self.labels
        if self.check_pd is not None:
            changes["is_prisoners_dilemma"] = self.check_pd
        if self.description is not None:
            changes["description"] = self.description
        if self.negotiation is not None:
            changes["negotiation"] = self.negotiation.build()
        return base.with_changes(**changes)


class FixedHorizonSpec(Frozen):
    type: Literal["fixed"] = "fixed"
    rounds: int = Field(20, gt=0, description="number of rounds in every match")

    def build(self) -> FixedHorizon:
        return FixedHorizon(self.rounds)

    def planned_rounds(self) -> tuple[float, str]:
        """The rounds one match plays, and the field that decides it (for the size limits)."""
        return float(self.rounds), "horizon.rounds"


class GeometricHorizonSpec(Frozen):
    type: Literal["geometric"]
    # Before stop_prob, so that stop_prob's check sees it.
    max_rounds: int | None = Field(None, gt=0, description="hard cap on the length, if any")
    stop_prob: float = Field(gt=0, lt=1, description="probability the match ends after each round")

    @field_validator("stop_prob")
    @classmethod
    def _finite_expected_length(cls, value: float, info: ValidationInfo) -> float:
        expected = 1 / value
        if info.data.get("max_rounds") is None and expected > MAX_EXPECTED_UNCAPPED_ROUNDS:
            raise ValueError(
                f"{value} makes the expected match {expected:.3g} rounds long: set "
                "horizon.max_rounds to cap it, or a larger stop_prob"
            )
        return value

    def build(self) -> GeometricHorizon:
        return GeometricHorizon(self.stop_prob, self.max_rounds)

    def planned_rounds(self) -> tuple[float, str]:
        """The rounds one match plays on average (its cap, when lower), and the field that
        decides it (for the size limits)."""
        expected = 1 / self.stop_prob
        if self.max_rounds is not None and self.max_rounds < expected:
            return float(self.max_rounds), "horizon.max_rounds"
        return expected, "horizon.stop_prob"


HorizonSpec = Annotated[FixedHorizonSpec | GeometricHorizonSpec, Field(discriminator="type")]
