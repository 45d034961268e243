"""The policy agent kind's spec: a classic policy played in Python (pdbench.strategies), its
name and parameters checked against the policy registries (2x2 and turn games)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, ValidationInfo, field_validator

from pdbench.config.agent_identity import AgentIdentity, policy_identity
from pdbench.config.agent_spec_base import AgentSpecBase, agent_kind
from pdbench.config.policy_params import checked_params, known_policy_name

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pdbench.core.game import Game
    from pdbench.strategies import PolicyWarning


@agent_kind(entry_point="pdbench.agents.policy:make_policy_agent", batchable=True, example="tft")
class PolicyAgentSpec(AgentSpecBase):
    """A classic policy played in Python (pdbench.strategies)."""

    type: Literal["policy"] = "policy"
    policy: str = Field(description="a registered policy, e.g. tft, gtft, random, defect_at")
    params: dict[str, Any] = Field(
        default_factory=dict,
        description="the policy's parameters, checked against its parameter model (e.g. "
        "generous_prob for gtft, rounds for defect_at)",
    )
    name: str | None = Field(None, description="display name; default: the policy in capitals")
    messages: tuple[str, ...] = Field(
        (),
        description="with a negotiation phase: canned messages said in order on the agent's "
        'turns each round (e.g. ["I will split."]), silence after them; default: always silent',
    )

    @field_validator("policy")
    @classmethod
    def _known_policy(cls, value: str) -> str:
        from pdbench.games.registry import turn_policy_games

        if value in turn_policy_games():
            return value
        return known_policy_name(value)

    @field_validator("params")
    @classmethod
    def _params_fit_the_policy(cls, params: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        from pdbench.config.turn_policy_params import checked_turn_params
        from pdbench.games.registry import turn_policy_games

        policy = info.data.get("policy", "")
        if policy in turn_policy_games():
            return checked_turn_params(policy, params)
        return checked_params(policy, params)

    can_fail_to_answer: ClassVar[bool] = False

    @property
    def houses(self) -> tuple[str, ...]:
        """The games whose house players this policy is one of (a turn game's own, or every 2x2
        game's classic strategies): what it plays."""
        from pdbench.games.registry import policy_houses

        return policy_houses(self.policy)

    @property
    def house_player(self) -> Any:
        """The policy's house factory (`registry.house_factories`): called with the parameters
        it is the house player of the turn contract, and it says how it plays otherwise (its
        optional `deterministic`, `has_batch_form`, `batch_player` and `on_table`)."""
        from pdbench.games.registry import house_factories

        return house_factories(self.houses[0])[self.policy]

    def problem_in_turn_game(self, game_id: str) -> str | None:
        from pdbench.games.registry import turn_policies

        if self.policy in turn_policies(game_id):
            return None

        choices = ", ".join(sorted(turn_policies(game_id)))
        return (
            f"policy: {self.policy} does not play {game_id} (it plays "
            f"{', '.join(self.houses)}); choose one of: {choices}"
        )

    def problem_as_third_party(self, game_id: str, role: str) -> str | None:
        from pdbench.games.registry import house_third_parties

        parties = house_third_parties(game_id).get(role, {})
        if self.policy in parties:
            return None
        return (
            f"policy: {self.policy} is not a house {role} of {game_id}; choose one of: "
            f"{', '.join(sorted(parties))}, or an llm or arena agent"
        )

    def batch_player(self, rules: Any, seat: str) -> Any | None:
        """A turn game's house player acting for many matches (its `act_batch`), or a classic
        policy's numpy form given the game from its seat's side; None without a batch form."""
        if not self.has_batch_form:
            return None
        # a player built from what the rules show its seat (a classic strategy's numpy form),
        # else the house player itself, acting for many matches (`act_batch`)
        house_player = self.house_player
        on_the_seat = getattr(house_player, "batch_player", None)
        if on_the_seat is not None:
            return on_the_seat(rules, seat, self.params)
        return house_player(**self.params)

    def problem_in_game(self, game: Game, *, negotiates: bool) -> str | None:
        from pdbench.core.errors import ConfigError
        from pdbench.strategies import make_policy

        if game.id not in self.houses:
            return (
                f"policy: {self.policy} plays {', '.join(self.houses)}, not the 2x2 game {game.id}"
            )
        if self.messages and not negotiates:
            return (
                "messages: this game has no negotiation phase, so nothing would be said; set "
                "game.negotiation (or game=agentduel_split_or_steal)"
            )
        try:  # parameter values, some of which depend on the game's (own) payoffs
            make_policy(self.policy, game, self.params)
        except ConfigError as error:
            return f"params.{error.field}: {error.reason}"
        return None

    @property
    def display_name(self) -> str:
        return self.name or self.policy.upper()

    def identity(self, files: Mapping[str, str]) -> AgentIdentity:
        return policy_identity(self.policy, self.params, self.messages)

    @property
    def is_deterministic(self) -> bool:
        # a house player draws from its stream unless it says it does not (a classic strategy)
        return bool(getattr(self.house_player, "deterministic", False))

    @property
    def has_batch_form(self) -> bool:
        """Whether the policy can be played by the numpy batch path (else: the match loop); a
        turn game's house player has one when it acts for many matches at once (`act_batch`)."""
        house_player = self.house_player
        declared = getattr(house_player, "has_batch_form", None)  # a classic strategy's
        if declared is not None:
            return bool(declared)
        return callable(getattr(house_player, "act_batch", None))

    def warnings(self, game: Game) -> list[PolicyWarning]:
        """Legal parameters that probably do not mean what they say in `game` (e.g. GTFT's
        default generosity turning it into ALLC in the stag hunt): one `warning:` line each."""
        from pdbench.strategies import policy_warnings

        # The field as the agent's config names it (params.generous_prob).
        return [
            dataclasses.replace(w, field=f"params.{w.field}")
            for w in policy_warnings(self.policy, game, self.params)
        ]
