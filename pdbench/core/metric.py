"""What a metric is (`Metric`: its column, how it is shown, what it means and how it is computed)
and the one list every metric is registered in, a 2x2 game's and a turn game's alike (issue 43:
one metric system). The 2x2 rows (`pdbench.games.matrix.metrics`, the module the 2x2 entries name)
register here; each turn game's rows are registered by its package's metrics module (the module its entry's
`metrics` names, `pdbench.games.metric_rows.game_metric_rows` imports it), and a plugin's through
the `pdbench.metrics` entry point group, the same `register_metric` / `@metric_row` either way.
The catalogue (`pdbench.analysis.metrics.catalog`) answers every question about the 2x2 rows;
`game_metric_rows` about a game's. This module is pure data (core), so a game's package may
import it and the registry needs no game (no import circle).

A metric is registered once, with its computation, and from then on it is a column of
aggregates.parquet (with condition statistics when it is a scalar): nothing else lists metrics.
Registration order is column order.

Two families, told apart by `Metric.game`:
- "" (the 2x2 engine's metrics, every matrix game): `compute(played, side)`, `played` the
  vectorised `pdbench.analysis.metrics.played.PlayedMatches`, one value per match; the viewer's
  metric lists and `pdbench analyze --metric` list these.
- a turn game's id: per player seat (`<stem>_<seat>`). `compute(match, seat)` measures one stored
  match (a `GameMatch`) and answers for every seat at once: {seat: {column stem: value}}, the
  row's own stem among them and any counts its pooled ratio needs (they are stored beside it);
  the rows of a game sharing one function are measured once per match (the `seat` argument is
  then None). A row of shape "condition" is computed for a condition only, from its finished
  matches' stored values: `compute(finished, seat)` -> one value (`<stem>_<seat>`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pdbench.core.errors import PdbenchError

Kind = Literal["rate", "count", "payoff", "round", "signed"]
Side = Literal["a", "b"]
# "condition": a turn game's row computed for a condition only (see the module docstring)
Shape = Literal["scalar", "per_round", "pooled", "condition"]
# How a condition row's interval is computed (see `Metric.interval`).
Interval = Literal["mean", "wilson", "horizon_length"]

SIDES: tuple[Side, Side] = ("a", "b")
# A metric's computation: for a 2x2 metric (the played matches, `PlayedMatches`, the column's
# side or None) -> one value per match; for a turn game's, see the module docstring.
Compute = Callable[[Any, Any], Any]

# Decimals a value of each kind is shown with (whole rounds and counts show none, see format).
# rate: a share in [0, 1]; count: events in a match (or their mean over replicates);
# payoff: points of the game's payoff matrix; round: a number of rounds or a round index;
# signed: a slope or a difference, without a bound (a turn game's).
DECIMALS: dict[Kind, int] = {"rate": 2, "count": 2, "payoff": 1, "round": 1, "signed": 2}


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
    # The turn game whose aggregates hold this metric, per player seat; "": a 2x2 metric.
    game: str = ""
    # A turn game's ratio pooled over a condition's finished matches: the (numerator,
    # denominator) column stems its measure stores, each summed before dividing; the condition
    # row holds it as `<stem>_<seat>_pooled` (None: no pooled ratio).
    pooled: tuple[str, str] | None = None
    # The end-of-run table of a run of its game (`pdbench.cli.summary_table`, one for every
    # game): the column's header ("": not shown), whether it shows the mean or the pooled ratio,
    # and its place among the game's columns (ascending). By default one column holds every
    # seat's value, "win A/B" (2 decimals), and a narrow terminal leaves the columns out from
    # the last back (never the first); `shown_apart` gives each side its own column instead,
    # "coop A", "coop B" (a row for both sides: "coop"), in its kind's decimals and never left
    # out: a pair's table, read side against side. `shown_help` is its words under the table.
    shown: str = ""
    shown_value: Literal["mean", "pooled"] = "mean"
    shown_at: int = 0
    shown_apart: bool = False
    shown_help: str = ""

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
    """Add a metric (after every one registered before it); a column that another metric of the
    same game (or another 2x2 metric) already has, or a metric without a computation, raises
    PdbenchError."""
    if metric.compute is None:
        raise PdbenchError(f"metric {metric.stem}: no compute function")
    taken = {c.column for m in _REGISTERED if m.game == metric.game for c in m.columns}
    clash = [c.column for c in metric.columns if c.column in taken]
    if clash:
        raise PdbenchError(f"metric {metric.stem}: column {clash[0]} is already a metric's")
    if metric.game and not metric.per_agent:
        raise PdbenchError(f"metric {metric.stem} of {metric.game}: a game's metric is per seat")
    _REGISTERED.append(metric)
    return metric


def unregister_metric(metric: Metric) -> None:
    """Take a metric out again (a test or a notebook that registered one of its own)."""
    _REGISTERED.remove(metric)


def registered_rows(game: str = "") -> tuple[Metric, ...]:
    """The metrics of `game` ("": the 2x2 metrics) registered so far, in registration (column)
    order; the catalogue (`pdbench.analysis.metrics.catalog.registered_metrics`) loads the
    built-in rows and the plugins' first, `pdbench.games.metric_rows.game_metric_rows` a game's."""
    return tuple(m for m in _REGISTERED if m.game == game)


def metric_row(**row: Any) -> Callable[[Compute], Compute]:
    """Register the decorated function as the computation of a new metric, `row` being the
    rest of its `Metric` (stem, label, short, help, kind, per_agent, ...)."""

    def register(compute: Compute) -> Compute:
        register_metric(Metric(**row, compute=compute))
        return compute

    return register
