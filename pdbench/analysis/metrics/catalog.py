"""The metric catalogue: the registered 2x2 metrics (the rows every 2x2 game shares, registered by
the module the 2x2 games' entries name as their `metrics`, `pdbench.games.matrix.metrics`; then
any registered from elsewhere with `register_metric` or `@metric_row(...)`), and the questions
asked of them: their columns in aggregates.parquet order, one column's entry, which get
condition statistics, the per-agent ones, every value per match.

Importing this module registers the 2x2 games' rows, so a metric registered through it comes
after them; the metrics of installed packages (entry point group `pdbench.metrics`,
`pdbench.core.plugins`) are loaded when the metrics are first listed. It is the one door to metrics: `Metric` and the registration functions are re-exported from
`pdbench.core.metric`, where they live apart from the rows that use them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from pdbench.core.errors import PdbenchError, unknown_choice
from pdbench.core.metric import (
    DECIMALS,
    SIDES,
    Compute,
    Kind,
    Metric,
    MetricColumn,
    Side,
    metric_row,
    register_metric,
    registered_rows,
    unregister_metric,
)
from pdbench.core.plugins import load_group
from pdbench.games.registry import MATRIX_GAMES

if TYPE_CHECKING:
    import numpy as np

    from pdbench.analysis.metrics.played import PlayedMatches

__all__ = [
    "BUILT_IN",
    "DECIMALS",
    "RANKING_COLUMNS",
    "SIDES",
    "Compute",
    "Kind",
    "Metric",
    "MetricColumn",
    "Side",
    "compute_columns",
    "metric",
    "metric_columns",
    "metric_row",
    "per_agent_columns",
    "register_metric",
    "registered_metrics",
    "scalar_columns",
    "unregister_metric",
]


def _matrix_rows() -> tuple[Metric, ...]:
    """The rows the 2x2 games' entries declare (each entry's `metrics` module registers them when
    it is imported, as a turn game's does), in registration order: the rows whose computation
    those modules define."""
    modules = dict.fromkeys(e.metrics for e in MATRIX_GAMES.values() if e.metrics)
    for module in modules:
        importlib.import_module(module)
    return tuple(m for m in registered_rows() if getattr(m.compute, "__module__", "") in modules)


# The 2x2 games' own rows (the built-in ones), registered before anything else of the catalogue.
BUILT_IN: tuple[Metric, ...] = _matrix_rows()

# The columns of tournament.parquet's ranking (`pdbench tournament`), labelled as the metrics are.
RANKING_COLUMNS: dict[str, tuple[str, str]] = {
    "median_score": (
        "Median score",
        "Mean payoff per round over all its matches, the median over replicates (the rank).",
    ),
    "mean_score": ("Mean score", "Mean payoff per round, averaged over replicates."),
    "ci_low": ("Score 95% CI low", "Lower end of the mean score's 95% interval."),
    "ci_high": ("Score 95% CI high", "Upper end of the mean score's 95% interval."),
    "median_wins": (
        "Median wins",
        "Matches won (more payoff than the opponent), median over replicates.",
    ),
    "cooperation_rating": ("Cooperation rate", "Share of C among all its moves."),
}


def registered_metrics() -> tuple[Metric, ...]:
    """Every registered metric, the built-in rows first, in column order."""
    load_group("pdbench.metrics")
    return registered_rows()


def metric_columns() -> tuple[MetricColumn, ...]:
    """Every metric column of aggregates.parquet, in column order."""
    load_group("pdbench.metrics")
    return tuple(c for m in registered_rows() for c in m.columns)


def metric(column: str) -> MetricColumn:
    """The catalogue entry of one aggregates column, e.g. `metric("retaliation_rate_a")`; a name
    that is no metric column raises PdbenchError with a "did you mean"."""
    by_column = {c.column: c for c in metric_columns()}
    try:
        return by_column[column]
    except KeyError:
        raise PdbenchError(unknown_choice("metric column", column, by_column)) from None


def scalar_columns() -> tuple[str, ...]:
    """Columns with one number per row, in aggregates order: these get condition statistics
    (`_std`, `_n`, `_ci_low`, `_ci_high`)."""
    return tuple(c.column for c in metric_columns() if c.metric.shape == "scalar")


def per_agent_columns(side: Side | None = None) -> tuple[MetricColumn, ...]:
    """The columns of per-agent metrics (of one agent when `side` is given), in catalogue order."""
    return tuple(
        c for c in metric_columns() if c.side is not None and (side is None or c.side == side)
    )


def compute_columns(played: PlayedMatches) -> dict[str, np.ndarray]:
    """Every registered metric's value per match, by column."""
    return {
        column.column: column.metric.compute(played, column.side)  # type: ignore[misc]
        for column in metric_columns()
    }
