"""What a metric is (`Metric`: its column, how it is shown, what it means and how it is computed)
and the list metrics are registered in. The built-in rows (`pdbench.analysis.metrics.built_in`)
register here; the catalogue (`pdbench.analysis.metrics.catalog`) loads them and answers every
question about the registered metrics, so this module needs neither (no import circle).

A metric is registered once, with its computation, and from then on it is a column of
aggregates.parquet (with condition statistics when it is a scalar), an entry of the viewer's
metric lists and a metric `pdbench analyze --metric` can compare: nothing else lists metrics.
Registration order is column order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pdbench.core.errors import PdbenchError

if TYPE_CHECKING:
    from pdbench.analysis.metrics.played import PlayedMatches

Kind = Literal["rate", "count", "payoff", "round"]
Side = Literal["a", "b"]
Shape = Literal["scalar", "per_round", "pooled"]
# How a condition row's interval is computed (see `Metric.interval`).
Interval = Literal["mean", "wilson", "horizon_length"]

SIDES: tuple[Side, Side] = ("a", "b")
# A metric's computation: (the played matches, the column's side or None) -> one value per match.
Compute = Callable[["PlayedMatches", Side | None], Any]

# Decimals a value of each kind is shown with (whole rounds and counts show none, see format).
# rate: a share in [0, 1]; count: events in a match (or their mean over replicates);
# payoff: points of the game's payoff matrix; round: a number of rounds or a round index.
DECIMALS: dict[Kind, int] = {"rate": 2, "count": 2, "payoff": 1, "round": 1}


@dataclass(frozen=True)
class Metric:
    """One metric: its column stem, how it is shown and what it means."""

    stem: str  # the column, or for a per-agent metric the part before _a / _b
    label: str  # a title for a card or a chart axis, e.g. "Retaliation rate"
    short: str  # a table header, e.g. "retaliation"
    help: str  # one line, the exact definition ({me} and {other} when per agent)
    kind: Kind
    per_agent: bool
    # "scalar": one number per row, with condition statistics (_std, _n, _ci_low, _ci_high);
    # "per_round": a JSON list per row; "pooled": one number per row and no statistics (a
    # condition row pools every round of its finished matches instead of averaging matches).
    shape: Shape = "scalar"
    null_text: str = "n/a"  # what a null value means, in words
    suffix: str = ""  # after the side: cooperation_rate_a_pooled
    abbrev: str = ""  # a narrow header for the end-of-run table (default: `short`)
    # The condition row's 95% interval over the finished matches' values (docs/metrics.md gives
    # each one's measured coverage). "mean", by kind: a rate's is Wilson's score interval at the
    # values' effective sample size (inside [0, 1]; `analysis.stats.bounded`); a count's, a
    # round's and a payoff's is Student's t, cut only at the kind's true bound (a count >= 0, a
    # round >= 1; never at an observed extreme). "wilson": Wilson's interval for a share of
    # matches (the metric is 1 or 0 per match). "horizon_length": a match length's, exact in form
    # under a geometric horizon (`analysis.stats.lengths`), "mean" under a fixed one.
    interval: Interval = "mean"
    # Its value per match, from the played matches: called once per column, with the column's
    # side ("a" or "b") for a per-agent metric and None otherwise; one value per match (NaN
    # for undefined). A pooled metric's condition row weighs these by the matches' rounds.
    compute: Compute | None = field(default=None, compare=False, repr=False)

    @property
    def decimals(self) -> int:
        return DECIMALS[self.kind]

    @property
    def narrow(self) -> str:
        """The end-of-run table's header: `abbrev`, else `short`."""
        return self.abbrev or self.short

    @property
    def columns(self) -> tuple[MetricColumn, ...]:
        """The metric's columns in aggregates.parquet: `<stem>_a`, `<stem>_b`, or `<stem>`."""
        if self.per_agent:
            return tuple(
                MetricColumn(f"{self.stem}_{side}{self.suffix}", self, side) for side in SIDES
            )
        return (MetricColumn(f"{self.stem}{self.suffix}", self, None),)

    def help_for(self, side: Side | None = None) -> str:
        """The help text for one agent's column (A against B, or B against A); without a side,
        a per-agent metric reads for any agent x and its opponent o."""
        if not self.per_agent:
            return self.help
        if side is None:
            return self.help.format(me="x", other="o")
        me, other = ("A", "B") if side == "a" else ("B", "A")
        return self.help.format(me=me, other=other)


@dataclass(frozen=True)
class MetricColumn:
    """One column of aggregates.parquet and the metric it holds (for one agent, or for both)."""

    column: str
    metric: Metric
    side: Side | None

    @property
    def label(self) -> str:
        """Unique among all columns: 'Retaliation rate · A', 'Cooperation rate · both'."""
        return self.metric.label if self.side is None else f"{self.metric.label} · {self.side_name}"

    @property
    def short(self) -> str:
        return self.metric.short if self.side is None else f"{self.metric.short} {self.side_name}"

    @property
    def help(self) -> str:
        return self.metric.help_for(self.side)

    @property
    def side_name(self) -> str:
        return "" if self.side is None else self.side.upper()

    @property
    def kind(self) -> Kind:
        return self.metric.kind

    @property
    def decimals(self) -> int:
        return self.metric.decimals

    @property
    def null_text(self) -> str:
        return self.metric.null_text


# --- the registry --------------------------------------------------------------------------------

_REGISTERED: list[Metric] = []


def register_metric(metric: Metric) -> Metric:
    """Add a metric (after every one registered before it); a column that another metric already
    has, or a metric without a computation, raises PdbenchError."""
    if metric.compute is None:
        raise PdbenchError(f"metric {metric.stem}: no compute function")
    taken = {c.column for m in _REGISTERED for c in m.columns}
    clash = [c.column for c in metric.columns if c.column in taken]
    if clash:
        raise PdbenchError(f"metric {metric.stem}: column {clash[0]} is already a metric's")
    _REGISTERED.append(metric)
    return metric


def unregister_metric(metric: Metric) -> None:
    """Take a metric out again (a test or a notebook that registered one of its own)."""
    _REGISTERED.remove(metric)


def registered_rows() -> tuple[Metric, ...]:
    """The metrics registered so far, in registration (column) order; the catalogue
    (`pdbench.analysis.metrics.catalog.registered_metrics`) loads the built-in rows and the
    plugins' first."""
    return tuple(_REGISTERED)


def metric_row(**row: Any) -> Callable[[Compute], Compute]:
    """Register the decorated function as the computation of a new metric, `row` being the
    rest of its `Metric` (stem, label, short, help, kind, per_agent, ...)."""

    def register(compute: Compute) -> Compute:
        register_metric(Metric(**row, compute=compute))
        return compute

    return register
