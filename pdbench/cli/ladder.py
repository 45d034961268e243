"""`pdbench ladder RUN_DIR [RUN_DIR ...]`: ratings of every agent of the runs given, per game.

Reads the stored outcomes of the runs' finished matches (pdbench.ladder.outcomes), rates the
agents (pdbench.ladder.build) and writes ladder.parquet into `--out`, by default
data/ladders/<hash of the outcomes and options>/ (the same inputs: the same folder). No match is
played again and no provider is called.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from pdbench.cli.bounds import BOOTSTRAP_MAX, SEED_MAX, check_between
from pdbench.core.errors import PdbenchError

if TYPE_CHECKING:  # pandas loads in ~0.3 s: only when a ladder is printed
    import pandas as pd

LADDERS_DIR = Path("data") / "ladders"


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
    bootstrap: Annotated[
        int, typer.Option(help="Bootstrap draws of the matches behind each interval.")
    ] = 200,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap.")] = 0,
) -> None:
    """Rate every agent of the runs given, per game, from their finished matches: Bradley-Terry
    with Davidson's draws (bootstrap intervals), OpenSkill, wins/draws/losses. An agent is the
    same across runs when it is the same agent (a policy and its parameters, an arena file's
    content hash, an LLM agent's cache-key fields). Writes ladder.parquet; never calls a
    provider."""
    from pdbench.ladder.build import LadderOptions, counted, inputs_hash, ladder_table
    from pdbench.ladder.outcomes import Outcomes, read_outcomes
    from pdbench.ladder.output import write_ladder

    check_between("--bootstrap", bootstrap, 0, BOOTSTRAP_MAX)
    check_between("--seed", seed, 0, SEED_MAX)
    outcomes = counted(Outcomes.concatenate([read_outcomes(run_dir) for run_dir in run_dirs]))
    if outcomes.table.empty:
        raise PdbenchError(
            f"{', '.join(map(str, run_dirs))}: no finished match between two different agents"
            + (f" ({_skipped_text(outcomes.skipped)})" if outcomes.skipped else "")
        )
    options = LadderOptions(bootstrap=bootstrap, seed=seed)
    table = ladder_table(outcomes, options)
    if out is None:
        from pdbench.config.tree import find_project_root

        out = find_project_root() / LADDERS_DIR / inputs_hash(outcomes, options)[:12]
    if out.exists() and not out.is_dir():
        raise PdbenchError(f"--out: {out} is not a folder")
    path = write_ladder(table, out)
    print_ladder(table, outcomes.table, outcomes.skipped, len(run_dirs), path, options)


def _skipped_text(skipped) -> str:
    reasons = Counter(s.reason.split(":")[0] for s in skipped)
    return "skipped: " + ", ".join(f"{n} {reason}" for reason, n in reasons.most_common())


def print_ladder(table, matches: pd.DataFrame, skipped, n_runs: int, path: Path, options) -> None:
    from pdbench.cli.report import print_table, shown_path
    from pdbench.ladder.output import ratings

    typer.echo(
        f"ladder of {n_runs} run(s): {len(matches)} finished matches counted, "
        f"{matches['game'].nunique()} game(s); 0 provider calls"
    )
    if skipped:
        typer.echo(f"  {_skipped_text(skipped)}")
    typer.echo(f"wrote {shown_path(path)}")
    rated = ratings(table)
    notes = table[table["table"] == "note"]
    for game in rated["game"].unique():
        print_table(game_table(str(game), rated[rated["game"] == game], options))
        for note in notes[notes["game"] == game]["note"]:
            typer.echo(f"note: {note}")


def game_table(game: str, rows: pd.DataFrame, options) -> Table:
    several = rows["component"].nunique() > 1
    result = Table(
        title=f"{game}: Bradley-Terry-Davidson ratings (Elo scale)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        caption=f"rating: maximum likelihood (weak prior, sd 3 on log strength), a draw as Davidson's "
        "draw (not half a win); "
        f"{options.confidence:.0%} interval: percentile bootstrap over matches "
        f"({options.bootstrap} draws, seed {options.seed}); openskill: Plackett-Luce mu "
        f"(ordinal mu - 3 sigma); W/D/L: wins, draws, losses"
        + ("; ratings compare only within a group" if several else ""),
        caption_justify="left",
    )
    headers = ["group"] if several else []
    headers += ["rank", "agent", "rating", "interval", "openskill", "W/D/L", "matches", "runs"]
    for header in headers:
        result.add_column(header, justify="left" if header == "agent" else "right")
    for row in rows.to_dict("records"):
        cells = [str(row["component"])] if several else []
        cells += [
            str(row["rank"]),
            escape(str(row["agent"])),
            f"{row['rating']:.0f}",
            ""
            if row["ci_low"] != row["ci_low"]
            else f"[{row['ci_low']:.0f}, {row['ci_high']:.0f}]",
            f"{row['openskill_mu']:.1f} ({row['openskill_ordinal']:.1f})",
            f"{row['wins']}/{row['draws']}/{row['losses']}",
            str(row["matches"]),
            str(row["runs"]),
        ]
        result.add_row(*cells)
    return result
