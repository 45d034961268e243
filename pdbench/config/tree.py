"""The config tree on disk: where the project is, what its groups offer, and what a loaded
experiment is (a validated spec plus what identifies it)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from pdbench.config.installed_options import installed_options
from pdbench.config.schema import (
    SEAT_FIELDS,
    ExperimentSpec,
)
from pdbench.core.errors import did_you_mean
from pdbench.games.registry import declared_roles, game_entry, turn_policy_games

# The third roles the registered games declare (`keeper`, `judge`, ...): each is a Hydra group
# (`keeper=llm`) and a condition's field, bound from the options of conf/<its options group>/.
ROLES = declared_roles()
# Config groups: the folders under conf/ whose options a config chooses by name.
GROUPS = (
    "game",
    "mechanism",
    "horizon",
    "agent",
    "persona",
    "provider",
    *dict.fromkeys(role.options_group for role in ROLES.values()),
)
# Config groups of the Hydra tree: agent_a, agent_b, ... are links to agent/, an audit role's
# group (keeper_audit) a link to the folder of the role it audits.
HYDRA_GROUPS = (
    "game",
    "mechanism",
    "horizon",
    *SEAT_FIELDS,  # agent_a, agent_b, ... agent_j: a group game's seats, links to agent/
    "persona",
    "provider",
    *ROLES,
)


def group_folder(group: str) -> str:
    """The conf/ folder a Hydra group's options are in: agent/ for a seat, the options group
    of a third role (`ThirdRole.options_group`), else the group's own name."""
    if group in SEAT_FIELDS:
        return "agent"
    return ROLES[group].options_group if group in ROLES else group


LAUNCH_DIR_ENV = "PDBENCH_LAUNCH_DIR"  # set for Ray jobs by conf/hydra/launcher/ray.yaml


@dataclass(frozen=True)
class LoadedConfig:
    """A validated spec and where it came from. The files it points at are checked (and hashed)
    by `pdbench.runners.prepare`, which knows each agent kind's files."""

    spec: ExperimentSpec
    project_root: Path
    config_path: Path


def find_project_root(start: Path | None = None) -> Path:
    """The folder holding conf/ and prompts/: the working directory or one of its parents, else
    the folder this package was installed from. A job a launcher runs elsewhere (a Ray worker,
    whose working directory is Ray's) starts from the folder the sweep was launched from,
    `$PDBENCH_LAUNCH_DIR`, which the Ray launcher's config hands to it."""
    launched_from = os.environ.get(LAUNCH_DIR_ENV)
    if start is None and launched_from and Path(launched_from).is_dir():
        start = Path(launched_from)
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / "conf").is_dir() and (candidate / "prompts").is_dir():
            return candidate
    return Path(__file__).resolve().parents[2]  # pdbench/config/tree.py -> the checkout


def conf_dir(project_root: Path) -> Path:
    return project_root / "conf"


def group_options(group: str, project_root: Path) -> list[str]:
    """Options of a config group, e.g. group_options("agent") -> ["allc", "alld", ...]: its
    files, and the options an installed plugin's game brings without one
    (`pdbench.config.installed_options`)."""
    folder = conf_dir(project_root) / group
    files = [p.stem for p in folder.glob("*.yaml")] if folder.is_dir() else []
    return sorted({*files, *installed_options(group, conf_dir(project_root))})


def unknown_option(group: str, option: str, project_root: Path) -> str:
    """The one line for an option conf/<group>/ does not have: the option, the folder looked
    in, "did you mean" and the options there (or that the folder is missing or empty)."""
    folder = f"conf/{group}/"
    options = group_options(group, project_root)
    if not (conf_dir(project_root) / group).is_dir():
        return f'unknown {group} "{option}": there is no {folder} in {project_root}'
    if not options:
        return f'unknown {group} "{option}": {folder} holds no options (*.yaml)'
    return (
        f'unknown {group} "{option}"{did_you_mean(option, options)}; choose one of: '
        + ", ".join(options)
        + f" (looked in {folder}{_and_installed(group, project_root)})"
    )


def _and_installed(group: str, project_root: Path) -> str:
    return " and installed games" if installed_options(group, conf_dir(project_root)) else ""


def describe_option(group: str, option: str, project_root: Path) -> str:
    """A group option's description: the first sentence of the comment at the top of its file
    (its first lines starting with #), or the whole comment when it is one sentence."""
    path = conf_dir(project_root) / group / f"{option}.yaml"
    if not path.is_file():
        return _installed_description(group, option)
    lines = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        text = line.lstrip("# ").strip()
        if text and not text.startswith("@package"):
            lines.append(text)
    comment = " ".join(lines)
    # A sentence ends at a full stop followed by a capital ("et al. 2025", "e.g. x" go on).
    return re.split(r"(?<=\.)\s+(?=[A-Z])", comment, maxsplit=1)[0]


def _installed_description(group: str, option: str) -> str:
    """What `pdbench list` says of an option made from an installed game (no file to read)."""
    if group == "game":
        summary = game_entry(option).summary  # a turn game's or a 2x2 game's
        return f"{summary} (installed, no conf/game/ file: game.id={option})"
    return f"a house player of {turn_policy_games()[option]} (installed, no conf/agent/ file)"
