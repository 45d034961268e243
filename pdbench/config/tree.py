"""The config tree on disk: where the project is, what its groups offer, and what a loaded
experiment is (a validated spec plus what identifies it)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from pdbench.spec import (
    ExperimentSpec,
)

# Config groups of the Hydra tree; agent_a and agent_b are links to agent/.
GROUPS = ("game", "horizon", "agent", "persona", "provider")
HYDRA_GROUPS = ("game", "horizon", "agent_a", "agent_b", "persona", "provider")


# Fields that change how a run is executed or where it is stored, never what it produces.
RESULT_NEUTRAL_FIELDS = {
    "run": {"run_id", "output_dir", "max_concurrency", "max_cost_usd", "cache"},
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

    @property
    def config_hash(self) -> str:
        """Hash of everything that determines the results: the spec and the files it reads.

        Settings that cannot change a single round are left out, so that a run can be named,
        moved, resumed with a larger budget or more concurrency and still be the same run.
        """
        snapshot = self.spec.model_dump(mode="json", exclude=RESULT_NEUTRAL_FIELDS)
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


def find_project_root(start: Path | None = None) -> Path:
    """The folder holding conf/ and prompts/: the working directory or one of its parents, else
    the folder this package was installed from."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / "conf").is_dir() and (candidate / "prompts").is_dir():
            return candidate
    return Path(__file__).resolve().parents[2]  # pdbench/config/tree.py -> the checkout


def conf_dir(project_root: Path) -> Path:
    return project_root / "conf"


def group_options(group: str, project_root: Path) -> list[str]:
    """Options of a config group, e.g. group_options("agent") -> ["allc", "alld", ...]."""
    folder = conf_dir(project_root) / group
    return sorted(p.stem for p in folder.glob("*.yaml")) if folder.is_dir() else []


def describe_option(group: str, option: str, project_root: Path) -> str:
    """The first comment line of a group option's file: its one-line description."""
    path = conf_dir(project_root) / group / f"{option}.yaml"
    for line in path.read_text().splitlines():
        text = line.lstrip("# ").strip()
        if line.startswith("#") and text and not text.startswith("@package"):
            return text
    return ""
