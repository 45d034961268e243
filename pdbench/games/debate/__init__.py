"""The judged debates' shared family (AgentDuel's nuclear-war and nil-recruitment): what the two
games have in common, used by their packages (`pdbench.games.nuclear_war.rules`,
`pdbench.games.nil_recruitment.rules`).

- `rules`: `DebateGame`, a debate judged by a third seat, and its state.
- `policies`: the house debaters and house judges.
- `aggregates`: the per-player measures of a finished debate.
- `transcript` and `view`: the viewer's page of a debate; each game's own page adds its facts.
"""
