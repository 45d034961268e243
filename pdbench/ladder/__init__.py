"""The ladder: ratings of agents across runs, per game, from stored match outcomes only.

outcomes (the outcome table, one row per seat of a match; who played, by agent identity:
pdbench.config.agent_identity; a match's identity by what determines it), readers (every run
read alike: each condition's game's entry names its checked reader, `TurnGameEntry.outcomes`;
replay_reader, the stored actions replayed through the rules, for an entry naming none; the 2x2
games' reader checks each round against the game's payoffs, pdbench.games.matrix.outcomes), ratings (on wins: Bradley-Terry with Davidson's draws, Wald
intervals on the penalised fit, which ratings the data identify, OpenSkill, connected
components), payoff_ratings (on payoff: an additive model of what each agent earns), rank_ratings (matches
of N players on their ranks: Plackett-Luce, the reduction to pairs, OpenSkill with N teams),
game_rows, group_rows (a game whose matches have more than two players) and build (outcome tables -> the ladder table, in each game's currency) and output
(ladder.parquet). No match is played again and no provider is called.
"""
