"""`pdbench prompts RUN_DIR`: how much of each stored prompt a prefix cache could reuse.

For every condition and side that asked a model, the share of each prompt's tokens that the same
side's prompt of the previous round of the same match began with (see pdbench.analysis.per_run.prefix),
from round 3 on, counted with litellm's tokenizer for the side's model. Reads the run; writes
nothing; calls no provider.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from pdbench.core.errors import PdbenchError
from pdbench.core.seats import stored_seat_agents

GOOD_SHARE = 0.9  # what a prefix-friendly layout reaches (issue 33)


def prompts(
    run_dir: Annotated[
        Path, typer.Argument(help="A run folder, e.g. data/runs/<run_id>.", show_default=False)
    ],
) -> None:
    """Report the prefix share of consecutive prompts (what prefix caching can reuse)."""
    from pdbench.analysis.per_run.prefix import JUDGED_FROM_ROUND, match_shares, summarise
    from pdbench.providers.tokens import tokenizer_for
    from pdbench.storage.reader import RunReader, is_run_dir

    if not is_run_dir(run_dir):
        raise PdbenchError(f"{run_dir}: not a run folder (no run_manifest.json)")
    reader = RunReader.open(run_dir)
    models = _models(reader.manifest().config)
    shares = []
    seen_texts = False
    for entry in reader.ledger():
        rounds = reader.match_rounds(entry.condition, entry.replicate)
        for side in ("a", "b"):
            model = models.get((entry.condition, side))
            if model is None:
                continue
            tokenizer = tokenizer_for(model)
            side_rounds = [_one_side(record, side) for record in rounds]
            found = match_shares(entry.condition, entry.replicate, side_rounds, tokenizer.encode)
            seen_texts = seen_texts or bool(found)
            shares += found
    if not seen_texts:
        typer.echo(
            f"{run_dir}: no stored prompt texts to compare (no LLM agent, or the run kept "
            "store_prompts: hash or false)"
        )
        return
    typer.echo(
        f"prefix share of consecutive prompts, from round {JUDGED_FROM_ROUND} "
        "(share of a prompt's tokens the previous round's prompt of the same match began with)"
    )
    header = ("condition", "side", "prompts", "mean share", "min share", "tokens", "new tokens")
    rows = [header]
    for s in summarise(shares):
        rows.append(
            (
                s.condition,
                s.side.upper(),
                str(s.prompts),
                f"{s.mean_share:.3f}",
                f"{s.min_share:.3f}",
                f"{s.mean_tokens:.0f}",
                f"{s.mean_new_tokens:.1f}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        typer.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
    used = sorted({tokenizer_for(m).label for m in set(models.values())})
    typer.echo(f"tokens counted with: {'; '.join(used)}")
    low = [s for s in summarise(shares) if s.min_share < GOOD_SHARE]
    if low:
        typer.echo(
            f"below {GOOD_SHARE}: something that changes every round comes before the history "
            "(a round number, totals, a sliding history window); see docs/costs.md"
        )


def _models(config: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(condition, side) -> the model an LLM agent of the stored config asks."""
    models = {}
    for condition in config.get("conditions") or []:
        seats = stored_seat_agents(condition)  # its fields, or its population's seats
        for side in ("a", "b"):
            agent = seats.get(f"agent_{side}") or {}
            provider = agent.get("provider") or {}
            if agent.get("type") == "llm" and provider.get("model"):
                models[(condition.get("name"), side)] = str(provider["model"])
    return models


def _one_side(record: dict, side: str) -> dict:
    """A round record with only one side's attempts (the other side may be another model)."""
    other = "b" if side == "a" else "a"
    return {k: v for k, v in record.items() if k != f"agent_{other}_attempts"}
