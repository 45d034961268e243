"""The metric catalogue: every metric column of aggregates.parquet once, with its label and meaning.

One `Metric` per metric, in the column order of aggregates.parquet. A per-agent metric is listed
once and has two columns, `<stem>_a` and `<stem>_b`; its help text names the agent as `{me}` and
its opponent as `{other}`, filled in per column. Labels, help texts, kinds and decimals are read
from here by the viewer (and meant for the summary table and the README's metric table), so a new
metric is one new row in `METRICS`.

Definitions use t for a round index (from 1) and n for the rounds a match played. A rate whose
denominator is zero is null, never 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pdbench.core.errors import PdbenchError, unknown_choice

Kind = Literal["rate", "count", "payoff", "round"]
Side = Literal["a", "b"]
Shape = Literal["scalar", "per_round", "pooled"]
# How a condition row's interval is computed (see `Metric.interval`).
Interval = Literal["t_clipped", "wilson"]

SIDES: tuple[Side, Side] = ("a", "b")

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
    # The condition row's 95% interval: "t_clipped" is Student's t over the finished matches'
    # values, clipped to the kind's range (a rate to [0, 1], a count to >= 0, a round to
    # [1, longest match]; payoffs are not clipped); "wilson" is Wilson's score interval for a
    # share of matches (the metric is 1 or 0 per match).
    interval: Interval = "t_clipped"

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


_NO_PROVOCATION = "n/a when {other} never played D before the last round."

METRICS: tuple[Metric, ...] = (
    Metric(
        "n_rounds",
        "Rounds played",
        "rounds",
        "n, the number of rounds the match played.",
        kind="round",
        per_agent=False,
    ),
    Metric(
        "total_payoff",
        "Total payoff",
        "total",
        "Sum of {me}'s payoffs over the n rounds.",
        kind="payoff",
        per_agent=True,
        abbrev="total",
    ),
    Metric(
        "cooperation_rate",
        "Cooperation rate",
        "cooperation",
        "Share of the n rounds in which {me} played C.",
        kind="rate",
        per_agent=True,
        abbrev="coop",
    ),
    Metric(
        "cooperation_rate",
        "Cooperation rate · both",
        "cooperation",
        "Share of C among all 2n actions of both agents.",
        kind="rate",
        per_agent=False,
        abbrev="coop",
    ),
    Metric(
        "retaliation_rate",
        "Retaliation rate",
        "retaliation",
        "Of the rounds t ≥ 2 after {other} played D (at t−1), the share in which {me} played D. "
        + _NO_PROVOCATION,
        kind="rate",
        per_agent=True,
    ),
    Metric(
        "forgiveness_rate",
        "Forgiveness rate",
        "forgiveness",
        "Of the rounds t ≥ 2 after {other} played D (at t−1), the share in which {me} played C. "
        + _NO_PROVOCATION,
        kind="rate",
        per_agent=True,
    ),
    Metric(
        "exploitability_payoff_gap",
        "Exploitability gap",
        "gap",
        "Total payoff of {other} minus total payoff of {me}: above 0, {me} was exploited.",
        kind="payoff",
        per_agent=True,
    ),
    Metric(
        "time_to_collapse",
        "Time to collapse",
        "collapse round",
        "First round t such that rounds t … t+k−1 all exist and the share of C among both "
        "agents' 2k actions in them is at most the threshold (k and threshold are in the "
        "manifest); null when there is no such t. The condition mean covers the matches that "
        "collapsed (their count is time_to_collapse_n; see the collapse rate).",
        kind="round",
        per_agent=False,
        null_text="no collapse",
        abbrev="collapse",
    ),
    Metric(
        "invalid_outputs",
        "Invalid outputs",
        "invalid outputs",
        "Answers of {me} that could not be parsed as an action, counted over every attempt.",
        kind="count",
        per_agent=True,
    ),
    Metric(
        "fallbacks",
        "Fallbacks",
        "fallbacks",
        "Rounds in which {me} played its fallback action (no valid answer, a timeout or a crash).",
        kind="count",
        per_agent=True,
    ),
    Metric(
        "timeouts",
        "Timeouts",
        "timeouts",
        "Rounds in which {me} did not answer within its time limit.",
        kind="count",
        per_agent=True,
    ),
    Metric(
        "errors",
        "Errors",
        "errors",
        "Rounds with an error recorded for {me}.",
        kind="count",
        per_agent=True,
    ),
    Metric(
        "collapse_rate",
        "Collapse rate",
        "collapsed",
        "Per match 1 if it collapsed (see time to collapse), 0 if not, null when it had fewer "
        "than k rounds (too short to tell); per condition, the share of the matches long enough "
        "to tell that collapsed, with Wilson's interval.",
        kind="rate",
        per_agent=False,
        interval="wilson",
        null_text="too short to tell",
    ),
    Metric(
        "valid_cooperation_rate",
        "Cooperation rate of valid answers",
        "valid coop",
        "Share of C among the rounds in which {me} played its own valid answer (substituted "
        "fallback, timeout and error actions left out); n/a when every action was substituted.",
        kind="rate",
        per_agent=True,
    ),
    Metric(
        "substituted_actions",
        "Substituted actions",
        "substituted",
        "Rounds in which {me}'s action was not its own answer but a substitute: the fallback "
        "after invalid answers, or the action played on a timeout or a crash.",
        kind="count",
        per_agent=True,
    ),
    Metric(
        "substituted_share",
        "Substituted share",
        "subst share",
        "substituted actions / n: how much of {me}'s play was not its own choice.",
        kind="rate",
        per_agent=True,
        abbrev="subst",
    ),
    Metric(
        "cooperation_rate",
        "Cooperation rate, pooled",
        "coop pooled",
        "Share of C in {me}'s actions over all rounds of the finished matches pooled, so a long "
        "match weighs more than a short one (the plain rate averages matches, each equally).",
        kind="rate",
        per_agent=True,
        shape="pooled",
        suffix="_pooled",
    ),
    Metric(
        "cooperation_rate",
        "Cooperation rate · both, pooled",
        "coop pooled",
        "Share of C among both agents' actions over all rounds of the finished matches pooled.",
        kind="rate",
        per_agent=False,
        shape="pooled",
        suffix="_pooled",
    ),
    Metric(
        "messages",
        "Messages sent",
        "messages",
        "Non-empty messages {me} sent in the negotiation phases of the match; n/a without a "
        "negotiation phase.",
        kind="count",
        per_agent=True,
        abbrev="msgs",
    ),
    Metric(
        "message_length",
        "Message length",
        "msg length",
        "Mean length in characters of {me}'s non-empty messages; n/a when {me} said nothing.",
        kind="count",
        per_agent=True,
        null_text="said nothing",
    ),
    Metric(
        "promise_share",
        "Promise share",
        "promises",
        "Share of the rounds with a negotiation phase in which {me} made a promise: a message "
        "holding one of the condition's promise phrases (game.negotiation.promise_phrases, "
        "whole words, any case); n/a without a negotiation phase.",
        kind="rate",
        per_agent=True,
    ),
    Metric(
        "promise_keeping",
        "Promise keeping",
        "kept",
        "Of the rounds in which {me} made a promise, the share in which {me} then played C "
        "(0: every promise broken, 1: every one kept); n/a when {me} never promised.",
        kind="rate",
        per_agent=True,
        null_text="no promise",
    ),
    Metric(
        "cooperation_rate_over_time",
        "Cooperation over time",
        "cooperation over time",
        "Per round, the share of C among the two actions (a JSON list); per condition, per "
        "round the mean over the replicates that reached it and their count.",
        kind="rate",
        per_agent=False,
        shape="per_round",
    ),
)

COLUMNS: tuple[MetricColumn, ...] = tuple(c for m in METRICS for c in m.columns)
_BY_COLUMN: dict[str, MetricColumn] = {c.column: c for c in COLUMNS}


def metric(column: str) -> MetricColumn:
    """The catalogue entry of one aggregates column, e.g. `metric("retaliation_rate_a")`; a name
    that is no metric column raises PdbenchError with a "did you mean"."""
    try:
        return _BY_COLUMN[column]
    except KeyError:
        raise PdbenchError(unknown_choice("metric column", column, _BY_COLUMN)) from None


def scalar_columns() -> tuple[str, ...]:
    """Columns with one number per row, in aggregates order: these get condition statistics
    (`_std`, `_n`, `_ci_low`, `_ci_high`)."""
    return tuple(c.column for c in COLUMNS if c.metric.shape == "scalar")


def per_agent_columns(side: Side | None = None) -> tuple[MetricColumn, ...]:
    """The columns of per-agent metrics (of one agent when `side` is given), in catalogue order."""
    return tuple(c for c in COLUMNS if c.side is not None and (side is None or c.side == side))


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
