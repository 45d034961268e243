"""The reputation block of a normal-form prompt under `reputation_shown: image` (round_state's
`norm`, `cooperative_action` and `partner_image`, module `images`), read back by the offline
mock. It replaces CoopEval's history tree (`reputation_prompt`): the player is told the norm in
words and its partner's image, nothing of the partner's history.

    You are playing this game repeatedly but with varying players who you encounter at random,
    8 rounds in all. You have already played this game for 2 round(s) in the past.

    Every player has a public image, good or bad, which the players it meets are shown;
    everyone starts good. After each round the norm of standing judges every player on the
    action it played and its partner's image when they played: a player who plays A0 becomes
    good; one who plays any other action becomes good against a bad partner and bad against
    a good one.
    Your partner this round has a good image.

With `discount` < 1 or a `continuation` the first paragraph tells the chance of another round
instead of the rounds, as the tree's preamble does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pdbench.core.phrases import Phrase, written_number
from pdbench.games.normal_form.observation import told_chance
from pdbench.games.normal_form.scoring import chance_in_percent
from pdbench.games.norms import NORMS

PREAMBLE = Phrase(
    "You are playing this game repeatedly but with varying players who you encounter at "
    "random, {limit} rounds in all. You have already played this game for {played} round(s) "
    "in the past.",
    slots={"limit": r"\d+", "played": r"\d+"},
)
PREAMBLE_CONTINUING = Phrase(
    "You are playing this game repeatedly but with varying players who you encounter at "
    "random. After each round, there is a {chance}% chance probability that an additional "
    "round will take place. You have already played this game for {played} round(s) in the past.",
    slots={"chance": r"\d+(?:\.\d+)?", "played": r"\d+"},
)
# the norms' table (`pdbench.games.norms`) in words, playing the cooperative action as giving
NORM_RULES = {
    "image_scoring": "a player who plays {give} becomes good and one who plays any other action "
    "bad, whatever its partner's image",
    "standing": "a player who plays {give} becomes good; one who plays any other action becomes "
    "good against a bad partner and bad against a good one",
    "stern_judging": "a player who plays {give} against a good partner or any other action "
    "against a bad one becomes good; one who plays {give} against a bad partner or any other "
    "action against a good one becomes bad",
    "shunning": "a player who plays {give} against a good partner becomes good; every other "
    "player becomes bad",
}
IMAGES = Phrase(
    "Every player has a public image, good or bad, which the players it meets are shown; "
    "everyone starts good. After each round the norm of {norm} judges every player on the "
    "action it played and its partner's image when they played: {rule}.",
    slots={"norm": "|".join(n.replace("_", " ") for n in NORMS), "rule": r".+"},
)
PARTNER = Phrase("Your partner this round has a {image} image.", slots={"image": r"good|bad"})


def told_preamble(round_state: Mapping[str, Any], plain: Phrase, continuing: Phrase) -> str:
    """A reputation block's first paragraph, this one's or the history block's
    (`reputation_prompt`): `continuing` with the chance of another round when the prompt tells
    one (a discount, a continuation), else `plain` with the number of rounds."""
    played = round_state["round_number"] - 1
    if (told := told_chance(dict(round_state))) is not None:
        return continuing.render(chance=written_number(chance_in_percent(told)), played=played)
    return plain.render(limit=round_state["round_limit"], played=played)


def render(round_state: Mapping[str, Any]) -> list[str]:
    """The block's lines (module docstring)."""
    preamble = told_preamble(round_state, PREAMBLE, PREAMBLE_CONTINUING)
    norm = str(round_state["norm"])
    rule = NORM_RULES[norm].format(give=round_state["cooperative_action"])
    return [
        preamble,
        "",
        IMAGES.render(norm=norm.replace("_", " "), rule=rule),
        PARTNER.render(image=round_state["partner_image"]),
    ]


def read_image(prompt: str) -> dict[str, Any] | None:
    """round_state's image keys as far as a house player reads them (`norm`, `partner_image`),
    read back from a prompt's block; None: no block."""
    norm, partner = IMAGES.pattern.search(prompt), PARTNER.pattern.search(prompt)
    if norm is None or partner is None:
        return None
    return {
        "reputation_shown": "image",
        "norm": norm["norm"].replace(" ", "_"),
        "partner_image": partner["image"],
    }
