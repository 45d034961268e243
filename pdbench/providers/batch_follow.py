"""What happens to a batch once it is submitted (run.batch, issue 46): polled until it ends, its
answers stored, the requests it left unanswered handed back for the next batch; and, for a run
that was killed or interrupted, the batches its journal holds outstanding polled first.

Each answer goes into the spend journal (at the batch rate, with its cache key and batch id) and
the replay cache (`store`, the gateway's) before the match that asked gets it. A batch collected
twice (a kill between its answers' spend lines and its `collected` line) stores none of them
twice: the keys its spend lines already hold are skipped (`already_stored`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from pdbench.config.provider_spec import ProviderSpec, TokenPrice
from pdbench.core.redact import strip_url_credentials
from pdbench.providers.base import (
    Completion,
    CompletionRequest,
    MalformedResponse,
    ProviderUnavailable,
    RequestRefused,
    TransportFailure,
)
from pdbench.providers.openai_batches import BatchState, LineFailure, OpenAIBatches
from pdbench.storage.batch_journal import FINAL_STATUSES, BatchJournal, JournaledBatch
from pdbench.storage.schema import CallCounts

# (model, cache key, answer, batch id) -> the answer as stored (spend journal, replay cache)
Store = Callable[[str, str, Completion, str], Completion]


@dataclass
class BatchRequest:
    """A request waiting for its answer from a batch."""

    spec: ProviderSpec
    request: CompletionRequest
    key: str
    answer: asyncio.Future[Completion]
    sent: int = 0  # batches it was sent in


class BatchFollower:
    def __init__(
        self,
        journal: BatchJournal,
        *,
        poll_s: float,
        store: Store,
        billed: Callable[[str, CallCounts], None],
        already_stored: Callable[[str], set[str]],
        api_for: Callable[[ProviderSpec], OpenAIBatches],
        again: Callable[[BatchRequest], None],
    ) -> None:
        """`already_stored(batch id)`: the keys of that batch's answers already journaled;
        `again(request)`: put an unanswered request into the next batch."""
        self.journal, self.poll_s = journal, poll_s
        self._store, self._billed, self._already_stored = store, billed, already_stored
        self._api_for, self._again = api_for, again
        self._apis: dict[ProviderSpec, OpenAIBatches] = {}
        self.specs: dict[tuple[str, str | None], ProviderSpec] = {}  # the run's, by model, server

    def api(self, spec: ProviderSpec) -> OpenAIBatches:
        if spec not in self._apis:
            self._apis[spec] = self._api_for(spec)
        return self._apis[spec]

    async def follow(
        self,
        seq: int,
        spec: ProviderSpec,
        batch_id: str,
        keys: list[str],
        waiting: dict[str, BatchRequest],
    ) -> None:
        """Poll until the batch ends (journaling each new status), then collect it."""
        api, seen = self.api(spec), None
        while True:
            state = await api.retrieve(batch_id)
            if state.status in FINAL_STATUSES:
                break
            if state.status != seen:
                self.journal.status(seq, state.status)
                seen = state.status
            await asyncio.sleep(self.poll_s)
        await self.collect(seq, spec, state, keys, waiting)

    async def collect(
        self,
        seq: int,
        spec: ProviderSpec,
        state: BatchState,
        keys: list[str],
        waiting: dict[str, BatchRequest],
    ) -> tuple[int, list[str]]:
        """Store the answers of a batch that ended and hand them to whoever waits; requests left
        unanswered go into the next batch. Returns (answers stored now, keys unanswered)."""
        api = self.api(spec)
        answers, failures = await api.results(state)
        stored_before = self._already_stored(state.id)
        stored, unanswered = 0, []
        for key in keys:
            try:
                completion = api.to_completion(answers[key]) if key in answers else None
            except MalformedResponse as bad:
                self._count_billed(spec, api, bad)
                completion = None
            if completion is None:
                unanswered.append(key)
                continue
            if key not in stored_before:
                completion = self._store(spec.model, key, completion, state.id)
                stored += 1
            waiter = waiting.pop(key, None)
            if waiter is not None and not waiter.answer.done():
                waiter.answer.set_result(completion)
        self.journal.collected(seq, state.status, unanswered)
        for key in unanswered:
            if key in waiting:
                self._again_or_fail(waiting[key], state, failures.get(key))
        return stored, unanswered

    def _again_or_fail(
        self, request: BatchRequest, state: BatchState, failure: LineFailure | None
    ) -> None:
        reason = failure.reason if failure is not None else "no answer in the batch's files"
        where = f"{request.spec.model}: batch {state.id} ended {state.status}"
        if state.status == "failed":
            fail(request, RequestRefused(f"{where} ({state.errors or reason})"))
        elif state.status == "cancelled":
            fail(request, TransportFailure(f"{where}: cancelled at the provider ({reason})"))
        elif failure is not None and not failure.transient:
            fail(request, RequestRefused(f"{where}: a request was refused ({reason})"))
        elif request.sent >= request.spec.max_attempts:
            fail(
                request,
                ProviderUnavailable(f"{where}: still unanswered after {request.sent} batches"),
            )
        else:
            self._again(request)  # into the next batch; paid once, when answered

    def _count_billed(self, spec: ProviderSpec, api: OpenAIBatches, bad: MalformedResponse) -> None:
        """An answer without text whose usage says it was billed: counted, never cached."""
        usage = bad.response.get("usage") if isinstance(bad.response, dict) else None
        if not isinstance(usage, dict):
            return
        tokens_in = int(usage.get("prompt_tokens") or 0)
        tokens_out = int(usage.get("completion_tokens") or 0)
        cost = api.cost(tokens_in, tokens_out)
        paid = CallCounts(
            live=1,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            cost_usd=cost or 0.0,
            unknown_price=int(cost is None),
        )
        self._billed(spec.model, paid)

    # --- what the journal holds ----------------------------------------------------------------

    def outstanding(self) -> list[JournaledBatch]:
        return [batch for batch in self.journal.batches() if batch.outstanding]

    async def recover(self) -> None:
        """Poll every outstanding batch of the journal to its end and store its answers."""
        follow = []
        for batch in self.outstanding():
            spec = self.spec_of(batch)
            batch_id = await self.find_if_lost(batch, spec)
            if batch_id is not None:
                follow.append(self.follow(batch.seq, spec, batch_id, list(batch.keys), {}))
        for failure in await asyncio.gather(*follow, return_exceptions=True):
            if isinstance(failure, BaseException):
                raise failure

    async def poll_once(self) -> list[str]:
        """One look at every outstanding batch, without waiting (`pdbench batch-status`): a
        batch that ended is collected; the others' status is journaled. One line each."""
        said = []
        for batch in self.outstanding():
            spec = self.spec_of(batch)
            batch_id = await self.find_if_lost(batch, spec)
            name = f"batch {batch.seq} {batch_id or '(never created)'}"
            if batch_id is None:
                said.append(f"{name}: abandoned, its {len(batch.keys)} requests are asked again")
                continue
            state = await self.api(spec).retrieve(batch_id)
            if state.status not in FINAL_STATUSES:
                if state.status != batch.status:
                    self.journal.status(batch.seq, state.status)
                said.append(
                    f"{name}: {state.status}, {len(batch.keys)} requests ({state.completed} "
                    f"completed, {state.failed} failed so far)"
                )
                continue
            stored, unanswered = await self.collect(batch.seq, spec, state, list(batch.keys), {})
            left = f", {len(unanswered)} unanswered (asked again)" if unanswered else ""
            said.append(f"{name}: {state.status}, {stored} answers stored{left}")
        return said

    async def find_if_lost(self, batch: JournaledBatch, spec: ProviderSpec) -> str | None:
        """A journaled batch's id; for an intent without one, the provider's batch with its
        tag (journaled now), or None: abandoned, its requests are asked again."""
        if batch.batch_id is not None:
            return batch.batch_id
        found = await self.api(spec).find(batch.tag)
        if found is None:
            self.journal.abandoned(
                batch.seq, "no batch with its tag at the provider: its creation never arrived"
            )
            return None
        self.journal.submitted(batch.seq, found, None)
        return found

    def spec_of(self, batch: JournaledBatch) -> ProviderSpec:
        """The run's provider spec of a journaled batch, else one made from the journal."""
        described = batch.provider
        model, server = str(described.get("model")), described.get("api_base")
        found = self.specs.get((model, server))
        if found is not None:
            return found
        price = described.get("usd_per_million_tokens")
        return ProviderSpec(
            name="litellm",
            model=model,
            api_base=server,
            usd_per_million_tokens=TokenPrice(**price) if price else None,
        )


def server(spec: ProviderSpec) -> str | None:
    """A spec's server as journaled: its URL without credentials."""
    return strip_url_credentials(spec.api_base) if spec.api_base else None


def described(spec: ProviderSpec) -> dict[str, object]:
    """What the journal keeps of a batch's provider: enough to poll and price it again."""
    price = spec.usd_per_million_tokens
    return {
        "model": spec.model,
        "api_base": server(spec),
        "usd_per_million_tokens": price.model_dump() if price is not None else None,
    }


def fail(request: BatchRequest, error: BaseException) -> None:
    if not request.answer.done():
        request.answer.set_exception(error)
        request.answer.exception()  # retrieved: its waiter may be gone
