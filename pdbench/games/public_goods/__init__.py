"""The n-player public goods game with talk and punishment (issue 44), as one package, the shape
issue 43's game contract gives every game: the rules and what they need, its house players, its
measures and the published designs it can reproduce.

- `rules`: `PublicGoods`, the rules as a turn game with N player seats ("a", "b", "c", ...);
  `options` its variant, `matching` the seeded groups, labels and orders, `payoff` the money,
  `state` the state, `observation` a player's round_state.
- `policies`: the house players (`PUBLIC_GOODS_POLICIES`), answering from round_state alone.
- `talk`: what counts as a stated contribution in a message.
- `stored`, `metrics`, `schedule`, `recompute`: the measures, computed from the stored turns
  alone, and an independent recomputation of every payoff.
- `published`: pgg_fehr_gaechter2002, pgg_bench and coopeval_public_goods (docs/public-goods.md).
- `prompts` and `mock`: its LLM players' prompt adapter and the offline mock's play.
- `vectorised`, `vectorised_rounds`, `observed_json`: a condition of house players played for
  many matches at once, numpy over the matches, writing the turn loop's records.
- `view`: its page in the viewer.

`GAME` below names each of these parts; `pdbench.games.registry` lists it with the other
built-in games. The rules import only
pdbench.core and numpy; `mock` and `view` import what their roles may (tests/unit/test_layering.py).
"""

from __future__ import annotations

from pdbench.games.base import MAX_SEATS
from pdbench.games.entry import Seats, TurnGameEntry

GAME = TurnGameEntry(
    id="public_goods",
    view="pdbench.games.public_goods.view",
    platform_name="public-goods",
    rules="pdbench.games.public_goods.rules:PublicGoods",
    policies="pdbench.games.public_goods.policies:PUBLIC_GOODS_POLICIES",
    summary="N players contribute to a shared pot, multiplied and split; may talk, punish",
    metrics="pdbench.games.public_goods.metric_rows",
    ranked_on="payoff",
    seats=Seats(default=4, minimum=2, maximum=MAX_SEATS, option="players"),
    default_persona="cooperative",
    llm="pdbench.games.public_goods.prompts:PROMPTS",
    mock="pdbench.games.public_goods.mock:play",
    # a group of mixed kinds, so a file meets a cooperator, a free rider and a
    # conditional cooperator at once (the Fischbacher, Gaechter & Fehr 2001 types)
    training_opponents=(
        "pgg_conditional_cooperator",
        "pgg_free_rider",
        "pgg_full_contributor",
    ),
    rounds_option="rounds",
    vectorised="pdbench.games.public_goods.vectorised",
)
