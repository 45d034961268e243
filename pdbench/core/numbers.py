"""Booleans are not numbers in a config (issue 27).

YAML reads `yes`, `no`, `on`, `off`, `true` and `false` as booleans, and Python's `bool` is an
`int`: pydantic would take `replicates: yes` as 1 and `rounds: on` as 1 round. Every config model
(and every policy's parameters) refuses a boolean where its field wants a number, with
`refuse_booleans_in_fields` as a before-validator of the model.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic_core import PydanticCustomError

BOOLEAN_NOT_A_NUMBER = "boolean_not_a_number"  # the pydantic error type


def _leaves(annotation: Any) -> set[Any]:
    """The plain types a field's annotation allows at its top level (through `X | None`,
    `Optional`, `Annotated` and `Literal`)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _leaves(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_leaves(arg) for arg in typing.get_args(annotation)))
    if origin is typing.Literal:
        return {type(arg) for arg in typing.get_args(annotation)}
    return {origin or annotation}


def _element_type(annotation: Any) -> Any | None:
    """The element type of a homogeneous container annotation (list[float], tuple[int, ...],
    dict[str, float]), or None."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _element_type(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        found = (_element_type(arg) for arg in typing.get_args(annotation))
        return next((element for element in found if element is not None), None)
    args = typing.get_args(annotation)
    if origin in (list, set, frozenset) and args:
        return args[0]
    if origin is tuple and args:
        return args[0] if (len(args) == 2 and args[1] is Ellipsis) or len(set(args)) == 1 else None
    if origin is dict and len(args) == 2:
        return args[1]
    return None


def wants_a_number_not_a_boolean(annotation: Any) -> bool:
    leaves = _leaves(annotation)
    return bool(leaves & {int, float}) and bool not in leaves


def refuse_booleans_as_numbers(value: Any, annotation: Any) -> Any:
    """`value` unchanged, or ValueError when it is a boolean where `annotation` wants a number
    (also inside a list, tuple or mapping of numbers)."""
    if isinstance(value, bool):
        if wants_a_number_not_a_boolean(annotation):
            word = "true" if value else "false"
            raise ValueError(
                f"expected a number, got the boolean {word} (YAML reads yes, no, on, off, true "
                "and false as booleans)"
            )
        return value
    element = _element_type(annotation)
    if element is not None:
        items = value.values() if isinstance(value, dict) else value
        if isinstance(items, list | tuple | set | frozenset | type({}.values())):
            for item in items:
                refuse_booleans_as_numbers(item, element)
    return value


def refuse_booleans_in_fields(model: Any, data: Any) -> Any:
    """`data` (the mapping a pydantic `model` is validated from) unchanged, or ValueError naming
    the first field that holds a boolean where the field wants a number."""
    if not isinstance(data, dict):
        return data
    for name, field in model.model_fields.items():
        key = name if name in data else field.alias
        if key is None or key not in data:
            continue
        try:
            refuse_booleans_as_numbers(data[key], field.annotation)
        except ValueError as error:
            # The field's name goes in the context: a config error line names the whole path.
            raise PydanticCustomError(
                BOOLEAN_NOT_A_NUMBER, "{field}: " + str(error), {"field": key}
            ) from None
    return data
