"""From a validated config to an experiment ready to run: every file its agents read is checked
(by the agent kind that reads it) and hashed, which fixes the config hash and the run id.

`load` is the one pipeline both front doors and every command use: read the config
(`pdbench.config.load`), then `prepare` it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from pdbench.agents.kinds import files_read
from pdbench.config.load import load_config
from pdbench.config.role_fields import roles_left_out_of_the_hash
from pdbench.config.schema import EXTRA_SEAT_FIELDS, SEAT_FIELDS, ExperimentSpec
from pdbench.config.tree import LoadedConfig
from pdbench.core.errors import ConfigError
from pdbench.core.redact import key_shaped_in
from pdbench.games.base import agent_game, setting_warnings
from pdbench.games.registry import options_recorded_only_when_set

# Fields that change how a run is executed or where it is stored, never what it produces.
RESULT_NEUTRAL_FIELDS: dict[str, Any] = {
    "run": {
        "run_id": True,
        "output_dir": True,
        "deal_key_file": True,  # where the key is read from; the manifest names the key itself
        "max_concurrency": True,
        "max_cost_usd": True,
        "allow_unpriced_calls": True,
        # batches or one call at a time: the same answers, at another price and pace
        "batch": True,
        "batch_latency_s": True,
        "batch_poll_s": True,
        "limits": True,  # how big a run may be, not what it plays
        # where the cache lives and whether it is used; its namespace does change the answers
        "cache": {"dir": True, "mode": True},
    },
    "source": True,
    "overrides": True,
}


@dataclass(frozen=True)
class LoadedExperiment:
    """A validated spec plus what is needed to reproduce and audit it."""

    spec: ExperimentSpec
    project_root: Path
    config_path: Path
    # sha256 of every file the spec points at (prompts, personas, arena agents), by relative path.
    referenced_files: dict[str, str] = field(default_factory=dict)
    # Settings that are legal but probably not meant (a GTFT default that degenerates in this
    # game): one line each, "<file>: <field>: <what happens>", printed as `warning:` lines.
    warnings: tuple[str, ...] = ()

    @property
    def config_hash(self) -> str:
        """Hash of everything that determines the results: the spec and the files it reads.

        Settings that cannot change a single round are left out, so that a run can be named,
        moved, resumed with a larger budget or more concurrency and still be the same run.
        """
        snapshot = self.spec.model_dump(mode="json", exclude=RESULT_NEUTRAL_FIELDS)
        for condition in snapshot["conditions"]:
            _without_unused_talk(condition)
            _without_options_recorded_only_when_set(condition)
            # unbound (a game without the role, or fewer seats): no result, and a pair's
            # condition keeps the hash it had before groups existed
            for role in (*roles_left_out_of_the_hash(), *EXTRA_SEAT_FIELDS):
                if condition.get(role) is None:
                    condition.pop(role, None)
            for agent in _seat_agents(condition):
                agent.pop("trace", None)  # an arena agent's training log: no result
        _without_a_server_list(snapshot)
        _without_provider_costs(snapshot)
        payload = {"spec": snapshot, "files": self.referenced_files}
        return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()

    @property
    def run_id(self) -> str:
        if self.spec.run.run_id:
            return self.spec.run.run_id
        return f"{self.config_path.stem}-{self.config_hash[:10]}"

    @property
    def run_dir(self) -> Path:
        output_dir = Path(self.spec.run.output_dir)
        if not output_dir.is_absolute():
            output_dir = self.project_root / output_dir
        return output_dir / self.run_id


def _without_a_server_list(node: Any) -> None:
    """Leave out a provider's empty `api_bases` (one server, or the provider's default): a run
    keeps the config hash (and run id) it had before providers could name several servers."""
    if isinstance(node, dict):
        if node.get("api_bases") == []:
            del node["api_bases"]
        for value in node.values():
            _without_a_server_list(value)
    elif isinstance(node, list):
        for value in node:
            _without_a_server_list(value)


# Provider settings that change what a call costs or how long it may wait, never an answer:
# left out of the hash, so a price given to resume a run under a budget keeps its run id (and
# runs made before the settings existed keep theirs).
PROVIDER_FIELDS_WITHOUT_RESULT = ("usd_per_million_tokens", "max_retry_after_s")


def _without_provider_costs(node: Any) -> None:
    """Leave out every provider's PROVIDER_FIELDS_WITHOUT_RESULT."""
    if isinstance(node, dict):
        if "model" in node and "api_base" in node:  # a provider
            for name in PROVIDER_FIELDS_WITHOUT_RESULT:
                node.pop(name, None)
        for value in node.values():
            _without_provider_costs(value)
    elif isinstance(node, list):
        for value in node:
            _without_provider_costs(value)


def _without_options_recorded_only_when_set(condition: dict[str, Any]) -> None:
    """Leave out a turn game's option marked `RECORDED_ONLY_WHEN_SET` while it holds its
    default, as the match records do: a run keeps the config hash (and run id) it had before
    the option existed, when it does not use it."""
    game = condition["game"]
    options = game.get("options")
    if not options:
        return
    for name, default in options_recorded_only_when_set(game["id"]).items():
        if name in options and options[name] == default:
            del options[name]


def _without_unused_talk(condition: dict[str, Any]) -> None:
    """Leave the negotiation settings out of a condition that does not talk: they cannot change
    a round there, and without them a classic run keeps the config hash (and the derived run
    id) it had before negotiation existed."""
    if condition["game"].get("negotiation") is not None:
        return
    condition["game"].pop("negotiation", None)
    for agent in _seat_agents(condition):
        agent.pop("negotiate_prompt", None)  # an LLM agent's, read only to talk
        if not agent.get("messages", True):  # a policy's canned messages: none
            agent.pop("messages")


def _seat_agents(condition: dict[str, Any]) -> list[dict[str, Any]]:
    """The agent config of every player seat field and population entry of a dumped
    condition, each once (to be edited in place)."""
    bound = [condition[side] for side in SEAT_FIELDS if condition.get(side) is not None]
    return bound + [entry["agent"] for entry in condition.get("population") or []]


def _key_shaped_warning(relative: str, data: bytes) -> list[str]:
    """A prompt file holding something shaped like a key (pasted by mistake): it is sent to the
    model with every prompt, and only strings of a known key shape are redacted from what pdbench
    writes (README: what redaction covers)."""
    found = key_shaped_in(data.decode("utf-8", "replace"))
    if not found:
        return []
    return [
        f"{relative}: holds something shaped like a key ({', '.join(found[:3])}): it is sent to "
        "the model with every prompt and redacted from the run's files only because of its "
        "shape; remove it from the file"
    ]


def prepare(config: LoadedConfig) -> LoadedExperiment:
    """Check every file the spec's agents read and record their hashes."""
    spec = config.spec
    files: dict[str, str] = {}
    warnings: list[str] = []
    for index, condition in enumerate(spec.conditions):
        horizon = condition.horizon.build()
        # the rules of a one-round match: what an agent is given does not depend on the length
        rules = condition.game.rules_builder(rounds_shown=horizon.type == "fixed")(1)
        for side, agent in condition.agents.items():  # a turn game's third parties too
            where = f"conditions[{index}]({condition.name}).{side}"
            # the game as this agent will be given it (a turn game: its rules; a 2x2 game: the
            # table from the agent's side)
            seat = side.removeprefix("agent_")
            game = agent_game(rules, seat)
            try:
                relatives = files_read(agent, game, horizon, config.project_root)
            except ConfigError as error:
                # Name the config file that asks for the file; the file itself is in the reason.
                reason = f"{error.file}: {error.reason}" if error.file else error.reason
                field_ = f"{where}.{error.field}" if error.field else where
                raise ConfigError(reason, file=spec.source, field=field_) from None
            for relative in relatives:
                full = config.project_root / relative
                data = full.read_bytes()
                # A file the agent sends to a model: a key pasted into it would be sent too.
                if agent.uses_provider and relative not in files:
                    warnings.extend(_key_shaped_warning(relative, data))
                files[relative] = hashlib.sha256(data).hexdigest()
            provider = getattr(agent, "provider", None) if agent.uses_provider else None
            ignored = provider.ignored_options() if provider is not None else []
            for kind in dict.fromkeys(kind for kind, _ in ignored):
                options = ", ".join(f"provider.{o}" for k, o in ignored if k == kind)
                warnings.append(
                    f"{spec.source}: {where}: {options}: the {kind} provider's options, which "
                    f"{getattr(provider, 'name', '')} does not read (ignored)"
                )
            warnings.extend(  # the game says which settings mislead in it (2x2 payoffs)
                f"{spec.source}: {where}.{w.field}: {w.message}"
                for w in setting_warnings(rules, agent, seat)
            )
    return LoadedExperiment(
        spec=spec,
        project_root=config.project_root,
        config_path=config.config_path,
        referenced_files=dict(sorted(files.items())),
        warnings=tuple(warnings),
    )


def load(
    path: str | Path,
    overrides: Sequence[str] = (),
    *,
    replicates: int | None = None,
    run_id: str | None = None,
    project_root: Path | None = None,
) -> LoadedExperiment:
    """Load an experiment file or a Hydra primary config and prepare it."""
    return prepare(
        load_config(
            path, overrides, replicates=replicates, run_id=run_id, project_root=project_root
        )
    )
