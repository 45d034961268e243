"""The run-dir artifacts of a real (small) experiment: rounds.jsonl, run_manifest.json and
aggregates.parquet, checked line by line against the contracts in /work/shared/design.md.

The experiment (tests/fixtures/experiments/artifacts.yaml) mixes LLM agents on the offline mock,
classic policies, an LLM that answers garbage half the time (retries and fallbacks) and a
split-or-steal condition (labels split/steal). It is run once per `store_prompts` mode, with a
fake API key in the environment that must never reach the run dir.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import platform
from collections import defaultdict
from pathlib import Path

import orjson
import pandas as pd
import pytest
from helpers import TEST_DEAL

from pdbench.games.matrix.stored import as_rounds
from pdbench.runners.deal import planned_deal
from pdbench.runners.experiment import run_experiment
from pdbench.runners.plan import plan_matches
from pdbench.runners.prepare import load
from pdbench.storage.schema import REQUIRED_ROUND_FIELDS

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = ROOT / "tests" / "fixtures" / "experiments"
ARTIFACTS = EXPERIMENTS / "artifacts.yaml"
METRICS = EXPERIMENTS / "metrics.yaml"
SECRET = "sk-test-secret-123"
TEXT_FIELDS = ("system", "prompt", "raw")
PD = {("C", "C"): (3, 3), ("C", "D"): (0, 5), ("D", "C"): (5, 0), ("D", "D"): (1, 1)}
SPLIT_OR_STEAL = {
    ("C", "C"): (50, 50),
    ("C", "D"): (0, 100),
    ("D", "C"): (100, 0),
    ("D", "D"): (0, 0),
}
LLM_CONDITIONS = ("llm_coop_vs_tft", "llm_invalid_vs_tft", "llm_vs_alld_split_or_steal")


def run_fixture(experiment: Path, output_dir: Path, run_id: str, *overrides: str):
    """Load and run an experiment in this process; returns (loaded, outcome, run_dir)."""
    loaded = load(
        experiment,
        [f"run.output_dir={output_dir}", *overrides],
        run_id=run_id,
        project_root=ROOT,
    )
    outcome = run_experiment(loaded)
    return loaded, outcome, output_dir / run_id


def read_rounds(run_dir: Path) -> list[dict]:
    lines = (run_dir / "rounds.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b"", "rounds.jsonl must end with a newline"
    # a 2x2 run's turn lines (record version 2) read as rounds, as every reader reads them
    return list(as_rounds(orjson.loads(line) for line in lines[:-1]))


def by_match(rounds: list[dict]) -> dict[tuple[str, int], list[dict]]:
    matches: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for record in rounds:
        matches[(record["condition"], record["replicate"])].append(record)
    return matches


def without_run_fields(rounds: list[dict]) -> list[dict]:
    return [
        {k: v for k, v in record.items() if k not in ("timestamp_utc", "run_id")}
        for record in rounds
    ]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The artifacts experiment under store_prompts true, hash and false (each with its own fresh
    cache), plus a replay of the `true` run from its cache, all with a fake key in the env."""
    base = tmp_path_factory.mktemp("artifacts")
    out = base / "runs"
    results = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPENAI_API_KEY", SECRET)
        for mode in ("true", "hash", "false"):
            mp.setenv("PDBENCH_CACHE_DIR", str(base / f"cache_{mode}"))
            results[mode] = run_fixture(
                ARTIFACTS, out, f"prompts_{mode}", f"run.store_prompts={mode}"
            )
        mp.setenv("PDBENCH_CACHE_DIR", str(base / "cache_true"))
        results["replay"] = run_fixture(ARTIFACTS, out, "replay", "run.store_prompts=true")
    return results


@pytest.fixture(scope="module")
def rounds_true(runs) -> list[dict]:
    return read_rounds(runs["true"][2])


# --- the three files ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["true", "hash", "false", "replay"])
def test_a_run_creates_the_three_files(runs, mode):
    loaded, outcome, run_dir = runs[mode]
    assert outcome.status == "complete"
    assert outcome.run_dir == run_dir
    for name in ("rounds.jsonl", "run_manifest.json", "aggregates.parquet"):
        path = run_dir / name
        assert path.is_file(), f"{name} missing from {sorted(p.name for p in run_dir.iterdir())}"
        assert path.stat().st_size > 0, f"{name} is empty"
    table = pd.read_parquet(run_dir / "aggregates.parquet")
    n_conditions = len(loaded.spec.conditions)
    n_matches = n_conditions * loaded.spec.run.replicates
    assert (table["level"] == "replicate").sum() == n_matches
    assert (table["level"] == "condition").sum() == n_conditions


@pytest.mark.parametrize("mode", ["true", "hash", "false"])
def test_every_round_has_every_required_field(runs, mode):
    rounds = read_rounds(runs[mode][2])
    assert rounds
    for number, record in enumerate(rounds, start=1):
        missing = [f for f in REQUIRED_ROUND_FIELDS if f not in record]
        assert not missing, f"line {number} ({record.get('condition')}) lacks {missing}"
        assert record["run_id"] == f"prompts_{mode}"
        if record["horizon_type"] == "fixed":
            assert record["fixed_n"] == 6 and record["stop_prob"] is None
        assert record["timestamp_utc"].endswith("Z")


def test_actions_are_c_or_d_even_in_split_or_steal(rounds_true):
    assert {r["agent_a_action"] for r in rounds_true} | {
        r["agent_b_action"] for r in rounds_true
    } <= {"C", "D"}
    split_rounds = [r for r in rounds_true if r["condition"] == "llm_vs_alld_split_or_steal"]
    assert split_rounds and all(r["game"] == "split_or_steal" for r in split_rounds)
    for record in split_rounds:
        # The model saw and answered the game's labels (the answer instruction is in the system
        # prompt since prompts keep a long shared prefix, issue 33); storage still says C/D.
        attempt = record["agent_a_attempts"][-1]
        seen = f"{attempt['system']}\n{attempt['prompt']}"
        assert "split" in seen and "steal" in seen
        assert attempt["raw"].strip().lower() in ("split", "steal")
        expected = "C" if attempt["raw"].strip().lower() == "split" else "D"
        assert record["agent_a_action"] == expected
        assert record["agent_b_action"] == "D"  # ALLD steals
        payoffs = SPLIT_OR_STEAL[(record["agent_a_action"], record["agent_b_action"])]
        assert (record["agent_a_payoff"], record["agent_b_payoff"]) == payoffs
    # Policies too (they may be played by another code path): TFT splits once, then steals.
    policy_rounds = [r for r in rounds_true if r["condition"] == "tft_vs_alld_split_or_steal"]
    assert policy_rounds and all(r["game"] == "split_or_steal" for r in policy_rounds)
    for record in policy_rounds:
        expected = "C" if record["round_index"] == 1 else "D"
        assert (record["agent_a_action"], record["agent_b_action"]) == (expected, "D")
        payoffs = SPLIT_OR_STEAL[(record["agent_a_action"], record["agent_b_action"])]
        assert (record["agent_a_payoff"], record["agent_b_payoff"]) == payoffs
    # The reciprocating mock splits once, then steals back from ALLD.
    first = [r for r in split_rounds if r["round_index"] == 1]
    assert {r["agent_a_action"] for r in first} == {"C"}
    assert {r["agent_a_action"] for r in split_rounds if r["round_index"] > 1} == {"D"}


@pytest.mark.parametrize("mode", ["true", "false"])
def test_round_index_is_contiguous_and_cumulative_payoffs_are_running_sums(runs, mode):
    loaded, _, run_dir = runs[mode]
    matches = by_match(read_rounds(run_dir))
    planned = {(m.condition.name, m.replicate) for m in plan_matches(loaded.spec, TEST_DEAL)}
    assert set(matches) == planned
    for key, records in matches.items():
        indices = [r["round_index"] for r in records]
        assert indices == list(range(1, 7)), f"{key}: round_index {indices}"
        cum_a = cum_b = 0.0
        table = SPLIT_OR_STEAL if records[0]["game"] == "split_or_steal" else PD
        for r in records:
            assert (r["agent_a_payoff"], r["agent_b_payoff"]) == table[
                (r["agent_a_action"], r["agent_b_action"])
            ], f"{key} round {r['round_index']}: payoffs do not match the actions"
            cum_a += r["agent_a_payoff"]
            cum_b += r["agent_b_payoff"]
            assert r["agent_a_cum_payoff"] == pytest.approx(cum_a), (key, r["round_index"])
            assert r["agent_b_cum_payoff"] == pytest.approx(cum_b), (key, r["round_index"])


# --- store_prompts ----------------------------------------------------------------------------


def _llm_rounds(rounds: list[dict]) -> list[dict]:
    return [r for r in rounds if r["condition"] in LLM_CONDITIONS]


def test_store_prompts_true_keeps_system_prompt_and_raw_text_of_every_attempt(rounds_true):
    llm_rounds = _llm_rounds(rounds_true)
    assert llm_rounds
    for record in llm_rounds:
        attempts = record.get("agent_a_attempts")
        assert attempts, f"{record['condition']} round {record['round_index']}: no attempts"
        for attempt in attempts:
            for key in TEXT_FIELDS:
                assert isinstance(attempt.get(key), str), f"attempt lacks {key}: {attempt}"
                assert f"{key}_sha256" not in attempt
            assert attempt["system"].strip() and attempt["prompt"].strip()
            assert f"round {record['round_index']}" in attempt["prompt"].lower()
        # A policy has no attempts to record.
        assert "agent_b_attempts" not in record
    for record in rounds_true:
        if record["condition"] not in LLM_CONDITIONS:
            assert "agent_a_attempts" not in record and "agent_b_attempts" not in record


def test_store_prompts_hash_keeps_sha256_of_the_same_texts_and_no_raw_text(runs, rounds_true):
    rounds_hash = read_rounds(runs["hash"][2])
    text = {
        (r["condition"], r["replicate"], r["round_index"], a["attempt"]): a
        for r in _llm_rounds(rounds_true)
        for a in r["agent_a_attempts"]
    }
    seen = 0
    for record in _llm_rounds(rounds_hash):
        assert record["agent_a_attempts"]
        for attempt in record["agent_a_attempts"]:
            for key in TEXT_FIELDS:
                assert key not in attempt, f"store_prompts=hash kept raw {key}"
                digest = attempt.get(f"{key}_sha256")
                assert isinstance(digest, str) and len(digest) == 64
            # Same seed, same prompts: the hashes are those of the texts the `true` run stored.
            full = text[
                (
                    record["condition"],
                    record["replicate"],
                    record["round_index"],
                    attempt["attempt"],
                )
            ]
            for key in TEXT_FIELDS:
                assert attempt[f"{key}_sha256"] == hashlib.sha256(full[key].encode()).hexdigest()
            seen += 1
    assert seen == len(text)
    raw_file = (runs["hash"][2] / "rounds.jsonl").read_text()
    system_text = next(iter(text.values()))["system"]
    assert orjson.dumps(system_text).decode()[1:60] not in raw_file


def test_store_prompts_false_keeps_neither_text_nor_hash(runs, rounds_true):
    rounds_false = read_rounds(runs["false"][2])
    for record in rounds_false:
        for side in ("a", "b"):
            for attempt in record.get(f"agent_{side}_attempts") or []:
                for key in TEXT_FIELDS:
                    assert key not in attempt and f"{key}_sha256" not in attempt, attempt
    raw_file = (runs["false"][2] / "rounds.jsonl").read_text()
    system_text = rounds_true[0]["agent_a_attempts"][0]["system"]
    assert orjson.dumps(system_text).decode()[1:60] not in raw_file
    assert "_sha256" not in raw_file
    # Everything else is the same as with prompts stored.
    assert [
        (r["condition"], r["replicate"], r["round_index"], r["agent_a_action"], r["agent_b_action"])
        for r in rounds_false
    ] == [
        (r["condition"], r["replicate"], r["round_index"], r["agent_a_action"], r["agent_b_action"])
        for r in rounds_true
    ]


# --- invalid answers and fallbacks --------------------------------------------------------------


def test_invalid_attempts_and_fallbacks_are_marked_on_the_round(rounds_true):
    invalid_rounds = [r for r in rounds_true if r["condition"] == "llm_invalid_vs_tft"]
    fallbacks = retried = 0
    for record in invalid_rounds:
        attempts = record["agent_a_attempts"]
        invalid = [a for a in attempts if not a["valid"]]
        assert record["agent_a_invalid_outputs"] == len(invalid)
        for attempt in invalid:
            assert attempt["error"], f"an invalid attempt must say why: {attempt}"
        assert [a["attempt"] for a in attempts] == list(range(1, len(attempts) + 1))
        assert len(attempts) <= 2  # max_retries: 1
        if record["agent_a_fallback"]:
            fallbacks += 1
            assert len(attempts) == 2 and not any(a["valid"] for a in attempts)
            assert record["agent_a_action"] == "D"  # fallback_action
            assert record["agent_a_error"], "a fallback round must carry the reason"
        else:
            assert attempts[-1]["valid"]
            assert record["agent_a_error"] is None
            retried += len(attempts) > 1
    # invalid_rate 0.5 with this seed gives both kinds; if it stops, pick another seed.
    assert fallbacks > 0 and retried > 0, (fallbacks, retried)
    for record in rounds_true:
        # LLM sides carry the markers on every round; a policy side may leave them out.
        llm_sides = ("a",) if record["condition"] in LLM_CONDITIONS else ()
        for side in llm_sides:
            for marker in ("invalid_outputs", "fallback", "timeout", "error"):
                assert f"agent_{side}_{marker}" in record, (record["condition"], marker)
        for side in ("a", "b"):
            assert not record.get(f"agent_{side}_timeout")
            if record["condition"] != "llm_invalid_vs_tft" or side == "b":
                assert not record.get(f"agent_{side}_invalid_outputs")
                assert not record.get(f"agent_{side}_fallback")
                assert record.get(f"agent_{side}_error") is None


def test_invalid_outputs_and_fallbacks_are_counted_in_aggregates(runs, rounds_true):
    table = pd.read_parquet(runs["true"][2] / "aggregates.parquet")
    replicate_rows = table[table["level"] == "replicate"].set_index(["condition", "replicate"])
    per_match: dict[tuple[str, int], tuple[int, int]] = {}
    for key, records in by_match(rounds_true).items():
        invalid = sum(r.get("agent_a_invalid_outputs", 0) for r in records)
        fallbacks = sum(bool(r.get("agent_a_fallback")) for r in records)
        per_match[key] = (invalid, fallbacks)
        row = replicate_rows.loc[key]
        assert row["invalid_outputs_a"] == invalid, key
        assert row["fallbacks_a"] == fallbacks, key
        assert row["invalid_outputs_b"] == 0 and row["fallbacks_b"] == 0, key
    condition = table[
        (table["level"] == "condition") & (table["condition"] == "llm_invalid_vs_tft")
    ]
    assert len(condition) == 1
    reps = [v for k, v in per_match.items() if k[0] == "llm_invalid_vs_tft"]
    assert sum(v[1] for v in reps) > 0
    assert condition["invalid_outputs_a"].iloc[0] == pytest.approx(
        sum(v[0] for v in reps) / len(reps)
    )
    assert condition["fallbacks_a"].iloc[0] == pytest.approx(sum(v[1] for v in reps) / len(reps))
    assert condition["fallbacks_a_n"].iloc[0] == len(reps)


# --- the manifest ------------------------------------------------------------------------------


def test_manifest_records_config_seeds_environment_and_calls(runs, rounds_true):
    loaded, outcome, run_dir = runs["true"]
    manifest = orjson.loads((run_dir / "run_manifest.json").read_bytes())
    assert manifest["status"] == "complete"
    assert manifest["run_id"] == "prompts_true"
    assert manifest["config_hash"] == loaded.config_hash
    assert manifest["config"] == loaded.spec.model_dump(mode="json")
    assert [c["name"] for c in manifest["config"]["conditions"]] == [
        c.name for c in loaded.spec.conditions
    ]
    assert f"run.output_dir={run_dir.parent}" in manifest["overrides"]
    assert "run.store_prompts=true" in manifest["overrides"]
    assert manifest["collapse"] == {"k": 10, "threshold": 0.2}
    assert manifest["run_seed"] == 7

    plan = plan_matches(loaded.spec, planned_deal(loaded)[0])  # the run folder's own key
    seeds = {(s["condition"], s["replicate"]): s for s in manifest["seeds"]}
    assert set(seeds) == {m.key for m in plan}
    for match in plan:
        entry = seeds[match.key]
        for stream in ("horizon", "agent_a", "agent_b"):
            assert isinstance(entry[stream], int), (match.key, stream, entry)
        assert entry["agent_a"] == match.seed_a and entry["horizon"] == match.horizon_seed

    assert manifest["python_version"] == platform.python_version()
    assert manifest["packages"]["pdbench"] == importlib.metadata.version("pdbench")
    assert manifest["packages"]["pandas"] == importlib.metadata.version("pandas")
    assert set(manifest["git"]) >= {"commit", "dirty"}
    commit = manifest["git"]["commit"]
    assert commit is None or (len(commit) == 40 and int(commit, 16) >= 0)
    assert manifest["git"]["dirty"] in (True, False, None)

    calls = manifest["provider_calls"]
    for key in ("live", "cached", "input_tokens", "output_tokens", "cost_usd"):
        assert key in calls, f"provider_calls lacks {key}: {calls}"
    attempts = sum(len(r.get("agent_a_attempts") or []) for r in rounds_true)
    assert calls["live"] == attempts and calls["cached"] == 0  # a fresh cache
    assert calls["input_tokens"] > 0
    assert calls["cost_usd"] == 0.0  # the mock is free
    assert outcome.calls.live == attempts


def test_a_replay_from_the_cache_counts_cached_calls_and_writes_the_same_rounds(runs, rounds_true):
    replay_dir = runs["replay"][2]
    calls = orjson.loads((replay_dir / "run_manifest.json").read_bytes())["provider_calls"]
    attempts = sum(len(r.get("agent_a_attempts") or []) for r in rounds_true)
    assert calls["live"] == 0 and calls["cached"] == attempts
    assert without_run_fields(read_rounds(replay_dir)) == without_run_fields(rounds_true)


def test_no_secret_reaches_any_file_of_the_run_dir(runs):
    checked = 0
    for _, _, run_dir in runs.values():
        for path in run_dir.rglob("*"):
            if path.is_file():
                assert SECRET.encode() not in path.read_bytes(), f"the API key leaked into {path}"
                checked += 1
    assert checked >= 4 * 4


# --- determinism ---------------------------------------------------------------------------------


@pytest.mark.parametrize("experiment", [ARTIFACTS, METRICS], ids=["llm_mock", "policies"])
def test_same_config_and_seed_give_identical_rounds(tmp_path, monkeypatch, experiment):
    """Two independent runs (separate run dirs, separate fresh caches) of the same config."""
    rounds = []
    for name in ("first", "second"):
        monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path / f"cache_{name}"))
        _, outcome, run_dir = run_fixture(experiment, tmp_path / "runs", f"det_{name}")
        assert outcome.status == "complete"
        rounds.append(read_rounds(run_dir))
    assert {r["run_id"] for r in rounds[0]} == {"det_first"}
    assert {r["run_id"] for r in rounds[1]} == {"det_second"}
    first, second = (without_run_fields(r) for r in rounds)
    assert len(first) == len(second)
    for number, (a, b) in enumerate(zip(first, second, strict=True), start=1):
        assert a == b, f"line {number} differs"
