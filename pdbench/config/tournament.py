"""A tournament: a list of agents and the round robin over them, expanded into conditions.

An experiment file holds a `tournament:` block instead of `conditions:`:

    tournament:
      agents:                 # a name from conf/agent/, {ref, overrides}, or an inline agent
        - tft
        - {ref: agent/llm_default.yaml, overrides: {persona: exploitative}, label: llm_exploit}
        - {label: gtft_10, type: policy, policy: gtft, params: {generous_prob: 0.1}}
      self_play: true         # each agent also meets a copy of itself (Axelrod does)
      pairs: unordered        # unordered: each pair once; ordered: each pair in both seats

and the Hydra door takes the same block as overrides of conf/config.yaml:
`python -m pdbench tournament.agents=[tft,grim,llm_default]`.

Every agent gets a label: its `label`, else its own `name`, else its name in conf/agent/, else the
ref's file stem. Labels are unique (two agents with one label are refused) and become the agents'
display names, so the player of every stored match is never ambiguous. Each pair is one condition
named `<a>_vs_<b>` with factors {player_a: <a>, player_b: <b>}; unordered pairs follow the list
(agents[i] plays as a against agents[j] for i < j, or i <= j with self-play), as Axelrod's round
robin does. Axelrod plays self-play and leaves it out of scores; `pdbench tournament` does the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf, open_dict

from pdbench.config.files import resolve_agent
from pdbench.config.hydra_compose import compose_primary, condition_from_composed
from pdbench.config.overrides import Overrides, apply_overrides
from pdbench.config.tree import LoadedConfig, conf_dir
from pdbench.config.validation import assemble
from pdbench.core.errors import ConfigError, did_you_mean

TOURNAMENT_KEYS = ("agents", "self_play", "pairs")
PAIRS = ("unordered", "ordered")
DEFAULTS: dict[str, Any] = {"agents": [], "self_play": True, "pairs": "unordered"}
PLAYER_FACTORS = ("player_a", "player_b")


def round_robin(labels: Sequence[str], *, self_play: bool, pairs: str) -> list[tuple[str, str]]:
    """The (a, b) pairs of a round robin over `labels`, in play order."""
    n = len(labels)
    if pairs == "ordered":
        return [
            (labels[i], labels[j])
            for i in range(n)
            for j in range(n)
            if i != j or (self_play and j == i)
        ]
    first = 0 if self_play else 1
    return [(labels[i], labels[j]) for i in range(n) for j in range(i + first, n)]


def tournament_conditions(
    block: Any, *, base_dir: Path, project_root: Path, shown: str
) -> ListConfig:
    """The conditions of a `tournament:` block: {name, factors, agent_a, agent_b} per pair, the
    agents fully resolved (interpolations such as ${persona} are left for the condition)."""
    if not isinstance(block, DictConfig):
        raise ConfigError(
            "a tournament is a mapping with agents, self_play and pairs",
            file=shown,
            field="tournament",
        )
    for key in map(str, block):
        if key not in TOURNAMENT_KEYS:
            raise ConfigError(
                f"unknown field{did_you_mean(key, TOURNAMENT_KEYS)}",
                file=shown,
                field=f"tournament.{key}",
            )
    pairs = block.get("pairs", DEFAULTS["pairs"])
    if pairs not in PAIRS:
        raise ConfigError(
            f'must be "unordered" or "ordered" (got {pairs!r})',
            file=shown,
            field="tournament.pairs",
        )
    self_play = block.get("self_play", DEFAULTS["self_play"])
    if not isinstance(self_play, bool):
        raise ConfigError(
            f"must be true or false (got {self_play!r})", file=shown, field="tournament.self_play"
        )
    entries = block.get("agents")
    if not isinstance(entries, ListConfig) or len(entries) < (1 if self_play else 2):
        raise ConfigError(
            "a list of at least two agents is needed (names from conf/agent/, {ref, overrides} "
            "or inline agents with a label)",
            file=shown,
            field="tournament.agents",
        )
    agents: dict[str, DictConfig] = {}
    for index, entry in enumerate(entries):
        where = f"tournament.agents[{index}]"
        label, agent = _labelled_agent(
            entry, base_dir=base_dir, project_root=project_root, shown=shown, where=where
        )
        if label in agents:
            first = list(agents).index(label)
            raise ConfigError(
                f'label "{label}" is already used by tournament.agents[{first}]; give one of them '
                "its own label (label: ...)",
                file=shown,
                field=where,
            )
        agents[label] = agent
    conditions = [
        {
            "name": f"{a}_vs_{b}",
            "factors": {"player_a": a, "player_b": b},
            "agent_a": agents[a],
            "agent_b": agents[b],
        }
        for a, b in round_robin(list(agents), self_play=self_play, pairs=str(pairs))
    ]
    result = OmegaConf.create(conditions)
    assert isinstance(result, ListConfig)
    return result


def _labelled_agent(
    entry: Any, *, base_dir: Path, project_root: Path, shown: str, where: str
) -> tuple[str, DictConfig]:
    """(label, resolved agent with its display name set to the label) for one entry."""
    explicit = None
    if isinstance(entry, DictConfig) and "label" in entry:
        explicit = entry.get("label")
        if not isinstance(explicit, str) or not explicit.strip():
            raise ConfigError("a label is a non-empty name", file=shown, field=f"{where}.label")
        entry = OmegaConf.masked_copy(entry, [str(k) for k in entry if k != "label"])
    agent = resolve_agent(
        entry, base_dir=base_dir, project_root=project_root, shown=shown, where=where
    ).copy()
    own_name = agent.get("name")
    if explicit is not None:
        label = explicit.strip()
    elif own_name:
        label = str(own_name)
    elif isinstance(entry, str):
        label = entry
    elif isinstance(entry, DictConfig) and "ref" in entry:
        label = Path(str(entry.ref)).stem
    else:
        raise ConfigError(
            "an inline agent needs a label (label: ...) or a name", file=shown, field=where
        )
    agent.name = label
    return label, agent


# --- the Hydra door: tournament.* overrides of conf/config.yaml -------------------------------


def _sets_tournament(override: Any) -> bool:
    return bool(override.key_or_group.split(".")[0] == "tournament")


def tournament_overrides(overrides: Overrides) -> Overrides:
    """The overrides that set the tournament block (`tournament.agents=[...]`, ...)."""
    return overrides.where(_sets_tournament)


def load_primary_tournament(
    path: Path, overrides: Overrides, *, project_root: Path, shown: str
) -> LoadedConfig:
    """A tournament from conf/config.yaml: the tournament.* overrides give the block, the others
    compose the shared game, horizon, persona, provider and run settings as usual (the
    composition's agent_a and agent_b are not used)."""
    lines = tournament_overrides(overrides)
    for override in lines.parsed:
        if override.is_sweep_override():
            raise ConfigError(
                f'"{override.input_line}": a tournament is one run; its agents are a list '
                "(tournament.agents=[tft,grim]), not a sweep",
                file=shown,
                field=override.key_or_group,
            )
    rest = overrides.where(lambda o: not _sets_tournament(o))
    cfg = compose_primary(path, rest, project_root=project_root)
    holder = OmegaConf.create({"tournament": dict(DEFAULTS)})
    apply_overrides(holder, lines, shown)
    conditions = []
    for condition in tournament_conditions(
        holder.tournament, base_dir=conf_dir(project_root), project_root=project_root, shown=shown
    ):
        composed = cfg.copy()
        with open_dict(composed):
            composed.agent_a, composed.agent_b = condition.agent_a, condition.agent_b
        conditions.append(
            condition_from_composed(
                composed,
                condition_name=str(condition.name),
                shown=shown,
                project_root=project_root,
                overrides=rest,
                factors={str(k): str(v) for k, v in condition.factors.items()},
            )
        )
    return assemble(
        cfg,
        conditions,
        shown=shown,
        overrides=overrides,
        project_root=project_root,
        config_path=path,
    )
