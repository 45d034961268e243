"""`pdbench ladder RUN_DIR [RUN_DIR ...]`: ratings of every agent of the runs given, per game.

Reads the stored outcomes of the runs' finished matches, each checked against its game
(pdbench.ladder.outcomes), rates the agents on each game's currency, wins or payoff
(pdbench.ladder.build), prints what it left out and why, and writes ladder.parquet into `--out`,
by default data/ladders/<hash of the outcomes and options>/ (the same inputs: the same folder).
No match is played again and no provider is called.
"""

from __future__ import annotations

from collections import Counter
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from pdbench.core.errors import PdbenchError

if TYPE_CHECKING:  # pandas loads in ~0.3 s: only when a ladder is printed
    import pandas as pd

    from pdbench.ladder.outcomes import Skipped

LADDERS_DIR = Path("data") / "ladders"
SHOWN_CHECKS = 5  # matches that failed a check, listed one per line (all are in ladder.parquet)

CURRENCY_TITLES = {
    "wins": "ranked on wins (who beat whom): Bradley-Terry-Davidson ratings, Elo scale",
    "payoff": "ranked on payoff (what each earns against the field), in {unit}",
}


class RankOn(StrEnum):
    wins = "wins"
    payoff = "payoff"


class NPlayer(StrEnum):
    pl = "pl"
    pairs = "pairs"


# the title of a game of N players ranked on wins, by the model its rows name
N_PLAYER_TITLES = {
    "Plackett-Luce": "ranked on wins (each match's ranks, N players): Plackett-Luce ratings, Elo "
    "scale",
    "Bradley-Terry-Davidson on the pairs": "ranked on wins (each match's pairs, N players): "
    "Bradley-Terry-Davidson ratings, Elo scale",
}


def ladder(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="Run folders, e.g. data/runs/<run_id> (one or more).")
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            help="Folder to write ladder.parquet into; default: data/ladders/<hash of the "
            "inputs>/ under the project.",
            show_default=False,
        ),
    ] = None,
    rank_on: Annotated[
        RankOn | None,
        typer.Option(
            "--rank-on",
            help="What to rank on: wins (who beat whom) or payoff (what each earns against the "
            "field). Default: each game's own (payoff for the dilemmas, as Axelrod's "
            "tournaments score them; wins for AgentDuel's contests).",
            show_default=False,
        ),
    ] = None,
    n_player: Annotated[
        NPlayer,
        typer.Option(
            "--n-player",
            help="Matches of more than two players, on wins: pl (Plackett-Luce on each match's "
            "ranks) or pairs (Bradley-Terry-Davidson on each match's pairwise results; its "
            "intervals are clustered by match). Two-player matches are rated as always.",
        ),
    ] = NPlayer.pl,
) -> None:
    """Rate every agent of the runs given, per game, from their finished matches, each checked
    against its game first: on wins (Bradley-Terry with Davidson's draws, OpenSkill) or on
    payoff (an additive model of what each earns), with intervals, and the ratings the data do
    not identify flagged. An agent is the same across runs when it is the same agent (a policy
    and its parameters, an arena file's content hash, an LLM agent's cache-key fields); a match
    held by several folders counts once. Writes ladder.parquet; never calls a provider."""
    from pdbench.ladder.build import LadderOptions, counted, inputs_hash, ladder_table
    from pdbench.ladder.outcomes import Outcomes
    from pdbench.ladder.output import write_ladder
    from pdbench.ladder.readers import read_outcomes

    outcomes = counted(Outcomes.concatenate([read_outcomes(run_dir) for run_dir in run_dirs]))
    if outcomes.table.empty:
        raise PdbenchError(
            f"{', '.join(map(str, run_dirs))}: no finished match between two different agents"
            + (f" ({_left_out_text(outcomes.skipped)})" if outcomes.skipped else "")
        )
    options = LadderOptions(
        rank_on=None if rank_on is None else rank_on.value, n_player=n_player.value
    )
    table = ladder_table(outcomes, options)
    if out is None:
        from pdbench.config.tree import find_project_root

        out = find_project_root() / LADDERS_DIR / inputs_hash(outcomes, options)[:12]
    if out.exists() and not out.is_dir():
        raise PdbenchError(f"--out: {out} is not a folder")
    path = write_ladder(table, out)
    print_ladder(table, outcomes, len(run_dirs), path)


def _category(reason: str) -> str:
    from pdbench.ladder.build import DUPLICATE

    if reason.startswith(DUPLICATE):
        return "duplicates dropped"
    return reason.split(":")[0]


def _left_out_text(skipped: list[Skipped]) -> str:
    reasons = Counter(_category(s.reason) for s in skipped)
    return f"{len(skipped)} left out: " + ", ".join(
        f"{n} {reason}" for reason, n in reasons.most_common()
    )


def print_ladder(table: pd.DataFrame, outcomes, n_runs: int, path: Path) -> None:
    from pdbench.cli.report import print_table, shown_path
    from pdbench.ladder.output import ratings

    matches = outcomes.table.drop_duplicates("match_id")
    typer.echo(
        f"ladder of {n_runs} run(s): {len(matches)} finished matches counted, "
        f"{matches['game'].nunique()} game(s); 0 provider calls"
    )
    if outcomes.skipped:
        typer.echo(f"  {_left_out_text(outcomes.skipped)}")
    failed = [s for s in outcomes.skipped if _category(s.reason) == "failed a check"]
    for s in failed[:SHOWN_CHECKS]:
        typer.echo(f"    {s.run_id} {s.condition} replicate {s.replicate}: {s.reason}")
    if len(failed) > SHOWN_CHECKS:
        typer.echo(f"    ... and {len(failed) - SHOWN_CHECKS} more (ladder.parquet lists them)")
    typer.echo(f"wrote {shown_path(path)}")
    rated = ratings(table)
    notes = table[table["table"] == "note"]
    for game in rated["game"].unique():
        rows = rated[rated["game"] == game]
        print_table(game_table(str(game), rows, outcomes.payoff_units.get(str(game), "payoff")))
        flagged = rows[~rows["identified"].astype(bool)]
        for flag, agents in flagged.groupby("flag", sort=False)["agent"]:  # the same reason once
            typer.echo(f"* {', '.join(agents)}: {flag}")
        for note in notes[notes["game"] == game]["note"]:
            typer.echo(f"note: {note}")


def game_table(game: str, rows: pd.DataFrame, payoff_unit: str) -> Table:
    currency = str(rows["ranked_on"].iloc[0])
    on_wins = currency == "wins"
    several = rows["component"].nunique() > 1
    other = "payoff" if on_wins else "wins"
    method = str(rows["interval"].iloc[0])
    title = next(
        (t for start, t in N_PLAYER_TITLES.items() if method.startswith(start)),
        CURRENCY_TITLES[currency].format(unit=payoff_unit),
    )
    n_players = "N players" in method
    result = Table(
        title=f"{game}: {title}",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        caption=f"{rows['interval'].iloc[0]}"
        + ("; openskill: Plackett-Luce mu (ordinal mu - 3 sigma)" if on_wins else "")
        + (
            "; W/D/L: opponents outranked, tied, outranked by (N-1 a match)"
            if n_players
            else "; W/D/L: wins, draws, losses"
        )
        + ("" if rows["identified"].astype(bool).all() else "; * not identified (below)")
        + ("; ratings compare only within a group" if several else "")
        + f". Rank on {other} instead: --rank-on {other}",
        caption_justify="left",
    )
    headers = ["group"] if several else []
    headers += ["rank", "agent", "rating" if on_wins else "payoff", "interval"]
    headers += ["openskill"] if on_wins else ["mean payoff"]
    headers += ["W/D/L", "matches", "runs"]
    for header in headers:
        result.add_column(header, justify="left" if header == "agent" else "right")
    digits = 0 if on_wins else 2
    for row in rows.to_dict("records"):
        mark = "" if row["identified"] else "*"
        cells = [str(row["component"])] if several else []
        cells += [
            "-" if _missing(row["rank"]) else str(row["rank"]),
            escape(str(row["agent"])) + mark,
            _number(row["rating"], digits),
            "-"
            if _missing(row["ci_low"])
            else f"[{_number(row['ci_low'], digits)}, {_number(row['ci_high'], digits)}]",
            f"{row['openskill_mu']:.1f} ({row['openskill_ordinal']:.1f})"
            if on_wins
            else _number(row["mean_payoff"], 2),
            f"{row['wins']}/{row['draws']}/{row['losses']}",
            str(row["matches"]),
            str(row["runs"]),
        ]
        result.add_row(*cells)
    return result


def _missing(value: Any) -> bool:
    """None, pandas' NA or a float NaN (a value that is not there)."""
    from pandas import NA

    return value is None or value is NA or (isinstance(value, float) and value != value)


def _number(value: float, digits: int) -> str:
    if _missing(value):
        return "-"
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # never "-0.00"
