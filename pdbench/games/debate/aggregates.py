"""The debates' metrics (the module nuclear_war's and nil_recruitment's entries' `metrics` name:
rows of the one metric registry), per player seat, from a match's final state, over the rounds
of the match, and the counts their pooled ratios need:

- rounds, won; win_rate = won / rounds.
- per side: {side: (won, played)}: "for" / "against" in nuclear_war, the university in
  nil_recruitment, so a side's advantage shows apart from the player's. nuclear_war's sides are
  the same in every scenario, so their win rates pool over matches (`win_rate_as_for`,
  `win_rate_as_against`); nil_recruitment's are the scenario's universities, so its per-side
  counts are kept per match (`won_per_side`, JSON text {side: [won, played]}) and pooled by the
  analysis, not as a fixed column.
- won_first / first: rounds it spoke first and won, and rounds it spoke first."""

from __future__ import annotations

from dataclasses import dataclass

from pdbench.core.metric import Metric
from pdbench.games.debate.rules import PLAYER_SEATS, DebateState
from pdbench.games.metric_rows import register_game_rows

FIXED_SIDES = ("for", "against")


@dataclass(frozen=True)
class DebateMetrics:
    rounds: int
    won: int
    per_side: dict[str, tuple[int, int]]  # side -> (won, played)
    first: int
    won_first: int

    @property
    def win_rate(self) -> float | None:
        return self.won / self.rounds if self.rounds else None


def debate_metrics(state: DebateState, seat: str) -> DebateMetrics:
    me = PLAYER_SEATS.index(seat)
    per_side: dict[str, tuple[int, int]] = {}
    for verdict in state.verdicts:
        side = verdict.sides[me]
        won, played = per_side.get(side, (0, 0))
        per_side[side] = (won + (verdict.winner_seat == seat), played + 1)
    return DebateMetrics(
        rounds=len(state.verdicts),
        won=sum(v.winner_seat == seat for v in state.verdicts),
        per_side=per_side,
        first=sum(v.first_speaker == seat for v in state.verdicts),
        won_first=sum(v.first_speaker == seat and v.winner_seat == seat for v in state.verdicts),
    )


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


# Each stored per player seat, for both debates; a pooled ratio sums its counts over a
# condition's finished matches before dividing; `shown`: the end-of-run table's columns
# (pdbench.cli.summary_table), every one pooled.
register_game_rows(
    ("nuclear_war", "nil_recruitment"),
    lambda match: match_row(match.state),
    (
        Metric(
            stem="win_rate",
            label="Win rate",
            short="win",
            help="share of the match's debates the player won",
            kind="rate",
            per_agent=True,
            pooled=("won", "rounds"),
            shown="win",
            shown_value="pooled",
            shown_at=0,
        ),
        Metric(
            stem="win_rate_speaking_first",
            label="Win rate speaking first",
            short="win speaking first",
            help="share of the debates the player won when it spoke first",
            kind="rate",
            per_agent=True,
            pooled=("won_first", "first"),
            shown="win speaking first",
            shown_value="pooled",
            shown_at=1,
        ),
        Metric(
            stem="win_rate_as_for",
            label="Win rate as for",
            short="win as for",
            help="share won when arguing for (nuclear_war)",
            kind="rate",
            per_agent=True,
            pooled=("won_as_for", "played_as_for"),
            shown="win as for",
            shown_value="pooled",
            shown_at=2,
        ),
        Metric(
            stem="win_rate_as_against",
            label="Win rate as against",
            short="win as against",
            help="share won when arguing against (nuclear_war)",
            kind="rate",
            per_agent=True,
            pooled=("won_as_against", "played_as_against"),
            shown="win as against",
            shown_value="pooled",
            shown_at=3,
        ),
    ),
)
