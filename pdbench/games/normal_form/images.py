"""Image scores under a named norm for a 2x2 game under reputation (`reputation_shown: image`,
issue 45): what a player may learn of a new partner is its image, good or bad, instead of
CoopEval's history tree.

Every player starts good (`norms.START_IMAGE`). After each round every player's image is set by
the norm (`pdbench.games.norms`, the table there, the donor game's definition) from its own
realised action, the cooperative one counting as giving, and its partner's image at the round's
start: both players of a pair are judged at once, as the donor game judges its donors. The
images are a function of the stored rounds (each round's groups and realised actions), so the
measures and the viewer replay them (`images_by_round`, `image_rows` from the stored turn
lines) rather than store them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pdbench.games import norms
from pdbench.games.base import player_seats

if TYPE_CHECKING:
    from pdbench.games.normal_form.options import Options
    from pdbench.games.normal_form.state import FinishedRound

Groups = tuple[tuple[int, ...], ...]


def start_images(rules: Options) -> tuple[int, ...]:
    """Every player's image before round 1; () when no image is kept."""
    return (norms.START_IMAGE,) * rules.population if rules.shows_images else ()


def partner_of(groups: Groups, player: int) -> int:
    """The other member of `player`'s pair this round."""
    for members in groups:
        if player in members:
            (partner,) = [other for other in members if other != player]
            return partner
    raise ValueError(f"population index {player} is in no group")


def next_images(
    rules: Options, images: tuple[int, ...], groups: Groups, realised: Sequence[int]
) -> tuple[int, ...]:
    """Every player's image after a round of `groups` in which each played `realised`."""
    assert rules.norm is not None
    partners = [partner_of(groups, i) for i in range(len(images))]
    gave = [action == rules.game.cooperative for action in realised]
    return norms.next_images(rules.norm, images, partners, gave)


def after_round(rules: Options, images: tuple[int, ...], played: FinishedRound) -> tuple[int, ...]:
    """The images after the finished round `played`; () when none is kept."""
    if not rules.shows_images:
        return ()
    assert played.groups is not None
    return next_images(rules, images, played.groups, played.realised)


def images_by_round(
    rules: Options, rounds: Sequence[tuple[Groups, Sequence[int]]]
) -> list[tuple[int, ...]]:
    """The images at the start of each of `rounds` (each its groups and realised actions, by
    population index), then after the last: one more entry than rounds."""
    images = [start_images(rules)]
    for groups, realised in rounds:
        images.append(next_images(rules, images[-1], groups, realised))
    return images


def word(image: int) -> str:
    """An image as a player is shown it."""
    return "good" if image == norms.GOOD else "bad"


def image_rows(
    turns: Sequence[Mapping[str, Any]], rules: Options, names: Mapping[str, str]
) -> list[dict[str, Any]]:
    """One row per played round of a match's stored turn lines: the image each seat (by its
    name) had at the round's start, as it was shown to its partner, and `share good`, the
    population's share of good images then; [] when no image is kept."""
    if not rules.shows_images:
        return []
    played = [turn for turn in turns if turn.get("phase") == "play" and turn.get("revealed")]
    seats, tokens = player_seats(rules.population), rules.game.tokens
    rounds = [
        (
            tuple(tuple(seats.index(s) for s in group) for group in turn["revealed"]["groups"]),
            [tokens.index(turn["revealed"]["actions"][s]) for s in seats],
        )
        for turn in played
    ]
    rows = []
    for turn, images in zip(played, images_by_round(rules, rounds)[:-1], strict=True):
        row: dict[str, Any] = {"round": int(turn["round"])}
        row.update({names.get(s, s): word(image) for s, image in zip(seats, images, strict=True)})
        row["share good"] = sum(i == norms.GOOD for i in images) / len(images)
        rows.append(row)
    return rows
