"""The validated experiment: pydantic v2 models, frozen after validation.

Both front doors (the experiment file and Hydra composition, see `pdbench.config`) end here: a
`ExperimentSpec` with a list of fully resolved conditions. Every model forbids unknown fields so a
typo is an error that names the field, never a silently ignored setting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from pdbench.config.agent_spec import AgentSpec, AgentSpecBase
from pdbench.config.arena_agent_spec import ArenaAgentSpec
from pdbench.config.frozen import Frozen
from pdbench.config.game_spec import (
    FixedHorizonSpec,
    GameSpec,
    GeometricHorizonSpec,
    HorizonSpec,
    NegotiationSpec,
)
from pdbench.config.limits import PlannedCondition, check_size
from pdbench.config.llm_agent_spec import DEFAULT_MAX_TOKENS, LLMAgentSpec
from pdbench.config.names import name_problem
from pdbench.config.policy_agent_spec import PolicyAgentSpec
from pdbench.config.population import (
    PopulationEntry,
    check_population,
    fill_seats,
    population_players,
    seat_entry_field,
)
from pdbench.config.provider_spec import MockBehaviour, ProviderSpec
from pdbench.config.role_fields import check_roles, with_role_fields
from pdbench.config.run_spec import CacheSpec, RunSpec
from pdbench.games.base import SEAT_LETTERS

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "AgentSpec",
    "ArenaAgentSpec",
    "CacheSpec",
    "CollapseSpec",
    "ConditionSpec",
    "ExperimentSpec",
    "FixedHorizonSpec",
    "Frozen",
    "GameSpec",
    "GeometricHorizonSpec",
    "HorizonSpec",
    "LLMAgentSpec",
    "MetricsSpec",
    "MockBehaviour",
    "NegotiationSpec",
    "PolicyAgentSpec",
    "ProviderSpec",
    "RunSpec",
]


# --- run, metrics, conditions ------------------------------------------------------------------


class CollapseSpec(Frozen):
    k: int = Field(10, gt=0, description="rounds in the window that must have collapsed")
    threshold: float = Field(0.2, ge=0, le=1, description="max cooperation rate in that window")


class MetricsSpec(Frozen):
    """How the metrics are computed (every metric of the catalogue is always computed)."""

    collapse: CollapseSpec = CollapseSpec()


def _unbound(value: object) -> bool:
    return value is None


class ConditionFields(Frozen):
    """One cell of the grid: a game, a horizon, an agent for every player seat, and an agent (or
    a panel) for each third role of the game. `ConditionSpec` is this model with the third
    roles' fields (`pdbench.config.role_fields`)."""

    name: str = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _readable_name(cls, value: str) -> str:
        problem = name_problem(value, "the name")
        if problem:
            raise ValueError(problem)
        return value

    factors: dict[str, str] = Field(
        default_factory=dict,
        description="what sets this condition apart in a grid, e.g. {persona: cooperative}; "
        "a Hydra sweep fills it from the swept keys, an experiment file may declare it",
    )
    game: GameSpec = GameSpec()
    horizon: HorizonSpec = FixedHorizonSpec()
    agent_a: AgentSpec
    agent_b: AgentSpec
    # A group game's further seats (c, d, ...), bound only up to the game's number of seats;
    # unbound, they are left out of the stored config (a pair's manifest is as it was).
    agent_c: AgentSpec | None = Field(None, exclude_if=_unbound)
    agent_d: AgentSpec | None = Field(None, exclude_if=_unbound)
    agent_e: AgentSpec | None = Field(None, exclude_if=_unbound)
    agent_f: AgentSpec | None = Field(None, exclude_if=_unbound)
    agent_g: AgentSpec | None = Field(None, exclude_if=_unbound)
    agent_h: AgentSpec | None = Field(None, exclude_if=_unbound)
    agent_i: AgentSpec | None = Field(None, exclude_if=_unbound)
    agent_j: AgentSpec | None = Field(None, exclude_if=_unbound)
    # Or every seat at once, by agents with counts (`pdbench.config.population`); stored in
    # place of agent_a and agent_b, and left out of a condition that binds seats one by one.
    population: tuple[PopulationEntry, ...] | None = Field(
        None,
        exclude_if=_unbound,
        description="agents with counts filling the game's seats in order, instead of "
        "agent_a, agent_b, ...: {tft: 2, alld: 2} or [{agent: ..., count: n}, ...]",
    )
    # Then a field for each third role the registered games declare (`keeper`, `judge`, ...),
    # added by `role_fields.with_role_fields` below: one agent, or an odd panel where the role
    # allows one; unbound, the game's house default is written in.

    @model_validator(mode="before")
    @classmethod
    def _population_fills_the_seats(cls, data: Any) -> Any:
        return fill_seats(data)

    @model_serializer(mode="wrap")
    def _population_in_place_of_seats(self, handler: SerializerFunctionWrapHandler) -> Any:
        """A population's condition is stored with the population, not also its first two
        seats (which validation fills in from it)."""
        data = handler(self)
        if self.population is not None and isinstance(data, dict):
            data.pop("agent_a", None)
            data.pop("agent_b", None)
        return data

    @model_validator(mode="before")
    @classmethod
    def _house_third_parties_by_default(cls, data: Any) -> Any:
        """A third role the condition leaves unbound gets its game's house third party, written
        into the condition (so the manifest's resolved config states who played it)."""
        from pdbench.games.registry import TURN_GAMES, default_third_parties

        if not isinstance(data, dict):
            return data
        game = data.get("game")
        game_id = game.get("id") if isinstance(game, dict) else getattr(game, "id", None)
        if game_id not in TURN_GAMES:
            return data
        unbound = {
            role: {"type": "policy", "policy": name}
            for role, name in default_third_parties(game_id).items()
            if data.get(role) is None
        }
        return {**data, **unbound} if unbound else data

    def bound_role(self, role: str) -> AgentSpec | tuple[AgentSpec, ...] | None:
        """What the condition binds to the third role `role`: an agent, a panel, or None."""
        return getattr(self, role, None)

    @property
    def third_parties(self) -> dict[str, AgentSpec]:
        """The bound roles that play a seat: role -> agent (a panel's as <role>[0], <role>[1], ...)."""
        from pdbench.games.registry import declared_roles

        bound: dict[str, AgentSpec] = {}
        for role in declared_roles().values():
            spec = self.bound_role(role.name)
            if not role.played or spec is None:
                continue
            if isinstance(spec, tuple):
                bound.update({f"{role.name}[{i}]": one for i, one in enumerate(spec)})
            else:
                bound[role.name] = spec
        return bound

    @property
    def audits(self) -> dict[str, AgentSpec]:
        """The bound audits: audit role -> agent (`pdbench.games.roles.ThirdRole.audits`)."""
        from pdbench.games.registry import declared_roles

        audits = [role.name for role in declared_roles().values() if role.audits]
        bound = {name: self.bound_role(name) for name in audits}
        return {name: spec for name, spec in bound.items() if isinstance(spec, AgentSpecBase)}

    def audit_of(self, role: str) -> tuple[str, AgentSpec] | None:
        """The audit bound to the played role `role`, (its role, its agent), or None."""
        from pdbench.games.registry import declared_roles

        found = [(n, s) for n, s in self.audits.items() if declared_roles()[n].audits == role]
        return found[0] if found else None

    @property
    def players(self) -> dict[str, AgentSpec]:
        """The agent bound to each player seat, by field: agent_a, agent_b, agent_c, ... (a
        population's seats beyond j too: agent_k, ..., agent_za, ...)."""
        if self.population is not None:
            return population_players(self.population)
        bound = {side: getattr(self, side) for side in SEAT_FIELDS}
        return {side: spec for side, spec in bound.items() if spec is not None}

    @property
    def agents(self) -> dict[str, AgentSpec]:
        """Every agent the condition binds, by field: its players (agent_a, agent_b, ...) and its
        third parties (what the budget, the cache, the files and the sampling must all take
        into account)."""
        return {**self.players, **self.third_parties, **self.audits}

    @property
    def third_party_labels(self) -> dict[str, str]:
        """role -> who plays it, as the manifest states it: the agent's name, its parameters, and
        "(house default)" when it is the game's default third party; a bound audit too."""
        from pdbench.games.registry import default_third_parties

        defaults = default_third_parties(self.game.id)  # none for a game without third roles
        labels: dict[str, str] = {}
        for role, spec in {**self.third_parties, **self.audits}.items():
            params = getattr(spec, "params", None)
            label = spec.display_name + (
                "(" + ", ".join(f"{k}={v}" for k, v in params.items()) + ")" if params else ""
            )
            default = PolicyAgentSpec(policy=defaults[role]) if role in defaults else None
            labels[role] = label + (" (house default)" if spec == default else "")
        return labels

    def role_specs(self, role: str) -> tuple[AgentSpec, ...]:
        """The agent(s) bound to a third role: one, or a panel's agents in order."""
        spec = self.bound_role(role)
        if spec is None:
            return ()
        return spec if isinstance(spec, tuple) else (spec,)

    def _seat_field(self, side: str) -> str:
        """How a message names seat field `side`'s binding: itself, or its population entry."""
        return side if self.population is None else seat_entry_field(self.population, side)

    @model_validator(mode="after")
    def _game_is_consistent(self) -> ConditionFields:
        from pdbench.core.errors import ConfigError
        from pdbench.games.registry import seat_problem, seats_played

        game = self.game.entry.named
        variant = self.game.build_turn()  # its options: how many seats, in which positions
        seats = seats_played(self.game.id, variant)
        if self.population is not None:
            option = self.game.entry.seats.option
            positions = int(getattr(variant, "seat_positions", 1))
            check_population(self.population, self.game.id, seats, option, positions)
        elif len(seats) > len(SEAT_FIELDS):
            raise ValueError(
                f"population: missing: {self.game.id} plays {len(seats)} seats here, more "
                "than agent_a to agent_j bind one by one; bind them all with a population"
            )
        for side in SEAT_FIELDS if self.population is None else ():
            plays = side.removeprefix("agent_") in seats
            if plays and getattr(self, side) is None:
                raise ValueError(
                    f"{side}: missing: {game} plays {len(seats)} seats here "
                    f"(agent_a to agent_{seats[-1]}), bind each to an agent"
                )
            if not plays and getattr(self, side) is not None:
                raise ValueError(
                    f"{side}: {game} plays {len(seats)} seats here "
                    f"(agent_a to agent_{seats[-1]}), so there is no seat "
                    f"{side.removeprefix('agent_')}"
                )
        check_roles(self)
        try:  # a game's table: payoffs, labels and the PD check
            rules = self.game.rules_builder(rounds_shown=True)(1)  # any length seats alike
        except ConfigError as error:
            reason = f"{error.field}: {error.reason}" if error.field else error.reason
            raise ValueError(reason) from None
        for side, spec in self.players.items():
            problem = seat_problem(self.game.id, spec, rules, side.removeprefix("agent_"))
            if problem is not None:
                raise ValueError(f"{self._seat_field(side)}.{problem}")
        return self


if TYPE_CHECKING:
    ConditionSpec = ConditionFields
else:
    ConditionSpec = with_role_fields(ConditionFields, "ConditionSpec")
# The fields binding player seats "a", "b", "c", ... (a game plays as many as it seats).
SEAT_FIELDS = tuple(f"agent_{letter}" for letter in SEAT_LETTERS)
EXTRA_SEAT_FIELDS = SEAT_FIELDS[2:]  # beyond a pair: absent from a two-player condition


class ExperimentSpec(Frozen):
    run: RunSpec = RunSpec()
    metrics: MetricsSpec = MetricsSpec()
    conditions: tuple[ConditionSpec, ...] = Field(min_length=1)
    source: str = Field("", description="the config file this came from")
    overrides: tuple[str, ...] = Field((), description="command-line overrides applied")

    @model_validator(mode="after")
    def _unique_condition_names(self) -> ExperimentSpec:
        seen: set[str] = set()
        for condition in self.conditions:
            if condition.name in seen:
                raise ValueError(f'condition name "{condition.name}" is used twice')
            seen.add(condition.name)
        # A run's matches are aggregated one way (`analysis.metrics.aggregate.aggregation_of`,
        # asking each game's entry): the first condition of each way, in order.
        ways: dict[str, ConditionSpec] = {}
        for condition in self.conditions:
            ways.setdefault(condition.game.entry.aggregates, condition)
        if len(ways) > 1:
            first, other = list(ways.values())[:2]
            raise ValueError(
                f"conditions: {first.name} ({first.game.id}) and {other.name} ({other.game.id}) "
                "play games whose matches are aggregated in different ways; a run plays one "
                "family, so run them as two runs"
            )
        check_size(
            self.run.limits,
            self.run.replicates,
            [
                PlannedCondition(
                    *condition.horizon.planned_rounds(),
                    asks_model=any(
                        spec.uses_provider
                        for spec in (
                            *condition.players.values(),
                            *condition.third_parties.values(),
                        )
                    ),
                )
                for condition in self.conditions
            ],
        )
        return self

    @property
    def n_matches(self) -> int:
        return len(self.conditions) * self.run.replicates
