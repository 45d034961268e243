"""A condition's third-role fields (one per role, `<role>: <agent>` or `<role>: [<agents>]`),
made from the roles the registered games declare (`pdbench.games.roles.ThirdRole`), not written out here: one field per
role name, typed as one agent or, for a role a panel may play, an odd panel of them.

The fields are added to the condition's model when `pdbench.config.schema` is imported, from the
games registered then (the built-in games and the plugins found by the registry). Whether the
condition's game has the role, and whether the bound agent may play it, is checked against the
game's own declaration when the condition is validated (`ConditionSpec._game_is_consistent`).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationInfo, create_model, field_validator

from pdbench.config.agent_spec import AgentSpec
from pdbench.config.frozen import Frozen
from pdbench.games.registry import TURN_GAMES, declared_roles, game_roles
from pdbench.games.roles import ThirdRole


def with_role_fields[Model: Frozen](base: type[Model], name: str) -> type[Model]:
    """`base` with a field for every declared third role, after its own fields, in the order the
    games declare the roles (so a stored condition lists them as it always did)."""
    fields: dict[str, Any] = {
        role.name: (_binding(role), Field(None, description=_description(role), **_stored(role)))
        for role in declared_roles().values()
    }
    panels = [role.name for role in declared_roles().values() if role.panel]
    validators = {"_odd_panel": field_validator(*panels)(_odd_panel)} if panels else {}
    return create_model(
        name, __base__=base, __module__=base.__module__, __validators__=validators, **fields
    )


def _binding(role: ThirdRole) -> Any:
    return AgentSpec | tuple[AgentSpec, ...] | None if role.panel else AgentSpec | None


def _stored(role: ThirdRole) -> dict[str, Any]:
    """An unbound role is left out of the stored condition unless it stores null
    (`ThirdRole.unbound`)."""
    return {} if role.unbound != "absent" else {"exclude_if": lambda value: value is None}


def _description(role: ThirdRole) -> str:
    games = ", ".join(g for g, entry in TURN_GAMES.items() if role in entry.third_roles)
    if role.audits:
        return (
            f"an audit of the {role.audits} ({games}): asked everything the {role.audits} is "
            "asked, bound like an agent; its answers are stored with the turn, never played"
        )
    panel = ", or a list: an odd panel deciding by majority" if role.panel else ""
    return (
        f"the {role.name} of {games} (shown {role.shown}), bound like an agent{panel} "
        "(default: the game's house one)"
    )


def _odd_panel(cls: type, value: object, info: ValidationInfo) -> object:
    if isinstance(value, tuple) and (len(value) < 3 or len(value) % 2 == 0):
        raise ValueError(
            f"a panel playing {info.field_name} is an odd number of at least 3 (a majority "
            f"without ties), got {len(value)}"
        )
    return value


def check_roles(condition: Any) -> None:
    """Every role a condition (`ConditionFields`) binds is one its game declares, played by an
    agent the role admits (an audit by one that could play the role it audits); else a
    ValueError naming the field and, for a role the game lacks, the roles it has."""
    game_id = condition.game.id
    roles = {role.name: role for role in game_roles(game_id)}
    game = condition.game.entry.named
    for name in declared_roles():
        bound = condition.bound_role(name)
        if bound is None:
            continue
        if name not in roles:
            has = f"its third roles: {', '.join(roles)}" if roles else "it has no third role"
            raise ValueError(f"{name}: {game} has no {name} role ({has})")
        played_as = roles[name].audits or name
        panel = isinstance(bound, tuple)
        for i, spec in enumerate(bound if panel else (bound,)):
            problem = spec.problem_as_third_party(game_id, played_as)
            if problem is not None:
                raise ValueError(f"{name}{f'[{i}]' if panel else ''}.{problem}")


def role_names() -> tuple[str, ...]:
    """Every third role a condition may bind, by name (the fields `with_role_fields` adds)."""
    return tuple(declared_roles())


def roles_left_out_of_the_hash() -> tuple[str, ...]:
    """The roles whose unbound null the config hash leaves out (`ThirdRole.unbound`)."""
    return tuple(r.name for r in declared_roles().values() if r.unbound != "null_hashed")
