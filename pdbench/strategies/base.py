"""What a policy is: the `Policy` contract, its typed parameters, and the registry by name.

A policy is a short class whose docstring names its source and its other names:

    @register_policy("tft")
    class TitForTat(Policy[NoParams]):
        '''Tit For Tat (Rapoport; "Tit For Tat" in Axelrod). ...'''

        stochastic = False

        def act(self, obs):
            return C if obs.last is None else obs.last.opponent_action

It declares:
- `params_model`: a frozen pydantic model of its parameters (`NoParams` when it has none);
  `make_policy` validates a config's `params` through it, so a misspelt or out-of-range parameter
  is an error that names it.
- `stochastic`: whether the strategy is random, as Axelrod classifies it. An instance may still be
  deterministic for some parameters (RANDOM(1) always cooperates): `is_stochastic` says so.
- `act(obs)`: its move, from the last round it sees (`history_window` 1). A policy that needs more
  memory keeps it on `self`, updated from `obs.last` on every call; `reset(seed)` clears it and
  seeds its own random stream, if it has one. The runner calls `act` once per round, in order.
- optionally a batch form, `reset_batch` + `act_batch`: the same rule over numpy arrays (True = C),
  playing many matches of one condition at once. `has_batch_form` tells the runner whether a
  class has one; a policy without it plays through the match loop.

`pdbench.strategies.check.check_policy` holds a policy to all of this.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, TypeVar, cast

import numpy as np
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    ValidationError,
    model_validator,
)

from pdbench.core.actions import Action
from pdbench.core.errors import ConfigError, did_you_mean, unknown_choice
from pdbench.core.game import Game
from pdbench.core.numbers import refuse_booleans_in_fields
from pdbench.core.rng import make_rng
from pdbench.core.transcript import Observation


class PolicyParams(BaseModel):
    """The base of every policy's parameter model: frozen, and an unknown name is an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _no_booleans_as_numbers(cls, data: Any) -> Any:
        return refuse_booleans_in_fields(cls, data)


class NoParams(PolicyParams):
    """The parameters of a policy that takes none."""


def _check_probability(value: float) -> float:
    if not 0 <= value <= 1:
        raise ValueError("must be between 0 and 1")
    return value


# A parameter that is a probability; out of range it fails with "must be between 0 and 1".
Probability = Annotated[float, AfterValidator(_check_probability)]


@dataclass(frozen=True, slots=True)
class LastRounds:
    """The previous round of every match in a batch, from the policy's own side."""

    own_coop: np.ndarray  # bool, True where the policy played C
    opponent_coop: np.ndarray
    own_payoff: np.ndarray  # float


@dataclass(frozen=True, slots=True)
class PolicyWarning:
    """A parameter whose value is legal but probably not what the config's author meant."""

    field: str  # the parameter, e.g. "generous_prob"
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


class Policy[ParamsT: PolicyParams]:
    """The base of every policy: see the module docstring for the contract."""

    policy_name: ClassVar[str] = "policy"  # set by @register_policy
    params_model: ClassVar[type[PolicyParams]] = NoParams
    stochastic: ClassVar[bool] = False
    # Set for every subclass by __init_subclass__: whether it defines its own batch form.
    has_batch_form: ClassVar[bool] = False
    # What the runner shows the policy (an `Agent`): the last round, no totals.
    history_window: int | None = 1
    include_totals: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.has_batch_form = _defines_batch_form(cls)

    def __init__(self, game: Game, params: ParamsT | None = None) -> None:
        self.game = game
        self.params: ParamsT = params if params is not None else cast(ParamsT, self.params_model())
        self.name = self.policy_name.upper()
        self.batch_size = 0
        # Called last: reset() may use game and params but nothing a subclass sets afterwards.
        self.reset()

    @property
    def is_stochastic(self) -> bool:
        """Whether this instance, with its parameters, plays randomly (RANDOM(1) does not)."""
        return self.stochastic

    @classmethod
    def warnings(cls, game: Game, params: PolicyParams) -> list[PolicyWarning]:
        """Legal parameters that probably do not mean what they say in this game (none here)."""
        return []

    def reset(self, seed: int | None = None) -> None:
        """Forget the previous match; `seed` feeds the policy's own random stream, if any."""

    def act(self, obs: Observation) -> Action:
        raise NotImplementedError(f"{type(self).__name__} does not define act")

    def reset_batch(self, seeds: Sequence[int], n_rounds: int) -> None:
        """Start len(seeds) matches of at most n_rounds rounds each (match i seeded seeds[i])."""
        self.batch_size = len(seeds)

    def act_batch(self, round_index: int, last: LastRounds | None) -> np.ndarray:
        """Moves of every match in the batch for `round_index` (True = C); `last` is None in
        round 1. Called once per round, in order, after `reset_batch`."""
        raise NotImplementedError(f"{type(self).__name__} has no batch form")


def _owner(cls: type, attribute: str) -> type:
    return next(klass for klass in cls.__mro__ if attribute in vars(klass))


def _defines_batch_form(cls: type[Policy]) -> bool:
    """True when `act_batch` is defined by the class that defines `act` or by a subclass of it:
    a subclass that changes `act` but inherits `act_batch` would play two different rules."""
    batch_owner = _owner(cls, "act_batch")
    return batch_owner is not Policy and issubclass(batch_owner, _owner(cls, "act"))


class DrawsEachRound[ParamsT: PolicyParams](Policy[ParamsT]):
    """A policy with its own seeded stream that draws one uniform number per round, whether or
    not the round needs it: round n always uses the n-th draw, so the loop and batch forms (and
    every condition with the same seeds) see the same numbers."""

    def reset(self, seed: int | None = None) -> None:
        self.rng: np.random.Generator = make_rng(0 if seed is None else seed)

    def draw(self) -> float:
        """This round's uniform number in [0, 1)."""
        return float(self.rng.random())

    def reset_batch(self, seeds: Sequence[int], n_rounds: int) -> None:
        super().reset_batch(seeds, n_rounds)
        # Row i holds match i's draws: the same numbers `draw` returns, one per round.
        self.batch_draws = np.stack([make_rng(seed).random(n_rounds) for seed in seeds])

    def batch_draw(self, round_index: int) -> np.ndarray:
        """Round `round_index`'s uniform number of every match in the batch."""
        return self.batch_draws[:, round_index - 1]


# --- the registry -------------------------------------------------------------------------------

POLICIES: dict[str, type[Policy[Any]]] = {}

PolicyClass = TypeVar("PolicyClass", bound=type[Policy[Any]])


def register_policy(name: str) -> Callable[[PolicyClass], PolicyClass]:
    """Class decorator: make the policy available to configs under `name`."""

    def register(cls: PolicyClass) -> PolicyClass:
        if name in POLICIES and POLICIES[name] is not cls:
            raise ValueError(f'policy "{name}" is already registered by {POLICIES[name].__name__}')
        cls.policy_name = name
        POLICIES[name] = cls
        return cls

    return register


def policy_class(name: str) -> type[Policy[Any]]:
    """The registered policy called `name`; a miss says which name was probably meant."""
    try:
        return POLICIES[name]
    except KeyError:
        raise ConfigError(unknown_choice("policy", name, POLICIES), field="policy") from None


def policy_has_batch_form(name: str) -> bool:
    """Whether the registered policy `name` can be played by the numpy batch path."""
    return policy_class(name).has_batch_form


def unknown_parameter_message(cls: type[Policy[Any]], name: str) -> str:
    accepted = list(cls.params_model.model_fields)
    takes = ", ".join(accepted) if accepted else "no parameters"
    return (
        f'unknown parameter "{name}" for {cls.policy_name}{did_you_mean(name, accepted)}; '
        f"it takes {takes}"
    )


def validate_params(
    cls: type[Policy[Any]], params: Mapping[str, Any] | PolicyParams | None
) -> PolicyParams:
    """`params` checked against the policy's model; a problem is a ConfigError naming the
    parameter."""
    if isinstance(params, cls.params_model):
        return params
    if isinstance(params, PolicyParams):
        raise ConfigError(
            f"{cls.policy_name} takes {cls.params_model.__name__}, not {type(params).__name__}",
            field="params",
        )
    given = dict(params or {})
    for name in given:
        if name not in cls.params_model.model_fields:
            raise ConfigError(unknown_parameter_message(cls, name), field=name)
    try:
        return cls.params_model.model_validate(given)
    except ValidationError as error:
        field, message = describe_params_error(error)
        raise ConfigError(message, field=field) from None


def describe_params_error(error: ValidationError) -> tuple[str, str]:
    """The first problem of a params ValidationError as (parameter, message)."""
    problem = error.errors()[0]
    field = ".".join(str(part) for part in problem["loc"]) or "params"
    message = problem["msg"].removeprefix("Value error, ")
    if "input" in problem and not isinstance(problem["input"], dict | list):
        message += f" (got {problem['input']!r})"
    return field, message


def build_policy(
    cls: type[Policy[Any]], game: Game, params: Mapping[str, Any] | PolicyParams | None = None
) -> Policy[Any]:
    """An instance of a policy class (registered or not) for a game, with validated params."""
    return cls(game, validate_params(cls, params))


def make_policy(
    name: str, game: Game, params: Mapping[str, Any] | PolicyParams | None = None
) -> Policy[Any]:
    """Instantiate a registered policy for a game with its parameters."""
    return build_policy(policy_class(name), game, params)


def policy_warnings(
    name: str, game: Game, params: Mapping[str, Any] | PolicyParams | None = None
) -> list[PolicyWarning]:
    """Warnings about legal parameters that probably do not mean what they say in this game,
    such as GTFT's default generosity turning it into ALLC in the stag hunt."""
    cls = policy_class(name)
    return cls.warnings(game, validate_params(cls, params))
