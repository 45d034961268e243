"""Scenario data of the judged games: secret words (passcode), presidents and crises (nuclear_war),
universities and athletes (nil_recruitment).

The repository ships one JSON file per game, written for pdbench (pdbench/games/data/); a game's
`scenario_file` option points at the user's own file of the same shape instead. A file is checked
whole when the game is built: a missing or malformed file, or a field of the wrong type, is a
`ConfigError` naming the file and the field (`presidents[2].priorities`).

Selection is a pure function of (match seed, what is drawn, its index), each from its own stream,
so a match replays and resumes with the same scenarios, and which one was played is recorded in
the round (`revealed`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from pdbench.core.errors import ConfigError

_DATA = "pdbench.games.data"
_LOWERCASE_WORD = re.compile(r"^[a-z]+$")

# The fields each entry of a list must have: name -> kind ("text" or "texts", a list of text).
PRESIDENT_FIELDS = {
    "name": "text",
    "background": "text",
    "priorities": "texts",
    "concerns": "texts",
    "key_question": "text",
    "decision_style": "text",
}
CRISIS_FIELDS = {"country": "text", "adversary": "text", "crisis_description": "text"}
ATHLETE_FIELDS = {"name": "text", "position": "text", "priorities": "texts", "concerns": "texts"}


@dataclass(frozen=True)
class Words:
    words: tuple[str, ...]


@dataclass(frozen=True)
class NuclearScenarios:
    presidents: tuple[dict[str, Any], ...]
    crises: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class RecruitmentScenarios:
    universities: tuple[str, ...]
    athletes: tuple[dict[str, Any], ...]


def stream(seed: int, purpose: int, index: int) -> np.random.Generator:
    """The match's seeded stream for one draw: `purpose` tells draws apart (see the games)."""
    return np.random.Generator(np.random.PCG64([seed, purpose, index]))


def _read(file: str | None, default: str) -> tuple[str, Any]:
    if file is None:
        name = f"pdbench/games/data/{default}"
        return name, json.loads(resources.files(_DATA).joinpath(default).read_text("utf-8"))
    try:
        text = Path(file).read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read it: {error.strerror}", file=file) from None
    try:
        return file, json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"not JSON: {error.msg} (line {error.lineno})", file=file) from None


def _list(document: Any, key: str, file: str, minimum: int) -> list[Any]:
    if not isinstance(document, dict):
        raise ConfigError("the file must hold a JSON object", file=file)
    value = document.get(key)
    if not isinstance(value, list) or len(value) < minimum:
        raise ConfigError(f"must be a list of at least {minimum}", file=file, field=key)
    return value


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _entries(document: Any, key: str, fields: dict[str, str], file: str) -> tuple[dict, ...]:
    entries = _list(document, key, file, 1)
    for index, entry in enumerate(entries):
        where = f"{key}[{index}]"
        if not isinstance(entry, dict):
            raise ConfigError("must be a JSON object", file=file, field=where)
        for name, kind in fields.items():
            value = entry.get(name)
            good = (
                _text(value)
                if kind == "text"
                else isinstance(value, list) and bool(value) and all(_text(v) for v in value)
            )
            if not good:
                wanted = "a non-empty text" if kind == "text" else "a non-empty list of texts"
                raise ConfigError(f"must be {wanted}", file=file, field=f"{where}.{name}")
    return tuple(entries)


def load_words(file: str | None = None) -> Words:
    """The secret words: `{"words": ["apple", ...]}`, lowercase letters only, no repeats."""
    name, document = _read(file, "passcode_words.json")
    words = _list(document, "words", name, 1)
    for index, word in enumerate(words):
        if not isinstance(word, str) or not _LOWERCASE_WORD.match(word):
            raise ConfigError(
                f"must be a word of lowercase letters a-z, got {word!r}",
                file=name,
                field=f"words[{index}]",
            )
    if len(set(words)) != len(words):
        raise ConfigError("has a word twice", file=name, field="words")
    return Words(tuple(words))


def load_nuclear(file: str | None = None) -> NuclearScenarios:
    """Presidents and crises: `{"presidents": [...], "crises": [...]}` (fields above)."""
    name, document = _read(file, "nuclear_war.json")
    return NuclearScenarios(
        presidents=_entries(document, "presidents", PRESIDENT_FIELDS, name),
        crises=_entries(document, "crises", CRISIS_FIELDS, name),
    )


def load_recruitment(file: str | None = None) -> RecruitmentScenarios:
    """Universities and athletes: `{"universities": [...], "athletes": [...]}`."""
    name, document = _read(file, "nil_recruitment.json")
    universities = _list(document, "universities", name, 2)
    for index, university in enumerate(universities):
        if not _text(university):
            raise ConfigError("must be a non-empty text", file=name, field=f"universities[{index}]")
    if len(set(universities)) != len(universities):
        raise ConfigError("has a university twice", file=name, field="universities")
    return RecruitmentScenarios(
        universities=tuple(universities),
        athletes=_entries(document, "athletes", ATHLETE_FIELDS, name),
    )
