"""The donor game of indirect reciprocity (issue 45) as one package, the shape issue 43's game
contract gives every game (public goods' package is the model):

- `rules`: `DonorGame`, a population of N seats ("a", "b", ...) each donating once a round to a
  seeded recipient, give or refuse (or any amount of its resources, or punish), seeing its
  recipient's reputation; `options` its variant, `pairing` the seeded labels and pairs, `norms`
  the norms that judge donors (`pdbench.games.norms`, shared with the 2x2 games), `payoffs` what a round pays, `generations` the games of a match
  and cultural evolution, `state` the state, `observation` a donor's round_state.
- `policies`: the house players (`DONOR_GAME_POLICIES`), answering from round_state alone.
- `stored`, `metrics`: the measures (giving rate, giving by the recipient's image, the norm a
  player's choices agree with, the population's image), from the stored turns alone.
- `published`: the donor_vallinder_hughes2024 presets' sources (docs/donor-game.md).
- `prompts` (with `phrases`, `amount_prompts`, `strategy_prompts`) and `mock`: its LLM players'
  prompt adapter and the offline mock's play.
- `view` (with `evolution_view`): its page in the viewer.

`GAME` below names each of these parts; `pdbench.games.registry` lists it with the other
built-in games. The rules import only pdbench.core, pdbench.games.base
and numpy; `mock` and `view` import what their roles may (tests/unit/test_layering.py).
"""

from __future__ import annotations

from pdbench.games.base import MAX_SEATS
from pdbench.games.entry import Seats, TurnGameEntry

GAME = TurnGameEntry(
    id="donor_game",
    view="pdbench.games.donor_game.view",
    platform_name="donor-game",
    rules="pdbench.games.donor_game.rules:DonorGame",
    policies="pdbench.games.donor_game.policies:DONOR_GAME_POLICIES",
    summary="N players each donate once a round (cost c, benefit b) seeing the "
    "recipient's reputation",
    metrics="pdbench.games.donor_game.metrics",
    encounters="pdbench.games.donor_game.metrics:encounters",
    ranked_on="payoff",
    seats=Seats(default=8, minimum=2, maximum=MAX_SEATS, option="players"),
    default_persona="cooperative",
    llm="pdbench.games.donor_game.prompts:PROMPTS",
    mock="pdbench.games.donor_game.mock:play",
    # a discriminator, a defector and a cooperator, so a file meets each kind of donor
    training_opponents=("donor_discriminator", "donor_never_give", "donor_always_give"),
    rounds_option="rounds",
)
