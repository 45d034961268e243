"""pdbench: iterated prisoner's dilemma experiments with LLM agents and classic strategies.

The command line is `pdbench` (pdbench.cli) and `python -m pdbench` (Hydra, pdbench.cli.hydra_door).
The layout follows the data flow: config -> spec -> runners (plan, match) -> storage -> ui.
"""

from pdbench.storage import line_projection


def _matrix_projection() -> line_projection.Projection:
    """The 2x2 family's projection of its stored lines (loaded at a reader's first read)."""
    from pdbench.games.matrix.stored import as_round_lines, as_rounds

    return line_projection.Projection(rounds=as_rounds, round_lines=as_round_lines)


# Storage reads a 2x2 run's lines back as round records through this one hook (it names no
# game family); registered here, the front door every import of pdbench runs first, so that a
# notebook importing only `pdbench.storage.reader` reads them as the commands do.
line_projection.register(_matrix_projection)


def __getattr__(name: str) -> str:
    """`pdbench.__version__`, looked up when asked: importlib.metadata costs about 40 ms, which
    every command (`pdbench --help` too) would pay at import for a number few of them read."""
    if name != "__version__":
        raise AttributeError(f"module 'pdbench' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pdbench")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "0+unknown"
