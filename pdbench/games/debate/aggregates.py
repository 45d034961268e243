"""The debates' aggregates hook (the registry's `metrics`, nuclear_war and nil_recruitment): per
player seat, from a match's final state, the metrics of
`pdbench.games.judged_metrics.debate_metrics` and the counts their pooled ratios need.

Per side: nuclear_war's sides are "for" and "against" in every scenario, so their win rates pool
over matches (`win_rate_as_for`, `win_rate_as_against`); nil_recruitment's sides are the
scenario's universities, so its per-side counts are kept per match (`won_per_side`, JSON text
{side: [won, played]}) and pooled by the analysis, not as a fixed column."""

from __future__ import annotations

from pdbench.games.debate.rules import DebateState
from pdbench.games.judged_metrics import debate_metrics

FIXED_SIDES = ("for", "against")

METRICS: dict[str, str] = {
    "win_rate": "share of the match's debates the player won",
    "win_rate_speaking_first": "share of the debates the player won when it spoke first",
    "win_rate_as_for": "share won when arguing for (nuclear_war)",
    "win_rate_as_against": "share won when arguing against (nuclear_war)",
}
# the run's end-of-run table (pdbench.cli.turn_report): column stem -> header
SHOWN = {
    "win_rate_pooled": "win",
    "win_rate_speaking_first_pooled": "win speaking first",
    "win_rate_as_for_pooled": "win as for",
    "win_rate_as_against_pooled": "win as against",
}
POOLED: dict[str, tuple[str, str]] = {
    "win_rate": ("won", "rounds"),
    "win_rate_speaking_first": ("won_first", "first"),
    "win_rate_as_for": ("won_as_for", "played_as_for"),
    "win_rate_as_against": ("won_as_against", "played_as_against"),
}


def match_row(state: DebateState) -> dict[str, dict[str, object]]:
    rows: dict[str, dict[str, object]] = {}
    for seat in ("a", "b"):
        found = debate_metrics(state, seat)
        row: dict[str, object] = {
            "win_rate": found.win_rate,
            "win_rate_speaking_first": found.won_first / found.first if found.first else None,
            "won": found.won,
            "rounds": found.rounds,
            "won_first": found.won_first,
            "first": found.first,
            "won_per_side": {side: list(counts) for side, counts in found.per_side.items()},
        }
        for side in FIXED_SIDES:
            won, played = found.per_side.get(side, (0, 0))
            row[f"win_rate_as_{side}"] = won / played if played else None
            row[f"won_as_{side}"], row[f"played_as_{side}"] = won, played
        rows[seat] = row
    return rows
