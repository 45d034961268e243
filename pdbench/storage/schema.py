"""The artifact contracts in code: file names, required fields, and how a round becomes a line.

Storage always records actions as "C"/"D", whatever labels the game showed the agents.
"""

from __future__ import annotations

import hashlib
from typing import Any

ROUNDS_FILE = "rounds.jsonl"
LEDGER_FILE = "matches.jsonl"  # one line per finished match: where its rounds end, its seeds
MANIFEST_FILE = "run_manifest.json"
AGGREGATES_FILE = "aggregates.parquet"
SHARDS_DIR = "shards"  # a Hydra sweep: one run dir per job under here, merged at the end

REQUIRED_ROUND_FIELDS = (
    "run_id",
    "condition",
    "replicate",
    "round_index",
    "agent_a_action",
    "agent_b_action",
    "agent_a_payoff",
    "agent_b_payoff",
    "agent_a_cum_payoff",
    "agent_b_cum_payoff",
    "horizon_type",
    "fixed_n",
    "stop_prob",
    "timestamp_utc",
)

# Per-agent markers that are always present on a round, so nothing unusual can hide.
DECISION_FIELDS = ("invalid_outputs", "fallback", "timeout", "error")

# Attempt fields that hold prompt or answer text: kept, hashed, or dropped by store_prompts.
TEXT_FIELDS = ("system", "prompt", "raw", "reasoning")
# Attempt fields that describe this process's run rather than the answer; never stored per round
# so that a replay from the cache writes byte-identical rounds.
RUN_LOCAL_FIELDS = ("cached",)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def stored_attempts(attempts: tuple[dict[str, Any], ...], store_prompts: bool | str) -> list[dict]:
    """Attempts as they go into rounds.jsonl under the run's `store_prompts` setting."""
    stored = []
    for attempt in attempts:
        record = {k: v for k, v in attempt.items() if k not in RUN_LOCAL_FIELDS}
        if store_prompts == "hash":
            for key in TEXT_FIELDS:
                if isinstance(record.get(key), str):
                    record[f"{key}_sha256"] = sha256_text(record.pop(key))
        elif not store_prompts:
            for key in TEXT_FIELDS:
                record.pop(key, None)
        stored.append(record)
    return stored
