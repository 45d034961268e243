"""A Hydra grid (`python -m pdbench -m agent_b=tft,grim persona=a,b`) as pdbench sees it: which
keys vary, the jobs it expands to (in the order Hydra's basic sweeper launches them), each job's
condition name and factors, and the sweep's run id.

A condition of a grid is named by the keys that vary, in alphabetical order, unescaped:
`agent_b=tft,persona=cooperative`. Its factors are those keys and values (stored in the manifest
and as columns of aggregates.parquet); the overrides that do not vary are the sweep's fixed
overrides, stored once.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pdbench.config.overrides import parse_overrides
from pdbench.config.tree import ROLES, group_folder, group_options
from pdbench.core.errors import ConfigError
from pdbench.core.redact import redact_text

# Keys whose value is the same for the whole run: one run has one seed, one replicate count and
# one collapse definition. Sweeping them would make conditions that cannot be stored as one run.
RUN_LEVEL_PREFIXES = ("run.", "metrics.")
RUN_LEVEL_HINT = (
    "is the same for the whole run and cannot be swept; run each value as its own command "
    "(e.g. run.seed=1, then run.seed=2)"
)
SWEEP_KEYS_ENV = "PDBENCH_SWEEP_KEYS"  # handed from the launching process to the jobs


@dataclass(frozen=True)
class Job:
    """One composition of a grid: its overrides and, for a grid, its factors."""

    overrides: tuple[str, ...]
    factors: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return condition_name(self.factors)


def condition_name(factors: dict[str, str]) -> str:
    """The name of a grid's cell, from its factors (already redacted: see `factors_of`)."""
    return ",".join(f"{key}={value}" for key, value in sorted(factors.items()))


def _group_folder(key: str) -> str | None:
    if key in ("agent_a", "agent_b"):
        return "agent"
    # a third role (keeper=, judge=) picks from its options group (`tree.group_folder`)
    return group_folder(key) if key in ROLES else None


def _values(override: Any, project_root: Path, shown: str) -> list[str]:
    """The values a sweep override takes, as strings (a glob matches group options)."""
    from hydra.core.override_parser.types import ValueType

    key = override.key_or_group
    if override.value_type == ValueType.GLOB_CHOICE_SWEEP:
        folder = _group_folder(key)
        if folder is None:
            raise ConfigError(
                "glob() sweeps a config group's options; this key is not a group",
                file=shown,
                field=key,
            )
        matched = override.value().filter(group_options(folder, project_root))
        if not matched:
            raise ConfigError("glob() matches no option of the group", file=shown, field=key)
        return list(matched)
    if not override.is_discrete_sweep():
        raise ConfigError(
            f'"{override.input_line}": interval() sweeps need a sweeper plugin (e.g. Optuna); '
            "use a list (a,b,c) or range()",
            file=shown,
            field=key,
        )
    return list(override.sweep_string_iterator())


def expand(overrides: Sequence[str], project_root: Path, shown: str) -> list[Job]:
    """The jobs of a command line, in Hydra's launch order (one job when nothing is swept).
    Hydra's own settings (hydra/launcher=..., hydra.sweep.dir=...) are left out."""
    parsed = [
        o for o in parse_overrides(overrides, shown) if not o.key_or_group.startswith("hydra")
    ]
    for override in parsed:
        key = override.key_or_group
        if override.is_sweep_override() and key.startswith(RUN_LEVEL_PREFIXES):
            raise ConfigError(f"{key} {RUN_LEVEL_HINT}", file=shown, field=key)
    choices: list[list[tuple[str, str | None]]] = []
    for override in parsed:
        key = override.get_key_element()
        if override.is_sweep_override():
            choices.append([(key, value) for value in _values(override, project_root, shown)])
        else:
            choices.append([(key, None)])
    swept = [o.key_or_group for o in parsed if o.is_sweep_override()]
    fixed = {o.get_key_element(): o.input_line for o in parsed if not o.is_sweep_override()}
    jobs = []
    for combination in itertools.product(*choices):
        lines = [fixed[key] if value is None else f"{key}={value}" for key, value in combination]
        factors = {
            key.partition("@")[0]: redact_text(_unescaped(value))  # as factors_of reads them
            for key, value in combination
            if value is not None
        }
        jobs.append(Job(tuple(lines), factors))
    if swept and len({job.name for job in jobs}) != len(jobs):
        raise ConfigError(
            "the grid has two identical conditions (a value given twice?)", file=shown
        )
    return jobs


def _unescaped(value: str) -> str:
    """A swept value as the researcher wrote it: Hydra's quoting and escapes removed."""
    parsed = parse_overrides([f"k={value}"], "")
    element = parsed[0].value()
    return element if isinstance(element, str) else str(value)


def factors_of(task_overrides: Sequence[str], swept_keys: Sequence[str]) -> dict[str, str]:
    """A job's factors from its own overrides (what Hydra hands a job) and the grid's keys."""
    factors = {}
    for override in parse_overrides(task_overrides, "the Hydra job"):
        key = override.key_or_group
        if key in swept_keys:
            # A factor names the condition and is written everywhere: no key in clear.
            factors[key] = redact_text(_unescaped(override.get_value_element_as_str()))
    return factors


def swept_keys(overrides: Sequence[str], shown: str) -> list[str]:
    """The keys a command line sweeps (Hydra's own settings aside)."""
    return [
        o.key_or_group
        for o in parse_overrides(overrides, shown)
        if o.is_sweep_override() and not o.key_or_group.startswith("hydra")
    ]


def sweep_id(args: Sequence[str], project_root: Path) -> str:
    """Same command and same config tree -> same id, so re-running a sweep resumes it.

    Hydra's own settings (launcher, number of jobs, ...) are left out: they change how the grid
    is run, never what it produces, so `hydra/launcher=joblib` resumes a serial sweep."""
    digest = hashlib.sha256()
    overrides = (a for a in args if not a.startswith("-"))  # flags such as -m change nothing
    for arg in sorted(a for a in overrides if not a.lstrip("+~").startswith("hydra")):
        digest.update(arg.encode() + b"\0")
    for folder in ("conf", "prompts"):
        for path in sorted((project_root / folder).rglob("*")):
            if path.is_file():
                digest.update(str(path.relative_to(project_root)).encode() + path.read_bytes())
    return digest.hexdigest()[:10]
