"""A turn game's house policy's parameters, checked against the policy's own fields (the house
players of `pdbench.games` are frozen dataclasses whose fields are their parameters)."""

from __future__ import annotations

import dataclasses
from typing import Any


def checked_turn_params(policy_name: str, params: dict[str, Any]) -> dict[str, Any]:
    """`params` if the policy takes them all with values of the default's type; a ValueError
    naming `params.<name>` otherwise (an unknown name gets "did you mean")."""
    from pdbench.core.errors import unknown_choice
    from pdbench.games.registry import house_factories, turn_policy_games

    factory = house_factories(turn_policy_games()[policy_name])[policy_name]
    fields = {f.name: f.default for f in dataclasses.fields(factory)}  # type: ignore[arg-type]
    for name, value in params.items():
        if name not in fields:
            raise ValueError(
                f"params.{name}: "
                + unknown_choice(f"parameter of {policy_name}", name, fields or ["(none)"])
            )
        default = fields[name]
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if isinstance(default, float) and number:
            value = float(value)
        elif isinstance(default, bool) != isinstance(value, bool) or not isinstance(
            value, type(default)
        ):
            raise ValueError(
                f"params.{name}: must be {type(default).__name__} like the default "
                f"{default!r}, got {value!r}"
            )
        params = {**params, name: value}
    try:
        factory(**params)
    except ValueError as error:
        raise ValueError(f"params: {error}") from None
    return params
