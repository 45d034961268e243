"""An example pdbench plugin: an agent kind (`agent`), a metric (`metrics`) and two games
(`odds_and_evens`, a turn game, and `deadlock`, a 2x2 table), registered through this package's entry points (pyproject.toml)."""
