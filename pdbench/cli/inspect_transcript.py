"""A stored match walked into Inspect's chat messages and events (issue 46).

Generic over the two record families: a 2x2 round line (its talk, then each side's decision) and
a turn line (the seats that moved, their decisions, what the turn revealed, the outcome on the
last). Only a real provider call becomes a ModelEvent, in the order the stored lines hold them
(the order `LedgerEntry.call_sources` follows), so a sample's ModelEvents are the match's calls;
a policy's, a house third party's or an agent file's move is an assistant message that says it
made no model call, and an InfoEvent. A prompt pdbench did not store (`run.store_prompts`) is
said in its place, with its sha256 when the run kept that.

inspect_ai (the optional `inspect` group) is imported inside functions only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

import orjson

from pdbench.storage.ledger import LedgerEntry

if TYPE_CHECKING:
    from inspect_ai.event import Event
    from inspect_ai.model import ChatMessage, GenerateConfig, ModelUsage


@dataclass(frozen=True)
class Role:
    """Who plays a seat or a third role: `agent_a`, `agent_b` or a third role the game declares
    (`ThirdRole.name`), and the model that answers for it (None: a policy, a house rule, an
    agent file)."""

    name: str
    player: str
    kind: str
    model: str | None = None
    generate: dict[str, Any] = field(default_factory=dict)  # temperature, max_tokens, seed


def role_of_seat(seat: str) -> str:
    """A stored seat as a role: "a" is agent_a; "<role>:a" (a third role answering a) is the
    role."""
    base = seat.split(":", 1)[0]
    return f"agent_{base}" if base in ("a", "b") else base


def is_call(attempt: dict[str, Any]) -> bool:
    """A stored provider attempt (an agent file's on_turn call is stored with `hook`)."""
    return "attempt" in attempt


def _stored_text(attempt: dict[str, Any], key: str, store_prompts: Any) -> str:
    if key in attempt:
        return str(attempt[key] or "")
    if f"{key}_sha256" in attempt:
        return (
            f"({key} stored as its sha256 only, run.store_prompts=hash: {attempt[f'{key}_sha256']})"
        )
    return f"({key} not stored: run.store_prompts={str(store_prompts).lower()})"


def parse_utc(text: str | None) -> datetime | None:
    """A stored UTC time (`...Z`) as an aware datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


def usage_of(counts: dict[str, Any]) -> ModelUsage:
    """pdbench's tokens and cost as Inspect counts them: its input_tokens leave out the tokens a
    provider read from (or wrote into) its prompt cache, which pdbench counts within them."""
    from inspect_ai.model import ModelUsage

    read = int(counts.get("cached_input_tokens") or 0)
    written = int(counts.get("cache_write_tokens") or 0)
    tokens_in, tokens_out = (
        int(counts.get("input_tokens") or 0),
        int(counts.get("output_tokens") or 0),
    )
    return ModelUsage(
        input_tokens=tokens_in - read - written,
        output_tokens=tokens_out,
        total_tokens=tokens_in + tokens_out,
        input_tokens_cache_read=read or None,
        input_tokens_cache_write=written or None,
        total_cost=counts.get("cost_usd"),
    )


class MatchTranscript:
    """Builds one sample's messages and events while walking the match's stored lines."""

    def __init__(
        self,
        roles: dict[str, Role],
        entry: LedgerEntry,
        cached: list[bool] | None,
        cache_mode: str,
        store_prompts: Any,
        started: datetime | None,
    ) -> None:
        self.roles, self.entry, self.cached = roles, entry, cached
        self.cache_mode, self.store_prompts, self.started = cache_mode, store_prompts, started
        self.messages: list[ChatMessage] = []
        self.events: list[Event] = []
        self.calls = 0
        self.usage: dict[str, dict[str, ModelUsage]] = {"model": {}, "role": {}}

    def _at(self, when: datetime | None) -> datetime:
        """An event's time: its line's, else the match's start (never the export's clock)."""
        return when or self.started or datetime.fromtimestamp(0, UTC)

    def _working(self, when: datetime | None) -> float:
        return max(0.0, (when - self.started).total_seconds()) if when and self.started else 0.0

    def _config(self, role: Role | None) -> GenerateConfig:
        from inspect_ai.model import GenerateConfig

        return GenerateConfig(**(role.generate if role else {}))

    def call(
        self, role: Role | None, attempt: dict[str, Any], when: datetime | None, **where: Any
    ) -> None:
        """One provider call: a ModelEvent marked as Inspect marks its own calls (`read` from
        the cache, `write` when bought with the cache on, None with it off or not known)."""
        from inspect_ai.event import ModelEvent
        from inspect_ai.model import (
            ChatCompletionChoice,
            ChatMessageAssistant,
            ChatMessageSystem,
            ChatMessageUser,
            ContentReasoning,
            ContentText,
            ModelOutput,
        )

        model = (role.model if role else None) or "unknown/unknown"
        cached = self.cached[self.calls] if self.cached is not None else None
        self.calls += 1
        system = _stored_text(attempt, "system", self.store_prompts)
        inputs: list[ChatMessage] = [ChatMessageSystem(content=system)] if system else []
        inputs.append(ChatMessageUser(content=_stored_text(attempt, "prompt", self.store_prompts)))
        raw = _stored_text(attempt, "raw", self.store_prompts)
        reasoning = attempt.get("reasoning")
        content: Any = (
            [ContentReasoning(reasoning=reasoning), ContentText(text=raw)] if reasoning else raw
        )
        usage = usage_of(attempt)
        output = ModelOutput(
            model=attempt.get("reported_model") or model,
            choices=[
                ChatCompletionChoice(
                    message=ChatMessageAssistant(content=content, model=model), stop_reason="stop"
                )
            ],
            usage=usage,
        )
        mark: Literal["read", "write"] | None
        if cached is True:
            mark = "read"
        elif cached is False and self.cache_mode == "readwrite":
            mark = "write"
        else:
            mark = None
        details = {k: attempt.get(k) for k in ("attempt", "valid", "error", "reason", "cost_usd")}
        self.events.append(
            ModelEvent(
                model=model,
                role=role.name if role else None,
                input=inputs,
                tools=[],
                tool_choice="none",
                config=self._config(role),
                output=output,
                cache=mark,
                timestamp=self._at(when),
                completed=when,
                working_start=self._working(when),
                metadata={**where, **details, "input_note": INPUT_NOTE},
            )
        )
        if cached is False:  # what was paid, as the ledger counts it
            for kind, key in (("model", model), ("role", role.name if role else "unknown")):
                known = self.usage[kind].get(key)
                self.usage[kind][key] = usage if known is None else known + usage

    def move(
        self,
        seat: str,
        shown: str,
        attempts: list[dict[str, Any]],
        when: datetime | None,
        **where: Any,
    ) -> None:
        """A seat's move (an action or a message): the calls behind it, then its message."""
        from inspect_ai.event import InfoEvent
        from inspect_ai.model import ChatMessageAssistant

        role = self.roles.get(role_of_seat(seat))
        calls = [attempt for attempt in attempts if is_call(attempt)]
        for attempt in calls:
            self.call(role, attempt, when, seat=seat, **where)
        meta = {"seat": seat, "role": role_of_seat(seat), **where}
        if calls:
            text = _stored_text(calls[-1], "raw", self.store_prompts)
            self.messages.append(
                ChatMessageAssistant(
                    content=text, model=role.model if role else None, metadata=meta
                )
            )
            return
        player = role.player if role else seat
        kind = "arena" if attempts else (role.kind if role else "house rule")
        note = f"{KIND_WORDS.get(kind, 'a ' + kind)}'s move"
        text = f"{shown}\n\n({player}: {note}, no model call)"
        self.messages.append(ChatMessageAssistant(content=text, metadata=meta))
        self.events.append(
            InfoEvent(source=role_of_seat(seat), data={**meta, "move": shown, "note": note},
                      timestamp=self._at(when), working_start=self._working(when))
        )  # fmt: skip

    def referee(self, text: str, when: datetime | None, data: dict[str, Any]) -> None:
        """What the rules made of a round or turn, as the game master says it."""
        from inspect_ai.event import InfoEvent
        from inspect_ai.model import ChatMessageUser

        self.messages.append(ChatMessageUser(content=text, metadata={"from": "pdbench", **data}))
        self.events.append(
            InfoEvent(source="pdbench", data={"text": text, **data},
                      timestamp=self._at(when), working_start=self._working(when))
        )  # fmt: skip


# How a move that made no model call is introduced, by the agent kind the manifest names.
KIND_WORDS = {"arena": "an agent file", "policy": "a policy", "llm": "a model agent"}

INPUT_NOTE = (
    "input holds the system prompt and the last user message, as pdbench stores an attempt; "
    "messages before it in the same conversation are not stored"
)


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def walk_pair_round(transcript: MatchTranscript, record: dict[str, Any]) -> None:
    """A 2x2 round: its talk message by message, both decisions, then the result."""
    number, when = record["round_index"], parse_utc(record.get("timestamp_utc"))
    for message in record.get("conversation") or []:
        marks = [
            mark for mark in ("cut", "empty", "timeout", "invalid", "promise") if message.get(mark)
        ]
        transcript.move(
            message["speaker"], message.get("text") or "(nothing said)", message.get("attempts") or [],
            when, round=number, kind="message", turn=message.get("turn"), marks=marks,
        )  # fmt: skip
    for side in ("a", "b"):
        action = record[f"agent_{side}_action"]
        attempts = record.get(f"agent_{side}_attempts") or []
        transcript.move(side, action, attempts, when, round=number, kind="decision", action=action)
    text = (
        f"Round {number}: agent_a {record['agent_a_action']}, agent_b {record['agent_b_action']}; "
        f"payoffs {record['agent_a_payoff']:g} and {record['agent_b_payoff']:g} "
        f"(totals {record['agent_a_cum_payoff']:g} and {record['agent_b_cum_payoff']:g})"
    )
    for side in ("a", "b"):
        intended = record.get(f"agent_{side}_intended")
        if intended and intended != record[f"agent_{side}_action"]:
            text += f"; agent_{side} meant {intended} (noise flipped it)"
    transcript.referee(text, when, {"round": number})


def walk_turn(transcript: MatchTranscript, record: dict[str, Any]) -> None:
    """A turn: each seat that moved (its calls, then its move), what it revealed, the outcome."""
    where = {"round": record.get("round"), "turn": record["turn"], "phase": record.get("phase")}
    when = parse_utc(record.get("timestamp_utc"))
    decisions = record.get("decisions") or {}
    for seat in record.get("seats") or []:
        action = (record.get("actions") or {}).get(seat)
        attempts = (decisions.get(seat) or {}).get("attempts") or []
        transcript.move(seat, _json(action), attempts, when, kind="turn", action=action, **where)
    if record.get("revealed") is not None:
        transcript.referee(f"Revealed: {_json(record['revealed'])}", when, where)
    outcome = record.get("outcome")
    if outcome is not None:
        scores = ", ".join(
            f"{role_of_seat(s)} {v:g}" for s, v in (outcome.get("scores") or {}).items()
        )
        winner = outcome.get("winner")
        text = f"Outcome: {scores}; " + (
            f"winner {role_of_seat(winner)}" if winner else "no winner"
        )
        if outcome.get("error"):
            text += f"; error: {outcome['error']}"
        transcript.referee(text, when, where)
