"""Whether the field an override names exists, and the one line that says so when it does not,
for both front doors (`overrides.apply_overrides` for experiment files, the diagnosis of a failed
Hydra composition in `hydra_compose`).

Two traps this module exists for:
- `key in node` on an OmegaConf mapping is False for a mandatory value (`path: ???` in
  conf/agent/arena.yaml): such a field exists, it is only not set yet (`has_key`);
- an agent's fields are its kind's (`AGENT_SPECS`), not only those its config node happens to
  list: `memory_mb` is an arena agent's field whether or not the file names it, and a
  suggestion for a misspelt field comes from that kind's fields only.
"""

from __future__ import annotations

from typing import Any

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from pdbench.config.agent_spec import AgentSpecBase, agent_kinds
from pdbench.core.errors import did_you_mean


def has_key(node: Any, key: str) -> bool:
    """Whether the mapping `node` holds `key`, a mandatory value (???) included."""
    # Not `key in node`: OmegaConf answers False for a ??? value.
    return isinstance(node, DictConfig) and key in node.keys()  # noqa: SIM118


def agent_kind(node: Any) -> tuple[str, type[AgentSpecBase]] | None:
    """The agent kind (its name and spec) a config node is, by its `type`; None for any other
    node (a horizon's `type` is not an agent kind)."""
    if not has_key(node, "type"):
        return None
    try:
        kind = OmegaConf.select(node, "type", throw_on_missing=False)
    except OmegaConfBaseException:
        return None
    spec = agent_kinds().get(str(kind))
    return None if spec is None else (str(kind), spec)


def declared(node: Any, leaf: str) -> bool:
    """Whether `leaf` is a field of `node`: one it holds, or one its agent kind declares."""
    kind = agent_kind(node)
    return has_key(node, leaf) or (kind is not None and leaf in kind[1].model_fields)


def settable_fields(node: Any) -> list[str]:
    """The fields an override may set in `node` (for "did you mean")."""
    fields = {str(key) for key in node} if isinstance(node, DictConfig) else set()
    kind = agent_kind(node)
    return sorted(fields | set(kind[1].model_fields if kind else ()))


def unknown_field(
    node: Any, parent_key: str, leaf: str, *, add_hint: str, override_syntax: bool = True
) -> str:
    """Why `<parent_key>.<leaf>` names no field of `node`. An agent's unknown field is named
    with its kind; one of another kind's fields says whose it is and, for an override
    (`override_syntax`), how to choose that kind (`<parent_key>=<example>`). `add_hint` ends
    the line for any other node (how to add one)."""
    kind = agent_kind(node)
    if kind is None:
        siblings = [str(key) for key in node] if isinstance(node, DictConfig) else []
        if siblings:
            return f"no such field{did_you_mean(leaf, siblings)}{add_hint}"
        there = "is not there" if node is None else "holds no fields"
        return f'no such field ("{parent_key}" {there}){add_hint}'
    name, _ = kind
    owners = [other for other, spec in agent_kinds().items() if leaf in spec.model_fields]
    if owners:
        example = agent_kinds()[owners[0]].kind_example
        choose = (
            f" (choose one first, e.g. {parent_key}={example})"
            if example and override_syntax
            else ""
        )
        return (
            f"{parent_key} is {_a(name)} agent, which has no {leaf}; {leaf} is an option of "
            f"{' and '.join(owners)} agents{choose}"
        )
    return f"{name} agents have no field {leaf}{did_you_mean(leaf, settable_fields(node))}"


def kind_name(node: Any) -> str:
    """ "an arena agent", "a policy agent", or "" for a node that is no agent."""
    kind = agent_kind(node)
    return f"{_a(kind[0])} agent" if kind else ""


def _a(word: str) -> str:
    return f"an {word}" if word[:1] in "aeiou" else f"a {word}"


def already_set(cfg: DictConfig, override: Any) -> str | None:
    """Why Hydra refuses `+key=value` (add) for a key that already holds a value, or None when it
    accepts it. Hydra adds a key that is absent, null or ??? (or merges a mapping or a list into
    it); a value there already is its error, which this says in pdbench's words."""
    if not override.is_add():
        return None
    key = override.key_or_group
    try:
        current = OmegaConf.select(cfg, key, throw_on_missing=False)
    except OmegaConfBaseException:
        return None
    value = override.value()
    if current is None or isinstance(value, dict | list):
        return None
    plain = str(override.input_line).removeprefix("+")
    return (
        f"already set (to {current!r}): a leading + only adds a field that is not there; "
        f"write {plain} to change it"
    )
