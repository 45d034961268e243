"""The canonical JSON of a round_state (`view.round_state`), written from its parts for the
vectorised path (`vectorised`): the text `json.dumps(round_state, sort_keys=True,
separators=(",", ":"))` gives, so its digest is the turn runner's `observation_digest`, without
building the dict. A player's history is kept as text and grows by one entry a round.

Keys are written in sorted order (contributions, endowment, game, history, max_punish, messages,
multiplier, phase, players, punish_cost, punish_fine, round_limit, round_number, scores, you,
your_score); labels as keys sort as strings ("P10" before "P2"); numbers as json writes them
(an int as an int, a float by its repr). The equality test of the vectorised path holds every
digest to the turn loop's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from pdbench.games.public_goods.matching import label_names
from pdbench.games.public_goods.options import Options


def digest(canonical: str) -> str:
    """`runners.turns.observation_digest` of the observation whose canonical JSON this is."""
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class RoundStateText:
    """The round_states of one variant as canonical JSON (the constant parts written once)."""

    def __init__(self, options: Options, platform_name: str) -> None:
        self.labels = list(label_names(options.players))
        self.label_order = sorted(range(options.players), key=lambda k: self.labels[k])
        limit = options.rounds if options.round_limit_disclosed else None
        self.head = f'"endowment":{canonical(options.endowment)},"game":{canonical(platform_name)},'
        self.middle = f'"multiplier":{canonical(options.multiplier)},"phase":"'
        self.players = f'","players":{canonical(self.labels)},'
        self.costs = (
            f'"punish_cost":{canonical(options.punish_cost)},'
            f'"punish_fine":{canonical(options.punish_fine)},'
        )
        self.limit = f'"round_limit":{canonical(limit)},"round_number":'

    def by_label(self, values: Sequence[Any]) -> str:
        """{label: value} of one group (values in label order) as canonical JSON."""
        labels = self.labels
        return "{" + ",".join(f'"{labels[k]}":{values[k]!r}' for k in self.label_order) + "}"

    def round_state(
        self,
        phase: str,
        number: int,
        you: str,
        history: str,
        messages: list[str],
        scores: str,
        your_score: float,
        punish: tuple[str, int] | None = None,
    ) -> str:
        """One round_state: `history` its entries joined, `messages` each said one's JSON,
        `scores` its JSON; `punish` (this round's contributions as JSON, max_punish) in the
        punish phase."""
        if punish is None:
            head, middle, costs = "{", "", ""
        else:
            head = f'{{"contributions":{punish[0]},'
            middle, costs = f'"max_punish":{punish[1]},', self.costs
        return (
            f'{head}{self.head}"history":[{history}],{middle}"messages":[{",".join(messages)}],'
            f"{self.middle}{phase}{self.players}{costs}{self.limit}{number},"
            f'"scores":{scores},"you":"{you}","your_score":{your_score!r}}}'
        )

    @staticmethod
    def message(author: str, text: str) -> str:
        return f'{{"author":"{author}","text":{canonical(text)}}}'

    @staticmethod
    def past_round(
        number: int, contributions: str, earnings: str, punished: dict[str, dict[str, int]]
    ) -> str:
        """A history entry without its closing `"you"` value (the same for the whole group):
        append `"P2"}` for the member shown as P2."""
        return (
            f'{{"contributions":{contributions},"earnings":{earnings},'
            f'"punished":{canonical(punished)},"round_number":{number},"you":'
        )
