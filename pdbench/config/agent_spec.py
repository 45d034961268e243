"""Who plays: the provider (mock or litellm), and the three agent kinds' specs (policy, LLM,
arena file), as pydantic models frozen after validation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from pdbench.config.names import name_problem
from pdbench.core.game import Game

if TYPE_CHECKING:
    from pdbench.strategies import PolicyWarning

from pdbench.config.frozen import Frozen

# --- providers ---------------------------------------------------------------------------------


class MockBehaviour(Frozen):
    """How the offline mock model answers (deterministic from the seed and the prompt).

    With `strategy: policy` it answers as the registered `policy` would (a scripted model): it
    reads the rules and the history from the prompt it receives, replays that history through
    the policy and answers the policy's move in the requested format."""

    strategy: Literal["cooperate", "defect", "reciprocate", "random", "policy"] = "reciprocate"
    cooperate_prob: float = Field(0.5, ge=0, le=1, description="P(C) for strategy=random")
    invalid_rate: float = Field(0.0, ge=0, le=1, description="share of answers that are garbage")
    latency_s: float = Field(0.0, ge=0, description="simulated seconds per call (benchmarks)")
    policy: str | None = Field(
        None, description="strategy=policy: the registered policy it plays, e.g. grim, random"
    )
    params: dict[str, Any] = Field(
        default_factory=dict, description="strategy=policy: that policy's parameters"
    )

    @field_validator("policy")
    @classmethod
    def _known_policy(cls, value: str | None) -> str | None:
        return None if value is None else _known_policy_name(value)

    @field_validator("params")
    @classmethod
    def _params_fit_the_policy(cls, params: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        return _checked_params(info.data.get("policy") or "", params)

    @model_validator(mode="after")
    def _policy_with_its_strategy(self) -> MockBehaviour:
        if self.strategy == "policy" and self.policy is None:
            raise ValueError("strategy: policy needs the policy to play, e.g. policy: grim")
        if self.strategy != "policy" and (self.policy is not None or self.params):
            raise ValueError(
                f"policy and params apply only with strategy: policy (strategy is {self.strategy})"
            )
        return self

    def __hash__(self) -> int:  # params is a dict; a provider spec is a key of client caches
        return hash(json.dumps(self.model_dump(mode="json"), sort_keys=True))

    def key_items(self) -> tuple[tuple[str, Any], ...]:
        """What decides the mock's answers, for the cache key: every field but the latency; the
        policy and its params only when it plays one (so the keys of other mocks are unchanged)."""
        exclude = {"latency_s"} if self.strategy == "policy" else {"latency_s", "policy", "params"}
        items = self.model_dump(mode="json", exclude=exclude)
        if self.strategy in ("reciprocate", "random"):
            # these strategies lean with the persona (providers/mock.py): answers cached before
            # the lean existed must not replay
            items["persona_lean"] = 1
        return tuple(sorted(items.items()))


def _known_policy_name(value: str) -> str:
    from pdbench.strategies import POLICIES  # policies register themselves on import

    if value not in POLICIES:
        from pdbench.core.errors import unknown_choice

        raise ValueError(unknown_choice("policy", value, POLICIES))
    return value


def _checked_params(policy_name: str, params: dict[str, Any]) -> dict[str, Any]:
    """Each parameter through the policy's model: an unknown name gets "did you mean", a bad
    value fails under params.<name> (pydantic nests the model's own error). Values are kept as
    the model reads them (1 -> 1.0 for a probability), only for the names given."""
    from pdbench.strategies import POLICIES
    from pdbench.strategies.base import unknown_parameter_message

    policy = POLICIES.get(policy_name)
    if policy is None:
        return params  # the policy name itself is wrong (or missing), and says so
    for name in params:
        if name not in policy.params_model.model_fields:
            raise ValueError(unknown_parameter_message(policy, name))
    validated = policy.params_model.model_validate(params)
    return validated.model_dump(mode="json", include=set(params))


class ProviderSpec(Frozen):
    """Who answers the prompts: the offline mock or any litellm model."""

    name: Literal["mock", "litellm"] = "mock"
    model: str = Field("mock", description="litellm model string, e.g. openai/gpt-4o-mini")
    api_base: str | None = Field(None, description="base URL of an OpenAI-compatible server")
    mock: MockBehaviour = MockBehaviour()

    @field_validator("model")
    @classmethod
    def _model_named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("is empty: name the model, e.g. openai/gpt-4o-mini")
        return value

    @field_validator("api_base")
    @classmethod
    def _api_base_is_a_url(cls, value: str | None) -> str | None:
        # A URL without its scheme (localhost:9/v1) was retried for half a minute as if the
        # server were down; it is a mistake in the config, found before any call.
        if value is None:
            return value
        from urllib.parse import urlsplit

        try:
            parts = urlsplit(value.strip())
            parts.port  # noqa: B018 - raises on a port that is not a number
        except ValueError:
            parts = None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                "is not a URL: give the scheme and the host, e.g. http://localhost:8000/v1"
            )
        return value

    timeout_s: float = Field(60.0, gt=0, description="per-call timeout (not part of the cache key)")
    max_attempts: int = Field(
        5, ge=1, description="transport attempts on rate limits and timeouts, with backoff"
    )


# --- agents ------------------------------------------------------------------------------------


class PolicyAgentSpec(Frozen):
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
        return _known_policy_name(value)

    @field_validator("params")
    @classmethod
    def _params_fit_the_policy(cls, params: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        return _checked_params(info.data.get("policy", ""), params)

    @property
    def display_name(self) -> str:
        return self.name or self.policy.upper()

    @property
    def has_batch_form(self) -> bool:
        """Whether the policy can be played by the numpy batch path (else: the match loop)."""
        from pdbench.strategies import policy_has_batch_form

        return policy_has_batch_form(self.policy)

    def warnings(self, game: Game) -> list[PolicyWarning]:
        """Legal parameters that probably do not mean what they say in `game` (e.g. GTFT's
        default generosity turning it into ALLC in the stag hunt): one `warning:` line each."""
        from pdbench.strategies import policy_warnings

        return policy_warnings(self.policy, game, self.params)


# max_tokens when the config leaves it null, per response format: a label is a word or two; a
# JSON answer keeps the 16 tokens pdbench always gave it (so every cached answer keeps its key; a
# config that wants a reason sets more, e.g. Fontana et al.'s 128); reasoning needs room to think
# (Payne and Alloui-Cros allowed 1000).
DEFAULT_MAX_TOKENS = {"label": 16, "json": 16, "reasoning": 1000}


class LLMAgentSpec(Frozen):
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
        10, ge=0, description="past rounds shown in the prompt (null: the whole match)"
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

    @property
    def display_name(self) -> str:
        """e.g. `openai/gpt-4o-mini[cooperative]`; a constrained agent ends in `+grammar`."""
        if self.name:
            return self.name
        persona = f"[{self.persona}]" if self.persona else ""
        constraint = f"+{self.constrain}" if self.constrain != "none" else ""
        return f"{self.provider.model}{persona}{constraint}"


class ArenaAgentSpec(Frozen):
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
    max_processes: int | None = Field(
        64,
        gt=0,
        description="processes and threads an agent may have at once, its own included; in the "
        "sandbox only (RLIMIT_NPROC); null: no limit",
    )

    @property
    def display_name(self) -> str:
        return self.name or Path(self.path).stem


AgentSpec = Annotated[PolicyAgentSpec | LLMAgentSpec | ArenaAgentSpec, Field(discriminator="type")]
