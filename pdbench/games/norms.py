"""The norms of indirect reciprocity that judge a donor (issue 45; the definitions of
shared/references/groups-and-mechanisms.md, the standard ones of the literature: Nowak &
Sigmund 1998 for image scoring, Ohtsuki & Iwasa 2004 and Santos, Santos & Pacheco 2018 for the
second-order norms). One definition for every game that keeps images: the donor game (a donor
gives or refuses to its recipient) and a 2x2 game under reputation with `reputation_shown:
image` (a player "gives" when it plays the cooperative action, its partner the recipient).

A norm assigns the donor's new image, good or bad, from what it did and (second-order norms)
the image its recipient had when it chose:

| norm            | gives to good | gives to bad | refuses good | refuses bad |
| --------------- | ------------- | ------------ | ------------ | ----------- |
| image_scoring   | good          | good         | bad          | bad         |
| standing        | good          | good         | bad          | good        |
| stern_judging   | good          | bad          | bad          | good        |
| shunning        | good          | bad          | bad          | bad         |

Image scoring ignores the recipient. `none` is no norm: nobody's image is kept or shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

Norm = Literal["image_scoring", "standing", "stern_judging", "shunning"]
NORMS: tuple[Norm, ...] = ("image_scoring", "standing", "stern_judging", "shunning")
NORM_CHOICES: tuple[str, ...] = (*NORMS, "none")
GOOD, BAD = 1, 0
START_IMAGE = GOOD  # everyone starts good: a newcomer is given the benefit of the doubt


def assess(norm: Norm, gave: bool, recipient_good: bool) -> bool:
    """Whether `norm` judges a donor good after it gave (or refused) to a recipient of the
    image `recipient_good` (the table in the module docstring)."""
    if norm == "image_scoring":
        return gave
    if norm == "standing":
        return gave or not recipient_good
    if norm == "stern_judging":
        return gave == recipient_good
    if norm == "shunning":
        return gave and recipient_good
    raise ValueError(f"norm must be one of {', '.join(NORMS)}, got {norm!r}")


def next_images(
    norm: Norm, images: Sequence[int], recipients: Sequence[int | None], gave: Sequence[bool]
) -> tuple[int, ...]:
    """Every player's image after a round in which donor i gave (`gave[i]`) or refused to
    `recipients[i]`, each judged on its recipient's image at the round's start (all donors
    choose at once). A player who donated nobody (`recipients[i]` None: under pairing halves,
    a recipient this round) keeps its image."""
    after = list(images)
    for donor, (recipient, given) in enumerate(zip(recipients, gave, strict=True)):
        if recipient is None:
            continue
        after[donor] = GOOD if assess(norm, given, images[recipient] == GOOD) else BAD
    return tuple(after)
