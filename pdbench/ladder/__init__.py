"""The ladder: ratings of agents across runs, per game, from stored match outcomes only.

identity (who an agent is across runs: pdbench.config.agent_identity), outcomes (one function per
stored format turns a run into an outcome table: who met whom, final scores, winner or draw),
ratings (Bradley-Terry with Davidson's draws by maximum likelihood with bootstrap intervals,
OpenSkill, connected components), build (outcome tables -> the ladder table) and output
(ladder.parquet). No match is played again and no provider is called.
"""
