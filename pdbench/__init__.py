"""pdbench: iterated prisoner's dilemma experiments with LLM agents and classic strategies.

The command line is `pdbench` (pdbench.cli) and `python -m pdbench` (Hydra, pdbench.cli.hydra_door).
The layout follows the data flow: config -> spec -> runners (plan, match) -> storage -> ui.
"""


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
