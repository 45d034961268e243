"""The pure engine: actions, games, horizons, seeds, transcripts, the match loop and metrics.

Nothing in here does I/O or imports another part of pdbench.
"""
