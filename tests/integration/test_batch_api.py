"""Issue 46, batch APIs: a sweep sent as OpenAI batches through real litellm, against a local Batch
API on 127.0.0.1 (batch_stub_server.py) that answers a request with the same text on both paths.

- the batch run plays the rounds of the immediate run, one batch per round of every pending match
  (lockstep), at half the spend;
- a batch that expires with requests unanswered: they go into the next batch, each counted once;
- a run killed (SIGKILL, a real process) between a batch's submission and its completion: `pdbench
  runs` shows it in progress, `pdbench batch-status` polls it without playing and stores its
  answers, and the resumed run submits nothing twice;
- a run stopped after the provider created a batch but before its id was journaled finds the
  batch by its metadata instead of buying the round again;
- the budget is checked before each batch.

Each command runs in this process (tests/in_process.py) except the one that is killed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from batch_stub_server import COMPLETION_TOKENS, PROMPT_TOKENS, BatchStubServer
from in_process import run_front_door
from killed_runs import KilledRun
from project_copy import command_env
from stub_http import stub_fixtures

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/gpt-4o-mini"  # priced by litellm's map, with batch prices
FAST_POLLS = "run.batch_poll_s=0.02"

server, stub = stub_fixtures(BatchStubServer, import_litellm=True)


def _args(stub, tmp_path: Path, run_id: str, *more: str) -> list[str]:
    """`pdbench run conf/experiment.yaml` on the stub: its two LLM conditions (one at temperature
    0, whose two replicates share each prompt, one at 0.7, a sample per replicate), 2 rounds, 2
    replicates: 3 requests a round."""
    return [
        "run",
        "conf/experiment.yaml",
        "provider=openai",
        f"provider.model={MODEL}",
        f"provider.api_base={stub.api_base}",
        "horizon.rounds=2",
        "run.replicates=2",
        f"run.output_dir={tmp_path / 'runs'}",
        "--run-id",
        run_id,
        "-q",
        *more,
    ]


def _env(tmp_path: Path, cache: str) -> dict[str, str]:
    """A replay cache per run: the batch run must buy its answers, not replay the other's."""
    return {
        **command_env(tmp_path),
        "PDBENCH_CACHE_DIR": str(tmp_path / cache),
        "OPENAI_API_KEY": "dummy",
    }


def _run(stub, tmp_path: Path, run_id: str, *more: str, cache: str | None = None):
    args = _args(stub, tmp_path, run_id, *more)
    return run_front_door("cli", args, cwd=ROOT, env=_env(tmp_path, cache or run_id))


def _cli(tmp_path: Path, *args: str, cache: str = "cache"):
    return run_front_door("cli", list(args), cwd=ROOT, env=_env(tmp_path, cache))


def _manifest(tmp_path: Path, run_id: str) -> dict:
    return json.loads((tmp_path / "runs" / run_id / "run_manifest.json").read_text())


def _spend_lines(tmp_path: Path, run_id: str) -> list[dict]:
    text = (tmp_path / "runs" / run_id / "spend.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


# What may differ between the two paths: when a round was stored, the provider's id of each
# answer, and its price (the batch rate is half).
VARYING = {"timestamp_utc", "response_id", "cost_usd", "run_id"}


def _played(tmp_path: Path, run_id: str) -> list[dict]:
    """rounds.jsonl without what may differ between the paths: the moves, payoffs, prompts and
    every attempt's answer."""

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in VARYING}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    text = (tmp_path / "runs" / run_id / "rounds.jsonl").read_text()
    return [strip(json.loads(line)) for line in text.splitlines()]


@pytest.fixture(scope="module")
def immediate(server, tmp_path_factory) -> tuple[Path, dict, list[dict]]:
    """The experiment played by the immediate path once: (folder, spend, rounds)."""
    tmp = tmp_path_factory.mktemp("immediate")
    server.reset()
    done = run_front_door("cli", _args(server, tmp, "now"), cwd=ROOT, env={**_env(tmp, "now")})
    assert done.code == 0, done.stderr
    assert server.state.creates == [] and len(server.state.chat_requests) == 6
    return tmp, _manifest(tmp, "now")["spend"], _played(tmp, "now")


def test_a_batch_run_plays_the_immediate_rounds_in_lockstep_at_half_the_spend(
    tmp_path, stub, immediate
):
    _, spend_now, rounds_now = immediate
    done = _run(stub, tmp_path, "batch", "--batch", FAST_POLLS)
    assert done.code == 0, done.stderr
    assert stub.state.chat_requests == []  # every call went into a batch
    # one batch per round, holding the request of every pending match (3 distinct prompts)
    assert [len(ids) for ids in stub.state.creates] == [3, 3]
    assert len(set(stub.state.submitted_ids())) == 6
    assert _played(tmp_path, "batch") == rounds_now
    spend = _manifest(tmp_path, "batch")["spend"]
    assert spend["live"] == spend_now["live"] == 6
    assert spend["cost_usd"] == pytest.approx(spend_now["cost_usd"] / 2)
    # the estimate before the run is at the batch rate too, and the summary sets it beside
    (estimate,) = _manifest(tmp_path, "batch")["estimate"]
    assert estimate["batch_price_usd_expected"] == pytest.approx(estimate["price_usd_expected"] / 2)
    summary = next(x for x in done.stdout.splitlines() if x.startswith("estimate before"))
    assert f"${estimate['batch_price_usd_expected']:.4f} expected" in summary
    # at the map's batch rates, line by line, each naming its batch
    lines = _spend_lines(tmp_path, "batch")
    assert {line["batch_id"] for line in lines} == {"batch_0", "batch_1"}
    for line in lines:
        assert line["cost_usd"] == pytest.approx(
            PROMPT_TOKENS * 0.075e-6 + COMPLETION_TOKENS * 0.3e-6
        )


def test_requests_of_an_expired_batch_go_into_the_next_one_and_are_counted_once(
    tmp_path, stub, immediate
):
    _, spend_now, rounds_now = immediate
    stub.state.expire_next = 2  # the first batch ends with 2 of its 3 requests unanswered
    done = _run(stub, tmp_path, "expired", "run.batch=true", FAST_POLLS)
    assert done.code == 0, done.stderr
    first, *later = stub.state.creates
    unanswered = first[1:]  # the stub leaves the last lines unanswered
    retried = [i for batch in later for i in batch if i in first]
    assert sorted(retried) == sorted(unanswered)  # each once more, in the next batch
    assert set(unanswered) <= set(later[0])
    assert _played(tmp_path, "expired") == rounds_now
    lines = _spend_lines(tmp_path, "expired")
    assert len(lines) == len({line["key"] for line in lines}) == 6  # each answer paid once
    assert _manifest(tmp_path, "expired")["spend"]["cost_usd"] == pytest.approx(
        spend_now["cost_usd"] / 2
    )


def test_a_run_killed_while_its_batch_runs_is_polled_then_resumed_without_buying_twice(
    tmp_path, stub, immediate
):
    _, spend_now, rounds_now = immediate
    stub.state.hold = True  # the batch stays in progress until released
    args = _args(stub, tmp_path, "killed", "--batch", FAST_POLLS)
    killed = KilledRun(
        args,
        more_than=0,
        log=tmp_path / "killed.log",
        env=_env(tmp_path, "cache"),
        after="batch-submitted",
    )
    killed.wait_for_kill()
    assert len(stub.state.creates) == 1  # submitted, journaled, then killed

    listed = _cli(tmp_path, "runs", str(tmp_path / "runs"))
    assert listed.code == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if line.startswith("killed"))
    assert "batches: 1 submitted" in row

    polled = _cli(tmp_path, "batch-status", str(tmp_path / "runs" / "killed"))
    assert polled.code == 0, polled.stderr
    assert "batch 0 batch_0: in_progress, 3 requests" in polled.stdout
    assert not (tmp_path / "runs" / "killed" / "spend.jsonl").exists()  # nothing answered yet

    stub.release()
    polled = _cli(tmp_path, "batch-status", str(tmp_path / "runs" / "killed"))
    assert polled.code == 0, polled.stderr
    assert "batch 0 batch_0: completed, 3 answers stored" in polled.stdout
    assert len(_spend_lines(tmp_path, "killed")) == 3  # stored without playing
    assert len(stub.state.creates) == 1

    resumed = run_front_door("cli", args, cwd=ROOT, env=_env(tmp_path, "cache"))
    assert resumed.code == 0, resumed.stderr
    assert len(stub.state.creates) == 2  # round 2 only
    assert len(stub.state.submitted_ids()) == len(set(stub.state.submitted_ids())) == 6
    assert _played(tmp_path, "killed") == rounds_now
    spend = _manifest(tmp_path, "killed")["spend"]
    assert spend["live"] == 6
    assert spend["cost_usd"] == pytest.approx(spend_now["cost_usd"] / 2)
    listed = _cli(tmp_path, "runs", str(tmp_path / "runs"))
    row = next(line for line in listed.stdout.splitlines() if line.startswith("killed"))
    assert "batches: 2 done" in row


def test_a_batch_created_before_its_id_was_journaled_is_found_not_bought_again(
    tmp_path, stub, immediate, monkeypatch
):
    from pdbench.storage.batch_journal import BatchJournal

    _, _, rounds_now = immediate
    stub.state.hold = True

    def killed_before_the_id_is_written(*_args, **_kwargs):
        raise KeyboardInterrupt  # as a kill at this instant leaves the journal: intent, no id

    monkeypatch.setattr(BatchJournal, "submitted", killed_before_the_id_is_written)
    stopped = _run(stub, tmp_path, "lost", "--batch", FAST_POLLS, cache="cache")
    assert stopped.code == 130, stopped.stderr
    assert len(stub.state.creates) == 1
    monkeypatch.undo()

    stub.release()
    resumed = _run(stub, tmp_path, "lost", "--batch", FAST_POLLS, cache="cache")
    assert resumed.code == 0, resumed.stderr
    assert len(stub.state.creates) == 2  # the first was found by its metadata, not sent again
    assert len(stub.state.submitted_ids()) == len(set(stub.state.submitted_ids())) == 6
    assert _played(tmp_path, "lost") == rounds_now


def test_a_create_whose_answer_was_lost_is_found_before_it_is_tried_again(
    tmp_path, stub, immediate
):
    _, _, rounds_now = immediate
    stub.state.lose_next_create = True  # created, but the client hears a 500
    done = _run(stub, tmp_path, "lost-answer", "--batch", FAST_POLLS)
    assert done.code == 0, done.stderr
    assert [len(ids) for ids in stub.state.creates] == [3, 3]  # not created twice
    assert _played(tmp_path, "lost-answer") == rounds_now


def test_the_budget_is_checked_before_each_batch(tmp_path, stub):
    per_batch = 3 * (PROMPT_TOKENS * 0.075e-6 + COMPLETION_TOKENS * 0.3e-6)
    done = _run(
        stub, tmp_path, "budget", "--batch", FAST_POLLS, f"run.max_cost_usd={per_batch * 0.99}"
    )
    assert done.code == 4, done.stderr  # stopped by the budget
    assert len(stub.state.creates) == 1
    assert "cost budget spent" in done.stderr


def test_a_provider_without_batches_is_said_once_and_called_one_by_one(tmp_path, stub):
    """The offline mock (as any provider pdbench sends no batches to): the run plays as it would
    without --batch, and says so once."""
    args = [
        "run",
        "conf/config.yaml",
        "agent_a=llm_default",
        "agent_b=tft",
        "horizon.rounds=3",
        "run.replicates=2",
        f"run.output_dir={tmp_path / 'runs'}",
        "-q",
    ]
    env = _env(tmp_path, "mock")
    plain = run_front_door("cli", [*args, "--run-id", "plain"], cwd=ROOT, env=env)
    batch = run_front_door(
        "cli", [*args, "--run-id", "batch", "--batch"], cwd=ROOT, env=_env(tmp_path, "mock2")
    )
    assert plain.code == batch.code == 0, batch.stderr
    said = [line for line in batch.stderr.splitlines() if "run.batch" in line]
    assert said == [
        "warning: run.batch: mock: the mock provider answers offline: there is no batch API "
        "to send to; its calls are made one by one, at the immediate price"
    ]
    assert _played(tmp_path, "batch") == _played(tmp_path, "plain")
    assert stub.state.creates == [] and not (tmp_path / "runs" / "batch" / "batches.jsonl").exists()


def test_a_server_without_a_batch_api_stops_the_run_in_one_line(tmp_path, stub):
    stub.state.no_batch_api = True
    done = _run(stub, tmp_path, "nobatch", "--batch", FAST_POLLS)
    assert done.code == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "has no Batch API" in errors[0] and "without run.batch" in errors[0]
    assert stub.state.creates == [] and stub.state.chat_requests == []
