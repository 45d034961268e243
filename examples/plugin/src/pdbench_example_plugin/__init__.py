"""An example pdbench plugin: an agent kind (`agent`), a metric (`metrics`) and a game
(`odds_and_evens`), registered through this package's entry points (pyproject.toml)."""
