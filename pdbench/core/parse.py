"""Strict parsing of a model's answer into an action.

Three formats, all strict on purpose, so that a stored action is always one the model clearly
chose:

- `label`: the whole answer, trimmed, is one of the game's two labels (case-insensitive).
  Prose is never searched: "I will not defect" is invalid, not a defection.
- `json`: the whole answer is a JSON object `{"action": "<label>"}` with an optional
  `"reason"` string and no other keys, each given once (`{"action": "D", "action": "C"}` is
  ambiguous, so invalid).
- `reasoning`: free reasoning, then the action alone on the last line (Payne and Alloui-Cros
  2025). Only that last non-empty line is read, by the `label` rule; the reasoning above it is
  never searched for a move, so "...so I defect.\nC" is a cooperation and "I defect." alone on the
  last line is invalid.

An invalid answer comes back as `ParsedAnswer(valid=False, error=...)`; the error is short and
meant to be shown to the model in a correction prompt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from pdbench.core.actions import Action

ResponseFormat = Literal["label", "json", "reasoning"]


@dataclass(frozen=True, slots=True)
class ParsedAnswer:
    """The outcome of parsing one answer."""

    valid: bool
    action: Action | None = None
    reason: str | None = None  # the optional "reason" of a JSON answer
    error: str | None = None  # why the answer is invalid; None when valid
    reasoning: str | None = None  # a reasoning answer's text above its last line


def parse_answer(
    text: str, labels: tuple[str, str], response_format: ResponseFormat = "label"
) -> ParsedAnswer:
    """Parse `text` against `labels` = (cooperative label, defecting label)."""
    if response_format == "label":
        return _parse_label(text, labels)
    if response_format == "json":
        return _parse_json(text, labels)
    if response_format == "reasoning":
        return _parse_reasoning(text, labels)
    raise ValueError(f'unknown response format "{response_format}" (label, json or reasoning)')


def _action_for(word: str, labels: tuple[str, str]) -> Action | None:
    word = word.strip().casefold()
    if word == labels[0].strip().casefold():
        return Action.C
    if word == labels[1].strip().casefold():
        return Action.D
    return None


def _expected(labels: tuple[str, str]) -> str:
    return f'"{labels[0]}" or "{labels[1]}"'


def _parse_label(text: str, labels: tuple[str, str]) -> ParsedAnswer:
    if not text.strip():
        return ParsedAnswer(
            False, error=f"the answer is empty; expected exactly {_expected(labels)}"
        )
    action = _action_for(text, labels)
    if action is None:
        return ParsedAnswer(False, error=f"expected exactly {_expected(labels)} and nothing else")
    return ParsedAnswer(True, action=action)


def _parse_json(text: str, labels: tuple[str, str]) -> ParsedAnswer:
    try:
        value = json.loads(text, object_pairs_hook=_without_duplicate_keys)
    except _DuplicateKey as duplicate:
        return ParsedAnswer(False, error=f'the key "{duplicate}" appears twice; give each key once')
    except (json.JSONDecodeError, RecursionError):
        return ParsedAnswer(False, error="the answer is not a JSON object (and only one)")
    if not isinstance(value, dict):
        return ParsedAnswer(False, error="the answer must be a JSON object, not a JSON value")
    extra = sorted(set(value) - {"action", "reason"})
    if extra:
        return ParsedAnswer(
            False, error=f'unexpected keys {extra}; only "action" and "reason" are allowed'
        )
    label = value.get("action")
    if not isinstance(label, str):
        return ParsedAnswer(False, error=f'"action" must be the string {_expected(labels)}')
    reason = value.get("reason")
    if reason is not None and not isinstance(reason, str):
        return ParsedAnswer(False, error='"reason" must be a string')
    action = _action_for(label, labels)
    if action is None:
        return ParsedAnswer(False, error=f'"action" must be {_expected(labels)}, got "{label}"')
    return ParsedAnswer(True, action=action, reason=reason)


class _DuplicateKey(ValueError):
    """A JSON object that gives a key twice: `{"action": "D", "action": "C"}` is ambiguous
    (json.loads would keep the last), so the answer is invalid, never the last value's move."""


def _without_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    value: dict[str, object] = {}
    for key, item in pairs:
        if key in value:
            raise _DuplicateKey(key)
        value[key] = item
    return value


def _parse_reasoning(text: str, labels: tuple[str, str]) -> ParsedAnswer:
    lines = text.strip().splitlines()
    if not lines:
        return ParsedAnswer(
            False, error=f"the answer is empty; expected your reasoning, then {_expected(labels)}"
        )
    reasoning = "\n".join(lines[:-1]).strip() or None
    action = _action_for(lines[-1], labels)
    if action is None:
        return ParsedAnswer(
            False,
            reasoning=reasoning,
            error=f"the last line must be exactly {_expected(labels)} and nothing else",
        )
    return ParsedAnswer(True, action=action, reasoning=reasoning)
