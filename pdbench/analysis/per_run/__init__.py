"""A run's analysis files from its stored play: the play as the analyses read it, analysis.parquet,
tournament.parquet, the comparisons `pdbench analyze` makes, and the aggregates the viewer reads.
(Named per_run, not run_*, so nothing here reads like the runners that play the matches.)"""
