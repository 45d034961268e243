"""The one override grammar: `key=value` as Hydra reads it, in both front doors.

Command-line overrides of an experiment file, the `overrides:` lists of a condition or a ref, and
the Hydra door's overrides are all parsed by Hydra's own parser (`OverridesParser`), so quoting,
lists (`labels=[J,F]`), `+key` (add), `~key` (delete) and `null` mean the same everywhere. Values
are never re-read as YAML (`2024-01-01` stays a string).

Applying them to an experiment file's config:
- `key.path=value` changes a field that exists (an unknown one is an error with "did you mean"):
  one the file sets, or, in an agent, any field of its kind (`override_fields`);
- `+key.path=value` adds one (the spec's validation then rejects a field that does not exist);
  unlike Hydra, which refuses `+` on a field that holds a value, it sets one that exists too;
- `~key.path` deletes one;
- `<group>=<option>` (a group name, no dot: `game=<id>`) loads that option of conf/<group>/,
  as in Hydra;
- a sweep (`a,b`, `range()`, `glob()`) is refused: sweeps run through `python -m pdbench -m`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf

from pdbench.config.names import run_id_problem
from pdbench.config.override_fields import declared, unknown_field
from pdbench.core.errors import ConfigError

SWEEP_HINT = "sweeps run through Hydra: uv run python -m pdbench -m key=a,b ..."


class Overrides(tuple[str, ...]):
    """Command-line overrides read once with Hydra's grammar: the lines as given (a tuple of str,
    which is what Hydra's compose takes and what the manifest records) and their parse
    (`parsed`, Hydra Override objects, one per line), which every step of every front door reads
    instead of parsing the lines again. Built by `Overrides.parse`."""

    parsed: tuple[Any, ...]

    def __new__(cls, lines: Iterable[str] = (), parsed: Iterable[Any] = ()) -> Overrides:
        self = super().__new__(cls, tuple(str(line) for line in lines))
        self.parsed = tuple(parsed)
        if len(self.parsed) != len(self):
            raise ValueError("one parsed override per line")
        return self

    @classmethod
    def parse(cls, lines: Iterable[str], shown: str) -> Overrides:
        """The lines read with Hydra's grammar (once: an Overrides is returned as it is); a line
        it cannot read is a ConfigError naming `shown`."""
        if isinstance(lines, Overrides):
            return lines
        lines = tuple(lines)
        return cls(lines, _parse_lines(lines, shown))

    def keys(self) -> list[str]:
        """The keys (or groups) the overrides set, in order."""
        return [o.key_or_group for o in self.parsed]

    def where(self, keep: Callable[[Any], bool]) -> Overrides:
        """The overrides whose parse `keep` accepts, already parsed."""
        pairs = [(line, o) for line, o in zip(self, self.parsed, strict=True) if keep(o)]
        return Overrides((line for line, _ in pairs), (o for _, o in pairs))

    def plus(self, lines: Sequence[str], shown: str) -> Overrides:
        """These overrides followed by more (only the new lines are parsed)."""
        more = Overrides.parse(lines, shown)
        return Overrides((*self, *more), (*self.parsed, *more.parsed))


def parse_overrides(overrides: Iterable[str], shown: str) -> list[Any]:
    """Hydra's reading of `key=value` strings (a list of hydra Override objects); an `Overrides`
    value gives its own parse back without reading the lines again."""
    return list(Overrides.parse(overrides, shown).parsed)


def _parse_lines(overrides: Sequence[str], shown: str) -> list[Any]:
    if not overrides:
        return []  # the parser's import costs a tenth of a second: only when there is work
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    parsed = []
    parser = OverridesParser.create()
    for override in overrides:
        try:
            parsed.extend(parser.parse_overrides([str(override)]))
        except OverrideParseException as error:
            reason = str(error).splitlines()[0]
            raise ConfigError(
                f'cannot read the override "{override}": {reason}', file=shown
            ) from None
    return parsed


def apply_overrides(
    cfg: DictConfig,
    overrides: Iterable[str],
    shown: str,
    *,
    load_group: Callable[[str, str], DictConfig] | None = None,
    groups: Sequence[str] = (),
) -> DictConfig:
    """Apply overrides to `cfg` (in place, and returned). `load_group(group, option)` loads a
    group option for `group=option` overrides of the keys in `groups`."""
    for override in parse_overrides(overrides, shown):
        key = override.key_or_group
        if override.is_sweep_override():
            raise ConfigError(
                f'"{override.input_line}" is a sweep; {SWEEP_HINT}', file=shown, field=key
            )
        if override.package is not None:
            raise ConfigError(
                f'"{override.input_line}": packages (@) belong to Hydra group overrides',
                file=shown,
                field=key,
            )
        value = override.value()
        if override.is_delete():
            _delete(cfg, key, shown)
            continue
        if "." not in key and key in groups and load_group is not None and isinstance(value, str):
            cfg[key] = load_group(key, value)
            continue
        parent_key, _, leaf = key.rpartition(".")
        parent = OmegaConf.select(cfg, parent_key) if parent_key else cfg
        adding = override.is_add() or override.is_force_add()
        # A field of an agent's kind may be set though the file leaves it out (memory_mb of an
        # arena agent); a mandatory value not yet set (path: ???) is a field too.
        if not declared(parent, leaf):
            _refuse_a_condition_key(cfg, key, shown)
            if not adding:
                problem = unknown_field(
                    parent, parent_key, leaf, add_hint=f"; add a new one with +{key}=..."
                )
                raise ConfigError(problem, file=shown, field=key)
        OmegaConf.update(cfg, key, value, merge=False, force_add=True)
    return cfg


def _refuse_a_condition_key(cfg: DictConfig, key: str, shown: str) -> None:
    """`agent_a=tft` on an experiment file: the agents are set per condition, not at the top, and
    `+agent_a=tft` would only add a key the file may not have. Say how to change one condition."""
    head = key.split(".")[0]
    conditions = cfg.get("conditions") if head not in cfg else None
    if not isinstance(conditions, ListConfig):
        return
    if not any(isinstance(c, DictConfig) and head in c for c in conditions):
        return
    rest = key[len(head) :]
    names = [str(c.get("name", i)) for i, c in enumerate(conditions) if isinstance(c, DictConfig)]
    raise ConfigError(
        f"an experiment file sets {head} in each condition, not at the top; change one "
        f"condition with conditions.<i>.{head}{rest}=... (i counts from 0 in the file: "
        f"0 is {names[0]}), e.g. conditions.0.{head}{rest}=..., or run one condition "
        f"from conf/config.yaml ({head}{rest}=...)",
        file=shown,
        field=key,
    )


def _delete(cfg: DictConfig, key: str, shown: str) -> None:
    parent_key, _, leaf = key.rpartition(".")
    parent = OmegaConf.select(cfg, parent_key) if parent_key else cfg
    if not isinstance(parent, DictConfig) or leaf not in parent:
        raise ConfigError("cannot delete: no such field", file=shown, field=key)
    del parent[leaf]


def _check_cli_options(replicates: int | None, run_id: str | None) -> None:
    if replicates is not None and replicates <= 0:
        raise ConfigError(f"must be a positive number, got {replicates}", field="--replicates")
    problem = run_id_problem(run_id) if run_id is not None else None
    if problem:
        raise ConfigError(problem, field="--run-id")


def apply_cli_options(cfg: DictConfig, replicates: int | None, run_id: str | None) -> None:
    """Set the command line's --replicates and --run-id, as if they were the last overrides.
    Set directly, not parsed: a plain `pdbench run file.yaml --run-id x` then never imports
    Hydra's override parser (a tenth of a second)."""
    _check_cli_options(replicates, run_id)
    if replicates is not None:
        cfg.run.replicates = replicates
    if run_id is not None:
        cfg.run.run_id = run_id


def cli_options_as_overrides(
    overrides: Overrides, replicates: int | None, run_id: str | None
) -> Overrides:
    """The command line's --replicates and --run-id as ordinary overrides, after the others."""
    _check_cli_options(replicates, run_id)
    extra = []
    if replicates is not None:
        extra.append(f"run.replicates={replicates}")
    if run_id is not None:
        # Quoted, so that Hydra's grammar reads the id as one string whatever it contains.
        escaped = run_id.replace("\\", "\\\\").replace("'", "\\'")
        extra.append(f"run.run_id='{escaped}'")
    return overrides.plus(extra, "the command line") if extra else overrides


NO_OVERRIDES = Overrides()
