"""Who plays: the agent kinds' specs (policy, LLM, arena file), as pydantic models frozen after
validation (the provider an LLM agent asks is in `pdbench.config.provider_spec`).

An agent kind is one spec class here, registered with `@agent_kind(...)`, plus the module that
implements it (named by the registration's entry point, imported only when the kind is used).
The spec answers every question the rest of pdbench asks about an agent (`AgentSpecBase`), so
nothing outside `pdbench/agents` and this module branches on the kind; the `AgentSpec` union a
config is validated against is built from the registry."""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypeVar

from pydantic import (
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from pdbench.config.agent_identity import (
    LLM_ANSWER_SETTINGS,
    AgentIdentity,
    arena_identity,
    file_hash,
    llm_identity,
    policy_identity,
)
from pdbench.config.names import name_problem
from pdbench.config.policy_params import checked_params, known_policy_name
from pdbench.config.provider_spec import ProviderSpec
from pdbench.core.game import Game

if TYPE_CHECKING:
    from collections.abc import Mapping

if TYPE_CHECKING:
    from pdbench.strategies import Policy, PolicyWarning

from pdbench.config.frozen import Frozen

SpecT = TypeVar("SpecT", bound="AgentSpecBase")

# --- agents ------------------------------------------------------------------------------------


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

    def batch_policy(self, game: Game) -> Policy | None:
        """The policy the numpy batch path plays for this agent in `game` (seen from its own
        side), or None when it has no batch form."""
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
        """What makes this agent unfit for the third role `role` of `game_id` (the Keeper, the
        judge), as "field: reason" within the agent, or None."""
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


def agent_kind(
    *, entry_point: str, files_entry_point: str | None = None, batchable: bool = False
) -> Callable[[type[SpecT]], type[SpecT]]:
    """Register an agent kind: its spec class (whose `type` field names the kind), the factory
    that builds its agent and the check of the files it reads ("module:attribute" each)."""

    def register(spec: type[SpecT]) -> type[SpecT]:
        spec.kind_entry_point = entry_point
        spec.kind_files_entry_point = files_entry_point
        spec.kind_batchable = batchable
        AGENT_SPECS[spec.model_fields["type"].default] = spec
        return spec

    return register


@agent_kind(entry_point="pdbench.agents.policy:make_policy_agent", batchable=True)
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

    def batch_policy(self, game: Game) -> Policy | None:
        if not self.has_batch_form:
            return None
        from pdbench.strategies import make_policy

        return make_policy(self.policy, game, self.params)

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
        """Whether the policy can be played by the numpy batch path (else: the match loop)."""
        from pdbench.strategies import policy_has_batch_form

        return self.turn_game is None and policy_has_batch_form(self.policy)

    def warnings(self, game: Game) -> list[PolicyWarning]:
        """Legal parameters that probably do not mean what they say in `game` (e.g. GTFT's
        default generosity turning it into ALLC in the stag hunt): one `warning:` line each."""
        from pdbench.strategies import policy_warnings

        # The field as the agent's config names it (params.generous_prob).
        return [
            dataclasses.replace(w, field=f"params.{w.field}")
            for w in policy_warnings(self.policy, game, self.params)
        ]


# max_tokens when the config leaves it null, per response format: a label is a word or two; a
# JSON answer keeps the 16 tokens pdbench always gave it (so every cached answer keeps its key; a
# config that wants a reason sets more, e.g. Fontana et al.'s 128); reasoning needs room to think
# (Payne and Alloui-Cros allowed 1000).
DEFAULT_MAX_TOKENS = {"label": 16, "json": 16, "reasoning": 1000}


@agent_kind(
    entry_point="pdbench.agents.llm.agent:LLMAgent",
    files_entry_point="pdbench.agents.llm.prompts:files_read",
)
class LLMAgentSpec(AgentSpecBase):
    """A language model asked every round through the provider gateway."""

    type: Literal["llm"] = "llm"
    name: str | None = Field(None, description="display name; default: model and persona")
    provider: ProviderSpec = ProviderSpec()
    temperature: float = Field(0.0, ge=0, le=2)
    max_tokens: int | None = Field(
        None,
        gt=0,
        description="answer length limit; null: 16 for label and json, 1000 for reasoning",
    )
    seed: int | None = Field(None, description="sampling seed sent to providers that accept one")
    system_prompt: str | None = Field(
        "prompts/pd_system.md",
        description="path, relative to the project; null: no system message, the round prompt "
        "is the only message (as Akata et al. 2025 asked)",
    )
    round_prompt: str = Field("prompts/pd_round.md", description="path, relative to the project")
    negotiate_prompt: str = Field(
        "prompts/pd_negotiate.md",
        description="with a negotiation phase: the prompt that asks for one message (path, "
        "relative to the project)",
    )
    persona: str | None = Field(
        None, description='a file in prompts/personas/ without .md; null or "none": no persona'
    )
    history_window: int | None = Field(
        None,
        ge=0,
        description="past rounds shown in the prompt (null: the whole match, which keeps the "
        "prompts of consecutive rounds one long shared prefix for prefix caching)",
    )
    history_format: Literal["lines", "sentences", "table", "pairs"] = Field(
        "lines",
        description="how past rounds are written: lines (Round 3: you played C, ...), sentences "
        "(Akata et al.: In round 3, you chose Option J and ...), table (one row per round), "
        "pairs (Payne and Alloui-Cros: the moves so far and (you, opponent) pairs)",
    )
    perspective: Literal["second_person", "third_person"] = Field(
        "second_person",
        description="rendered pieces speak to the agent (you, the other player) or about "
        'it (Fontana et al.: player "A" against player "B")',
    )
    label_style: Literal["bare", "option"] = Field(
        "bare",
        description='how rendered pieces name an action: its label ("J") or "Option J" (Akata '
        "et al.); the answer is the bare label either way",
    )
    option_order: Literal["fixed", "shuffled"] = Field(
        "fixed",
        description="the order the two options are named in each round's question: the game's, "
        "or shuffled every round from the agent's own seeded stream (recorded on the round)",
    )
    include_totals: bool = Field(False, description="show both running totals in the prompt")
    totals_format: Literal["points", "counts_and_points"] = Field(
        "points",
        description="with include_totals: both totals in points, or also how often each side "
        "chose each action (Fontana et al.)",
    )
    disclose_horizon: Literal["auto", "rounds", "stop_prob", "none"] = Field(
        "auto",
        description="tell the number of rounds, the stopping probability, or nothing; "
        "auto: rounds for a fixed horizon, stop_prob for a geometric one",
    )
    response_format: Literal["label", "json", "reasoning"] = Field(
        "label",
        description='a bare action label; strict JSON {"action": ...}; or reasoning first and '
        "the label alone on the last line (Payne and Alloui-Cros), parsed from that line only",
    )
    constrain: Literal["none", "grammar", "json_schema"] = Field(
        "none",
        description="make the server answer one of the two labels: grammar sends llama.cpp's "
        "grammar field, json_schema an OpenAI JSON-schema response format (needs "
        "response_format json); none: free text, parsed strictly",
    )
    max_retries: int = Field(2, ge=0, description="re-prompts after an invalid answer")
    on_invalid: Literal["abort", "fallback"] = Field(
        "abort",
        description="when retries run out: abort the match (recorded), or play fallback_action",
    )
    fallback_action: Literal["C", "D"] = Field(
        "D", description="stored action for on_invalid=fallback"
    )

    @property
    def answer_max_tokens(self) -> int:
        """max_tokens as sent: the config's, or the default for the response format."""
        return self.max_tokens or DEFAULT_MAX_TOKENS[self.response_format]

    @field_validator("persona")
    @classmethod
    def _no_persona(cls, value: str | None) -> str | None:
        # "none" is the Hydra option conf/persona/none.yaml; in a file it means the same.
        if value is None or value.strip().casefold() == "none":
            return None
        # A persona is a file in prompts/personas/, named without folder or .md: never a path
        # that could read a file from elsewhere.
        if value in (".", "..") or any(c in value for c in "/\\") or name_problem(value, ""):
            raise ValueError(
                f"{value!r} is not a persona name: personas are the files in prompts/personas/, "
                "named without the folder and .md (e.g. cooperative)"
            )
        return value

    @model_validator(mode="after")
    def _schema_answers_are_json(self) -> LLMAgentSpec:
        if self.constrain == "json_schema" and self.response_format != "json":
            raise ValueError(
                "constrain: json_schema makes the model answer a JSON object; "
                "set response_format: json (or use constrain: grammar for a bare label)"
            )
        if self.constrain == "grammar" and self.response_format == "reasoning":
            raise ValueError(
                "constrain: grammar lets the model answer only a label, leaving no room for "
                "reasoning; use response_format label, or constrain: none"
            )
        return self

    uses_provider: ClassVar[bool] = True

    def provider_calls_per_round(self, negotiate_turns: int) -> int:
        return 1 + self.max_retries + negotiate_turns

    @property
    def is_deterministic(self) -> bool:
        return self.temperature == 0 and self.provider.deterministic_at_temperature_0

    def identity(self, files: Mapping[str, str]) -> AgentIdentity:
        persona_file = f"prompts/personas/{self.persona}.md" if self.persona else None
        fields = {
            **self.provider.answer_fields(),
            "max_tokens": self.answer_max_tokens,
            **self.model_dump(mode="json", include=set(LLM_ANSWER_SETTINGS)),
            "system_prompt": [self.system_prompt, file_hash(files, self.system_prompt)],
            "round_prompt": [self.round_prompt, file_hash(files, self.round_prompt)],
            "negotiate_prompt": file_hash(files, self.negotiate_prompt),
            "persona": [self.persona, file_hash(files, persona_file)],
        }
        # named by what it is, not by a display name a config gave it (which changes nothing)
        return llm_identity(self.model_copy(update={"name": None}).display_name, fields)

    def problem_in_turn_game(self, game_id: str) -> str | None:
        # A turn game's prompt is its files under prompts/<game>/ (a persona: the game's own
        # file, prompts/<game>/personas/, checked with the files) and its answer the game's own
        # format (pdbench.agents.llm.turns): a 2x2 setting that would change neither is refused
        # rather than silently ignored.
        if self.response_format != "label":
            return (
                f"response_format: a turn game ({game_id}) has its own answer format (see its "
                "prompt file); leave response_format at label"
            )
        if self.constrain == "json_schema" or (
            self.constrain == "grammar" and game_id != "liars_dice"
        ):
            return f"constrain: {self.constrain} is not available in {game_id}; use none" + (
                " or grammar (the turn's legal moves as a GBNF grammar)"
                if game_id == "liars_dice"
                else ""
            )
        return None

    @property
    def turn_on_invalid(self) -> Literal["abort", "fallback"]:
        return self.on_invalid

    @property
    def turn_retries(self) -> int:
        return self.max_retries

    @property
    def display_name(self) -> str:
        """e.g. `openai/gpt-4o-mini[cooperative]`; a constrained agent ends in `+grammar`."""
        if self.name:
            return self.name
        persona = f"[{self.persona}]" if self.persona else ""
        constraint = f"+{self.constrain}" if self.constrain != "none" else ""
        return f"{self.provider.model}{persona}{constraint}"


@agent_kind(
    entry_point="pdbench.agents.arena.agent:ArenaAgent",
    files_entry_point="pdbench.agents.arena:files_read",
)
class ArenaAgentSpec(AgentSpecBase):
    """A user's agent file in the AgentDuel shape, run in its own sandboxed process."""

    type: Literal["arena"] = "arena"
    path: str = Field(description="Python file defining class Agent (AgentDuel shape)")
    name: str | None = Field(None, description="display name; default: the file's stem")
    timeout_s: float = Field(2.0, gt=0, description="per-turn time limit, in seconds")
    timeout_action: str | None = Field(
        None, description="label played on a timeout or error; default: the cooperative label"
    )
    sandbox: Literal["auto", "required", "off"] = Field(
        "auto",
        description="bubblewrap containment: auto (when it works here, else a warning), required "
        "(refuse to run without it), off",
    )
    memory_mb: int | None = Field(
        1024, gt=0, description="address space per agent process (RLIMIT_AS), MiB; null: no limit"
    )
    trace: bool = Field(
        False,
        description="write every turn's round_state and answer (or traceback) into the agent's "
        "log; pdbench train sets it (changes no result)",
    )
    max_processes: int | None = Field(
        64,
        gt=0,
        description="processes and threads an agent may have at once, its own included; in the "
        "sandbox only (RLIMIT_NPROC); null: no limit",
    )

    def problem_in_turn_game(self, game_id: str) -> str | None:
        return None  # the file's GAME is checked with the file (agents.arena.validate)

    @property
    def display_name(self) -> str:
        return self.name or Path(self.path).stem

    def identity(self, files: Mapping[str, str]) -> AgentIdentity:
        return arena_identity(self.path, files)


if TYPE_CHECKING:
    # For mypy, an agent spec is what every kind answers; code that needs a kind's own fields
    # lives with that kind.
    AgentSpec = AgentSpecBase
else:
    # For pydantic, the union of every registered kind, told apart by `type`.
    AgentSpec = Annotated[
        functools.reduce(operator.or_, AGENT_SPECS.values()), Field(discriminator="type")
    ]
