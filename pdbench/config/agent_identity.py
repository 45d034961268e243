"""Who an agent is, across runs: the fields that change how it plays, and a name to show.

The ladder (pdbench/ladder) rates an agent once however many runs it played in, so two stored
agents are the same agent exactly when their identity keys are equal. Each agent kind's spec says
what its key holds (`AgentSpecBase.identity`, in pdbench/config/agent_spec_base.py):

- a policy: its name, its parameters and its canned messages (a display name is no part of it);
- an arena file: the sha256 of the file's content, as the run's manifest recorded it
  (`referenced_files`), shown as `name@hash8`: an edited file is a new agent;
- an LLM agent: the fields of the provider cache key that are the agent's rather than the
  sample's (pdbench.providers.base.CompletionRequest.key_fields): provider, model, server,
  the provider's answer-deciding options, temperature, max_tokens, seed, response format,
  constraint, and the messages, which are made from the prompt and persona files (their content
  hashes) and the settings that render them. The sample (condition and replicate) and a cache
  namespace draw other samples of the same agent, so they are left out; so are the harness's
  retries and fallback, which change what is stored after an invalid answer, not the answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson


@dataclass(frozen=True)
class AgentIdentity:
    """An agent as the ladder counts it: `key` is the sha256 of its identity fields."""

    kind: str
    name: str  # what a table shows, e.g. tft, gtft(generous_prob=0.1), grudger@1a2b3c4d
    fields: dict[str, Any]

    @property
    def key(self) -> str:
        canonical = orjson.dumps({"kind": self.kind, **self.fields}, option=orjson.OPT_SORT_KEYS)
        return hashlib.sha256(canonical).hexdigest()

    @property
    def hash8(self) -> str:
        return self.key[:8]


def file_hash(files: Mapping[str, str], path: str | None) -> str | None:
    """The recorded sha256 of a file the agent read (None: not recorded, e.g. an older run)."""
    return None if path is None else files.get(path)


def params_text(params: Mapping[str, Any]) -> str:
    """`(a=1, b=0.5)` in key order, or "" without parameters."""
    if not params:
        return ""
    return "(" + ", ".join(f"{k}={params[k]}" for k in sorted(params)) + ")"


def policy_identity(
    policy: str, params: Mapping[str, Any], messages: tuple[str, ...]
) -> AgentIdentity:
    """Every parameter with its value, defaults filled in: a parameter set to its default is the
    same agent as one left out; the name shows only the parameters that differ."""
    values, defaults = _policy_params(policy, params)
    changed = {k: v for k, v in values.items() if v != defaults.get(k)}
    fields: dict[str, Any] = {"policy": policy, "params": values}
    if messages:
        fields["messages"] = list(messages)
    return AgentIdentity("policy", policy + params_text(changed), fields)


def _policy_params(policy: str, params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A policy's parameter values (defaults filled in) and its defaults: a 2x2 policy's from its
    params model, a turn game's house player's from its dataclass fields."""
    from pdbench.strategies import POLICIES

    if policy in POLICIES:
        model = POLICIES[policy].params_model
        values = model.model_validate(dict(params)).model_dump(mode="json")
        return values, model().model_dump(mode="json")
    import dataclasses

    from pdbench.games.registry import house_factories, turn_policy_games

    factory = house_factories(turn_policy_games()[policy])[policy]  # a player or a third party
    defaults = {  # its parameters: the fields set when it is made (a derived field is not one)
        f.name: f.default
        for f in dataclasses.fields(factory)  # type: ignore[arg-type]
        if f.init and f.default is not dataclasses.MISSING
    }
    return {**defaults, **params}, defaults


# An LLM agent's settings that are in every request it sends (temperature, seed, format,
# constraint) or that render its messages.
LLM_ANSWER_SETTINGS = frozenset(
    {
        "temperature",
        "seed",
        "response_format",
        "constrain",
        "history_window",
        "history_format",
        "perspective",
        "label_style",
        "option_order",
        "include_totals",
        "totals_format",
        "disclose_horizon",
    }
)


def llm_identity(name: str, fields: dict[str, Any]) -> AgentIdentity:
    """Shown as `<model>[<persona>]@hash8`: the hash tells prompt versions apart."""
    return AgentIdentity("llm", f"{name}@{AgentIdentity('llm', '', fields).hash8}", fields)


def arena_identity(path: str, files: Mapping[str, str]) -> AgentIdentity:
    """The file's content hash as the run recorded it, shown as `<stem>@hash8`."""
    digest = file_hash(files, path)
    fields = {"sha256": digest} if digest else {"path": path}  # an older run: no hash
    hash8 = digest[:8] if digest else AgentIdentity("arena", "", fields).hash8
    return AgentIdentity("arena", f"{Path(path).stem}@{hash8}", fields)
