"""The 2x2 matrix games (`pdbench.core.game`: the dilemmas, split or steal) on the one turn
contract (`pdbench.games.base.TurnGame`, issue 43), the same rounds the match loop
(`pdbench.runners.match`) and its numpy fast path (`pdbench.runners.batch`) play.

- `rules`: `MatrixGame`, a round as a talk phase (when the game has a negotiation) and a
  simultaneous commit, the trembling hand drawn from the runner's noise streams; `state` its
  state; `observation` a seat's round_state and the 2x2 agents' `Observation` rebuilt from it.
- `house`: the classic strategies of `pdbench.strategies` as house players of the turn contract
  (from the round_state alone).
- `seat`: any 2x2 agent (policy, LLM, arena, a test's scripted talker) seated in the turn loop
  (`pdbench.runners.turns`): it is shown the `Observation` the match loop would show it.
"""
