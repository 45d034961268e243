"""The LLM agent kind's spec: a language model asked every round through the provider gateway
(the provider it asks is `pdbench.config.provider_spec`), with the prompt and answer settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from pdbench.config.agent_identity import (
    LLM_ANSWER_SETTINGS,
    AgentIdentity,
    file_hash,
    llm_identity,
)
from pdbench.config.agent_spec_base import AgentSpecBase, agent_kind
from pdbench.config.names import name_problem
from pdbench.config.provider_spec import ProviderSpec

if TYPE_CHECKING:
    from collections.abc import Mapping


# max_tokens when the config leaves it null, per response format: a label is a word or two; a
# JSON answer keeps the 16 tokens pdbench always gave it (so every cached answer keeps its key; a
# config that wants a reason sets more, e.g. Fontana et al.'s 128); reasoning needs room to think
# (Payne and Alloui-Cros allowed 1000).
DEFAULT_MAX_TOKENS = {"label": 16, "json": 16, "reasoning": 1000}


@agent_kind(
    entry_point="pdbench.agents.llm.agent:LLMAgent",
    example="llm_default",
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
        from pdbench.games.registry import prompt_adapter, turn_game_entry

        entry = turn_game_entry(game_id)
        if not entry.llm_plays:
            return f"type: the llm agent does not play {game_id} yet (no prompts for it)"
        if self.response_format != "label":
            return (
                f"response_format: a turn game ({game_id}) has its own answer format (see its "
                "prompt file); leave response_format at label"
            )
        # grammar: the game's adapter lists a turn's legal answers, for the turns it can (a
        # turn without a list is sent unconstrained)
        adapter = prompt_adapter(entry)
        grammar = adapter is not None and adapter.lists_answers
        if self.constrain == "json_schema" or (self.constrain == "grammar" and not grammar):
            return f"constrain: {self.constrain} is not available in {game_id}; use none" + (
                " or grammar (the turn's legal moves as a GBNF grammar)" if grammar else ""
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
