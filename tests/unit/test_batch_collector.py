"""Issue 46: what goes into a batch (providers/batching.py) and what becomes of it
(providers/batch_follow.py), with the provider's batch API replaced by a scripted one in this
process: matches advance in lockstep (one batch per round of every pending match), a match busy
elsewhere is waited for, requests a batch left unanswered go into the next one, and the batch
journal says each batch's progress (storage/batch_journal.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pdbench.config.schema import ProviderSpec
from pdbench.core.errors import BudgetExhausted
from pdbench.providers.base import Completion, CompletionRequest
from pdbench.providers.batch_follow import BatchFollower
from pdbench.providers.batching import BatchCollector
from pdbench.providers.openai_batches import BatchState, LineFailure
from pdbench.storage.batch_journal import BATCH_FILE, BatchJournal, batch_progress

SPEC = ProviderSpec(name="litellm", model="openai/gpt-4o-mini")


class ScriptedBatches:
    """A batch API that ends every batch at its first retrieve, answering each request with its
    prompt; `unanswered` custom_ids are left out of the next batch to end (expired)."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.unanswered: set[str] = set()

    def request_line(self, request: CompletionRequest, key: str) -> dict:
        return {"custom_id": key, "body": request.prompt}

    async def submit(self, lines: list[dict], tag: str) -> tuple[str, str]:
        self.batches.append([line["custom_id"] for line in lines])
        return f"batch_{len(self.batches) - 1}", "file-in"

    async def retrieve(self, batch_id: str) -> BatchState:
        return BatchState(batch_id, "completed", None, None, 0, 0, 0, "")

    async def results(self, state: BatchState) -> tuple[dict, dict]:
        keys = self.batches[int(state.id.split("_")[1])]
        left, self.unanswered = self.unanswered, set()
        answers = {k: {"text": f"answer to {k}"} for k in keys if k not in left}
        return answers, {k: LineFailure(True, "batch_expired") for k in keys if k in left}

    def to_completion(self, body: dict) -> Completion:
        return Completion(text=body["text"], cost_usd=0.5)

    def cost(self, *_: int) -> float:
        return 0.5


def _collector(
    tmp_path: Path, api: ScriptedBatches, already: set[str] = frozenset(), **kwargs
) -> tuple[BatchCollector, list]:
    stored: list[tuple[str, str]] = []

    def store(model: str, key: str, completion: Completion, batch_id: str) -> Completion:
        stored.append((key, batch_id))
        return completion

    journal = BatchJournal(tmp_path / BATCH_FILE)
    follower = BatchFollower(
        journal,
        poll_s=0.0,
        store=store,
        billed=lambda *_: None,
        already_stored=lambda _: set(already),
        api_for=lambda _: api,  # type: ignore[arg-type, return-value]
        again=lambda request: collector.again(request),
    )
    collector = BatchCollector(
        follower,
        run_label="run",
        source=None,
        submit=True,
        check=kwargs.pop("check", lambda: None),
        warn=lambda _: None,
        settle_s=0.01,
        quiet_s=kwargs.pop("quiet_s", 3600.0),
    )
    return collector, stored


def _request(prompt: str) -> CompletionRequest:
    return CompletionRequest(
        provider="litellm",
        model=SPEC.model,
        api_base=None,
        system="",
        messages=(("user", prompt),),
        temperature=0.0,
        max_tokens=4,
    )


async def _match(collector: BatchCollector, name: str, rounds: int, busy_s: float = 0.0) -> None:
    """A match: each round asks one question depending on the last answer."""
    with collector.member():
        answer = ""
        for number in range(rounds):
            if busy_s and number == 1:
                await asyncio.sleep(busy_s)  # an arena agent thinking, before its next question
            prompt = f"{name} round {number} after {answer!r}"
            answer = (await collector.answer(SPEC, _request(prompt), prompt)).text


def test_matches_advance_in_lockstep_one_batch_per_round(tmp_path):
    api = ScriptedBatches()
    collector, stored = _collector(tmp_path, api)

    async def sweep():
        await collector.ready()
        await asyncio.gather(*(_match(collector, f"m{i}", rounds=3) for i in range(5)))

    asyncio.run(sweep())
    assert [len(batch) for batch in api.batches] == [5, 5, 5]
    assert [key.split()[1:3] for key in api.batches[1]] == [["round", "1"]] * 5
    assert len(stored) == 15
    assert batch_progress(tmp_path) == "batches: 3 done"


def test_a_match_busy_elsewhere_is_waited_for(tmp_path):
    api = ScriptedBatches()
    collector, _ = _collector(tmp_path, api)

    async def sweep():
        await collector.ready()
        await asyncio.gather(
            _match(collector, "quick", rounds=2), _match(collector, "slow", rounds=2, busy_s=0.1)
        )

    asyncio.run(sweep())
    assert [len(batch) for batch in api.batches] == [2, 2]  # round 2 waited for the slow one


def test_unanswered_requests_go_into_the_next_batch_and_are_stored_once(tmp_path):
    api = ScriptedBatches()
    collector, stored = _collector(tmp_path, api)
    api.unanswered = {"m0 round 0 after ''"}

    async def sweep():
        await collector.ready()
        await asyncio.gather(*(_match(collector, f"m{i}", rounds=2) for i in range(2)))

    asyncio.run(sweep())
    first, second = api.batches[:2]
    assert "m0 round 0 after ''" in first and "m0 round 0 after ''" in second
    assert len(stored) == len({key for key, _ in stored}) == 4
    journaled = BatchJournal(tmp_path / BATCH_FILE).batches()
    assert journaled[0].unanswered == ("m0 round 0 after ''",)
    assert all(batch.collected for batch in journaled)


def test_answers_a_killed_collection_journaled_are_not_stored_twice(tmp_path):
    """A batch collected again (a kill between its answers' spend lines and its `collected`
    line): what the spend journal holds of it is handed out, not stored (paid) again."""
    api = ScriptedBatches()
    collector, stored = _collector(tmp_path, api, already={"m0 round 0 after ''"})

    async def sweep():
        await collector.ready()
        await asyncio.gather(*(_match(collector, f"m{i}", rounds=1) for i in range(2)))

    asyncio.run(sweep())
    assert [key for key, _ in stored] == ["m1 round 0 after ''"]


def test_no_batch_is_submitted_once_the_budget_is_spent(tmp_path):
    api = ScriptedBatches()

    def spent():
        if api.batches:
            raise BudgetExhausted("cost budget spent")

    collector, _ = _collector(tmp_path, api, check=spent)

    async def sweep():
        await collector.ready()
        return await asyncio.gather(_match(collector, "m", rounds=3), return_exceptions=True)

    (outcome,) = asyncio.run(sweep())
    assert isinstance(outcome, BudgetExhausted) and len(api.batches) == 1


def test_the_journal_tells_each_batchs_progress_and_skips_a_torn_line(tmp_path):
    journal = BatchJournal(tmp_path / BATCH_FILE)
    for seq in range(4):
        journal.intent(seq, run_label="r", provider={"model": "m"}, source=None, keys=[f"k{seq}"])
    journal.submitted(1, "batch_1", "file")
    journal.submitted(2, "batch_2", "file")
    journal.status(2, "in_progress")
    journal.submitted(3, "batch_3", "file")
    journal.collected(3, "expired", ["k3"])
    with journal.path.open("ab") as handle:
        handle.write(b'{"event": "submitted", "seq": 0, "batch')  # a kill mid-write
    states = [batch.progress for batch in journal.batches()]
    assert states == ["submitting", "submitted", "in progress", "done"]
    assert journal.next_seq() == 4
    assert batch_progress(tmp_path) == ("batches: 1 submitting, 1 submitted, 1 in progress, 1 done")
    tags = {batch.tag for batch in journal.batches()}
    assert len(tags) == 4  # each tag unique: no run adopts another's batch
