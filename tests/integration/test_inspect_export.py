"""Issue 46, "Inspect logs": `pdbench export RUN --inspect [OUT]` writes each condition as an
Inspect eval log through inspect_ai's own writer, and inspect_ai's `read_eval_log` reads it back:
one sample per match, one ModelEvent per provider call (the seat or third role as the model role,
answers from the replay cache marked `cache="read"` as Inspect marks its own), a score per
sample, the condition's metrics as the log's results, the resolved config, seeds, versions and
spend in the eval spec and stats. A run of each record family: a 2x2 game with a negotiation
phase (an LLM on the mock against a policy), Liar's Dice, and the judged games with an LLM
Keeper and an LLM judge; and the golden runs of every game, read back with fewer checks."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import orjson
import pytest
from in_process import run_front_door

from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load
from pdbench.storage.reader import RunReader

# inspect_ai is imported by the tests that read a log, not at collection: importing it costs
# about 1.5 s of CPU, which every xdist worker would pay though one runs this module.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("inspect_ai") is None,
    reason="the inspect group is not installed: uv sync --group inspect",
)


def inspect_log():
    """`inspect_ai.log`, imported when a test first reads a log."""
    return importlib.import_module("inspect_ai.log")


ROOT = Path(__file__).resolve().parents[2]
PRIMARY = ROOT / "conf" / "config.yaml"
RUNS = {
    # the 2x2 family with a negotiation phase: the LLM talks and commits, TFT only commits
    "talk": ["game=agentduel_split_or_steal", "agent_a=llm_default", "agent_b=tft"],
    "dice": ["game=liars_dice", "agent_a=llm_default", "agent_b=liars_random"],
    # an LLM Keeper answers both players' questions; prompts stored as their sha256 only
    "keeper": [
        "game=passcode", "keeper=llm", "agent_a=llm_default", "agent_b=passcode_halving",
        "game.options.round_limit=2", "run.store_prompts=hash",
    ],
    "judge": ["game=nuclear_war", "judge=llm", "agent_a=llm_default", "agent_b=debate_fixed"],
}  # fmt: skip


def play(runs: Path, run_id: str, *overrides: str, status: str = "complete") -> Path:
    loaded = load(
        PRIMARY,
        [*overrides, "run.replicates=2", f"run.output_dir={runs}"],
        run_id=run_id,
        project_root=ROOT,
    )
    outcome = run_experiment(loaded)
    assert outcome.status == status, outcome.error
    return outcome.run_dir


def export(run_dir: Path, *args: str) -> tuple[int | None, str, str]:
    done = run_front_door(
        "cli", ["export", str(run_dir), "--inspect", *args], cwd=run_dir.parent, env=_env()
    )
    return done.code, done.stdout, done.stderr


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("PDBENCH_RUN")}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """The four runs above, and `mixed`: the talk run's LLM against ALLD after the talk run, on
    the same cache, so each of its matches has its first round's calls answered from the cache
    (nothing in them depends on the opponent yet) and the rest bought live."""
    import os

    tmp = tmp_path_factory.mktemp("inspect_runs")
    previous = os.environ.get("PDBENCH_CACHE_DIR")
    os.environ["PDBENCH_CACHE_DIR"] = str(tmp / "cache")  # one cache for the module's runs
    try:
        made = {
            run_id: play(tmp / "runs", run_id, *overrides) for run_id, overrides in RUNS.items()
        }
        made["mixed"] = play(
            tmp / "runs", "mixed", "game=agentduel_split_or_steal", "agent_a=llm_default",
            "agent_b=alld",
        )  # fmt: skip
        # every answer invalid: each match aborts in round 1 and the run ends `aborted`
        made["aborted"] = play(
            tmp / "runs", "aborted", "agent_a=llm_default", "agent_b=tft",
            "provider.mock.invalid_rate=1.0", status="aborted",
        )  # fmt: skip
    finally:
        if previous is None:
            os.environ.pop("PDBENCH_CACHE_DIR", None)
        else:
            os.environ["PDBENCH_CACHE_DIR"] = previous
    return made


def model_events(sample) -> list:
    return [event for event in sample.events if event.event == "model"]


def read_exported(out: Path) -> dict[str, object]:
    """Every log in `out`, by its condition, read back with every sample."""
    logs = {}
    for path in sorted(out.glob("*.eval")):
        log = inspect_log().read_eval_log(str(path))
        logs[log.eval.metadata["pdbench"]["condition"]] = log
    return logs


@pytest.mark.parametrize("run_id", list(RUNS))
def test_every_family_reads_back_with_a_sample_per_match_and_an_event_per_call(
    runs, run_id, tmp_path
):
    run_dir = runs[run_id]
    code, stdout, stderr = export(run_dir, str(tmp_path / "out"))
    assert code == 0, stderr
    reader = RunReader.open(run_dir)
    manifest = reader.manifest()
    ledger = reader.ledger()
    logs = read_exported(tmp_path / "out")
    assert sorted(logs) == sorted(manifest.conditions)
    assert f"wrote {len(logs)} Inspect log" in stdout
    for condition, log in logs.items():
        assert log.status == "success"
        assert log.version == inspect_log().EvalLog.model_fields["version"].default
        entries = [entry for entry in ledger if entry.condition == condition]
        assert len(log.samples) == len(entries) == log.results.total_samples
        calls = manifest.provider_calls_by_condition[condition]
        events = [event for sample in log.samples for event in model_events(sample)]
        assert len(events) == calls.live + calls.cached > 0
        assert sum(event.cache == "read" for event in events) == calls.cached
        assert all(event.cache == "write" for event in events if event.cache != "read")
        for sample, entry in zip(log.samples, entries, strict=True):
            assert sample.id == entry.replicate
            assert sample.scores and "outcome" in sample.scores, sample.id
            assert sample.metadata["seeds"] == entry.seeds
            assert len(model_events(sample)) == entry.calls.live + entry.calls.cached
        # the resolved config, seeds, versions and spend
        spec = log.eval
        assert spec.metadata["pdbench"]["config"] == manifest.condition_config(condition)
        assert spec.metadata["pdbench"]["spend"]["live"] == calls.live
        assert spec.packages["pdbench"] and spec.run_id == manifest.run_id
        # what was paid: Inspect counts a provider's prompt-cache tokens apart from input_tokens
        usage = log.stats.model_usage.values()
        assert sum(u.input_tokens + (u.input_tokens_cache_read or 0) for u in usage) == (
            calls.input_tokens
        )
        assert sum(u.output_tokens for u in usage) == calls.output_tokens
        assert log.results.scores, "the condition's metrics"
    roles = {event.role for log in logs.values() for s in log.samples for event in model_events(s)}
    spec_roles = {role for log in logs.values() for role in log.eval.model_roles or {}}
    expected = {"agent_a", *{"keeper": ["keeper"], "judge": ["judge"]}.get(run_id, [])}
    assert roles == spec_roles == expected


def test_a_policys_moves_are_messages_not_model_events(runs, tmp_path):
    code, _, stderr = export(runs["talk"], str(tmp_path))
    assert code == 0, stderr
    (log,) = read_exported(tmp_path).values()
    # Inspect's writer stores long texts once, as attachments; its reader resolves them
    sample = inspect_log().resolve_sample_attachments(log.samples[0])
    rounds = RunReader.open(runs["talk"]).match_rounds(log.eval.metadata["pdbench"]["condition"], 0)
    by_tft = [m for m in sample.messages if (m.metadata or {}).get("seat") == "b"]
    assert len(by_tft) >= len(rounds)  # its move every round (and its silent messages)
    assert all(m.role == "assistant" and "no model call" in m.text for m in by_tft)
    assert all(event.role == "agent_a" for event in model_events(sample))
    # the LLM's stored answer is its message, and its prompt is the event's input
    first = rounds[0]["agent_a_attempts"][0]
    event = next(e for e in model_events(sample) if e.metadata["kind"] == "decision")
    assert event.input[-1].text == first["prompt"] and event.output.completion == first["raw"]


def test_hashed_prompts_carry_their_hash_and_say_so(runs, tmp_path):
    code, _, stderr = export(runs["keeper"], str(tmp_path))
    assert code == 0, stderr
    (log,) = read_exported(tmp_path).values()
    event = model_events(inspect_log().resolve_sample_attachments(log.samples[0]))[0]
    prompt = event.input[-1].text
    assert "run.store_prompts=hash" in prompt
    line = RunReader.open(runs["keeper"]).match_rounds(
        log.eval.metadata["pdbench"]["condition"], 0
    )[0]
    stored = next(d for d in line["decisions"].values() if d.get("attempts"))["attempts"][0]
    assert stored["prompt_sha256"] in prompt and stored["raw_sha256"] in event.output.completion


def test_a_match_of_live_and_cached_calls_marks_exactly_the_cached_ones(runs, tmp_path):
    code, _, stderr = export(runs["mixed"], str(tmp_path))
    assert code == 0, stderr
    (log,) = read_exported(tmp_path).values()
    for sample in log.samples:
        events = model_events(sample)
        cached = [event.metadata["round"] for event in events if event.cache == "read"]
        live = [event.metadata["round"] for event in events if event.cache != "read"]
        # round 1 is the same against any opponent; from round 2 on ALLD's defection shows
        assert cached and set(cached) == {1} and live and 1 not in live, (cached, live)


def test_an_older_runs_mixed_match_is_left_unmarked_and_said(runs, tmp_path):
    """A run written before pdbench stored which call of a mixed match was cached: its events
    carry no cache mark, and the export says so in one line (the counts stay in the metadata)."""
    import shutil

    older = tmp_path / "older"
    shutil.copytree(runs["mixed"], older)
    ledger = older / "matches.jsonl"
    lines = [orjson.loads(line) for line in ledger.read_bytes().splitlines()]
    assert all("call_sources" in line for line in lines)
    ledger.write_bytes(
        b"".join(
            orjson.dumps({k: v for k, v in line.items() if k != "call_sources"}) + b"\n"
            for line in lines
        )
    )
    code, stdout, stderr = export(older, str(tmp_path / "out"))
    assert code == 0, stderr
    assert "2 matches mix live and cached calls" in stdout + stderr
    (log,) = read_exported(tmp_path / "out").values()
    for sample in log.samples:
        assert all(event.cache is None for event in model_events(sample))
        assert sample.metadata["calls"]["cached"] > 0


def test_an_aborted_match_is_a_sample_with_its_error_and_its_last_calls(runs, tmp_path):
    """The answers of the round that ended a match are stored with its ledger line, not with a
    round: they are still model events (the match's calls), of the one role a model plays."""
    code, _, stderr = export(runs["aborted"], str(tmp_path))
    assert code == 0, stderr
    (log,) = read_exported(tmp_path).values()
    manifest = RunReader.open(runs["aborted"]).manifest()
    (calls,) = manifest.provider_calls_by_condition.values()
    assert log.status == "error" and "aborted" in log.error.message
    events = [event for sample in log.samples for event in model_events(sample)]
    assert len(events) == calls.live + calls.cached > 0
    assert {event.role for event in events} == {"agent_a"}
    for sample in log.samples:
        assert sample.error is not None and sample.metadata["status"] == "aborted"
        assert sample.scores["outcome"].answer == "none"


def test_the_default_folder_and_a_second_export_overwrites(runs):
    run_dir = runs["dice"]
    for _ in range(2):
        code, stdout, stderr = export(run_dir)
        assert code == 0, stderr
    written = sorted((run_dir / "export").glob("*.eval"))
    assert len(written) == 1 and str(written[0]) in stdout


def test_without_the_inspect_group_one_line_says_how_to_add_it(runs, tmp_path, monkeypatch):
    for name in [m for m in sys.modules if m == "inspect_ai" or m.startswith("inspect_ai.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # import inspect_ai now fails
    code, stdout, stderr = export(runs["dice"], str(tmp_path / "out"))
    assert code == 2, (stdout, stderr)
    (line,) = stderr.strip().splitlines()
    assert line.startswith("error: ") and "uv sync --group inspect" in line
    assert not (tmp_path / "out").exists()


def test_two_different_folders_are_refused_in_one_line(runs, tmp_path):
    code, _, stderr = export(runs["dice"], str(tmp_path / "one"), "--out", str(tmp_path / "two"))
    assert code == 2
    (line,) = stderr.strip().splitlines()
    assert line.startswith("error: ") and "--out" in line
    assert not (tmp_path / "one").exists() and not (tmp_path / "two").exists()


@pytest.mark.parametrize("family", ["dilemmas", "turn_games"])
def test_every_game_opens_as_an_inspect_log(family, tmp_path, monkeypatch):
    """Issue 46's done-when names every game: the golden run of each family (a condition per
    registered game, tests/golden/every_game/) exported and read back, a sample per match, a
    ModelEvent per call (a panel's LLM judge among house judges included) and a score each."""
    from docs_script import golden_script

    golden = golden_script()
    monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path / "cache"))
    run_dir = golden.run_golden(tmp_path / "runs", golden.EVERY_GAME / f"{family}.yaml")
    code, _, stderr = export(run_dir, str(tmp_path / "out"))
    assert code == 0, stderr
    reader = RunReader.open(run_dir)
    manifest, ledger = reader.manifest(), reader.ledger()
    logs = read_exported(tmp_path / "out")
    assert sorted(logs) == sorted(manifest.conditions)
    all_events = 0
    for condition, log in logs.items():
        entries = [entry for entry in ledger if entry.condition == condition]
        assert log.status == "success" and len(log.samples) == len(entries) > 0, condition
        calls = manifest.provider_calls_by_condition[condition]
        events = [event for sample in log.samples for event in model_events(sample)]
        # a condition of house players only (a group of public goods players) makes no call
        assert len(events) == calls.live + calls.cached, condition
        all_events += len(events)
        assert all(sample.scores and "outcome" in sample.scores for sample in log.samples)
    assert all_events > 0
