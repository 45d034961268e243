"""Are the dice fair? The faces that stored Liar's Dice showdowns revealed, each roll counted once,
and Pearson's chi-square test of them against fair dice.

A round's dice are a pure function of the match's dice seed and the round (`liars_dice.roll`),
and the seed comes from the replicate's stream, not the condition's (common random numbers,
`pdbench.core.rng`): round k of replicate r rolls the same dice in every condition that reached
it. A tally that pools conditions and counts every showdown counts such a roll once per
condition, and a chi-square test on it weighs each roll several times over (issue 42: p < 0.001
on fair dice). Here a roll is identified by its (dice seed, round) and counted once, from the
first showdown that revealed it; a later showdown of the same (seed, round) is a repeat and left
out, also when the dice counts differ (the smaller hand drew part of the same stream).

Input: the stored turn lines of each match (rounds.jsonl's, as
`pdbench.analysis.metrics.turn_aggregates.read_turns` gives them), the outcome on the last line
holding the dice seed and the options. A match whose last line has no outcome (unfinished) still
has its finished rounds' showdowns, but no seed to tell its rolls apart: it is left out and
counted in `unidentified`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FaceTally:
    """How often each face showed in the distinct rolls revealed."""

    counts: tuple[int, ...]  # face 1, 2, ... faces
    rolls: int  # distinct (dice seed, round) rolls counted
    repeats: int  # showdowns left out: a roll already counted (another condition, same draws)
    unidentified: int  # matches left out: no outcome line, so no dice seed

    @property
    def dice(self) -> int:
        return sum(self.counts)

    @property
    def statistic(self) -> float:
        """Pearson's chi-square against equal shares of the faces."""
        expected = self.dice / len(self.counts)
        return sum((c - expected) ** 2 / expected for c in self.counts) if expected else 0.0

    @property
    def p_value(self) -> float:
        """P(chi-square with faces - 1 df >= statistic): small when the faces are not even."""
        from scipy.special import chdtrc  # kept out of the module import (import cost)

        return float(chdtrc(len(self.counts) - 1, self.statistic)) if self.dice else 1.0


def face_tally(matches: Iterable[Sequence[Mapping[str, Any]]]) -> FaceTally:
    """The revealed faces of the stored matches, each (dice seed, round) roll once (module doc)."""
    seen: set[tuple[int, int]] = set()
    counts: dict[int, int] = {}
    faces = repeats = unidentified = 0
    for turns in matches:
        outcome = turns[-1].get("outcome") if turns else None
        if not outcome or "seed" not in outcome:
            unidentified += 1
            continue
        faces = max(faces, int(outcome.get("options", {}).get("faces", 6)))
        for turn in turns:
            showdown = (turn.get("revealed") or {}).get("showdown")
            if not showdown:
                continue
            roll = (int(outcome["seed"]), int(showdown["round"]))
            if roll in seen:
                repeats += 1
                continue
            seen.add(roll)
            for hand in showdown["dice"].values():
                for face in hand:
                    counts[int(face)] = counts.get(int(face), 0) + 1
    return FaceTally(
        counts=tuple(counts.get(face, 0) for face in range(1, faces + 1)),
        rolls=len(seen),
        repeats=repeats,
        unidentified=unidentified,
    )
