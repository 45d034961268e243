"""What the viewer shows, as data: cached loaders, metric labels and formats, chart frames.

Loaders are cached with `st.cache_data` and take the run's fingerprint (every artifact's mtime
and size) as an argument, so an edited or growing run is re-read and an unchanged one is not.
Everything else here is a pure function of stored records, testable without Streamlit.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import pandas as pd
import streamlit as st

from pdbench.analysis.run_aggregates import Aggregates, read_aggregates
from pdbench.storage.reader import Fingerprint, RunReader

RUN_DIR_ENV = "PDBENCH_RUN_DIR"
SIDES = ("a", "b")


def run_dir_from(argv: Sequence[str], environ: Mapping[str, str]) -> str | None:
    """`--run-dir DIR` (or `--run-dir=DIR`) among the script's arguments, else $PDBENCH_RUN_DIR."""
    for index, arg in enumerate(argv):
        if arg == "--run-dir" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--run-dir="):
            return arg.split("=", 1)[1]
    return environ.get(RUN_DIR_ENV) or None


def default_run_dir() -> str | None:
    import sys

    return run_dir_from(sys.argv[1:], os.environ)


# --- cached loaders (the fingerprint is part of the cache key) --------------------------------


@st.cache_data(show_spinner=False, max_entries=8)
def load_manifest(run_dir: str, fingerprint: Fingerprint) -> dict[str, Any]:
    return RunReader.open(run_dir).manifest().to_json_dict()


@st.cache_data(show_spinner="Reading aggregates ...", max_entries=8)
def load_aggregates(run_dir: str, fingerprint: Fingerprint) -> Aggregates:
    return read_aggregates(RunReader.open(run_dir))


@st.cache_data(show_spinner=False, max_entries=8)
def load_ledger(run_dir: str, fingerprint: Fingerprint) -> list[dict]:
    return [orjson.loads(entry.to_json()) for entry in RunReader.open(run_dir).ledger()]


@st.cache_data(show_spinner="Reading the match's rounds ...", max_entries=32)
def load_match(
    run_dir: str, fingerprint: Fingerprint, condition: str, replicate: int
) -> list[dict]:
    return RunReader.open(run_dir).match_rounds(condition, replicate)


# --- metrics: labels, definitions, formats ----------------------------------------------------


@dataclass(frozen=True)
class MetricInfo:
    column: str
    label: str  # the st.metric label, unique on the page
    help: str
    kind: str  # rate | payoff | round | count


def _per_agent(side: str) -> list[MetricInfo]:
    other = "B" if side == "a" else "A"
    me = side.upper()
    return [
        MetricInfo(
            f"cooperation_rate_{side}",
            f"Cooperation rate · {me}",
            f"Share of rounds in which {me} played C.",
            "rate",
        ),
        MetricInfo(
            f"retaliation_rate_{side}",
            f"Retaliation rate · {me}",
            f"After {other} defected, the share of next rounds in which {me} defected. "
            f"n/a when {other} never defected before the last round.",
            "rate",
        ),
        MetricInfo(
            f"forgiveness_rate_{side}",
            f"Forgiveness rate · {me}",
            f"After {other} defected, the share of next rounds in which {me} cooperated. "
            f"n/a when {other} never defected before the last round.",
            "rate",
        ),
        MetricInfo(
            f"exploitability_payoff_gap_{side}",
            f"Exploitability gap · {me}",
            f"Total payoff of {other} minus total payoff of {me}: above 0, {me} was exploited.",
            "payoff",
        ),
        MetricInfo(
            f"total_payoff_{side}",
            f"Total payoff · {me}",
            f"Sum of {me}'s payoffs over the match.",
            "payoff",
        ),
    ]


JOINT_METRICS = [
    MetricInfo(
        "cooperation_rate",
        "Cooperation rate · both",
        "Share of C among all actions of both agents.",
        "rate",
    ),
    MetricInfo(
        "time_to_collapse",
        "Time to collapse",
        "First round t such that rounds t..t+k-1 have a share of C at or below the threshold "
        "(k and threshold in Run facts). 'no collapse' when that never happens; the condition "
        "mean is over the replicates that collapsed.",
        "round",
    ),
    MetricInfo("n_rounds", "Rounds played", "Rounds in the match.", "round"),
]
AGENT_METRICS = {side: _per_agent(side) for side in SIDES}
RELIABILITY_METRICS = [
    MetricInfo(f"{name}_{side}", f"{title} · {side.upper()}", help_text, "count")
    for side in SIDES
    for name, title, help_text in (
        ("invalid_outputs", "Invalid outputs", "Answers that could not be parsed as an action."),
        ("fallbacks", "Fallbacks", "Rounds in which the fallback action was played."),
        ("timeouts", "Timeouts", "Rounds in which the agent ran out of time."),
        ("errors", "Errors", "Rounds with an error recorded."),
    )
]
HEADLINE_METRICS = JOINT_METRICS + AGENT_METRICS["a"] + AGENT_METRICS["b"]
ALL_METRICS = HEADLINE_METRICS + RELIABILITY_METRICS
DECIMALS = {"rate": 2, "payoff": 1, "round": 1, "count": 2}


def is_missing(value: Any) -> bool:
    if value is None or value is pd.NA:
        return True
    try:
        return math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def format_value(metric: MetricInfo, value: Any) -> str:
    """Rates with 2 decimals, payoffs with 1; whole numbers without decimals."""
    if is_missing(value):
        return "no collapse" if metric.column == "time_to_collapse" else "n/a"
    value = float(value)
    if metric.kind in ("round", "count") and value.is_integer():
        return str(int(value))
    return f"{value:.{DECIMALS[metric.kind]}f}"


def condition_summary(metric: MetricInfo, condition: pd.Series) -> tuple[str, str, str]:
    """What goes under a replicate's value: the condition mean, its 95% CI, and how many
    replicates the mean is over (a rate may be undefined in some)."""
    digits = DECIMALS[metric.kind]
    mean = condition.get(metric.column)
    n = _int(condition.get(f"{metric.column}_n"))
    n_replicates = _int(condition.get("n_replicates"))
    mean_text = "n/a" if is_missing(mean) else f"{float(mean):.{digits}f}"
    low, high = condition.get(f"{metric.column}_ci_low"), condition.get(f"{metric.column}_ci_high")
    if is_missing(low) or is_missing(high):
        ci_text = "no CI (n<2)" if n < 2 else "no CI"
    else:
        ci_text = f"95% CI {float(low):.{digits}f}–{float(high):.{digits}f}"
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


def metric_table(replicate: pd.Series, condition: pd.Series) -> pd.DataFrame:
    """Every metric: this replicate's value beside the condition's mean, spread and 95% CI."""
    rows = []
    for metric in ALL_METRICS:
        column = metric.column
        rows.append(
            {
                "metric": metric.label,
                "column": column,
                "replicate": _float(replicate.get(column)),
                "condition_mean": _float(condition.get(column)),
                "ci_low": _float(condition.get(f"{column}_ci_low")),
                "ci_high": _float(condition.get(f"{column}_ci_high")),
                "std": _float(condition.get(f"{column}_std")),
                "n": _float(condition.get(f"{column}_n")),
            }
        )
    return pd.DataFrame(rows)


def _float(value: Any) -> float | None:
    return None if is_missing(value) else float(value)


def _int(value: Any) -> int:
    return 0 if is_missing(value) else int(value)


# --- the manifest ------------------------------------------------------------------------------


def condition_config(manifest: Mapping[str, Any], condition: str) -> dict[str, Any] | None:
    """The resolved config of one condition (a single run lists them, a sweep keys them)."""
    config = manifest.get("config") or {}
    if isinstance(config.get(condition), Mapping):  # a sweep: {condition: run config}
        config = config[condition]
    for entry in config.get("conditions") or []:
        if entry.get("name") == condition:
            return entry
    return None


def payoff_reference(config: Mapping[str, Any] | None) -> dict[str, float] | None:
    """Mutual cooperation (R) and mutual defection (P) payoffs per round, from the game."""
    payoffs = ((config or {}).get("game") or {}).get("payoffs") or {}
    try:
        return {"all C": float(payoffs["CC"][0]), "all D": float(payoffs["DD"][0])}
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def horizon_text(config: Mapping[str, Any] | None) -> str:
    horizon = (config or {}).get("horizon") or {}
    if horizon.get("type") == "fixed":
        return f"fixed, {horizon.get('rounds')} rounds"
    if horizon.get("type") == "geometric":
        cap = f", at most {horizon['max_rounds']}" if horizon.get("max_rounds") else ""
        return f"geometric, stop prob {horizon.get('stop_prob')}{cap}"
    return str(horizon.get("type") or "?")


def store_prompts_of(manifest: Mapping[str, Any], condition: str) -> bool | str | None:
    """The run's `store_prompts` setting (true, false or "hash") for one condition."""
    config = manifest.get("config") or {}
    if isinstance(config.get(condition), Mapping):
        config = config[condition]
    return (config.get("run") or {}).get("store_prompts")


def short_commit(manifest: Mapping[str, Any]) -> str:
    git = manifest.get("git") or {}
    commit = git.get("commit")
    if not commit:
        return "not in a git checkout"
    return commit[:10] + (" (uncommitted changes)" if git.get("dirty") else "")


# --- one match ---------------------------------------------------------------------------------


def round_flags(record: Mapping[str, Any], side: str) -> list[str]:
    """What went wrong for one agent in one round, in words (empty when nothing did)."""
    flags = []
    invalid = int(record.get(f"agent_{side}_invalid_outputs") or 0)
    if invalid:
        flags.append(f"{invalid} invalid output{'s' if invalid > 1 else ''}")
    if record.get(f"agent_{side}_fallback"):
        flags.append("fallback")
    if record.get(f"agent_{side}_timeout"):
        flags.append("timeout")
    if record.get(f"agent_{side}_error"):
        flags.append("error")
    return flags


def timeline_frame(rounds: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> pd.DataFrame:
    """One row per round and agent: the action, payoffs and any flags."""
    rows = []
    for record in rounds:
        for side in SIDES:
            flags = round_flags(record, side)
            action = record[f"agent_{side}_action"]
            rows.append(
                {
                    "round": int(record["round_index"]),
                    "agent": names[side],
                    "action": action,
                    "label": action + ("!" if flags else ""),
                    "payoff": record.get(f"agent_{side}_payoff"),
                    "cumulative": record.get(f"agent_{side}_cum_payoff"),
                    "flags": ", ".join(flags),
                    "flagged": bool(flags),
                }
            )
    return pd.DataFrame(rows)


def payoff_frame(
    rounds: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    reference: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Cumulative payoff per round of both agents, plus the all-C / all-D lines if known."""
    rows = []
    for record in rounds:
        index = int(record["round_index"])
        for side in SIDES:
            rows.append(
                {
                    "round": index,
                    "series": names[side],
                    "cumulative payoff": float(record[f"agent_{side}_cum_payoff"]),
                    "reference": False,
                }
            )
        for name, per_round in (reference or {}).items():
            rows.append(
                {
                    "round": index,
                    "series": f"{name} ({per_round:g} per round)",
                    "cumulative payoff": per_round * index,
                    "reference": True,
                }
            )
    return pd.DataFrame(rows)


def action_text(
    rounds: Sequence[Mapping[str, Any]], names: Mapping[str, str], per_line: int = 50
) -> str:
    """Both action sequences as aligned text, e.g. 'A · GTFT  C D D'; a third line puts a '!'
    under the rounds with an invalid output, fallback, timeout or error. Long matches are cut
    into blocks of `per_line` rounds, each headed by its round range."""
    labels = {side: names[side] for side in SIDES}
    flagged = [any(round_flags(r, side) for side in SIDES) for r in rounds]
    if any(flagged):
        labels["flags"] = "flagged"
    width = max(len(label) for label in labels.values())
    blocks = []
    for start in range(0, len(rounds), per_line):
        chunk = rounds[start : start + per_line]
        lines = [f"rounds {start + 1}–{start + len(chunk)}"] if len(rounds) > per_line else []
        for side in SIDES:
            actions = " ".join(r[f"agent_{side}_action"] for r in chunk)
            lines.append(f"{labels[side].ljust(width)}  {actions}")
        marks = ["!" if f else " " for f in flagged[start : start + per_line]]
        if "!" in marks:
            lines.append(f"{labels['flags'].ljust(width)}  " + " ".join(marks).rstrip())
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def attempts_of(record: Mapping[str, Any], side: str) -> list[dict[str, Any]]:
    return list(record.get(f"agent_{side}_attempts") or [])


# --- across conditions -------------------------------------------------------------------------


def comparison_table(
    conditions: pd.DataFrame, manifest: Mapping[str, Any], ledger: Sequence[Mapping[str, Any]]
) -> pd.DataFrame:
    """One row per condition: the matchup, the means of the metrics, calls and cost."""
    calls = manifest.get("provider_calls_by_condition") or {}
    errors: dict[str, int] = {}
    for entry in ledger:
        if entry.get("error"):
            errors[entry["condition"]] = errors.get(entry["condition"], 0) + 1
    rows = []
    for _, row in conditions.iterrows():
        name = row["condition"]
        config = condition_config(manifest, name)
        condition_calls = calls.get(name) or {}
        rows.append(
            {
                "condition": name,
                "matchup": f"{row['agent_a']} vs {row['agent_b']}",
                "game": row.get("game"),
                "horizon": horizon_text(config) if config else row.get("horizon_type"),
                "replicates": int(row["n_replicates"]),
                "rounds": _float(row["n_rounds"]),
                "cooperation": _float(row["cooperation_rate"]),
                "coop 95% CI": _ci_text(row, "cooperation_rate"),
                "cooperation A": _float(row["cooperation_rate_a"]),
                "cooperation B": _float(row["cooperation_rate_b"]),
                "retaliation A": _float(row["retaliation_rate_a"]),
                "retaliation B": _float(row["retaliation_rate_b"]),
                "forgiveness A": _float(row["forgiveness_rate_a"]),
                "forgiveness B": _float(row["forgiveness_rate_b"]),
                "gap A": _float(row["exploitability_payoff_gap_a"]),
                "gap B": _float(row["exploitability_payoff_gap_b"]),
                "total A": _float(row["total_payoff_a"]),
                "total B": _float(row["total_payoff_b"]),
                "collapse round": _float(row["time_to_collapse"]),
                "collapsed": f"{_int(row['time_to_collapse_n'])}/{_int(row['n_replicates'])}",
                "invalid outputs": _sum_sides(row, "invalid_outputs"),
                "fallbacks": _sum_sides(row, "fallbacks"),
                "timeouts": _sum_sides(row, "timeouts"),
                "errors": _sum_sides(row, "errors"),
                "live calls": condition_calls.get("live"),
                "cached calls": condition_calls.get("cached"),
                "cost $": condition_calls.get("cost_usd"),
                "failed matches": errors.get(name, 0),
            }
        )
    return pd.DataFrame(rows)


def _sum_sides(row: pd.Series, name: str) -> float:
    """Per-match mean of a count, summed over both agents (0 when undefined)."""
    return sum(0.0 if is_missing(row[f"{name}_{s}"]) else float(row[f"{name}_{s}"]) for s in SIDES)


def _ci_text(row: pd.Series, column: str) -> str:
    low, high = row.get(f"{column}_ci_low"), row.get(f"{column}_ci_high")
    if is_missing(low) or is_missing(high):
        return "n/a (n<2)"
    return f"{float(low):.2f}–{float(high):.2f}"


CI_SERIES = {
    "cooperation_rate": "both agents",
    "cooperation_rate_a": "agent A",
    "cooperation_rate_b": "agent B",
}


def cooperation_ci_frame(conditions: pd.DataFrame) -> pd.DataFrame:
    """Mean cooperation rate with its 95% CI per condition, for both agents and each one."""
    rows = []
    for _, row in conditions.iterrows():
        for column, series in CI_SERIES.items():
            rows.append(
                {
                    "condition": row["condition"],
                    "series": series,
                    "mean": _float(row[column]),
                    "ci_low": _float(row[f"{column}_ci_low"]),
                    "ci_high": _float(row[f"{column}_ci_high"]),
                    "n": _int(row[f"{column}_n"]),
                }
            )
    return pd.DataFrame(rows)


def replicate_points_frame(replicates: pd.DataFrame) -> pd.DataFrame:
    """Each replicate's cooperation rates, drawn as dots beside the condition means."""
    rows = []
    for _, row in replicates.iterrows():
        for column, series in CI_SERIES.items():
            if not is_missing(row[column]):
                rows.append(
                    {
                        "condition": row["condition"],
                        "series": series,
                        "value": float(row[column]),
                        "replicate": int(row["replicate"]),
                    }
                )
    return pd.DataFrame(rows, columns=["condition", "series", "value", "replicate"])


def over_time_frame(conditions: pd.DataFrame) -> pd.DataFrame:
    """Per condition and round: the mean share of C over the replicates that reached the round."""
    rows = []
    for _, row in conditions.iterrows():
        text = row.get("cooperation_rate_over_time")
        if not isinstance(text, str) or not text:
            continue
        for point in orjson.loads(text):
            rows.append(
                {
                    "condition": row["condition"],
                    "round": int(point["round"]),
                    "cooperation": point["mean"],
                    "replicates": int(point["n"]),
                }
            )
    return pd.DataFrame(rows, columns=["condition", "round", "cooperation", "replicates"])
