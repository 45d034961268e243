"""The donor game of indirect reciprocity (issue 45) as one package, the shape issue 43's game
contract gives every game (public goods' package is the model):

- `rules`: `DonorGame`, a population of N seats ("a", "b", ...) each donating once a round to a
  seeded recipient, give or refuse, seeing its recipient's reputation; `options` its variant,
  `pairing` the seeded labels and pairs, `norms` the norms that judge donors, `state` the state,
  `observation` a donor's round_state.
- `policies`: the house players (`DONOR_GAME_POLICIES`), answering from round_state alone.
- `stored`, `metrics`: the measures (giving rate, giving by the recipient's image, the norm a
  player's choices agree with, the population's image), from the stored turns alone.
- `published`: the donor_vallinder_hughes2024 preset's sources (docs/donor-game.md).
- `prompts` and `mock`: its LLM players' prompt adapter and the offline mock's play.
- `view`: its page in the viewer.

Registered in `pdbench.games.registry`. The rules import only pdbench.core, pdbench.games.base
and numpy; `mock` and `view` import what their roles may (tests/unit/test_layering.py).
"""
