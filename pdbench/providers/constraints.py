"""Constrained decoding: what a server is sent so that a model can only write an allowed answer,
as llama.cpp's GBNF `grammar` (a 2x2 game's two labels, a turn game's legal moves) or as an
OpenAI `json_schema` response format whose one property is an enum of the labels."""

from __future__ import annotations

from typing import Any


def label_grammar(answers: tuple[str, ...]) -> str:
    """A GBNF grammar (llama.cpp) whose only sentences are the `answers` (a 2x2 game's two
    labels, a turn game's legal moves)."""
    return "root ::= " + " | ".join(_gbnf_literal(answer) for answer in answers)


def _gbnf_literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def label_json_schema(labels: tuple[str, ...]) -> dict[str, Any]:
    """An OpenAI `response_format` that allows only `{"action": <one of the labels>}`."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": "action",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": {"action": {"type": "string", "enum": list(labels)}},
                "required": ["action"],
                "additionalProperties": False,
            },
        },
    }
