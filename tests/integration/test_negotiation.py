"""Negotiation before the commit (issue 19), end to end through real runs: AgentDuel's turn order
for an arena agent written as the platform's docs show, the mock LLM negotiating (and replaying
for free), lying and honest canned policies, the limits, resume, and the viewer's match tab."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import orjson
import pandas as pd
import pytest
from in_process import run_front_door
from streamlit.testing.v1 import AppTest

from pdbench.games.matrix.stored import as_rounds
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load
from pdbench.ui.loaders import RUN_DIR_ENV

ROOT = Path(__file__).resolve().parents[2]
PRIMARY = ROOT / "conf" / "config.yaml"
ARENA = ROOT / "tests" / "fixtures" / "arena"
PRESET = "game=agentduel_split_or_steal"


def run(tmp_path: Path, overrides: list[str], run_id: str = "talk", replicates: int = 1) -> Path:
    loaded = load(
        PRIMARY,
        [
            *overrides,
            f"run.output_dir={tmp_path / 'runs'}",
            f"run.run_id={run_id}",
            f"run.replicates={replicates}",
        ],
        project_root=ROOT,
    )
    outcome = run_experiment(loaded)
    assert outcome.status == "complete", outcome.error
    return outcome.run_dir


def rounds_of(run_dir: Path) -> list[dict]:
    stored = (run_dir / "rounds.jsonl").read_bytes().splitlines()
    return list(as_rounds(orjson.loads(line) for line in stored))  # the talk turns as rounds


def without_times(rounds: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "timestamp_utc"} for r in rounds]


def replicate_row(run_dir: Path) -> pd.Series:
    table = pd.read_parquet(run_dir / "aggregates.parquet")
    return table[table["level"] == "replicate"].iloc[0]


def test_an_agent_written_as_the_platform_shows_plays_in_the_platforms_turn_order(tmp_path):
    run_dir = run(
        tmp_path,
        [
            PRESET,
            "agent_a=allc",
            '+agent_a.messages=["hello","bye"]',
            "agent_b=arena",
            f"agent_b.path={ARENA / 'platform_negotiator.py'}",
        ],
    )
    rounds = rounds_of(run_dir)
    assert [r["round_index"] for r in rounds] == [1, 2, 3, 4, 5]
    for record in rounds:
        number, talk = record["round_index"], record["conversation"]
        first = "a" if number % 2 == 1 else "b"  # A opens round 1, then the opener alternates
        second = "b" if first == "a" else "a"
        assert [m["speaker"] for m in talk] == [first, second, first, second]
        assert [m["turn"] for m in talk] == [1, 2, 3, 4]
        # The canned policy says its lines in order, once each, on its two turns.
        assert [m["text"] for m in talk if m["speaker"] == "a"] == ["hello", "bye"]
        # The arena agent spoke twice, and each time had heard the opponent's messages so far.
        spoken = [m for m in talk if m["speaker"] == "b"]
        heard = [[t for t in ("hello", "bye")[: (m["turn"] - (first == "b")) // 2]] for m in spoken]
        assert [m["text"] for m in spoken] == [
            f"round {number} turn {m['turn']} heard [{'|'.join(h)}] spellings True"
            for m, h in zip(spoken, heard, strict=True)
        ]
        # Two on_turn calls to negotiate, then one to commit, which saw the whole conversation.
        assert [len(m["attempts"]) for m in spoken] == [1, 1]
        assert [a["response"]["type"] for a in record["agent_b_attempts"]] == ["commit"]
        assert record["agent_b_action"] == "C"
        assert not any(m[mark] for m in talk for mark in ("cut", "timeout", "invalid"))


def test_the_mock_llm_negotiates_and_a_replay_makes_no_live_call(tmp_path, monkeypatch):
    overrides = [
        PRESET,
        "agent_a=llm_default",
        "agent_b=arena",
        "agent_b.path=examples/agents/negotiator.py",
    ]
    first = run(tmp_path, overrides, run_id="live", replicates=2)
    rounds = rounds_of(first)
    said = [m for r in rounds for m in r["conversation"] if m["speaker"] == "a"]
    assert len(said) == 2 * 2 * 5  # two messages a round, five rounds, two replicates
    assert all(m["text"] == "I will split." and m["promise"] for m in said)
    # Each message is a provider call whose prompt shows what was said before it.
    assert all(len(m["attempts"]) == 1 for m in said)
    later = next(m for m in said if m["turn"] == 3)
    assert 'The other player: "I will split. If you split too' in later["attempts"][0]["prompt"]
    # The commit prompt shows the whole conversation.
    assert "Messages this round:" in rounds[0]["agent_a_attempts"][0]["prompt"]
    manifest = orjson.loads((first / "run_manifest.json").read_bytes())
    assert manifest["provider_calls"]["live"] == 2 * 5 * 3  # 2 messages + 1 commit a round

    again = run(tmp_path, [*overrides, "run.cache.mode=replay"], run_id="replay", replicates=2)
    replay_manifest = orjson.loads((again / "run_manifest.json").read_bytes())
    assert replay_manifest["provider_calls"]["live"] == 0
    assert replay_manifest["provider_calls"]["cached"] == 2 * 5 * 3

    def same(rounds: list[dict]) -> list[dict]:
        """What must not change: all but the run id and the clock (times and the arena agent's
        elapsed seconds per turn)."""
        kept = [{k: v for k, v in r.items() if k != "run_id"} for r in without_times(rounds)]
        for record in kept:
            hooks = [*record["agent_b_attempts"]]
            hooks += [a for m in record["conversation"] for a in m.get("attempts", ())]
            for attempt in hooks:
                attempt.pop("elapsed_s", None)
        return kept

    assert same(rounds_of(again)) == same(rounds)


def test_a_lying_policy_keeps_no_promise_and_an_honest_one_keeps_all(tmp_path):
    run_dir = run(
        tmp_path,
        [
            PRESET,
            "agent_a=alld",
            '+agent_a.messages=["I will split."]',  # and steals every round: a liar
            "agent_b=allc",
            '+agent_b.messages=["I will split."]',  # and splits every round
        ],
    )
    row = replicate_row(run_dir)
    assert row["promise_share_a"] == row["promise_share_b"] == 1.0
    assert row["promise_keeping_a"] == 0.0
    assert row["promise_keeping_b"] == 1.0
    assert row["messages_a"] == row["messages_b"] == 5.0
    assert row["message_length_a"] == len("I will split.")


def test_talk_metrics_are_null_without_promises_or_without_talk(tmp_path):
    silent = replicate_row(run(tmp_path, [PRESET, "agent_a=alld", "agent_b=allc"], "silent"))
    assert silent["messages_a"] == 0.0
    assert pd.isna(silent["message_length_a"])  # said nothing
    assert silent["promise_share_a"] == 0.0
    assert pd.isna(silent["promise_keeping_a"])  # never promised
    classic = replicate_row(run(tmp_path, ["agent_a=alld", "agent_b=allc"], "classic"))
    for stem in ("messages", "message_length", "promise_share", "promise_keeping"):
        assert pd.isna(classic[f"{stem}_a"]), stem  # no negotiation phase: nothing to measure


def test_limits_cut_timeout_and_answers_of_the_wrong_kind(tmp_path):
    run_dir = run(
        tmp_path,
        [
            PRESET,
            "game.negotiation.message_timeout_s=0.5",
            "agent_a=arena",
            f"agent_a.path={ARENA / 'rule_breaker.py'}",
            "agent_b=allc",
        ],
    )
    rounds = rounds_of(run_dir)

    def said_by_a(number: int) -> list[dict]:
        return [m for m in rounds[number - 1]["conversation"] if m["speaker"] == "a"]

    # Round 1: 1,000 characters are cut to 280 and marked.
    for message in said_by_a(1):
        assert message["text"] == "x" * 280
        assert message["cut"] and not message["empty"]
    # Round 2: the first turn times out (the process is killed, a fresh one answers the next).
    timed_out = said_by_a(2)[0]
    assert timed_out["text"] == "" and timed_out["empty"] and timed_out["timeout"]
    assert "did not return within 0.5 s" in timed_out["error"]
    # Round 3: a commit while negotiating is invalid and says nothing, like a timeout.
    for message in said_by_a(3):
        assert message["text"] == "" and message["empty"] and message["invalid"]
        assert not message["timeout"]
    # Round 4: a message at the commit is invalid and plays the timeout action (split).
    round_4 = rounds[3]
    assert round_4["agent_a_action"] == "C"
    assert round_4["agent_a_invalid_outputs"] == 1 and round_4["agent_a_fallback"]
    assert "in the commit phase, got a message" in round_4["agent_a_error"]
    assert rounds[4]["agent_a_action"] == "D" and not rounds[4]["agent_a_fallback"]


def test_a_round_prompt_without_the_conversation_is_refused_when_the_game_talks(tmp_path):
    template = tmp_path / "round.md"
    template.write_text("Round {round_index}. {answer_instruction}")
    with pytest.raises(Exception, match=r"does not show \{conversation\}"):
        load(
            PRIMARY,
            [PRESET, "agent_a=llm_default", f"agent_a.round_prompt={template}"],
            project_root=ROOT,
        )


# --- resume --------------------------------------------------------------------------------------

RESUME = ROOT / "tests" / "fixtures" / "experiments" / "negotiation_resume.yaml"


@pytest.mark.slow
def test_a_killed_negotiation_run_resumes_to_the_uninterrupted_rounds(tmp_path, monkeypatch):
    config = RESUME
    out = tmp_path / "runs"
    monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path / "cache_ref"))
    # The uninterrupted reference without the mock's 0.03 s a call (about 4 s of sleeping): the
    # latency is no part of an answer or its cache key (MockBehaviour.key_items); the killed and
    # resumed command keep it, so the kill lands mid-run.
    reference = run_experiment(
        load(
            config,
            [f"run.output_dir={out}", "provider.mock.latency_s=0"],
            run_id="ref",
            project_root=ROOT,
        )
    )
    assert reference.status == "complete"

    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache_cli")}
    command = ["uv", "run", "--no-sync", "pdbench", "run", str(config)]
    command += [f"run.output_dir={out}", "--run-id", "r", "-q"]
    ledger = out / "r" / "matches.jsonl"
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if ledger.exists() and ledger.read_bytes().count(b"\n") >= 2:
            os.killpg(process.pid, signal.SIGKILL)
            break
        time.sleep(0.01)
    process.wait(timeout=10)
    stored = ledger.read_bytes().count(b"\n")
    assert 2 <= stored < 12, f"killed with {stored} of 12 matches stored"

    # The kill is the process's business, the resume is not: the same command resumes in this
    # process (run_front_door: pdbench's entry with the same argv, folder and environment), which
    # saves a second interpreter's imports; its exit code is still the command's.
    resumed = run_front_door("cli", command[4:], cwd=ROOT, env=env)
    assert resumed.code == 0, resumed.stdout + resumed.stderr

    def strip(rounds: list[dict]) -> list[dict]:
        return [{k: v for k, v in r.items() if k != "run_id"} for r in without_times(rounds)]

    got, want = rounds_of(out / "r"), rounds_of(out / "ref")
    assert strip(got) == strip(want)
    assert any(m["text"] for r in got for m in r["conversation"])
    # Every stored call (commits and messages) is counted once, live or from the cache; the
    # killed attempt's answers came back from the cache.
    calls = orjson.loads((out / "r" / "run_manifest.json").read_bytes())["provider_calls"]
    stored_calls = sum(len(r.get(f"agent_{side}_attempts", ())) for r in got for side in "ab")
    stored_calls += sum(len(m.get("attempts", ())) for r in got for m in r["conversation"])
    assert calls["live"] + calls["cached"] == stored_calls
    assert calls["cached"] > 0
    pd.testing.assert_frame_equal(
        pd.read_parquet(out / "r" / "aggregates.parquet").drop(columns="run_id"),
        pd.read_parquet(out / "ref" / "aggregates.parquet").drop(columns="run_id"),
    )


# --- the viewer ----------------------------------------------------------------------------------


def test_the_match_tab_shows_the_conversation_beside_each_round(tmp_path, monkeypatch):
    run_dir = run(
        tmp_path,
        [PRESET, "agent_a=alld", '+agent_a.messages=["Trust me, I will split."]', "agent_b=tft"],
    )
    monkeypatch.setenv(RUN_DIR_ENV, str(run_dir))
    app = AppTest.from_file(str(ROOT / "pdbench" / "ui" / "app.py"), default_timeout=60).run()
    assert not app.exception, [e.value for e in app.exception]
    assert any(m.value == "##### Conversation per round" for m in app.markdown)
    shown = "\n".join(m.value for m in app.markdown)
    assert shown.count("Trust me, I will split.") == 5  # once beside each of the 5 rounds
    assert "**Round 5**" in shown
    cards = {m.label: m.value for m in app.metric}
    assert cards["Promise keeping · A"] == "0.00"


def test_the_preset_sets_five_rounds_and_an_experiment_file_is_told_to_copy_it(tmp_path):
    condition = load(PRIMARY, [PRESET], project_root=ROOT).spec.conditions[0]
    assert condition.horizon.rounds == 5 and condition.game.id == "split_or_steal"
    talk = condition.game.negotiation
    assert (talk.exchanges, talk.max_chars, talk.first_speaker) == (2, 280, "alternate")
    assert talk.message_timeout_s == 15.0 and talk.timeout_message == ""
    experiment = tmp_path / "experiment.yaml"
    experiment.write_text("conditions:\n  - {name: x, agent_a: tft, agent_b: alld}\n")
    with pytest.raises(Exception, match="a command-line preset that also sets horizon"):
        load(experiment, [PRESET], project_root=ROOT)


def test_canned_messages_without_a_negotiation_phase_are_refused():
    with pytest.raises(Exception, match=r"agent_a\.messages: this game has no negotiation phase"):
        load(PRIMARY, ["agent_a=alld", '+agent_a.messages=["I will split."]'], project_root=ROOT)


def test_a_one_megabyte_message_is_cut_to_the_limit_and_marked_not_dropped(tmp_path):
    """Issue 27: docs/cheap-talk.md promises a long message is cut and marked; a 1 MB one (beyond
    what a worker's reply may carry) was dropped and marked invalid instead."""
    talker = tmp_path / "talker.py"
    talker.write_text(
        "class Agent:\n"
        "    def on_turn(self, state):\n"
        "        if state['phase'] == 'negotiate':\n"
        "            return {'type': 'message', 'text': 'y' * 1_000_000}\n"
        "        return {'type': 'commit', 'choice': 'split'}\n"
    )
    run_dir = run(tmp_path, [PRESET, "agent_a=arena", f"agent_a.path={talker}", "agent_b=allc"])
    said = [m for r in rounds_of(run_dir) for m in r["conversation"] if m["speaker"] == "a"]
    assert said
    for message in said:
        assert message["text"] == "y" * 280, message["text"][:40]
        assert message["cut"] and not message["invalid"] and not message["empty"]
    # the talk turn's action is stored as delivered (record version 2), not the 1 MB answer again
    lines = [orjson.loads(line) for line in (run_dir / "rounds.jsonl").read_bytes().splitlines()]
    told = [
        line["actions"]["a"]["text"]
        for line in lines
        if line["phase"] == "talk" and line["seats"] == ["a"]
    ]
    assert told and all(text == "y" * 280 for text in told if text)
