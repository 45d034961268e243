"""Reading a YAML config strictly: what a careless edit or a hostile file could slip past a plain
`yaml.safe_load` is an error naming the file and the line.

- a key written twice in one mapping (YAML keeps the last one silently);
- aliases (`*name`): a few nested ones expand to billions of nodes ("billion laughs"), and a
  config never needs them (refs and Hydra defaults share settings instead);
- nesting deeper than 64 levels (the parser recurses through it) and files over 1 MiB;
- bytes that are not UTF-8, and a top level that is not a mapping.

Dates stay strings (`run_id: 2024-01-01` is a name, not a datetime), and `.nan`/`.inf` are read
as floats for the spec's validation to refuse where a finite number is needed.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from pathlib import Path
from typing import Any

import yaml
from omegaconf import DictConfig, OmegaConf

from pdbench.core.errors import ConfigError

# libyaml's C parser when PyYAML was built with it: the same results, several times faster.
_BASE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_BASE_LOADER):
    """SafeLoader that refuses duplicate keys and leaves dates as strings."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise _DuplicateKey(f'the key "{key}" appears twice (lines {seen[key]} and {line})')
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


# Without the timestamp resolver, 2024-01-01 is read as the string it looks like.
_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _BASE_LOADER.yaml_implicit_resolvers.items()
}


class _DuplicateKey(Exception):
    pass


def display_path(path: Path, project_root: Path) -> str:
    try:
        return str(path.resolve().relative_to(project_root))
    except ValueError:
        return str(path)


# Parsed files by their contents: a grid names the same group files many times, and a copy of the
# project elsewhere (a sweep's job folder, a test's sandbox) holds the same files under other
# paths. What a parse gives depends on the bytes alone (the path only names the file in an error,
# which read_yaml adds), so the bytes' digest is the key. Refusals are not kept: a bad file is
# parsed, and refused, every time it is read.
_PARSED: OrderedDict[bytes, Any] = OrderedDict()
MAX_PARSED = 512


def _digest(raw: bytes) -> bytes:
    return hashlib.blake2b(raw, digest_size=16).digest()


def _parse(raw: bytes) -> Any:
    """The file's contents parsed, once per contents. The value is shared: read it, copy it."""
    key = _digest(raw)
    if key in _PARSED:
        _PARSED.move_to_end(key)
        return _PARSED[key]
    data = _parse_text(raw)
    _PARSED[key] = data
    if len(_PARSED) > MAX_PARSED:
        _PARSED.popitem(last=False)
    return data


def _parse_text(raw: bytes) -> Any:
    if len(raw) > MAX_CONFIG_BYTES:
        raise _Refused(f"{len(raw)} bytes; a config is at most {MAX_CONFIG_BYTES} bytes")
    text = raw.decode("utf-8")  # UnicodeDecodeError is reported by the caller
    # One pass over the parser's events, stopping at the first problem: aliases are refused
    # before anything expands them, and nesting before the parser recurses through it.
    depth = 0
    for event in yaml.parse(text, Loader=_BASE_LOADER):
        line = event.start_mark.line + 1 if event.start_mark is not None else "?"
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(
                f"line {line}: YAML aliases (*{event.anchor}) are not "
                "supported in pdbench configs; write the value out"
            )
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_NESTING:
                raise _Refused(f"line {line}: nested more than {MAX_NESTING} levels deep")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return yaml.load(text, Loader=_StrictLoader)


class _Refused(Exception):
    """Something in the file pdbench refuses to read (an alias, deep nesting, a huge file)."""


MAX_CONFIG_BYTES = 1 << 20  # a config is a page of settings, not data
MAX_NESTING = 64


def read_yaml(path: Path, project_root: Path) -> DictConfig:
    """Load a YAML mapping; anything malformed names the file and the line."""
    shown = display_path(path, project_root)
    if not path.is_file():
        raise ConfigError("file not found", file=shown)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ConfigError(f"cannot be read: {error.strerror}", file=shown) from None
    return _container(_mapping(raw, shown), shown)


def _mapping(raw: bytes, shown: str) -> dict[str, Any]:
    """A file's contents as its top-level mapping, every check but OmegaConf's own done (shared:
    a copy must be made before changing it, as _container does)."""
    try:
        data = _parse(raw)
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"not a UTF-8 text file (byte {error.start}: {error.object[error.start : error.start + 1]!r})",
            file=shown,
        ) from None
    except (_DuplicateKey, _Refused) as error:
        raise ConfigError(str(error), file=shown) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = (
            f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "somewhere"
        )
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ConfigError(f"malformed YAML at {where}: {problem}", file=shown) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError("the top level must be a mapping of keys to values", file=shown)
    bad_key = next((key for key in data if not isinstance(key, str)), None)
    if bad_key is not None:
        raise ConfigError(f"keys must be names, got {bad_key!r}", file=shown)
    return data


def _container(data: dict[str, Any], shown: str) -> DictConfig:
    try:
        return OmegaConf.create(data)  # a fresh copy: callers merge into it
    except Exception as error:  # OmegaConf refuses a value type it cannot hold
        raise ConfigError(f"unsupported value: {error}".splitlines()[0], file=shown) from None


def _plain(value: Any) -> bool:
    """Whether OmegaConf holds `value` as it is, surely: mappings with string or integer keys,
    lists, numbers, booleans, nulls and strings without an interpolation (`${`, which OmegaConf
    parses when it builds the node). Anything else is built to find out (check_yaml)."""
    if isinstance(value, dict):
        return all(isinstance(key, str | int) and _plain(item) for key, item in value.items())
    if isinstance(value, list):
        return all(_plain(item) for item in value)
    if isinstance(value, str):
        return "${" not in value
    return value is None or isinstance(value, bool | int | float)


# The contents (their digest) read_yaml found good in this process: a sweep checks the whole
# config tree once per job, and building ~70 configs again was about half of each composition.
_CHECKED: set[bytes] = set()


def check_yaml(path: Path, project_root: Path) -> bytes:
    """read_yaml's checks, without keeping the config: once per contents of a file. Returns the
    contents' digest (what a composition of the file is keyed on)."""
    try:
        raw = path.read_bytes()
    except OSError:
        read_yaml(path, project_root)  # says why the file cannot be read
        raise  # unreachable: read_yaml refuses a file it cannot read
    key = _digest(raw)
    if key not in _CHECKED:
        # Building the container was most of the check (0.3 CPU s for conf/, in every process
        # that composes): a file of plain values is one OmegaConf holds as it is. The bytes
        # digested are the bytes checked (read once).
        shown = display_path(path, project_root)
        data = _mapping(raw, shown)
        if not _plain(data):
            _container(data, shown)
        _CHECKED.add(key)
    return key
