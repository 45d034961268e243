"""CoopEval's reputation through the front door (issue 45): a Hydra sweep of the offline mock as
an LLM player in a re-matched population of house players with `reputation_depth=3`,
`reputation_order=3`, over two personas, runs offline; every contribute prompt of the LLM seat
shows exactly the co-players' rounds the stored records say they played in the window (recomputed
here from rounds.jsonl); the cooperative mock gives everything to a group shown at least half and
nothing below, the exploitative one nothing; the aggregates hold the reputation measures; a
second sweep replays every answer from the cache (0 live calls) to the same rounds; a reputation
with fixed partners exits 2 naming the option. Run in this process (tests/in_process.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from in_process import run_front_door
from project_copy import command_env, shared_copy
from sweeps import provider_calls, run_sweep, stored_rounds

from pdbench.games.public_goods.reputation import pseudonyms
from pdbench.games.public_goods.reputation_prompt import read_co_players

SEATS = {
    "a": "llm_default",
    "b": "pgg_reputation_reciprocator",
    "c": "pgg_free_rider",
    "d": "pgg_full_contributor",
    "e": "pgg_random",
    "f": "pgg_conditional_cooperator",
}
GROUP = [
    "game=public_goods",
    *(f"agent_{seat}={agent}" for seat, agent in SEATS.items()),
    "game.options.players=3",
    "game.options.groups=2",
    "game.options.rounds=5",
    "game.options.matching=strangers",
    "game.options.reputation_depth=3",
    "game.options.reputation_order=3",
    "run.replicates=1",
]


def sweep(tmp_path: Path, name: str) -> Path:
    run_dir, _ = run_sweep(tmp_path, name, [*GROUP, "persona=cooperative,exploitative"])
    return run_dir


def shown_from_records(match: list[dict[str, Any]], seat: str, number: int) -> dict[str, list]:
    """The co-players' own contributions seat `seat` should be shown before round `number`,
    by pseudonym, from the match's stored contribute turns."""
    population = sorted({s for line in match for s in line["seats"]})
    seed = match[-1]["outcome"]["seed"]
    names = dict(zip(population, pseudonyms(seed, len(population)), strict=True))
    revealed = {line["round"]: line["revealed"] for line in match if line["phase"] == "contribute"}
    group = next(g for g in revealed[number]["groups"] if seat in g)
    return {
        names[other]: [
            revealed[r]["contributions"][other] for r in range(max(1, number - 3), number)
        ]
        for other in group
        if other != seat
    }


def test_a_reputation_sweep_runs_offline_shows_the_records_and_replays(tmp_path):
    first = sweep(tmp_path, "first")
    stored = stored_rounds(first)
    given: dict[str, list[int]] = {}
    for condition in ("persona=cooperative", "persona=exploitative"):
        match = [line for line in stored if line["condition"] == condition]
        for line in match:
            if line["phase"] != "contribute":
                continue
            (prompt,) = [a["prompt"] for a in line["decisions"]["a"]["attempts"]]
            shown = read_co_players(prompt)
            assert shown == shown_from_records(match, "a", line["round"])
            amount = line["actions"]["a"]["amount"]
            given.setdefault(condition, []).append(amount)
            seen = [c for history in shown.values() for c in history]
            if condition == "persona=cooperative":  # everything to a group shown >= 1/2
                assert amount == (20 if not seen or sum(seen) / len(seen) >= 10 else 0)
    assert given["persona=exploitative"] == [0] * 5
    assert set(given["persona=cooperative"]) == {0, 20}  # it met groups on both sides
    table = pd.read_parquet(first / "aggregates.parquet")
    conditions = table[table["level"] == "condition"].set_index("condition")
    assert conditions["reputation_slope_b"].notna().all()  # the reciprocator's
    assert conditions.loc["persona=cooperative", "reputation_gap_a"] == 1.0
    assert provider_calls(first)["live"] > 0

    second = sweep(tmp_path, "second")  # the same sweep again, the same cache
    assert provider_calls(second)["live"] == 0
    assert provider_calls(second)["cached"] == provider_calls(first)["live"]
    assert stored_rounds(second) == stored


def test_reputation_with_fixed_partners_exits_2_naming_the_option(tmp_path):
    args = [a for a in GROUP if "matching" not in a]
    bad = run_front_door(
        "cli",
        ["validate", "conf/config.yaml", *args],
        cwd=shared_copy(),
        env=command_env(tmp_path),
    )
    assert bad.code == 2
    (line,) = bad.stderr.strip().splitlines()
    # the condition's game, then the option: "conditions[0](...).game: options.reputation_depth:"
    assert ".game: options.reputation_depth:" in line and "strangers" in line
