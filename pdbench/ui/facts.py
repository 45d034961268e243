"""What the manifest, the ledger and a round record say, in words the page shows.

Pure functions of stored records (dicts as read by `RunReader`): no Streamlit, no pandas here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pdbench.analysis.catalog import SIDES

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


def condition_caption(manifest: Mapping[str, Any], condition: str) -> str:
    """'game pd · fixed, 20 rounds' for the sidebar ('' when the config is not in the manifest)."""
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


def run_facts(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The run's identity and settings, for the Run facts table."""
    git = manifest.get("git") or {}
    collapse = manifest.get("collapse") or {}
    return {
        "run id": manifest.get("run_id"),
        "kind": manifest.get("kind") or "experiment",
        "status": manifest.get("status"),
        "started (UTC)": manifest.get("started_utc"),
        "updated (UTC)": manifest.get("updated_utc"),
        "command": manifest.get("pdbench_command"),
        "config": manifest.get("config_source"),
        "config hash": manifest.get("config_hash"),
        "run seed": manifest.get("run_seed"),
        "replicates": manifest.get("replicates"),
        "collapse k / threshold": f"{collapse.get('k')} / {collapse.get('threshold')}",
        "git commit": git.get("commit"),
        "uncommitted changes": git.get("dirty"),
        "python": manifest.get("python_version"),
        "platform": manifest.get("platform"),
    }


# --- the ledger ----------------------------------------------------------------------------------


def ledger_entry(
    ledger: Sequence[Mapping[str, Any]], condition: str, replicate: int
) -> Mapping[str, Any]:
    """The ledger line of one finished match ({} when it has none)."""
    return next(
        (e for e in ledger if e["condition"] == condition and int(e["replicate"]) == replicate),
        {},
    )


def match_facts(entry: Mapping[str, Any], n_rounds: int) -> dict[str, Any]:
    """Seeds, calls and cost of one match, from its ledger line."""
    seeds = entry.get("seeds") or {}
    calls = entry.get("calls") or {}
    return {
        "rounds played / planned": f"{entry.get('n_rounds', n_rounds)} / "
        f"{entry.get('planned_rounds', '?')}",
        "horizon seed": seeds.get("horizon"),
        "seed A": seeds.get("agent_a"),
        "seed B": seeds.get("agent_b"),
        "provider calls (live / cached)": f"{calls.get('live', 0)} / {calls.get('cached', 0)}",
        "tokens (in / out)": f"{calls.get('input_tokens', 0)} / {calls.get('output_tokens', 0)}",
        "cost $": f"{float(calls.get('cost_usd') or 0):.4f}",
        "finished (UTC)": entry.get("finished_utc"),
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
