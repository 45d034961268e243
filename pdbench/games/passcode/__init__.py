"""Passcode (AgentDuel's passcode): two players question a Keeper about secret words and guess
them, as one package: everything that is this game's (issue 43's game contract).

- `rules`: the `Passcode` turn game (seeded words, the Keeper's seats, what each seat observes).
- `policies`: the house players and house Keepers.
- `aggregates`: the per-player measures from a finished match (the judged games' shared
  measures are in `pdbench.games.judged_metrics`).
- `transcript` and `view`: the viewer's page of a match.

Registered in `pdbench.games.registry`.
"""
