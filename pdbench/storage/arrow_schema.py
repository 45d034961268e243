"""How pyarrow reads rounds.jsonl: the schema is derived from RoundRecord's annotations (and
SideDecision's for the per-side markers), so a field added to the record is read with its type
without being restated here."""

from __future__ import annotations

import types
import typing
from typing import Any

import pyarrow as pa

from pdbench.storage.schema import ConversationMessage, RoundRecord, SideDecision


def _arrow_type(annotation: Any) -> pa.DataType:
    """The pyarrow type of a RoundRecord field's annotation (its optionality aside)."""
    hint = annotation
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
    return {int: pa.int64(), float: pa.float64(), str: pa.string(), bool: pa.bool_()}[hint]


# How pyarrow reads a stored conversation (the attempts are not read: they are for audit).
CONVERSATION_ARROW_TYPE = pa.list_(
    pa.struct(
        [
            ("speaker", pa.string()),
            ("turn", pa.int64()),
            ("text", pa.string()),
            *((mark, pa.bool_()) for mark in ConversationMessage.MARKS),
        ]
    )
)


def round_arrow_schema(names: typing.Iterable[str]) -> pa.Schema:
    """The pyarrow schema of the named rounds.jsonl fields, from RoundRecord's annotations and
    SideDecision's (for agent_<side>_<marker> fields)."""
    hints = typing.get_type_hints(RoundRecord)
    decision_hints = typing.get_type_hints(SideDecision)
    schema = []
    for name in names:
        if name == "conversation":
            schema.append((name, CONVERSATION_ARROW_TYPE))
        elif name in hints:
            schema.append((name, _arrow_type(hints[name])))
        else:
            side_marker = name.removeprefix("agent_a_").removeprefix("agent_b_")
            schema.append((name, _arrow_type(decision_hints[side_marker])))
    return pa.schema(schema)
