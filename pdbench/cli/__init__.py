"""The two front doors: `pdbench` (Typer, `app`) and `python -m pdbench` (Hydra, `hydra_door`)."""

from pdbench.cli.app import app, main

__all__ = ["app", "main"]
