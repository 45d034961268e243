"""What a researcher asks of a donor game match, per player seat, from its stored turns alone
(`stored.read_rounds`; the variant's options tell the norm).

Per player (its choices are its donations, one a round; under `pairing: halves` the rounds it
donated in):
- `giving_rate`: the share of its choices that were gifts; `received_rate`: the share of the
  donations it received (one a round; under halves, the rounds it was a recipient) that were
  gifts.
- `give_to_good`, `give_to_bad`: the share of its choices that were gifts when its recipient's
  image was good, and when it was bad; `discriminator_share`, their difference
  P(give | good) - P(give | bad): 1 for a perfect discriminator, 0 for a player blind to
  reputation (unconditional or random), below 0 for one who favours the bad. The image is the
  one the donor was shown (the game's norm); under norm none, where no image is shown, the
  image-scoring image (good when the recipient's last action was a gift or it has none yet,
  which `recent_actions` shows when k >= 1).
- `norm_<norm>` for each norm (`norms.NORMS`): the share of its choices that norm judges good,
  each judged on its recipient's image under that norm, recomputed from the stored choices and
  pairs (`images_under`; for the game's own norm those are the images the donor was shown). The
  norm with the highest share is the one its choices are most consistent with
  (`most_consistent`); a discriminator is judged good every time by standing and by stern
  judging alike, so ties are reported as ties. The viewer gives each share's Wilson interval.
- `mean_image`: its image (1 good, 0 bad) averaged over the ends of the rounds, under the game's
  norm (None under none); `score`: its final score.
- `share_given` (continuous giving; None when binary): the share of its resources it gave,
  averaged over its donations (a punishment gives 0; a donation while holding nothing is left
  out), each share from the resources it held when it chose (`held_before`).

Over the population: `average_images`, the mean image after each round (the viewer's image over
time).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pdbench.core.metric import Metric
from pdbench.games.donor_game.options import Options
from pdbench.games.donor_game.stored import Line, StoredRound, read_rounds, seat_order
from pdbench.games.encounters import Encounter
from pdbench.games.metric_rows import register_game_rows
from pdbench.games.norms import NORMS, START_IMAGE, Norm, assess


def images_under(norm: Norm, rounds: Sequence[StoredRound]) -> list[dict[str, int]]:
    """Every seat's image before each round and after the last (len(rounds) + 1 entries) had
    `norm` judged the stored choices, everyone starting good, and again at each game's start
    (a match of several games)."""
    if not rounds:
        return []
    images = dict.fromkeys(rounds[0].labels, START_IMAGE)
    found = [dict(images)]
    game = (rounds[0].generation, rounds[0].game)
    for played in rounds:
        if (played.generation, played.game) != game:  # a new game: everyone good again
            game = (played.generation, played.game)
            found[-1] = images = dict.fromkeys(images, START_IMAGE)
        images = {
            donor: int(assess(norm, played.gave[donor], images[recipient] == 1))
            for donor, recipient in played.recipients.items()
        } | {seat: images[seat] for seat in images if seat not in played.recipients}
        found.append(dict(images))
    return found


def shown_images(rounds: Sequence[StoredRound], norm: str) -> list[dict[str, int]]:
    """The images a donor was shown each round (before it): the stored ones under a norm; under
    none, the image-scoring images (module docstring)."""
    if norm == "none":
        return images_under("image_scoring", rounds)[:-1]
    return [r.images_before or {} for r in rounds]


def average_images(rounds: Sequence[StoredRound]) -> list[float | None]:
    """The population's mean image after each round (None: no norm kept images)."""
    return [None if r.images is None else sum(r.images.values()) / len(r.images) for r in rounds]


def most_consistent(shares: Mapping[str, float | None]) -> tuple[str, ...]:
    """The norms of the highest share (several when tied), () when none is defined."""
    defined = {norm: share for norm, share in shares.items() if share is not None}
    if not defined:
        return ()
    top = max(defined.values())
    return tuple(norm for norm, share in defined.items() if abs(share - top) < 1e-12)


def _ratio(top: int, bottom: int) -> float | None:
    return top / bottom if bottom else None


def counts(rounds: Sequence[StoredRound], options: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """Per seat, the counts every measure is a ratio of."""
    seen = shown_images(rounds, str(options["norm"]))
    judged = {norm: images_under(norm, rounds) for norm in NORMS}
    found: dict[str, dict[str, int]] = {}
    for seat in seat_order(rounds[0].labels) if rounds else []:
        row = dict.fromkeys(
            ("choices", "gives", "received", "met_good", "gave_good", "met_bad", "gave_bad"), 0
        ) | {f"good_{norm}": 0 for norm in NORMS}
        receptions = 0
        for number, played in enumerate(rounds):
            donor = played.donor_of(seat)
            if donor is not None:
                receptions += 1
                row["received"] += played.gave[donor]
            if seat not in played.recipients:  # pairing halves: a recipient this round
                continue
            gave, recipient = played.gave[seat], played.recipients[seat]
            row["choices"] += 1
            row["gives"] += gave
            side = "good" if seen[number].get(recipient, START_IMAGE) == 1 else "bad"
            row[f"met_{side}"] += 1
            row[f"gave_{side}"] += gave
            for norm in NORMS:
                row[f"good_{norm}"] += assess(norm, gave, judged[norm][number][recipient] == 1)
        found[seat] = row | {"receptions": receptions}
    return found


def encounters(lines: Sequence[Line], options: Mapping[str, Any]) -> list[Encounter]:
    """Each donation of the match as an encounter of its donor and its recipient: the donor
    pays c and the recipient gets b when it gives, nothing otherwise (continuous giving: the
    donor pays x, the recipient gets (b / c) x, or loses punishment_factor x when the donor
    punished: the nominal amounts, before a player's resources are floored at 0); only the
    donor chose."""
    cost, benefit = float(options["cost"]), float(options["benefit"])

    def paid(played: StoredRound, donor: str) -> tuple[float, float]:
        if played.amounts is not None:
            spent = played.amounts[donor]
            if played.punished is not None and played.punished[donor]:
                factor = options.get("punishment_factor", Options.punishment_factor)
                return spent, -spent * float(factor)
            return spent, spent * benefit / cost
        return (cost, benefit) if played.gave[donor] else (0.0, 0.0)

    found = []
    for played in read_rounds(lines):
        for donor, recipient in sorted(played.recipients.items()):
            given, gained = paid(played, donor)
            found.append(
                Encounter(
                    first=donor,
                    second=recipient,
                    payoff_first=-given if given else 0.0,
                    payoff_second=gained,
                    cooperated_first=played.gave[donor],
                    cooperated_second=None,
                )
            )
    return found


def match_row(lines: Sequence[Line], options: Mapping[str, Any]) -> dict[str, dict[str, object]]:
    """Per player seat, every metric row's stem and the counts its pooled ratio needs."""
    rounds = read_rounds(lines)
    scores = lines[-1]["outcome"]["scores"] if lines and "outcome" in lines[-1] else {}
    rows: dict[str, dict[str, object]] = {}
    for seat, row in counts(rounds, options).items():
        to_good = _ratio(row["gave_good"], row["met_good"])
        to_bad = _ratio(row["gave_bad"], row["met_bad"])
        images = [r.images[seat] for r in rounds if r.images is not None]
        rows[seat] = {
            "giving_rate": _ratio(row["gives"], row["choices"]),
            "received_rate": _ratio(row["received"], row["receptions"]),
            "give_to_good": to_good,
            "give_to_bad": to_bad,
            "discriminator_share": (
                None if to_good is None or to_bad is None else to_good - to_bad
            ),
            **{f"norm_{n}": _ratio(row[f"good_{n}"], row["choices"]) for n in NORMS},
            "mean_image": sum(images) / len(images) if images else None,
            "score": scores.get(seat),
            "share_given": share_given(rounds, seat, float(options["endowment"])),
            **row,
        }
    return rows


def held_before(rounds: Sequence[StoredRound], endowment: float) -> list[dict[str, float]]:
    """Each seat's resources when the donors of each round chose (continuous giving): the
    endowment at a game's start, else the resources stored after the round before."""
    held: list[dict[str, float]] = []
    for index, played in enumerate(rounds):
        before = rounds[index - 1] if index else None
        fresh = before is None or (before.generation, before.game) != (
            played.generation,
            played.game,
        )
        held.append(
            dict.fromkeys(played.earnings, endowment)
            if fresh or before is None or before.resources is None
            else dict(before.resources)
        )
    return held


def share_given(rounds: Sequence[StoredRound], seat: str, endowment: float) -> float | None:
    """`seat`'s mean share of its resources given (module docstring); None when binary."""
    if not rounds or rounds[0].amounts is None:
        return None
    shares = []
    for played, held in zip(rounds, held_before(rounds, endowment), strict=True):
        if held[seat] <= 0 or played.amounts is None or seat not in played.amounts:
            continue  # it held nothing, or (pairing halves) it did not donate this round
        punished = played.punished is not None and played.punished[seat]
        shares.append(0.0 if punished else played.amounts[seat] / held[seat])
    return sum(shares) / len(shares) if shares else None


def game_finals(
    rounds: Sequence[StoredRound], endowment: float
) -> dict[tuple[int, int], dict[str, float]]:
    """Each game's (generation, game) final score per seat: the endowment plus that game's
    earnings (under continuous giving, its resources after the game's last round)."""
    finals: dict[tuple[int, int], dict[str, float]] = {}
    for played in rounds:
        scores = finals.setdefault((played.generation, played.game), {})
        for seat, earned in played.earnings.items():
            scores[seat] = scores.get(seat, endowment) + earned
    return finals


def generation_rows(rounds: Sequence[StoredRound], endowment: float) -> list[dict[str, Any]]:
    """Per generation: the players' mean final score of its last game (`mean_score`), that of
    the players who survived it (`survivors_score`; None after the last generation, where
    nobody is selected), its giving rate (the share of donations that were gifts) and, under
    continuous giving, the mean amount given."""
    finals = game_finals(rounds, endowment)
    rows = []
    for generation in sorted({r.generation for r in rounds}):
        played = [r for r in rounds if r.generation == generation]
        last = finals[(generation, max(r.game for r in played))]
        kept = next((r.survivors for r in played if r.survivors is not None), None)
        gifts = [g for r in played for g in r.gave.values()]
        amounts = [a for r in played if r.amounts is not None for a in r.amounts.values()]
        rows.append(
            {
                "generation": generation,
                "mean_score": sum(last.values()) / len(last),
                "survivors_score": None if kept is None else sum(last[s] for s in kept) / len(kept),
                "giving_rate": sum(gifts) / len(gifts),
                "mean_amount": sum(amounts) / len(amounts) if amounts else None,
            }
        )
    return rows


# Each stored per player seat; a pooled ratio sums its counts over a condition's finished
# matches before dividing; `shown`: the end-of-run table's columns (pdbench.cli.summary_table).
# Measured from the match's stored turn lines and options.
register_game_rows(
    ("donor_game",),
    lambda match: match_row(match.turns, match.options),
    (
        Metric(
            stem="giving_rate",
            label="Giving rate",
            short="gave",
            help="share of its donations that were gifts",
            kind="rate",
            per_agent=True,
            pooled=("gives", "choices"),
            shown="gave",
            shown_at=1,
        ),
        Metric(
            stem="received_rate",
            label="Received rate",
            short="received",
            help="share of the donations it received that were gifts",
            kind="rate",
            per_agent=True,
            pooled=("received", "receptions"),
            shown="received",
            shown_at=2,
        ),
        Metric(
            stem="give_to_good",
            label="Give to good",
            short="give to good",
            help="share of gifts when its recipient's image was good",
            kind="rate",
            per_agent=True,
            pooled=("gave_good", "met_good"),
        ),
        Metric(
            stem="give_to_bad",
            label="Give to bad",
            short="give to bad",
            help="share of gifts when its recipient's image was bad",
            kind="rate",
            per_agent=True,
            pooled=("gave_bad", "met_bad"),
        ),
        Metric(
            stem="discriminator_share",
            label="Discriminator share",
            short="discrimination",
            help="P(give | recipient good) - P(give | recipient bad)",
            kind="signed",
            per_agent=True,
            shown="discrimination",
            shown_at=3,
        ),
        *(
            Metric(
                stem=f"norm_{norm}",
                label=f"Good under {norm.replace('_', ' ')}",
                short=f"{norm.replace('_', ' ')}",
                help=f"share of its choices {norm.replace('_', ' ')} judges good",
                kind="rate",
                per_agent=True,
                pooled=(f"good_{norm}", "choices"),
            )
            for norm in NORMS
        ),
        Metric(
            stem="mean_image",
            label="Mean image",
            short="image",
            help="its image (1 good, 0 bad) averaged over the rounds' ends, under the game's norm",
            kind="rate",
            per_agent=True,
            shown="image",
            shown_at=4,
        ),
        Metric(
            stem="score",
            label="Score",
            short="score",
            help="its final score",
            kind="payoff",
            per_agent=True,
            shown="score",
            shown_at=0,
        ),
        Metric(
            stem="share_given",
            label="Share given",
            short="share given",
            help="the share of its resources it gave, averaged over its donations (continuous)",
            kind="rate",
            per_agent=True,
        ),
    ),
)
