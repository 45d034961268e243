"""How the page shows metrics: which get cards, in what order, and how their values read.

Labels, help texts, kinds and decimals come from the metric catalogue (`pdbench.analysis.metrics.catalog`);
this module only chooses and formats. Pure functions of stored values: no Streamlit here.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from pdbench.analysis.metrics.catalog import SIDES, MetricColumn, metric, metric_columns

# The Match tab's cards: the match as a whole, then each agent in the same order.
JOINT_METRICS = [metric(column) for column in ("cooperation_rate", "time_to_collapse", "n_rounds")]
_AGENT_STEMS = (
    "cooperation_rate",
    "retaliation_rate",
    "forgiveness_rate",
    "exploitability_payoff_gap",
    "total_payoff",
)
AGENT_METRICS = {side: [metric(f"{stem}_{side}") for stem in _AGENT_STEMS] for side in SIDES}
# What went wrong, one agent after the other; shown only where a condition had any.
RELIABILITY_STEMS = (
    "invalid_outputs",
    "fallbacks",
    "timeouts",
    "errors",
    "substituted_share",
    "valid_cooperation_rate",
)
RELIABILITY_METRICS = [metric(f"{stem}_{side}") for side in SIDES for stem in RELIABILITY_STEMS]
# What each agent said and whether it kept its word; shown only for a run with negotiation.
TALK_STEMS = ("messages", "message_length", "promise_share", "promise_keeping")
TALK_METRICS = [metric(f"{stem}_{side}") for side in SIDES for stem in TALK_STEMS]
HEADLINE_METRICS = JOINT_METRICS + AGENT_METRICS["a"] + AGENT_METRICS["b"]
# The full table lists every scalar metric: the cards' first, then any the cards leave out.
_SHOWN = HEADLINE_METRICS + RELIABILITY_METRICS


def all_metrics() -> list[MetricColumn]:
    """Every scalar metric: the headline and reliability ones first, then the rest in catalogue
    order (a metric registered later included)."""
    rest = [c for c in metric_columns() if c.metric.shape == "scalar" and c not in _SHOWN]
    return _SHOWN + rest


def is_missing(value: Any) -> bool:
    if value is None or value is pd.NA:
        return True
    try:
        return math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def as_float(value: Any) -> float | None:
    return None if is_missing(value) else float(value)


def as_int(value: Any) -> int:
    return 0 if is_missing(value) else int(value)


def format_value(metric: MetricColumn, value: Any) -> str:
    """With the catalogue's decimals (rates 2, payoffs 1); whole rounds and counts without."""
    if is_missing(value):
        return metric.null_text
    value = float(value)
    if metric.kind in ("round", "count") and value.is_integer():
        return str(int(value))
    return f"{value:.{metric.decimals}f}"


def condition_summary(metric: MetricColumn, condition: pd.Series) -> tuple[str, str, str]:
    """What goes under a replicate's value: the condition mean, its 95% CI, and how many
    replicates the mean is over (a rate may be undefined in some)."""
    digits = metric.decimals
    mean = as_float(condition.get(metric.column))
    n = as_int(condition.get(f"{metric.column}_n"))
    n_replicates = as_int(condition.get("n_replicates"))
    mean_text = "n/a" if mean is None else f"{mean:.{digits}f}"
    low = as_float(condition.get(f"{metric.column}_ci_low"))
    high = as_float(condition.get(f"{metric.column}_ci_high"))
    if low is None or high is None:
        ci_text = "no CI (n<2)" if n < 2 else "no CI"
    else:
        ci_text = f"95% CI {low:.{digits}f}–{high:.{digits}f}"
    if metric.column == "time_to_collapse":
        count_text = (
            f"The condition mean is over the {n} of {n_replicates} replicates that collapsed."
        )
    elif n != n_replicates:
        count_text = (
            f"The condition mean is over the {n} of {n_replicates} replicates where it is defined."
        )
    else:
        count_text = f"The condition mean is over its {n_replicates} replicates."
    return f"mean {mean_text}", ci_text, count_text


# Characters Streamlit's markdown would read as markup (or LaTeX, "$"), as HTML entities ("."
# and "-" are left: a list marker at a line's start changes the look, never the words).
_MARKUP = {c: f"&#{ord(c)};" for c in "\\`*_[]#|~$<>&"}


def literal(text: object) -> str:
    """`text` as st.markdown shows it verbatim: what a model or player wrote is never read as
    markdown, HTML or LaTeX (a "*" stays a star, "$5" stays five dollars)."""
    return "".join(_MARKUP.get(c, c) for c in str(text)).replace("\n", "  \n")


def table_height(rows: int, limit: int = 30) -> int:
    """Pixels that show `rows` rows of an st.dataframe (up to `limit`) without scrolling."""
    return 35 * (min(rows, limit) + 1) + 3
