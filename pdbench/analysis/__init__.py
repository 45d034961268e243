"""What stored rounds mean: metric definitions, aggregation, and the analyses built on them.

Grouped by job: `metrics` (the catalogue, per-match metrics, aggregates.parquet), `stats`
(intervals and comparisons), `identification` (which strategy an agent plays), `tournaments`
(payoff matrix, ranking, population dynamics) and `per_run` (a run's analysis files from its
stored play). Reads only stored artifacts (through `pdbench.storage`) and never calls a provider.
"""
