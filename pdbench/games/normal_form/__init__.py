"""A normal-form game under a mechanism (issue 45: CoopEval's repetition, mediation and
contracting), as one package in the shape issue 43's game contract gives every game. The 2x2
games (and CoopEval's binary public goods game) are its base games: `game=pd mechanism=mediation`
on the Hydra command line plays pd's payoffs under mediation as this turn game (`compose`).

- `base_games`: the base game as data (tokens A0..A{n-1}, payoffs of every profile, its pure
  equilibria), from the core 2x2 tables; `options` the variant; `state` the state.
- `designs`: mediators and contracts, what they do to a profile, the equilibrium checks, the house
  designs and security values.
- `rules`: `NormalForm`, the phases design, vote, sign and play as a turn game; `observation` a
  player's round_state.
- `policies`: the house players (`NORMAL_FORM_POLICIES`, mech_*), from round_state alone.
- `metrics`: the measures, from the stored turns; `view`: the viewer's page.
- `prompts` (with CoopEval's `texts`) and `mock`: the LLM players' prompt adapter and the offline
  mock's play.
- `reputation` (with `reputation_prompt`): CoopEval's reputation mechanism, a population
  re-matched every round (`matching`: at random or round robin) and shown the shared reputation
  tree (`pdbench.games.reputation_tree`); or, with `reputation_shown: image`, each partner's
  image under a named norm (`images`, `image_prompt`; the norms of `pdbench.games.norms`).
- `compose`: a 2x2 game (or public goods) and a mechanism (conf/mechanism/) as this game.

`GAME` below names each of these parts; `pdbench.games.registry` lists it with the other
built-in games. docs/mechanisms.md is its page.
"""

from __future__ import annotations

from pdbench.games.base import MAX_SEATS
from pdbench.games.entry import Seats, TurnGameEntry

GAME = TurnGameEntry(
    id="normal_form",
    view="pdbench.games.normal_form.view",
    platform_name="normal-form",
    rules="pdbench.games.normal_form.rules:NormalForm",
    policies="pdbench.games.normal_form.policies:NORMAL_FORM_POLICIES",
    summary="a 2x2 (or binary public goods) game under CoopEval's mediation, "
    "contracting or repetition",
    metrics="pdbench.games.normal_form.metrics",
    encounters="pdbench.games.normal_form.metrics:encounters",
    ranked_on="payoff",
    seats=Seats(default=2, minimum=2, maximum=MAX_SEATS, option="players"),
    default_persona="cooperative",
    llm="pdbench.games.normal_form.prompts:PROMPTS",
    mock="pdbench.games.normal_form.mock:play",
    training_opponents=("mech_designer",),
    rounds_option="rounds",
)
