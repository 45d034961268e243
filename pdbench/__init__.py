"""pdbench: iterated prisoner's dilemma experiments with LLM agents and classic strategies.

The command line is `pdbench` (pdbench.cli) and `python -m pdbench` (Hydra, pdbench.cli.hydra_door).
The layout follows the data flow: config -> spec -> runners (plan, match) -> storage -> ui.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pdbench")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"
