"""The donor game's name for the shared norms of indirect reciprocity (`pdbench.games.norms`,
where the table and the references are): one definition for every game that keeps images."""

from pdbench.games.norms import (
    BAD,
    GOOD,
    NORM_CHOICES,
    NORMS,
    START_IMAGE,
    Norm,
    assess,
    next_images,
)

__all__ = ["BAD", "GOOD", "NORMS", "NORM_CHOICES", "START_IMAGE", "Norm", "assess", "next_images"]
