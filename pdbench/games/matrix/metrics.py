"""The metrics every 2x2 game shares (issue 43: a game's metric rows live in its package; the 2x2
entries' `metrics` names this module): every 2x2 metric column of aggregates.parquet once, with
its label, meaning and computation (the catalogue, `pdbench.analysis.metrics.catalog`, imports
the module the entries name and answers questions about these rows and about the metrics
registered from elsewhere).

One `Metric` per metric, in the column order of aggregates.parquet, holding its computation (a
function of the played matches, `PlayedRounds` below, which the aggregation gives as its
`pdbench.analysis.metrics.played.PlayedMatches`); registering it (`register_metric`, or the
`@metric_row(...)` decorator for a metric defined elsewhere) makes it a column of
aggregates.parquet, an entry of the viewer's lists and a metric `pdbench analyze` can compare.
The rows are registered for the family (`Metric.game` ""), not per game: every 2x2 game's
aggregates have the same columns. A per-agent metric is listed once and has two columns,
`<stem>_a` and `<stem>_b`; its help text names the agent as `{me}` and its opponent as
`{other}`, filled in per column. So a new metric is one new row here (docs/extending.md).

Definitions use t for a round index (from 1) and n for the rounds a match played. A rate whose
denominator is zero is null, never 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from pdbench.core.metric import (
    Compute,
    Metric,
    Side,
    register_metric,
)

if TYPE_CHECKING:
    import numpy as np


class PlayedRounds(Protocol):
    """What a 2x2 row's computation reads of the played matches (the rounds of every match
    laid end to end; `pdbench.analysis.metrics.played.PlayedMatches` is the one the aggregation
    passes): named here so the rows import nothing of the analysis that calls them."""

    @property
    def stored(self) -> Any: ...  # the stored rounds: `starts`, `coop_a`, `coop_b` per round
    @property
    def behaviour(self) -> dict[str, np.ndarray]: ...  # the core behavioural metrics by column
    @property
    def talk(self) -> dict[str, np.ndarray]: ...  # the talk metrics by column
    @property
    def lengths(self) -> np.ndarray: ...  # rounds per match
    @property
    def collapse_determinable(self) -> np.ndarray: ...  # per match: k rounds or more
    @property
    def collapsed(self) -> np.ndarray: ...  # per match: it collapsed

    def cooperated(self, side: str) -> np.ndarray: ...
    def flag(self, name: str, side: str) -> np.ndarray: ...
    def per_match(self, values: np.ndarray) -> np.ndarray: ...


# The computations import numpy when they run, not when the catalogue is imported: the summary
# table and `pdbench --help` read labels only (a test keeps the catalogue free of numpy).

# --- computations shared by several rows ---------------------------------------------------------


def _column(stem: str, side: Side | None) -> str:
    return stem if side is None else f"{stem}_{side}"


def _behaviour(stem: str) -> Compute:
    """Read from the core behavioural metrics (pdbench.analysis.metrics.behaviour)."""
    return lambda played, side: played.behaviour[_column(stem, side)]


def _talk(stem: str) -> Compute:
    """Read from the talk metrics (pdbench.analysis.metrics.talk)."""
    return lambda played, side: played.talk[_column(stem, side)]


def _flag_count(stem: str) -> Compute:
    """A stored per-round marker, summed per match."""
    return lambda played, side: played.per_match(played.flag(stem, str(side)))


def _collapse_rate(played: PlayedRounds, side: Side | None) -> np.ndarray:
    import numpy as np

    return np.where(played.collapse_determinable, played.collapsed.astype(float), np.nan)


def _substituted(played: PlayedRounds, side: Side | None) -> np.ndarray:
    return played.flag("fallbacks", str(side)) > 0


def _valid_cooperation_rate(played: PlayedRounds, side: Side | None) -> np.ndarray:
    import numpy as np

    own = ~_substituted(played, side)
    own_rounds = played.per_match(own.astype(np.int64))
    own_c = played.per_match((own & played.cooperated(str(side))).astype(np.int64))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(own_rounds > 0, own_c / np.maximum(own_rounds, 1), np.nan)


def _substituted_actions(played: PlayedRounds, side: Side | None) -> np.ndarray:
    import numpy as np

    return played.per_match(_substituted(played, side).astype(np.int64))


def _substituted_share(played: PlayedRounds, side: Side | None) -> np.ndarray:
    return _substituted_actions(played, side) / played.lengths.astype(float)


def _cooperation_over_time(played: PlayedRounds, side: Side | None) -> list[str]:
    import numpy as np
    import orjson

    stored = played.stored
    joint = (stored.coop_a.astype(np.int8) + stored.coop_b.astype(np.int8)) / 2
    ends = np.append(stored.starts[1:], len(joint))
    return [
        orjson.dumps(joint[start:end], option=orjson.OPT_SERIALIZE_NUMPY).decode()
        for start, end in zip(stored.starts, ends, strict=True)
    ]


# --- the rows ------------------------------------------------------------------------------------

_NO_PROVOCATION = "n/a when {other} never played D before the last round."

BUILT_IN: tuple[Metric, ...] = (
    Metric(
        "n_rounds",
        "Rounds played",
        "rounds",
        "n, the number of rounds the match played.",
        kind="round",
        per_agent=False,
        interval="horizon_length",
        compute=_behaviour("n_rounds"),
    ),
    Metric(
        "total_payoff",
        "Total payoff",
        "total",
        "Sum of {me}'s payoffs over the n rounds.",
        kind="payoff",
        per_agent=True,
        abbrev="total",
        shown="total",
        shown_at=2,
        shown_apart=True,
        shown_help="mean payoff per match",
        compute=_behaviour("total_payoff"),
    ),
    Metric(
        "cooperation_rate",
        "Cooperation rate",
        "cooperation",
        "Share of the n rounds in which {me} played C.",
        kind="rate",
        per_agent=True,
        abbrev="coop",
        shown="coop",
        shown_apart=True,
        shown_help="share of C (A, B, both; finished matches)",
        compute=_behaviour("cooperation_rate"),
    ),
    Metric(
        "cooperation_rate",
        "Cooperation rate · both",
        "cooperation",
        "Share of C among all 2n actions of both agents.",
        kind="rate",
        per_agent=False,
        abbrev="coop",
        shown="coop",
        shown_at=1,
        shown_apart=True,
        compute=_behaviour("cooperation_rate"),
    ),
    Metric(
        "retaliation_rate",
        "Retaliation rate",
        "retaliation",
        "Of the rounds t ≥ 2 after {other} played D (at t−1), the share in which {me} played D. "
        + _NO_PROVOCATION,
        kind="rate",
        per_agent=True,
        compute=_behaviour("retaliation_rate"),
    ),
    Metric(
        "forgiveness_rate",
        "Forgiveness rate",
        "forgiveness",
        "Of the rounds t ≥ 2 after {other} played D (at t−1), the share in which {me} played C. "
        + _NO_PROVOCATION,
        kind="rate",
        per_agent=True,
        compute=_behaviour("forgiveness_rate"),
    ),
    Metric(
        "exploitability_payoff_gap",
        "Exploitability gap",
        "gap",
        "Total payoff of {other} minus total payoff of {me}: above 0, {me} was exploited.",
        kind="payoff",
        per_agent=True,
        compute=_behaviour("exploitability_payoff_gap"),
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
        compute=_behaviour("time_to_collapse"),
    ),
    Metric(
        "invalid_outputs",
        "Invalid outputs",
        "invalid outputs",
        "Answers of {me} that could not be parsed as an action, counted over every attempt.",
        kind="count",
        per_agent=True,
        compute=_flag_count("invalid_outputs"),
    ),
    Metric(
        "fallbacks",
        "Fallbacks",
        "fallbacks",
        "Rounds in which {me} played its fallback action (no valid answer, a timeout or a crash).",
        kind="count",
        per_agent=True,
        compute=_flag_count("fallbacks"),
    ),
    Metric(
        "timeouts",
        "Timeouts",
        "timeouts",
        "Rounds in which {me} did not answer within its time limit.",
        kind="count",
        per_agent=True,
        compute=_flag_count("timeouts"),
    ),
    Metric(
        "errors",
        "Errors",
        "errors",
        "Rounds with an error recorded for {me}.",
        kind="count",
        per_agent=True,
        compute=_flag_count("errors"),
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
        compute=_collapse_rate,
    ),
    Metric(
        "valid_cooperation_rate",
        "Cooperation rate of valid answers",
        "valid coop",
        "Share of C among the rounds in which {me} played its own valid answer (substituted "
        "fallback, timeout and error actions left out); n/a when every action was substituted.",
        kind="rate",
        per_agent=True,
        compute=_valid_cooperation_rate,
    ),
    Metric(
        "substituted_actions",
        "Substituted actions",
        "substituted",
        "Rounds in which {me}'s action was not its own answer but a substitute: the fallback "
        "after invalid answers, or the action played on a timeout or a crash.",
        kind="count",
        per_agent=True,
        compute=_substituted_actions,
    ),
    Metric(
        "substituted_share",
        "Substituted share",
        "subst share",
        "substituted actions / n: how much of {me}'s play was not its own choice.",
        kind="rate",
        per_agent=True,
        abbrev="subst",
        compute=_substituted_share,
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
        compute=_behaviour("cooperation_rate"),
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
        compute=_behaviour("cooperation_rate"),
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
        compute=_talk("messages"),
    ),
    Metric(
        "message_length",
        "Message length",
        "msg length",
        "Mean length in characters of {me}'s non-empty messages; n/a when {me} said nothing.",
        kind="count",
        per_agent=True,
        null_text="said nothing",
        compute=_talk("message_length"),
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
        compute=_talk("promise_share"),
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
        compute=_talk("promise_keeping"),
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
        compute=_cooperation_over_time,
    ),
)

for _row in BUILT_IN:
    register_metric(_row)
