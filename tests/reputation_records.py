"""CoopEval's reputation tree as the stored records of a 2x2 game under `mechanism=reputation`
say it should be shown (tests/unit/test_normal_form_reputation.py, tests/e2e/
test_normal_form_reputation_sweep.py): an independent reader of the revealed rounds (each
round's groups, actions and payoffs by seat), not the package's; and the images a norm gives
under `reputation_shown: image` (tests/unit/test_normal_form_images.py, tests/e2e/
test_normal_form_images_run.py), from this file's own table of the four norms."""

from __future__ import annotations

from typing import Any


def expected_history(
    revealed: dict[int, dict[str, Any]],
    names: dict[str, str],
    seat: str,
    before: int,
    first: int,
    level: int,
    order: int,
) -> list[dict[str, Any]]:
    """`seat`'s rounds from `first` to before `before` as the records say they went, each
    co-player expanded with its own earlier rounds while `level` < `order` (CoopEval's rule)."""
    rows = []
    for number in range(first, before):
        record = revealed[number]
        (group,) = [g for g in record["groups"] if seat in g]
        co_players = []
        for other in group:
            if other == seat:
                continue
            co: dict[str, Any] = {
                "agent": names[other],
                "action": record["actions"][other],
                "points": float(record["payoffs"][other]),
            }
            if level < order:
                co["history"] = expected_history(
                    revealed, names, other, number, first, level + 1, order
                )
            co_players.append(co)
        rows.append(
            {
                "round_number": number,
                "action": record["actions"][seat],
                "points": float(record["payoffs"][seat]),
                "co_players": co_players,
            }
        )
    return rows


def rounds_named(tree: Any) -> list[int]:
    """Every round number anywhere in a shown tree."""
    if isinstance(tree, dict):
        found = [tree["round_number"]] if "round_number" in tree else []
        return found + [n for value in tree.values() for n in rounds_named(value)]
    if isinstance(tree, list):
        return [n for item in tree for n in rounds_named(item)]
    return []


# the four norms of indirect reciprocity, written out here rather than imported (pdbench/games/
# norms.py is what is tested): (played the cooperative action, the partner was good at the
# round's start) -> judged good
IMAGE_NORMS = {
    "image_scoring": {(True, True): 1, (True, False): 1, (False, True): 0, (False, False): 0},
    "standing": {(True, True): 1, (True, False): 1, (False, True): 0, (False, False): 1},
    "stern_judging": {(True, True): 1, (True, False): 0, (False, True): 0, (False, False): 1},
    "shunning": {(True, True): 1, (True, False): 0, (False, True): 0, (False, False): 0},
}


def expected_images(
    norm: str, seats: tuple[str, ...], revealed: dict[int, dict[str, Any]], cooperative: str
) -> dict[int, dict[str, int]]:
    """Each seat's image at the start of every round, from the records alone: everyone good,
    then each round every seat judged on its own action and its partner's image before it."""
    images = {1: dict.fromkeys(seats, 1)}
    for number in sorted(revealed):
        before, after = images[number], {}
        for first, second in revealed[number]["groups"]:
            for me, partner in ((first, second), (second, first)):
                gave = revealed[number]["actions"][me] == cooperative
                after[me] = IMAGE_NORMS[norm][(gave, before[partner] == 1)]
        images[number + 1] = after
    return images
