"""The frames of the Analysis and Tournament tabs, from analysis.parquet and tournament.parquet.

Pure pandas, like `pdbench.ui.frames`: no Streamlit, no Altair. The tables are long (a `table`
column says what a row is; see pdbench.analysis.per_run.analysis_table and
tournament_table); these functions
cut out one table and shape it for a chart or a readable table.
"""

from __future__ import annotations

import pandas as pd

from pdbench.analysis.identification.fingerprints import OUTCOMES
from pdbench.analysis.identification.profile import DIMENSIONS
from pdbench.analysis.metrics.catalog import RANKING_COLUMNS

FINGERPRINT_OUTCOMES = (*OUTCOMES, "first")
OUTCOME_LABELS = {
    "CC": "after CC",
    "CD": "after CD",
    "DC": "after DC",
    "DD": "after DD",
    "first": "round 1",
}
DYNAMICS = {
    "replicator": "Replicator dynamics (from an even start)",
    "payne": "Payne's generations (reproduction by score per move)",
    "moran_shares": "Moran process with mutation (mean over runs)",
}


def part(table: pd.DataFrame, name: str) -> pd.DataFrame:
    """The rows of one table, without the columns it leaves empty."""
    rows = table[table["table"] == name]
    return rows.dropna(axis=1, how="all").reset_index(drop=True)


def agent_label(rows: pd.DataFrame) -> pd.Series:
    """ "<condition> · A · <agent>" per row, or "all matches · <player>" for a pooled player."""
    side = rows["side"].astype(str).str.upper()
    per_condition = rows["condition"].astype(str) + " · " + side + " · " + rows["agent"].astype(str)
    pooled = "all matches · " + rows["agent"].astype(str)
    return per_condition.where(rows["scope"] == "condition", pooled)


def analysis_scopes(analysis: pd.DataFrame) -> list[str]:
    """What the agent selector offers: every condition, then "all matches" for a tournament."""
    rows = part(analysis, "fingerprint")
    conditions = list(dict.fromkeys(rows.loc[rows["scope"] == "condition", "condition"]))
    return conditions + (["all matches"] if (rows["scope"] == "player").any() else [])


def _in_scope(rows: pd.DataFrame, scope: str) -> pd.DataFrame:
    if scope == "all matches":
        return rows[rows["scope"] == "player"]
    return rows[(rows["scope"] == "condition") & (rows["condition"] == scope)]


def fingerprint_frame(analysis: pd.DataFrame, scope: str) -> pd.DataFrame:
    """One row per agent and outcome of `scope`: P(C) with its Wilson interval and occasions."""
    rows = _in_scope(part(analysis, "fingerprint"), scope)
    return pd.DataFrame(
        {
            "agent": agent_label(rows).to_numpy(),
            "outcome": rows["outcome"].map(OUTCOME_LABELS).to_numpy(),
            "p_c": rows["p_c"].to_numpy(dtype=float),
            "ci_low": rows["ci_low"].to_numpy(dtype=float),
            "ci_high": rows["ci_high"].to_numpy(dtype=float),
            "occasions": rows["occasions"].to_numpy(dtype=float),
        }
    )


def fingerprint_table(analysis: pd.DataFrame) -> pd.DataFrame:
    """Every agent's fingerprint as one row: P(C) after CC, CD, DC, DD and in round 1."""
    rows = part(analysis, "fingerprint").assign(label=lambda f: agent_label(f))
    wide = rows.pivot(index="label", columns="outcome", values="p_c")
    order = list(dict.fromkeys(rows["label"]))
    wide = wide.reindex(index=order, columns=list(FINGERPRINT_OUTCOMES))
    wide.columns = [f"P(C) {OUTCOME_LABELS[o]}" for o in FINGERPRINT_OUTCOMES]
    matches = rows.drop_duplicates("label").set_index("label")["n_matches"]
    return wide.assign(matches=matches.reindex(order).to_numpy()).rename_axis("agent").reset_index()


def sfem_table(analysis: pd.DataFrame) -> pd.DataFrame:
    """Per agent: the nearest strategy (a=b when the data cannot tell them apart), the tremble,
    and the mixture weight of every candidate."""
    rows = part(analysis, "sfem").assign(label=lambda f: agent_label(f))
    order = list(dict.fromkeys(rows["label"]))
    weights = rows.pivot(index="label", columns="strategy", values="weight")
    weights = weights.reindex(index=order, columns=list(dict.fromkeys(rows["strategy"])))
    nearest = rows[rows["nearest"].fillna(False).astype(bool)].set_index("label")
    name = nearest["indistinguishable"].fillna(nearest["strategy"]).reindex(order)
    front = pd.DataFrame(
        {
            "agent": order,
            "nearest": name.to_numpy(),
            "tremble": nearest["tremble"].reindex(order).to_numpy(dtype=float),
        }
    )
    return pd.concat([front, weights.reset_index(drop=True)], axis=1)


def profile_table(analysis: pd.DataFrame) -> pd.DataFrame:
    rows = part(analysis, "profile").assign(label=lambda f: agent_label(f))
    order = list(dict.fromkeys(rows["label"]))
    wide = rows.pivot(index="label", columns="dimension", values="mean")
    wide = wide.reindex(index=order, columns=[d for d in DIMENSIONS if d in set(rows["dimension"])])
    return wide.rename_axis("agent").reset_index().rename_axis(None, axis=1)


def comparison_frame(analysis: pd.DataFrame) -> pd.DataFrame:
    """The comparisons of analysis.parquet, as the tab shows them."""
    rows = part(analysis, "comparison")
    if "condition_a" not in rows:
        return pd.DataFrame()
    rows = rows[rows["condition_a"].notna()]
    columns = {
        "condition_a": "A",
        "condition_b": "B",
        "test": "test",
        "n_pairs": "pairs",
        "mean_a": "mean A",
        "mean_b": "mean B",
        "difference": "B − A",
        "ci_low": "CI low",
        "ci_high": "CI high",
        "interval": "interval",
        "p_value": "p",
        "p_holm": "p (Holm)",
        "replicates_for_half_width": "replicates for ±half-width",
        "note": "note",
    }
    present = [c for c in columns if c in rows]
    return rows[present].rename(columns=columns).reset_index(drop=True)


def comparison_caption(analysis: pd.DataFrame) -> str:
    rows = part(analysis, "comparison")
    needed = part(analysis, "replicates_needed")
    metric = needed["metric"].iloc[0] if len(needed) else "?"
    family = rows["family"].iloc[0] if len(rows) else "none"
    half = needed["half_width"].iloc[0] if "half_width" in needed and len(needed) else float("nan")
    # Runs analysed before the t intervals have no `interval` column: theirs was a bootstrap.
    methods = (
        sorted(set(rows["interval"].dropna()))
        if "interval" in rows
        else ["percentile bootstrap (an older analysis)"]
    )
    return (
        f"Metric {metric}; comparisons: {family}. 95% CI of B − A: {', '.join(methods) or '-'}; "
        f"permutation p-value, Holm-corrected over the family; paired when the two conditions "
        f"share their seeds per replicate (common random numbers: see each row's note). "
        f"Replicates for a CI half-width of {half:g}."
    )


# --- tournament ----------------------------------------------------------------------------------


def ranking_frame(tournament: pd.DataFrame) -> pd.DataFrame:
    """The ranking, its columns headed by the catalogue's labels (RANKING_COLUMNS)."""
    rows = part(tournament, "ranking")
    return rows[["rank", "player", *RANKING_COLUMNS]].rename(
        columns={column: label for column, (label, _) in RANKING_COLUMNS.items()}
    )


def payoff_frame(tournament: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The payoff matrix in long form (player, opponent, mean payoff and its CI) and the players
    in ranking order."""
    payoffs = part(tournament, "payoff")[
        ["player", "opponent", "mean_payoff", "ci_low", "ci_high", "n_matches"]
    ]
    return payoffs, list(part(tournament, "ranking")["player"])


def population_frame(tournament: pd.DataFrame) -> pd.DataFrame:
    """Population shares per generation of every dynamic the file holds (long form)."""
    frames = []
    for name, title in DYNAMICS.items():
        rows = part(tournament, name)
        if len(rows):
            frames.append(rows[["generation", "player", "share"]].assign(dynamics=title))
    if not frames:
        return pd.DataFrame(columns=["generation", "player", "share", "dynamics"])
    return pd.concat(frames, ignore_index=True)


def moran_frame(tournament: pd.DataFrame) -> pd.DataFrame:
    rows = part(tournament, "moran")
    if not len(rows):
        return pd.DataFrame()
    return rows[
        ["mutant", "resident", "fixation_probability", "ci_low", "ci_high", "exact", "neutral"]
    ]
