"""The spend journal counts every paid call (issue 27, "money miscounted"): a line torn by a kill
mid-append does not swallow the next call's line, and what a call reports is added up as written."""

from __future__ import annotations

from pdbench.storage.schema import CallCounts
from pdbench.storage.spend import SpendJournal

ONE_CALL = CallCounts(live=1, input_tokens=100, output_tokens=1, cost_usd=0.01)


def test_a_torn_last_line_does_not_swallow_the_next_paid_call(tmp_path):
    path = tmp_path / "spend.jsonl"
    first = SpendJournal(path)
    for _ in range(79):
        first.record(ONE_CALL)
    whole = path.read_bytes()
    last_line = whole[whole.rstrip(b"\n").rfind(b"\n") + 1 :]
    # A kill in the middle of the 80th append: half a line, no newline.
    path.write_bytes(whole + last_line[: len(last_line) // 2])

    resumed = SpendJournal(path)
    resumed.record(ONE_CALL, key="k", answer={"text": "C"})
    assert resumed.total().live == 80
    assert resumed.total().input_tokens == 8000
    assert SpendJournal(path).answers() == {"k": {"text": "C"}}
    # The fragment stays on a line of its own (kept for audit, never counted).
    lines = path.read_bytes().splitlines()
    assert len(lines) == 81 and not lines[79].endswith(b"}")


def test_what_a_call_was_said_to_be_is_counted(tmp_path):
    journal = SpendJournal(tmp_path / "spend.jsonl")
    journal.record(CallCounts(live=1, impossible_usage=1, unknown_price=1))
    journal.record(CallCounts(live=1, other_model=1, cost_usd=0.5))
    journal.record(ONE_CALL)
    total = SpendJournal(tmp_path / "spend.jsonl").total()
    assert (total.live, total.impossible_usage, total.other_model) == (3, 1, 1)
    assert total.paid().to_json()["other_model"] == 1


def test_a_sweeps_jobs_write_their_own_journals_and_count_all_of_them(tmp_path):
    """Jobs on other machines: no file has two writers, and the budget counts every job."""
    from pdbench.storage.spend import sweep_job_journal

    first = sweep_job_journal(tmp_path, "job-a", "agent_b=tft")
    second = sweep_job_journal(tmp_path, "job-b", "agent_b=alld")
    first.record(ONE_CALL)
    second.record(ONE_CALL)
    second.record(ONE_CALL)
    assert sorted(p.name for p in (tmp_path / "spend").iterdir()) == ["job-a.jsonl", "job-b.jsonl"]
    assert len((tmp_path / "spend" / "job-a.jsonl").read_bytes().splitlines()) == 1
    assert first.total().live == 3 and second.total().live == 3
    assert first.total_of("agent_b=tft").live == 1
    assert second.total_of("agent_b=alld").live == 2


def test_a_sweeps_summary_says_what_its_budget_guarantees():
    from pdbench.cli.report import notes
    from pdbench.storage.manifest import RunManifest

    config = {c: {"run": {"max_cost_usd": 5.0}} for c in ("agent_b=tft", "agent_b=alld")}
    sweep = RunManifest(run_id="s", kind="sweep", config=config, conditions=sorted(config))
    (line,) = [n for n in notes(sweep) if n.startswith("budget:")]
    assert "$5.0000 for all 2 jobs of the sweep together" in line
    assert "calls other jobs have in flight" in line
    single = RunManifest(run_id="r", config={"run": {"max_cost_usd": 5.0}})
    assert not [n for n in notes(single) if n.startswith("budget:")]


def test_a_model_not_estimated_before_the_run_is_not_said_to_cost_nothing():
    """A turn game's calls are not estimated before the run (issue 40 found its summary saying
    "0 calls, 0 input tokens" beside what was spent)."""
    from pdbench.cli.report import notes
    from pdbench.storage.manifest import RunManifest

    estimate = {
        "model": "openai/gpt-4o-mini",
        "calls_expected": 0,
        "input_tokens_expected": 0,
        "price": "not estimated: liars_dice is a turn-based game",
    }
    run = RunManifest(run_id="r", estimate=[estimate])
    (line,) = [n for n in notes(run) if n.startswith("estimate before the run")]
    assert "openai/gpt-4o-mini: not estimated (liars_dice is a turn-based game)" in line
    assert "0 calls" not in line
