"""A policy named in a config, and its parameters, checked against the policy registry
(pdbench.strategies): for a policy agent and for the mock model that plays one."""

from __future__ import annotations

from typing import Any


def known_policy_name(value: str) -> str:
    from pdbench.strategies import POLICIES  # policies register themselves on import

    if value not in POLICIES:
        from pdbench.core.errors import unknown_choice

        raise ValueError(unknown_choice("policy", value, POLICIES))
    return value


def checked_params(policy_name: str, params: dict[str, Any]) -> dict[str, Any]:
    """Each parameter through the policy's model: an unknown name gets "did you mean", a bad
    value fails under params.<name> (pydantic nests the model's own error). Values are kept as
    the model reads them (1 -> 1.0 for a probability), only for the names given."""
    from pdbench.strategies import POLICIES
    from pdbench.strategies.base import unknown_parameter_message

    policy = POLICIES.get(policy_name)
    if policy is None:
        return params  # the policy name itself is wrong (or missing), and says so
    for name in params:
        if name not in policy.params_model.model_fields:
            raise ValueError(unknown_parameter_message(policy, name))
    validated = policy.params_model.model_validate(params)
    return validated.model_dump(mode="json", include=set(params))
