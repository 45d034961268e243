"""The artifact contracts in code: file names and the typed records every writer and reader uses.

- `RoundRecord`: one 2x2 round as record version 1 stored it (one line of a version-1
  rounds.jsonl), and as every 2x2 reader reads a round of either version (a version-2 match's
  turn lines are projected onto it by `pdbench.games.matrix.stored`). Its field order is the
  line's key order; the pyarrow schema that aggregation reads (`pdbench.storage.arrow_schema`)
  is derived from it. The reference match loop's records (tests/reference_records.py) are
  written as it, for the equivalence tests.
- `Attempt` (`ProviderAttempt` for LLM agents, `HookAttempt` for arena agents): one try at an
  action, stored with the round under the run's `store_prompts` setting.
- `CallCounts` (`pdbench.storage.call_counts`): provider calls (live, cached), tokens and cost;
  one type for a match, a condition, a run, a sweep and the run's spend, added with `+`.
- `LedgerEntry` (`pdbench.storage.ledger`): one line of matches.jsonl, written after the match's
  rounds.
- The manifest (`RunManifest`) lives in `pdbench.storage.manifest` with its builder and merge.

Storage always records actions as "C"/"D", whatever labels the game showed the agents.
"""

from __future__ import annotations

import hashlib
import json
import typing
from dataclasses import dataclass, fields
from typing import Any, Literal

import orjson

# Re-exported: every record type is imported from here.
from pdbench.storage.call_counts import CallCounts as CallCounts

ROUNDS_FILE = "rounds.jsonl"
LEDGER_FILE = "matches.jsonl"  # one line per finished match: where its rounds end, its seeds
MANIFEST_FILE = "run_manifest.json"
AGGREGATES_FILE = "aggregates.parquet"
SHARDS_DIR = "shards"  # a Hydra sweep: one run dir per job under here, merged at the end

StorePrompts = bool | Literal["hash"]


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# --- attempts ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProviderAttempt:
    """One call to a model for one action: the conversation sent and the answer, parsed."""

    attempt: int  # 1 for the first try, 2 after one correction re-prompt, ...
    system: str
    prompt: str  # the last user message
    raw: str  # the answer as the model wrote it
    valid: bool
    error: str | None  # why the answer is invalid (shown to the model in the correction)
    reason: str | None  # a JSON answer's optional "reason"
    cached: bool  # answered from the replay cache; run-local, never stored with the round
    input_tokens: int
    output_tokens: int
    cost_usd: float | None  # None when the price is unknown
    # What a real server says about its answer, stored only when it says it.
    requested_model: str | None = None  # the model asked, when another one answered
    reported_model: str | None = None  # the model name in the response
    response_id: str | None = None
    system_fingerprint: str | None = None
    reasoning: str | None = None  # reasoning text returned apart from the answer
    server: str | None = None  # which of a provider's several servers answered (api_bases)
    # Of input_tokens, those the server answered from its prompt cache, and those it wrote into
    # it (Anthropic), when it says (issue 33).
    cached_input_tokens: int | None = None
    cache_write_tokens: int | None = None

    TEXT_FIELDS: typing.ClassVar[tuple[str, ...]] = ("system", "prompt", "raw", "reasoning")
    RUN_LOCAL_FIELDS: typing.ClassVar[tuple[str, ...]] = ("cached",)
    AUDIT_FIELDS: typing.ClassVar[tuple[str, ...]] = (
        "requested_model",
        "reported_model",
        "response_id",
        "system_fingerprint",
        "reasoning",
        "server",
        "cached_input_tokens",
        "cache_write_tokens",
    )

    def stored(self, store_prompts: StorePrompts) -> dict[str, Any]:
        """The attempt as it goes into rounds.jsonl: texts kept, hashed (their sha256 appended
        as `<field>_sha256`) or dropped; run-local fields never (a replay writes the same line)."""
        record = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in self.RUN_LOCAL_FIELDS
            and not (f.name in self.AUDIT_FIELDS and getattr(self, f.name) is None)
        }
        for key in self.TEXT_FIELDS:
            if key not in record:
                continue
            if store_prompts == "hash":
                record[f"{key}_sha256"] = sha256_text(record.pop(key))
            elif not store_prompts:
                del record[key]
        return record

    def calls(self) -> CallCounts:
        """This attempt as call counters."""
        if self.cached:
            return CallCounts(cached=1, cost_usd_saved=self.cost_usd or 0.0)
        return CallCounts(
            live=1,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost_usd=self.cost_usd or 0.0,
            unknown_price=int(self.cost_usd is None),
            cached_input_tokens=self.cached_input_tokens or 0,
            cache_write_tokens=self.cache_write_tokens or 0,
        )


@dataclass(frozen=True, slots=True)
class HookAttempt:
    """One on_turn call of an arena agent and what it returned."""

    hook: str
    elapsed_s: float
    response: Any  # the hook's return value, as JSON

    def stored(self, store_prompts: StorePrompts) -> dict[str, Any] | None:
        if not store_prompts:
            return None
        record: dict[str, Any] = {"hook": self.hook, "elapsed_s": self.elapsed_s}
        if store_prompts == "hash":
            canonical = json.dumps(self.response, sort_keys=True, separators=(",", ":"))
            record["response_sha256"] = sha256_text(canonical)
        else:
            record["response"] = self.response
        return record

    def calls(self) -> CallCounts:
        return CallCounts(agent_turns=1)  # an agent's turn, not a provider call


Attempt = ProviderAttempt | HookAttempt


def stored_attempts(
    attempts: typing.Iterable[Attempt], store_prompts: StorePrompts
) -> list[dict[str, Any]]:
    stored = (attempt.stored(store_prompts) for attempt in attempts)
    return [record for record in stored if record is not None]


# --- one round -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConversationMessage:
    """One message of a round's negotiation phase, as delivered to the other agent.

    The marks say what happened: `cut` (longer than the limit, cut to it), `empty` (nothing was
    said: silence, a timeout or an invalid answer), `timeout` (no answer within the limit),
    `invalid` (the answer was not a message), `promise` (it holds one of the condition's promise
    phrases). `attempts` are the provider calls or the on_turn call that produced it."""

    speaker: str  # "a" or "b"
    turn: int  # from 1 within the round, over both speakers
    text: str
    cut: bool = False
    empty: bool = False
    timeout: bool = False
    invalid: bool = False
    promise: bool = False
    error: str | None = None  # why an answer was replaced (a timeout, an invalid answer)
    attempts: tuple[Attempt, ...] = ()

    MARKS: typing.ClassVar[tuple[str, ...]] = ("cut", "empty", "timeout", "invalid", "promise")

    def stored(self, store_prompts: StorePrompts) -> dict[str, Any]:
        """The message as it goes into rounds.jsonl: every field, the attempts under the run's
        store_prompts (and left out when there are none to store). The text itself is the
        result of the round, like an action, so it is always kept."""
        record: dict[str, Any] = {
            "speaker": self.speaker,
            "turn": self.turn,
            "text": self.text,
            **{mark: getattr(self, mark) for mark in self.MARKS},
            "error": self.error,
        }
        attempts = stored_attempts(self.attempts, store_prompts)
        if attempts:
            record["attempts"] = attempts
        return record


@dataclass(frozen=True, slots=True)
class SideDecision:
    """How an LLM or arena agent reached its action in one round, as stored: the agents'
    `Decision` (pdbench.agents.base) less the action, which the record holds in its own column.
    It is a type of its own because storage imports nothing from agents (the layering rule:
    readers of rounds.jsonl need no agent code); the reference loop's records
    (tests/reference_records.py) turn one into the other.
    Policies have none: they cannot produce invalid answers, fallbacks or timeouts, so their
    rounds carry no such markers."""

    invalid_outputs: int
    fallback: bool
    timeout: bool
    error: str | None
    attempts: tuple[Attempt, ...] = ()
    # The order the two options were named in this round's prompt, as "CD" or "DC" (engine
    # actions, whatever the labels); None when the order is fixed (and then not written).
    option_order: str | None = None


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One line of rounds.jsonl. Field order is key order in the file."""

    # the match (the same on every round of it)
    run_id: str
    condition: str
    replicate: int
    game: str
    agent_a: str
    agent_b: str
    horizon_type: str
    fixed_n: int | None
    stop_prob: float | None
    # the round
    round_index: int  # from 1
    agent_a_action: str  # "C" or "D"
    agent_b_action: str
    agent_a_payoff: float
    agent_b_payoff: float
    agent_a_cum_payoff: float
    agent_b_cum_payoff: float
    timestamp_utc: str
    # Only in a match with noise (a trembling hand): the action each agent meant to play; the
    # actions above are the ones played (and scored), so a round whose two differ was flipped.
    # Absent from the line without noise, so a noiseless run writes what it always wrote.
    agent_a_intended: str | None = None
    agent_b_intended: str | None = None
    # Only in a match with a negotiation phase: the round's messages before the commit, in the
    # order they were said. Absent from the line otherwise, like the intended actions.
    conversation: tuple[ConversationMessage, ...] | None = None
    # written as agent_<side>_invalid_outputs, _fallback, _timeout, _error, _attempts
    # (and _option_order when the agent's options were shown in a shuffled order)
    decision_a: SideDecision | None = None
    decision_b: SideDecision | None = None

    def to_json(self, store_prompts: StorePrompts = True) -> bytes:
        record = {
            name: getattr(self, name)
            for name in LINE_FIELDS
            if name not in OPTIONAL_ROUND_FIELDS or getattr(self, name) is not None
        }
        if self.conversation is not None:
            record["conversation"] = [
                message.stored(store_prompts) for message in self.conversation
            ]
        for side, decision in (("a", self.decision_a), ("b", self.decision_b)):
            if decision is None:
                continue
            record[f"agent_{side}_invalid_outputs"] = decision.invalid_outputs
            record[f"agent_{side}_fallback"] = decision.fallback
            record[f"agent_{side}_timeout"] = decision.timeout
            record[f"agent_{side}_error"] = decision.error
            if decision.option_order is not None:
                record[f"agent_{side}_option_order"] = decision.option_order
            attempts = stored_attempts(decision.attempts, store_prompts)
            if attempts:
                record[f"agent_{side}_attempts"] = attempts
        return orjson.dumps(record) + b"\n"


# The fields a line holds (the decisions are flattened into per-side fields, below).
LINE_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(RoundRecord) if f.name not in ("decision_a", "decision_b")
)
MATCH_FIELDS: tuple[str, ...] = LINE_FIELDS[: LINE_FIELDS.index("round_index")]
# Fields written only when they hold a value (noise's intended actions, a negotiation's talk).
OPTIONAL_ROUND_FIELDS: tuple[str, ...] = ("agent_a_intended", "agent_b_intended", "conversation")
# Per-side markers of LLM and arena agents: agent_<side>_<name> (attempts only when there are any).
DECISION_FIELDS: tuple[str, ...] = ("invalid_outputs", "fallback", "timeout", "error")
REQUIRED_ROUND_FIELDS: tuple[str, ...] = tuple(
    name for name in LINE_FIELDS if name not in OPTIONAL_ROUND_FIELDS
)
