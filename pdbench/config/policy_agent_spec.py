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
    def turn_game(self) -> str | None:
        """The turn game this policy plays (None: a 2x2 policy)."""
        from pdbench.games.registry import turn_policy_games

        return turn_policy_games().get(self.policy)

    def problem_in_turn_game(self, game_id: str) -> str | None:
        from pdbench.games.registry import turn_policies

        if self.policy in turn_policies(game_id):
            return None

        choices = ", ".join(sorted(turn_policies(game_id)))
        return (
            f"policy: {self.policy} does not play {game_id} (it plays "
            f"{self.turn_game or 'the 2x2 games'}); choose one of: {choices}"
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
        if self.turn_game is not None:  # the policy's own game: its house player
            from pdbench.games.registry import house_factories

            return house_factories(self.turn_game)[self.policy](**self.params)
        from pdbench.games.base import agent_game
        from pdbench.strategies import make_policy

        return make_policy(self.policy, agent_game(rules, seat), self.params)

    def problem_in_game(self, game: Game, *, negotiates: bool) -> str | None:
        from pdbench.core.errors import ConfigError
        from pdbench.strategies import make_policy

        if self.turn_game is not None:
            return f"policy: {self.policy} plays {self.turn_game}, not the 2x2 game {game.id}"
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
        from pdbench.strategies import POLICIES

        if self.turn_game is not None:
            return False  # a house player of a turn game draws from its stream
        return not POLICIES[self.policy].stochastic

    @property
    def has_batch_form(self) -> bool:
        """Whether the policy can be played by the numpy batch path (else: the match loop); a
        turn game's house player has one when it acts for many matches at once (`act_batch`)."""
        from pdbench.strategies import policy_has_batch_form

        if self.turn_game is not None:
            from pdbench.games.registry import house_factories

            factory = house_factories(self.turn_game)[self.policy]
            return callable(getattr(factory, "act_batch", None))
        return policy_has_batch_form(self.policy)

    def warnings(self, game: Game) -> list[PolicyWarning]:
        """Legal parameters that probably do not mean what they say in `game` (e.g. GTFT's
        default generosity turning it into ALLC in the stag hunt): one `warning:` line each."""
        from pdbench.strategies import policy_warnings

        # The field as the agent's config names it (params.generous_prob).
        return [
            dataclasses.replace(w, field=f"params.{w.field}")
            for w in policy_warnings(self.policy, game, self.params)
        ]
