"""Front door 2: Hydra's primary config (conf/config.yaml), one condition per composition."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf, open_dict
from omegaconf.errors import OmegaConfBaseException

from pdbench.config import composition_memo
from pdbench.config.files import resolve_agent
from pdbench.config.group_choices import check_choices
from pdbench.config.hydra_loader_memo import hydra_compositions_memoized
from pdbench.config.installed_options import store_installed_options
from pdbench.config.mechanism import under_its_mechanism
from pdbench.config.override_fields import (
    already_set,
    declared,
    has_key,
    kind_name,
    unknown_field,
)
from pdbench.config.overrides import (
    NO_OVERRIDES,
    Overrides,
    cli_options_as_overrides,
    parse_overrides,
)
from pdbench.config.population import read_population
from pdbench.config.role_panels import command_line_panels
from pdbench.config.schema import EXTRA_SEAT_FIELDS, SEAT_FIELDS
from pdbench.config.sweep import expand, sweep_id
from pdbench.config.sweep_seats import game_seats
from pdbench.config.tree import GROUPS, HYDRA_GROUPS, ROLES, LoadedConfig, conf_dir
from pdbench.config.validation import (
    assemble,
    condition_dict,
    unknown_key_path,
)
from pdbench.config.yaml_reader import check_yaml, display_path
from pdbench.core.errors import ConfigError, did_you_mean
from pdbench.core.redact import redact_text
from pdbench.games.registry import TURN_GAMES

# What a composed config may hold at its top level (`hydra` is Hydra's own node).
PRIMARY_KEYS = (
    "game",
    "mechanism",
    "horizon",
    *SEAT_FIELDS,
    "population",  # or every seat at once (pdbench.config.population)
    # the third roles the registered games declare, by name (`tree.ROLES`)
    *ROLES,
    "persona",
    "provider",
    "run",
    "metrics",
    "hydra",
)


def condition_name_from_overrides(task_overrides: Iterable[str], cfg: DictConfig) -> str:
    """A readable, unique name for one composition: its overrides, or "a_vs_b". Secrets in the
    overrides (a key in an api_base) are redacted: the name is written everywhere."""
    meaningful = [
        _name_part(override)
        for override in parse_overrides(task_overrides, "the command line")
        if not override.key_or_group.startswith(NOT_A_CONDITION)
    ]
    if meaningful:
        return redact_text(",".join(sorted(meaningful)))
    return f"{_agent_label(cfg.agent_a)}_vs_{_agent_label(cfg.agent_b)}"


# Keys that set how a run is made, not what a condition is: never part of its name, added
# (+run.cache.namespace=x) or not. The namespace still reaches the cache key (run.cache).
NOT_A_CONDITION = ("run.", "hydra", "metrics.")


def _name_part(override: Any) -> str:
    """An override as a condition's name shows it: as typed, but a list value compact and
    without spaces or quotes (game.labels=[J,F], not game.labels=[J, F])."""
    value = override.value()
    if isinstance(value, list):
        prefix = "+" if override.is_add() else ""
        return f"{prefix}{override.key_or_group}=[{','.join(str(v) for v in value)}]"
    return str(override.input_line)


def _agent_label(agent: DictConfig) -> str:
    return str(agent.get("policy") or agent.get("name") or agent.get("type"))


def condition_from_composed(
    cfg: DictConfig,
    *,
    condition_name: str,
    shown: str,
    project_root: Path,
    overrides: Overrides = NO_OVERRIDES,
    factors: dict[str, str] | None = None,
    none_as_turn_game: bool = False,
) -> dict[str, Any]:
    """One condition (as a plain dict) from a Hydra composition; a role the command line binds
    to a panel (`<role>=[a,b,c]`) takes its agents from `role_panels`, not the composition.
    `none_as_turn_game`: a sweep crossing mechanism none with others (`_under_mechanism`)."""
    for key in cfg:
        if key not in PRIMARY_KEYS:
            raise ConfigError(
                f"unknown top-level key{did_you_mean(str(key), PRIMARY_KEYS)}",
                file=shown,
                field=unknown_key_path(cfg, str(key)),
            )
    keys = overrides.keys()
    if "game.id" in keys:  # a new game plays its own payoffs and labels unless given too
        cfg = cfg.copy()
        for part in ("payoffs", "labels"):
            if not any(k == f"game.{part}" or k.startswith(f"game.{part}.") for k in keys):
                with open_dict(cfg.game):
                    cfg.game[part] = None
    cfg = _under_mechanism(cfg, shown, none_as_turn_game)
    if "persona" not in keys:
        cfg = _the_games_own_persona(cfg)
    roles = {role: cfg[role] for role in ROLES if cfg.get(role) is not None}
    roles |= command_line_panels(overrides, project_root, shown)
    if cfg.get("population") is not None:
        cfg, seats = composed_population(cfg, keys, project_root=project_root, shown=shown)
    else:
        seats = {
            "agent_a": cfg.agent_a,
            "agent_b": cfg.agent_b,
            # a group game's further seats (agent_c=...), when the command binds them
            **{side: cfg[side] for side in EXTRA_SEAT_FIELDS if cfg.get(side) is not None},
        }
        kept = game_seats(cfg.game) if "game" in (factors or {}) else None
        if kept is not None:  # a sweep crossing games of different sizes: this game's seats
            seats = {side: agent for side, agent in seats.items() if side[len("agent_") :] in kept}
    node = OmegaConf.create(
        {
            "name": condition_name,
            "factors": factors or {},
            "game": cfg.game,
            "horizon": cfg.horizon,
            **seats,
            # a third role (keeper=..., judge=...), when the command binds one
            **roles,
        }
    )
    return condition_dict(node, cfg, shown)


def composed_population(
    cfg: DictConfig, keys: Sequence[str], *, project_root: Path, shown: str
) -> tuple[DictConfig, dict[str, Any]]:
    """A composition binding `population`: its entries, each agent resolved from conf/agent/,
    and `cfg` without the seat option conf/game/ gives (a default there) unless the command
    line sets it, so the population's total sets it. The seats' defaults (agent_a=tft) are
    not bound; a seat the command line binds too is refused naming both."""
    seat_keys = [k for k in keys if k.split(".")[0] in SEAT_FIELDS]
    if seat_keys:
        raise ConfigError(
            f"binds every seat, and {seat_keys[0]} is given too: give the population or the "
            "seats' agent_a, agent_b, ..., not both",
            file=shown,
            field="population",
        )
    entries = read_population(
        cfg.population,
        lambda value, where: resolve_agent(
            value,
            base_dir=conf_dir(project_root),
            project_root=project_root,
            shown=shown,
            where=where,
        ),
        shown=shown,
        where="population",
    )
    entry = TURN_GAMES.get(str(OmegaConf.select(cfg, "game.id", default=None)))
    option = entry.seats.option if entry is not None else ""
    options = OmegaConf.select(cfg, "game.options", default=None)
    given = f"game.options.{option}" in keys
    if option and isinstance(options, DictConfig) and option in options and not given:
        cfg = cfg.copy()
        with open_dict(cfg.game.options):
            del cfg.game.options[option]
    return cfg, {"population": entries}


def sweeps_mechanism(swept: Iterable[str]) -> bool:
    """Whether a sweep crosses mechanisms (its swept keys hold `mechanism`): its `none`
    conditions then play as the game under a mechanism does (`_under_mechanism`), so that the
    run plays one family of games. Decided from the keys alone, so that every job of a Hydra
    sweep, which sees only its own composition, decides the same."""
    return "mechanism" in swept


def _under_mechanism(cfg: DictConfig, shown: str, none_as_turn_game: bool = False) -> DictConfig:
    """The composition's game under its mechanism (`pdbench.config.mechanism`)."""
    if cfg.get("mechanism") is None:
        return cfg
    return under_its_mechanism(cfg, cfg.mechanism, shown=shown, none_as_turn_game=none_as_turn_game)


def _the_games_own_persona(cfg: DictConfig) -> DictConfig:
    """conf/config.yaml's default persona is the 2x2 games' (cooperative), which the judged games
    do not have: a turn game the command line names no persona for plays its own default
    (`TurnGameEntry.default_persona`; none for the judged games). One named (persona=...) is
    kept, and a game without it stays an error."""
    game = OmegaConf.select(cfg, "game.id", default=None)
    entry = TURN_GAMES.get(str(game))
    if entry is None or cfg.get("persona") == entry.default_persona:
        return cfg
    cfg = cfg.copy()
    with open_dict(cfg):
        cfg.persona = entry.default_persona
    return cfg


def spec_from_composed(
    cfg: DictConfig,
    *,
    condition_name: str,
    project_root: Path,
    source: str,
    overrides: Overrides = NO_OVERRIDES,
    factors: dict[str, str] | None = None,
) -> LoadedConfig:
    """One condition from a Hydra composition (by `compose()` or inside `@hydra.main`); a
    sweep's factors say whether it crosses mechanisms (`sweeps_mechanism`)."""
    condition = condition_from_composed(
        cfg,
        condition_name=condition_name,
        shown=source,
        project_root=project_root,
        overrides=overrides,
        factors=factors,
        none_as_turn_game=sweeps_mechanism(factors or {}),
    )
    return _loaded(cfg, [condition], project_root=project_root, source=source, overrides=overrides)


def _loaded(
    cfg: DictConfig,
    conditions: list[dict[str, Any]],
    *,
    project_root: Path,
    source: str,
    overrides: Sequence[str],
    run_id: str | None = None,
) -> LoadedConfig:
    return assemble(
        cfg,
        conditions,
        shown=source,
        overrides=overrides,
        project_root=project_root,
        config_path=project_root / source,  # absolute when the primary is outside the project
        run_id=run_id,
    )


def compose_primary(path: Path, overrides: Iterable[str], *, project_root: Path) -> DictConfig:
    """Hydra's compose API on the primary config (one composition, no sweep; the group choices
    composed once per process and config tree: composition_memo)."""
    from hydra import initialize_config_dir
    from hydra.errors import HydraException

    shown = display_path(path, project_root)
    check_choices(path, overrides, project_root, shown)
    tree_key = check_config_tree(path.parent, project_root)
    store_installed_options(conf_dir(project_root))
    with (
        hydra_compositions_memoized(path.parent, tree_key),
        initialize_config_dir(config_dir=str(path.parent.resolve()), version_base="1.3"),
    ):
        try:
            return composition_memo.compose(path.stem, Overrides.parse(overrides, shown), tree_key)
        except (HydraException, OmegaConfBaseException) as error:
            # Find the override at fault ourselves (Hydra's message is not an interface).
            _diagnose(path, overrides, shown)
            raise ConfigError(str(error).splitlines()[0], file=shown) from None


def check_config_tree(config_dir: Path, project_root: Path) -> bytes:
    """Read every file Hydra may compose with pdbench's strict reader first, so a duplicate key,
    an alias or malformed YAML in a group file is one line naming the file and the line (each
    version of a file once per process: check_yaml). Returns a digest of the tree's files and
    their contents, which a composition from it is keyed on (composition_memo)."""
    tree = hashlib.blake2b(digest_size=16)
    for path in sorted(config_dir.rglob("*.yaml")):
        tree.update(str(path.relative_to(config_dir)).encode() + b"\0")
        tree.update(check_yaml(path, project_root))
    return tree.digest()


def compositions_shared(project_root: Path | None) -> contextlib.AbstractContextManager[object]:
    """Hydra's own compositions in the Hydra door (`get_mode`, its run, a serial sweep's jobs)
    share what the preflight built from the tree it checked; None (--help, --cfg): not shared."""
    if project_root is None:
        return contextlib.nullcontext()
    config_dir = conf_dir(project_root)
    return hydra_compositions_memoized(config_dir, check_config_tree(config_dir, project_root))


def _diagnose(path: Path, overrides: Iterable[str], shown: str) -> None:
    """Raise a ConfigError naming the field override that does not fit the composed config:
    compose with the group choices alone, then check each field override against it."""
    from hydra import compose

    parsed = parse_overrides(overrides, shown)
    group_lines = [o.input_line for o in parsed if _is_group(o)]
    try:
        cfg = compose(config_name=path.stem, overrides=group_lines)
    except Exception:
        return  # a group choice itself is at fault: Hydra's message says which
    for override in parsed:
        if _is_group(override):
            continue
        problem = field_override_problem(cfg, override)
        if problem is not None:
            raise ConfigError(problem, file=shown, field=override.key_or_group) from None


def field_override_problem(cfg: DictConfig, override: Any) -> str | None:
    """Why Hydra refuses the field override `override` on `cfg` (composed from the group choices
    alone), in one line that names what to write instead; None when it fits. A field is the
    node's or, in an agent, its kind's (`override_fields`)."""
    if override.is_force_add() or override.is_delete():
        return None
    if override.is_add():
        return already_set(cfg, override)
    key = override.key_or_group
    parent_key, _, leaf = key.rpartition(".")
    parent = OmegaConf.select(cfg, parent_key) if parent_key else cfg
    if has_key(parent, leaf):
        return None
    if declared(parent, leaf):  # the kind's, left out of the group option's file
        return (
            f"{parent_key} is {kind_name(parent)}, whose {leaf} its option's file leaves out: "
            f"add it with +{override.input_line}"
        )
    # A field the config tree leaves out (run.cache.namespace) can still be added.
    add = f"; add a new one with +{key}=..." if isinstance(parent, DictConfig) else ""
    return unknown_field(parent, parent_key, leaf, add_hint=add)


def _is_group(override: Any) -> bool:
    group = override.key_or_group
    return group in HYDRA_GROUPS or group in GROUPS or group.startswith("hydra/")


def load_primary_file(
    path: Path,
    overrides: Overrides = NO_OVERRIDES,
    *,
    project_root: Path,
    replicates: int | None = None,
    run_id: str | None = None,
) -> LoadedConfig:
    """One condition, or for a grid (`agent_b=tft,grim`) one condition per job, named by its
    factors and ordered by name as a merged sweep is; its run id is the sweep's."""
    shown = display_path(path, project_root)
    extra = cli_options_as_overrides(overrides, replicates, run_id)
    jobs = expand(extra, project_root, shown)
    if len(jobs) == 1 and not jobs[0].factors:
        cfg = compose_primary(path, extra, project_root=project_root)
        name = condition_name_from_overrides(overrides, cfg)
        return spec_from_composed(
            cfg, condition_name=name, project_root=project_root, source=shown, overrides=extra
        )
    conditions = []
    last: DictConfig | None = None
    for job in sorted(jobs, key=lambda j: j.name):
        job_overrides = Overrides.parse(job.overrides, shown)  # the job's own lines, read once
        last = compose_primary(path, job_overrides, project_root=project_root)
        conditions.append(
            condition_from_composed(
                last,
                condition_name=job.name,
                shown=shown,
                project_root=project_root,
                overrides=job_overrides,
                factors=job.factors,
                none_as_turn_game=sweeps_mechanism(job.factors),
            )
        )
    assert last is not None
    return _loaded(
        last,
        conditions,
        project_root=project_root,
        source=shown,
        overrides=extra,
        run_id=f"sweep-{sweep_id(overrides, project_root)}",
    )
