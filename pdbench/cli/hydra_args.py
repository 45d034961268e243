"""The command line of `python -m pdbench`: Hydra's own flags and overrides, read with Hydra's
own argument parser (so -m, -cn, --cfg, --help ... behave as in any Hydra app), and pdbench's
one flag of its own, `--dry-run` (the plan, nothing launched; see cli.plan_report)."""

from __future__ import annotations

from typing import Any, NoReturn

from pdbench.core.errors import ConfigError

DRY_RUN = "--dry-run"


def without_dry_run(args: list[str]) -> tuple[bool, list[str]]:
    """Whether `--dry-run` was given, and the arguments left for Hydra."""
    return DRY_RUN in args, [arg for arg in args if arg != DRY_RUN]


def hydra_args(args: list[str]) -> Any:
    """The command line as Hydra reads it (its own argparse: flags, then overrides)."""
    from hydra._internal.utils import get_args_parser

    parser = get_args_parser()

    def refuse(message: str) -> NoReturn:  # argparse's usage and error, as one line
        raise ConfigError(f"{message} (see python -m pdbench --help)", field="python -m pdbench")

    parser.error = refuse  # type: ignore[method-assign]
    return parser.parse_args(args)
