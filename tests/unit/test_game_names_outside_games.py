"""Issue 43's count: no line outside a game's package names a game or a third role. Today many
do (the two pipelines, the judged games' prompts, the viewer's pages, the config's role fields),
so this test holds the count where it is and fails when it grows: each step of the move into game
packages lowers CEILING (to 0 when the issue is done), and no new code adds to it.

A line counts when it names a registered game's id or AgentDuel spelling, or one of their third
roles, as a whole word not followed by a dot (so `pd.DataFrame`, pandas, is not the game `pd`)
nor an import's alias (`import pandas as pd`), outside `pdbench/games/`; comment lines do not
count (a why may name an example), docstrings do."""

from __future__ import annotations

import re
from pathlib import Path

from pdbench.games.registry import GAME_FAMILIES, TURN_GAMES, game_roles

PACKAGE = Path(__file__).resolve().parents[2] / "pdbench"
# Lines, counted 2026-11-29 after the metrics, the third roles' measures and the examples in
# docstrings moved into packages (107 before, 52 of them `import pandas as pd`), then the 2x2
# games' tables into their packages (pdbench/games/<id>/__init__.py's TABLE, 9 before: core/game.py
# 6, and two docstrings of strategies/classic.py now saying the payoff conditions instead). What
# is left: the key a panel's stored verdicts name each member under (agents/panel.py,
# {"judge": ..., "winner": ...}), a field of stored records, which must keep its name.
CEILING = 0


def _names() -> set[str]:
    names = set(GAME_FAMILIES)
    for entry in TURN_GAMES.values():
        names |= {entry.platform_name, *(role.name for role in game_roles(entry.id))}
    return names


def naming_lines() -> dict[str, list[int]]:
    """Each module outside pdbench/games/ -> the numbers of its lines that name a game or role."""
    pattern = re.compile(
        r"(?<![\w-])(?<!as )(" + "|".join(map(re.escape, sorted(_names()))) + r")(?![\w.-])"
    )
    found: dict[str, list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).as_posix()
        if relative.startswith("pdbench/games/"):
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        hits = [
            number
            for number, line in enumerate(lines, start=1)
            if not line.lstrip().startswith("#") and pattern.search(line)
        ]
        if hits:
            found[relative] = hits
    return found


def test_no_new_line_outside_a_games_package_names_a_game_or_role():
    found = naming_lines()
    total = sum(len(hits) for hits in found.values())
    worst = sorted(found.items(), key=lambda item: -len(item[1]))[:5]
    assert total <= CEILING, (
        f"{total} lines outside pdbench/games/ name a game or a third role (at most {CEILING}): "
        "put what is one game's in its package and ask the game's entry instead; "
        f"most in {[(name, len(hits)) for name, hits in worst]}"
    )


def test_the_names_counted_are_every_game_and_role():
    names = _names()
    assert {"liars_dice", "liars-dice", "passcode", "keeper", "judge", "keeper_audit"} <= names
    assert set(GAME_FAMILIES) <= names
