"""What the manifest, the ledger and a round record say, in words the page shows.

Pure functions of stored records (the typed manifest and ledger, round records as dicts): no
Streamlit, no pandas here.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from pdbench.analysis.metrics.catalog import SIDES
from pdbench.core.errors import PdbenchError
from pdbench.core.game import label_preset
from pdbench.games.tables import DEFAULT_GAME, get_game
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.manifest import RunManifest

# --- the manifest ------------------------------------------------------------------------------


def run_config(manifest: RunManifest, condition: str) -> dict[str, Any]:
    """The resolved experiment config a condition ran under (a sweep keeps one per condition)."""
    if manifest.kind == "sweep":
        return manifest.config.get(condition) or {}
    return manifest.config


def condition_config(manifest: RunManifest, condition: str) -> dict[str, Any] | None:
    """The resolved config of one condition."""
    return manifest.condition_config(condition)


def condition_caption(manifest: RunManifest, condition: str) -> str:
    """'game <id> · fixed, 20 rounds' for the sidebar ('' when the config is not in the
    manifest)."""
    config = condition_config(manifest, condition)
    if not config:
        return ""
    game = (config.get("game") or {}).get("id", "?")
    return f"game {game} · {horizon_text(config)}"


def payoff_reference(config: Mapping[str, Any] | None) -> dict[str, float] | None:
    """Mutual cooperation (R) and mutual defection (P) payoffs per round, from the game."""
    payoffs = ((config or {}).get("game") or {}).get("payoffs") or {}
    try:
        return {"all C": float(payoffs["CC"][0]), "all D": float(payoffs["DD"][0])}
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def action_words(config: Mapping[str, Any] | None) -> dict[str, str]:
    """The words the game showed the agents for C and D ({"C": "split", "D": "steal"} in split or
    steal); storage keeps C/D. {"C": "C", "D": "D"} when the config does not say."""
    game = (config or {}).get("game") or {}
    labels = game.get("labels")
    try:
        if isinstance(labels, str):
            words = label_preset(labels)
        elif isinstance(labels, (list, tuple)) and len(labels) == 2:
            words = (str(labels[0]), str(labels[1]))
        else:
            words = get_game(str(game.get("id") or DEFAULT_GAME.id)).labels
    except PdbenchError:
        words = ("C", "D")
    return {"C": words[0], "D": words[1]}


def horizon_text(config: Mapping[str, Any] | None) -> str:
    horizon = (config or {}).get("horizon") or {}
    if horizon.get("type") == "fixed":
        return f"fixed, {horizon.get('rounds')} rounds"
    if horizon.get("type") == "geometric":
        cap = f", at most {horizon['max_rounds']}" if horizon.get("max_rounds") else ""
        return f"geometric, stop prob {horizon.get('stop_prob')}{cap}"
    return str(horizon.get("type") or "?")


def store_prompts_of(manifest: RunManifest, condition: str) -> bool | str | None:
    """The run's `store_prompts` setting (true, false or "hash") for one condition."""
    return (run_config(manifest, condition).get("run") or {}).get("store_prompts")


def short_commit(manifest: RunManifest) -> str:
    git = manifest.git
    commit = git.get("commit")
    if not commit:
        return "not in a git checkout"
    return commit[:10] + (" (uncommitted changes)" if git.get("dirty") else "")


def cost_text(counts: Any) -> str:
    """A cost as the page shows it: never $0.0000 for calls whose price is unknown."""
    if counts.unknown_price:
        unknown = f"unknown for {counts.unknown_price} calls at a price litellm does not know"
        return f"${counts.cost_usd:.4f} + {unknown}" if counts.cost_usd else unknown
    return f"${counts.cost_usd:.4f}"


def run_command(manifest: RunManifest) -> tuple[str | None, str | None]:
    """The command the run was made with, and a note when it is rebuilt rather than stored: a
    run through `python -m pdbench` may store only its overrides (then the command is rebuilt
    from them; Hydra's own `hydra.*` settings are not among them)."""
    if manifest.pdbench_command:
        return manifest.pdbench_command, None
    overrides = manifest.hydra_overrides or manifest.overrides
    if overrides:
        return (
            "python -m pdbench " + shlex.join(overrides),
            "rebuilt from the overrides the manifest stores (Hydra's own hydra.* settings are "
            "not stored)",
        )
    return None, "the manifest stores no command and no overrides"


def run_facts(manifest: RunManifest, *, turn_game: bool = False) -> dict[str, Any]:
    """The run's identity and settings, for the Run facts table. A turn game's run leaves out
    the collapse settings: collapse is a 2x2 game's measure and means nothing there."""
    facts = {
        "run id": manifest.run_id,
        "kind": "sweep" if manifest.kind == "sweep" else "experiment",
        "status": manifest.status,
        "started (UTC)": manifest.started_utc,
        "updated (UTC)": manifest.updated_utc,
        "config": manifest.config_source,
        "config hash": manifest.config_hash,
        "run seed": manifest.run_seed,
        "replicates": manifest.replicates,
        "collapse k / threshold": f"{manifest.collapse.k} / {manifest.collapse.threshold}",
        "git commit": manifest.git.get("commit"),
        "uncommitted changes": manifest.git.get("dirty"),
        "python": manifest.python_version,
        "platform": manifest.platform,
    }
    if turn_game:
        del facts["collapse k / threshold"]
    return facts


# --- the ledger ----------------------------------------------------------------------------------


def ledger_entry(
    ledger: Sequence[LedgerEntry], condition: str, replicate: int
) -> LedgerEntry | None:
    """The ledger line of one finished match (None when it has none)."""
    return next((e for e in ledger if e.key == (condition, replicate)), None)


def match_facts(entry: LedgerEntry | None, n_rounds: int) -> dict[str, Any]:
    """Seeds, calls and cost of one match, from its ledger line."""
    if entry is None:
        return {"rounds played / planned": f"{n_rounds} / ?"}
    calls = entry.calls
    return {
        "rounds played / planned": f"{entry.n_rounds} / {entry.planned_rounds}",
        "horizon seed": entry.seeds.get("horizon"),
        "seed A": entry.seeds.get("agent_a"),
        "seed B": entry.seeds.get("agent_b"),
        "provider calls (live / cached)": f"{calls.live} / {calls.cached}",
        "tokens (in / out)": f"{calls.input_tokens} / {calls.output_tokens}",
        "cost $": f"{calls.cost_usd:.4f}",
        "finished (UTC)": entry.finished_utc,
    }


# --- one round -----------------------------------------------------------------------------------


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


def flagged_rounds(rounds: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> list[str]:
    """'round 3: A · LLM fallback, error' for every agent and round with a flag."""
    return [
        f"round {r['round_index']}: {names[side]} {', '.join(round_flags(r, side))}"
        for r in rounds
        for side in SIDES
        if round_flags(r, side)
    ]


def attempts_of(record: Mapping[str, Any], side: str) -> list[dict[str, Any]]:
    return list(record.get(f"agent_{side}_attempts") or [])


def usage_text(attempt: Mapping[str, Any]) -> str:
    """'120 input tokens · 3 output tokens · $0.000012' (the parts an attempt recorded)."""
    parts = []
    if attempt.get("input_tokens") is not None:
        parts.append(f"{attempt['input_tokens']} input tokens")
    if attempt.get("output_tokens") is not None:
        parts.append(f"{attempt['output_tokens']} output tokens")
    if attempt.get("cost_usd") is not None:
        parts.append(f"${float(attempt['cost_usd']):.6f}")
    return " · ".join(parts)
