"""A command line's group choices (`agent_a=tft`, `persona=cooperative,exploitative`), the
primary's defaults list and Hydra's own settings (its launcher), checked before Hydra composes:
an option that is not there is one line naming the group, the option, the folder looked in and
what is there, instead of Hydra's message (which names none of it) or its stack trace. A game
chosen by the platform's spelling (`game=<platform name>`, as an agent file's GAME says it) is
read as its id first (`with_game_ids`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, ListConfig
from omegaconf.errors import OmegaConfBaseException

from pdbench.config.overrides import Overrides, parse_overrides
from pdbench.config.role_panels import listed_options
from pdbench.config.tree import (
    GROUPS,
    HYDRA_GROUPS,
    group_folder,
    group_options,
    unknown_option,
)
from pdbench.config.yaml_reader import read_yaml
from pdbench.core.errors import ConfigError
from pdbench.games.registry import known_game_id


def check_choices(path: Path, overrides: Iterable[str], project_root: Path, shown: str) -> None:
    """Every group choice of a composition of the primary `path` with `overrides`."""
    check_group_overrides(overrides, project_root, shown)
    check_default_choices(path, overrides, project_root, shown)


def with_game_ids(
    overrides: Overrides, project_root: Path, args: list[str] | None = None
) -> tuple[Overrides, list[str]]:
    """`game=<platform name>` (the platform's spelling, as an agent file's GAME has it) chooses
    conf/game/<id>.yaml: each value of a `game=` choice (a sweep's too) that names no
    option but a game is replaced by the game's id (`pdbench.games.registry.game_id`), so both
    spellings compose, name and identify the same run. Returns the overrides and `args` (the
    command line holding them) with those lines replaced."""
    options = set(group_options("game", project_root))
    replaced: dict[str, str] = {}
    for line, override in zip(overrides, overrides.parsed, strict=True):
        if override.key_or_group != "game" or override.package is not None:
            continue
        if override.is_sweep_override():
            from hydra.core.override_parser.types import ValueType

            glob = override.value_type == ValueType.GLOB_CHOICE_SWEEP
            if glob or not override.is_choice_sweep():
                continue  # glob() is matched against the options; range() is no game
            values = [str(value) for value in override.sweep_string_iterator()]
        elif isinstance(override.value(), str):
            values = [str(override.value())]
        else:
            continue
        ids = [_option_of(value, options) for value in values]
        if ids != values:
            prefix = line[: len(line) - len(line.lstrip("+~"))]
            replaced[line] = f"{prefix}game={','.join(ids)}"
    if not replaced:
        return overrides, list(args or ())
    lines = [replaced.get(line, line) for line in overrides]
    new = Overrides.parse(lines, "the command line")
    return new, [replaced.get(arg, arg) for arg in args or ()]


def _option_of(value: str, options: set[str]) -> str:
    """The conf/game option `value` names: itself, or the id of the game it spells otherwise."""
    if value in options:
        return value
    game = known_game_id(value)
    return game if game in options else value


def check_command_line(
    path: Path, overrides: Sequence[str], project_root: Path, shown: str
) -> None:
    """`python -m pdbench`'s command line before Hydra starts: the group choices and Hydra's own
    settings (its launcher)."""
    check_choices(path, overrides, project_root, shown)
    check_hydra_overrides(path, overrides, shown)


def check_default_choices(
    path: Path, overrides: Iterable[str], project_root: Path, shown: str
) -> None:
    """The choices of the primary's defaults list that the command line leaves: one whose option
    file is missing (a project without conf/persona/) is one line naming the group, the option
    and the folder, before Hydra composes (whose message names none of it)."""
    chosen = {o.key_or_group for o in parse_overrides(overrides, shown)}
    defaults = read_yaml(path, project_root).get("defaults") or []
    for entry in defaults if isinstance(defaults, ListConfig) else []:
        if not isinstance(entry, DictConfig):
            continue  # _self_
        for key, option in entry.items():
            group = str(key)
            if group in chosen or group not in HYDRA_GROUPS or option is None:
                continue
            folder = group_folder(group)
            if str(option) not in group_options(folder, project_root):
                raise ConfigError(
                    unknown_option(folder, str(option), project_root) + " (the default of "
                    f"{shown}; choose another with {group}=...)",
                    file=shown,
                    field=group,
                )


def check_group_overrides(
    overrides: Iterable[str], project_root: Path, shown: str = "conf/config.yaml"
) -> None:
    """Check `group=option[,option...]` overrides before Hydra sees them: unknown options get a
    "did you mean" instead of Hydra's stack trace."""
    from hydra.core.override_parser.types import ValueType

    for override in parse_overrides(overrides, shown):
        group = override.key_or_group
        if group not in HYDRA_GROUPS and group not in GROUPS:
            continue
        panel = listed_options(override, shown)  # <role>=[a,b,c]: a panel's members
        if panel is not None:
            values = panel
        elif override.is_sweep_override():
            glob = override.value_type == ValueType.GLOB_CHOICE_SWEEP
            if glob or not override.is_choice_sweep():
                continue  # glob() is matched against the options in sweep.expand; range() left
            values = list(override.sweep_string_iterator())
        elif override.value() is None:
            continue  # ~group deletes the choice
        else:
            values = [str(override.value())]
        folder = group_folder(group)
        options = group_options(folder, project_root)
        for option in values:
            if option not in options:
                raise ConfigError(
                    unknown_option(folder, option, project_root),
                    file=shown,
                    field=override.package or group,
                )


def check_hydra_overrides(path: Path, overrides: Sequence[str], shown: str) -> None:
    """Compose Hydra's own settings of a command line (hydra/launcher=..., hydra.launcher.*=...)
    before Hydra launches anything: an unknown launcher or a setting the chosen launcher does not
    have is one line here instead of Hydra's message and exit 1."""
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException

    own = [
        o.input_line
        for o in parse_overrides(overrides, shown)
        if o.key_or_group.startswith("hydra") and not o.is_sweep_override()
    ]
    if not own:
        return
    with initialize_config_dir(config_dir=str(path.parent.resolve()), version_base="1.3"):
        try:
            composed = compose(config_name=path.stem, overrides=own, return_hydra_config=True)
        except (HydraException, OmegaConfBaseException) as error:
            first = str(error).splitlines()[0]
            raise ConfigError(
                f"{first} (launchers: hydra/launcher=basic, joblib, submitit_local or "
                "submitit_slurm, where installed; a launcher's settings need it chosen first)",
                file=shown,
                field=" ".join(own),
            ) from None
    _check_launcher_installed(composed, shown)


def _check_launcher_installed(composed: Any, shown: str) -> None:
    """A launcher whose plugin is not installed (hydra/launcher=ray without `uv sync --group
    ray`) is one line before the sweep, not Hydra's traceback once the grid is launched."""
    import importlib.util

    target = str(composed.hydra.launcher.get("_target_", ""))
    module = target.rpartition(".")[0]
    try:
        found = importlib.util.find_spec(module) if module else True
    except ModuleNotFoundError:
        found = None
    if not found:
        choice = composed.hydra.runtime.choices.get("hydra/launcher", "?")
        raise ConfigError(
            f"the launcher {choice} is not installed (no module {module}); install its optional "
            "group, e.g. `uv sync --group ray` for hydra/launcher=ray",
            file=shown,
            field=f"hydra/launcher={choice}",
        )
