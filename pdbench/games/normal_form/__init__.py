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
- `compose`: a 2x2 game (or public goods) and a mechanism (conf/mechanism/) as this game.

Registered in `pdbench.games.registry`; docs/mechanisms.md is its page.
"""
