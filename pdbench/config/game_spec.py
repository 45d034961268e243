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
from pdbench.games.registry import (
    build_turn_game,
    game_entry,
    game_id,
    rules_class_of,
    seats_played,
)
from pdbench.games.tables import DEFAULT_GAME, GAMES

if TYPE_CHECKING:
    from pdbench.games.base import TurnGame
    from pdbench.games.entry import TurnGameEntry

from pdbench.config.frozen import Frozen

# A turn game's match ends by its rules; this caps it for safety (a pair of agents that never end
# a round), and a match that reaches it is stored as aborted, saying so.
DEFAULT_MAX_TURNS = 2_000

# The GameSpec fields setting each of the settings a game may take besides its options
# (`TurnGameEntry.settings`): one set for a game that does not take it is refused.
_SETTING_FIELDS = {
    "table": ("payoffs", "labels", "check_pd", "negotiation"),
    "noise": ("noise",),
}

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
    def entry(self) -> TurnGameEntry:
        """The game's registered entry: which settings it takes, whether the horizon sets its
        length, how a message names it."""
        return game_entry(self.id)

    @property
    def horizon_sets_length(self) -> bool:
        """Whether the condition's horizon sets how many rounds a match has (else the rules end
        a match, capped at `max_turns`): asked of the game's entry."""
        return self.entry.horizon_sets_length

    @model_validator(mode="after")
    def _settings_the_game_takes(self) -> GameSpec:
        entry = self.entry
        if self.options and "options" not in entry.settings:
            first = sorted(self.options)[0]
            raise ValueError(f"options.{first}: {entry.named} has no options")
        for setting, fields in _SETTING_FIELDS.items():
            for name in fields if setting not in entry.settings else ():
                if getattr(self, name) != type(self).model_fields[name].default:
                    raise ValueError(f"{name}: {entry.named} has no {name}")
        if "options" in entry.settings:
            self.build_turn()  # the options, checked by the rules class
        return self

    def seats(self) -> tuple[str, ...]:
        """The player seats ("a", "b", ...) this variant of the game plays: its options may set
        how many (`registry.seats_played`), its table and length never do."""
        return seats_played(self.id, self.build_turn())

    def build_turn(self) -> TurnGame:
        """The rules of this game's variant, from its options alone (the rules class's defaults
        for the rest: `rules_builder` gives a game the horizon's length and its table); a bad
        option raises ValueError naming `options.<name>`."""
        return self._built(self._checked_options())

    def _built(self, built_with: dict[str, Any]) -> TurnGame:
        """The rules class built with `built_with`; a ValueError it raises names the option."""
        fields = self._option_fields()
        try:
            return build_turn_game(self.id, **built_with)
        except ValueError as error:
            # the longest option the message starts with (talk_max_words, not talk)
            named = max((n for n in fields if str(error).startswith(n)), key=len, default=None)
            raise ValueError(f"options.{named or ''}: {error}") from None

    def _option_fields(self) -> dict[str, Any]:
        """The rules class's fields a condition's options may set, by name."""
        import dataclasses

        rules_class: Any = rules_class_of(self.id)  # a dataclass: its fields are the options
        return {f.name: f for f in dataclasses.fields(rules_class) if f.init}

    def _checked_options(self) -> dict[str, Any]:
        """The options as the rules class takes them (YAML's lists as tuples, a whole number
        where a float is asked); one the rules class has not, or of another type than its
        default, raises ValueError naming `options.<name>`."""
        fields = self._option_fields()
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
        return options

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
        """The rules of this game's matches by their length, built from the settings the game's
        entry says it takes: its variant's options (`build_turn`), its table as the condition
        changes it (`build`, made once) and its noise; given the match's rounds, and told them
        when `rounds_shown` (a fixed horizon), when the horizon sets the length; else one rules
        object whatever the length (the rules end the match)."""
        entry = self.entry
        built_with = self._checked_options() if "options" in entry.settings else {}
        if "table" in entry.settings:
            built_with["game"] = self.build()
        if "noise" in entry.settings:
            built_with["noise"] = self.noise
        if not entry.horizon_sets_length:
            variant = self._built(built_with)
            return lambda rounds: variant
        rules_class = rules_class_of(self.id)
        return lambda rounds: rules_class(**built_with, rounds=rounds, rounds_shown=rounds_shown)

    def build(self) -> Game:
        """The engine's Game, with the PD inequalities checked when it claims to be one (a game
        whose entry takes a table: the 2x2 games; others' rules are `build_turn`)."""
        if "table" not in self.entry.settings:
            raise TypeError(f"{self.id} takes no table: build_turn() builds its rules")
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
