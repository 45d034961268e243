"""An example pdbench plugin: an agent kind (`agent`) and a metric (`metrics`), registered
through this package's entry points (pyproject.toml)."""
