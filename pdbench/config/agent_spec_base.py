"""The agent kinds' common ground: `AgentSpecBase`, what every kind's spec answers for the rest
of pdbench, and the `@agent_kind` registry (`AGENT_SPECS`) a kind's spec class registers in.

The kinds' spec classes live in their own modules (`policy_agent_spec`, `llm_agent_spec`,
`arena_agent_spec`); `pdbench.config.agent_spec` imports them and builds the `AgentSpec` union a
config is validated against from this registry."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from pdbench.config.frozen import Frozen
from pdbench.core.plugins import load_group

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pdbench.config.agent_identity import AgentIdentity
    from pdbench.core.game import Game
    from pdbench.strategies import PolicyWarning

SpecT = TypeVar("SpecT", bound="AgentSpecBase")


class AgentSpecBase(Frozen):
    """What every agent kind's spec answers for the planner, the runner and the checks."""

    if TYPE_CHECKING:
        # Each kind declares it as a Literal field with its name (the union's discriminator).
        type: str
        name: str | None

    # Registered with the kind (see `agent_kind`).
    kind_entry_point: ClassVar[str]  # "module:attribute" of the factory that builds the agent
    kind_files_entry_point: ClassVar[str | None] = None  # "module:attribute" of its file check
    kind_batchable: ClassVar[bool] = False  # its agents may play as numpy arrays (policies)
    kind_example: ClassVar[str | None] = None  # an `agent` group option of this kind ("tft")
    # Whether it asks a model through the provider gateway (needs the provider, the replay cache
    # and the spend journal; counts towards run.limits.llm_rounds).
    uses_provider: ClassVar[bool] = False
    # Whether its rounds carry the invalid / fallback / timeout markers (anything that can fail
    # to answer does; a policy cannot).
    can_fail_to_answer: ClassVar[bool] = True

    @property
    def display_name(self) -> str:
        raise NotImplementedError

    @property
    def has_batch_form(self) -> bool:
        """Whether this agent can be played by the numpy batch path (else: the match loop)."""
        return False

    def batch_player(self, rules: Any, seat: str) -> Any | None:
        """This agent's player on a game's vectorised path (its entry's `vectorised`,
        `runners.turn_batch`) when it plays `seat` under `rules` (a turn game's house player
        with `act_batch`, a 2x2 policy's numpy form), or None when it has none there."""
        return None

    def provider_calls_per_round(self, negotiate_turns: int) -> int:
        """Upper bound on the provider calls one round costs (every retry, every turn of a
        negotiation phase)."""
        return 0

    @property
    def is_deterministic(self) -> bool:
        """Whether the agent's decisions are a function of what it observes, with nothing drawn
        at random (a deterministic policy; a model at temperature 0 from a real provider)."""
        return False

    def warnings(self, game: Game) -> list[PolicyWarning]:
        """Legal settings that probably do not mean what they say in `game`: one `warning:`
        line each, its field named within the agent (e.g. params.generous_prob)."""
        return []

    def identity(self, files: Mapping[str, str]) -> AgentIdentity:
        """Who this agent is across runs (pdbench.config.agent_identity); `files` are the
        sha256 of the files the run read, by path (the manifest's referenced_files)."""
        raise NotImplementedError

    def problem_in_game(self, game: Game, *, negotiates: bool) -> str | None:
        """What makes this agent unfit for `game` (seen from its own side), as "field: reason"
        within the agent, or None; `negotiates`: the game has a negotiation phase."""
        return None

    def problem_in_turn_game(self, game_id: str) -> str | None:
        """What makes this agent unfit for the turn game `game_id` (`pdbench.games`), as
        "field: reason" within the agent, or None."""
        return f"type: {self.type} agents cannot play the turn-based game {game_id}"

    def problem_as_third_party(self, game_id: str, role: str) -> str | None:
        """What makes this agent unfit for the third role `role` of `game_id` (one its entry
        declares, `pdbench.games.roles`), as "field: reason" within the agent, or None."""
        return self.problem_in_turn_game(game_id)

    @property
    def turn_on_invalid(self) -> Literal["abort", "fallback"]:
        """In a turn game, what follows when no legal action came after `turn_retries` re-asks:
        the game's fallback (recorded as such) or the match aborts."""
        return "fallback"

    @property
    def turn_retries(self) -> int:
        """In a turn game, how often the engine re-asks after an action the rules refuse."""
        return 0


AGENT_SPECS: dict[str, type[AgentSpecBase]] = {}


def agent_kinds() -> dict[str, type[AgentSpecBase]]:
    """Every registered agent kind by name: those registered in this process and those of the
    installed packages' `pdbench.agents` entry points (loaded the first time, see
    `pdbench.core.plugins`)."""
    load_group("pdbench.agents")
    return AGENT_SPECS


def agent_kind(
    *,
    entry_point: str,
    files_entry_point: str | None = None,
    batchable: bool = False,
    example: str | None = None,
) -> Callable[[type[SpecT]], type[SpecT]]:
    """Register an agent kind: its spec class (whose `type` field names the kind), the factory
    that builds its agent and the check of the files it reads ("module:attribute" each), and an
    option of the `agent` config group that chooses this kind (named in error messages)."""

    def register(spec: type[SpecT]) -> type[SpecT]:
        spec.kind_entry_point = entry_point
        spec.kind_files_entry_point = files_entry_point
        spec.kind_batchable = batchable
        spec.kind_example = example
        AGENT_SPECS[spec.model_fields["type"].default] = spec
        return spec

    return register
