"""From config files to a validated `ExperimentSpec`, with errors that name the file and field.

Two front doors end in the same spec:

- an experiment file (`conf/experiment.yaml`): run metadata, a game, a horizon and a list of named
  conditions whose agents are group names (`tft`) or `{ref: "agent/x.yaml", overrides: {...}}`;
- Hydra's primary config (`conf/config.yaml`), composed from the groups game/, horizon/,
  agent_a/, agent_b/, persona/ and provider/: one condition per composition.

Everything here is pure config work: no agent is built and nothing is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pdbench.config.experiment_file import load_experiment_file
from pdbench.config.group_choices import with_game_ids
from pdbench.config.hydra_compose import load_primary_file
from pdbench.config.overrides import Overrides, cli_options_as_overrides
from pdbench.config.tournament import load_primary_tournament, tournament_overrides
from pdbench.config.tree import LoadedConfig, conf_dir, find_project_root
from pdbench.config.yaml_reader import display_path, read_yaml
from pdbench.core.errors import ConfigError


def _missing_config_hint(path: Path, project_root: Path) -> str:
    """ "no such file", with the config pdbench has under that name (the original spec called
    the folder configs/; pdbench's is conf/)."""
    candidates = sorted(
        display_path(found, project_root) for found in conf_dir(project_root).rglob(path.name)
    )
    if candidates:
        return f"no such file; did you mean {' or '.join(candidates[:3])}?"
    known = sorted(display_path(p, project_root) for p in conf_dir(project_root).glob("*.yaml"))
    return "no such file; configs are under conf/: " + ", ".join(known)


# --- either door ------------------------------------------------------------------------------


def load_config(
    path: str | Path,
    overrides: Sequence[str] = (),
    *,
    replicates: int | None = None,
    run_id: str | None = None,
    project_root: Path | None = None,
) -> LoadedConfig:
    """Load an experiment file or a Hydra primary config, whichever `path` is."""
    path = Path(path)
    root = project_root or find_project_root(path.parent if path.is_absolute() else None)
    if not path.is_absolute():
        path = (Path.cwd() / path).resolve()
    if not path.is_file():
        raise ConfigError(_missing_config_hint(path, root), file=display_path(path, root))
    cfg = read_yaml(path, root)
    shown = display_path(path, root)
    # Read once here; each door (and each step in it) takes this parse.
    parsed = Overrides.parse(overrides, shown)
    if "conditions" in cfg or "tournament" in cfg:
        return load_experiment_file(
            path, parsed, project_root=root, replicates=replicates, run_id=run_id
        )
    if "defaults" in cfg:  # a Hydra primary: `game=<platform name>` chooses conf/game/<id>
        parsed, _ = with_game_ids(parsed, root)
    if "defaults" in cfg and tournament_overrides(parsed):
        return load_primary_tournament(
            path,
            cli_options_as_overrides(parsed, replicates, run_id),
            project_root=root,
            shown=shown,
        )
    if "defaults" in cfg:
        return load_primary_file(
            path, parsed, project_root=root, replicates=replicates, run_id=run_id
        )
    raise ConfigError(
        "neither an experiment (no conditions:) nor a Hydra primary config (no defaults:)",
        file=display_path(path, root),
    )
