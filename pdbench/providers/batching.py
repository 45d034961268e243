"""Provider calls sent as batches (run.batch, issue 46).

The gateway hands here every uncached request whose provider takes batches
(providers/openai_batches.py). A repeated game's next prompt depends on the last answer, so the
run's matches advance in lockstep: each match is a member (`member()`, entered by the runner) and
waits for its answer; once every member waits (and no request has joined for SETTLE_S, so the
requests a match makes at once all join), the waiting requests are submitted as one batch per
model. One batch per round of every pending match, then, and per phase in turn games. A member
busy elsewhere (an arena agent, a provider that takes no batches) is waited for, up to QUIET_S
without a new request; then the batch goes without it.

A batch is journaled before it is submitted (storage/batch_journal.py: intent, then its id), then
followed to its end (providers/batch_follow.py): each answer goes into the spend journal (at the
batch rate) and the replay cache before the match that asked gets it; requests left unanswered
(an expired batch) go into the next batch, counted once. A run that starts with batches outstanding
in its journal (killed or interrupted) first polls them and stores their answers (`ready()`):
nothing is bought twice. A journaled intent without an id is looked for at the provider by its
tag; when the provider has no such batch, the intent is abandoned and its requests asked again.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pdbench.config.provider_spec import ProviderSpec
from pdbench.providers.base import Completion, CompletionRequest
from pdbench.providers.batch_follow import BatchFollower, BatchRequest, described, fail, server
from pdbench.providers.openai_batches import batch_support
from pdbench.storage.batch_journal import BatchJournal
from pdbench.storage.schema import CallCounts
from pdbench.storage.spend import SpendJournal

SETTLE_S = 0.2  # a request joining within this resets the wait (a match asking two at once)
QUIET_S = 60.0  # without a new request this long, a batch goes without the members busy elsewhere
MAX_REQUESTS = 50_000  # OpenAI's limit per batch
MAX_BYTES = 190 * 2**20  # under OpenAI's 200 MB per input file

_member: ContextVar[int | None] = ContextVar("pdbench_batch_member", default=None)


@dataclass(frozen=True)
class BatchSettings:
    """A run's batches: where they are journaled, what names them, how often they are polled,
    and whether new calls go into batches (run.batch) or only the journaled ones are polled."""

    journal: BatchJournal
    run_label: str
    poll_s: float
    submit: bool


class BatchCollector:
    def __init__(
        self,
        follower: BatchFollower,
        *,
        run_label: str,
        source: str | None,
        submit: bool,
        check: Callable[[], None],
        warn: Callable[[str], None],
        settle_s: float = SETTLE_S,
        quiet_s: float = QUIET_S,
    ) -> None:
        """`submit`: new requests go into batches (run.batch); without it, only the batches the
        journal holds are polled. `check` raises when no call may start (budget, stop)."""
        self.follower, self.journal = follower, follower.journal
        self.run_label, self.source, self.submits = run_label, source, submit
        self._check, self._warn = check, warn
        self.settle_s, self.quiet_s = settle_s, quiet_s
        self._support: dict[ProviderSpec, str | None] = {}
        self._said: set[str] = set()  # models said to take no batches
        self._members: dict[int, int] = {}  # member -> its requests waiting
        self._ids = itertools.count()
        self._queue: list[BatchRequest] = []
        self._joins, self._last_join = 0, 0.0
        self._wake: asyncio.Event | None = None
        self._tasks: set[asyncio.Future[None]] = set()
        self._recovery: asyncio.Future[None] | None = None
        self._seq: int | None = None

    # --- who waits -----------------------------------------------------------------------------

    def takes(self, spec: ProviderSpec) -> bool:
        """Whether this spec's new calls go into batches; a provider that takes none is said
        once, and its calls are made one by one."""
        if not self.submits:
            return False
        if spec not in self._support:
            reason = self._support[spec] = batch_support(spec)
            if reason is None:
                self.follower.specs[(spec.model, server(spec))] = spec
            elif spec.model not in self._said:
                self._said.add(spec.model)
                self._warn(
                    f"run.batch: {spec.model}: {reason}; its calls are made one by one, at the "
                    "immediate price"
                )
        return self._support[spec] is None

    @contextlib.contextmanager
    def member(self) -> Iterator[None]:
        """A match of the run, for its whole play: a batch waits for its requests."""
        ident = next(self._ids)
        token = _member.set(ident)
        self._members[ident] = 0
        try:
            yield
        finally:
            _member.reset(token)
            del self._members[ident]
            self._changed()

    @contextlib.contextmanager
    def waiting(self) -> Iterator[None]:
        """The current member waits for a batched answer (its own, or one it shares)."""
        ident = _member.get()
        if ident in self._members:
            self._members[ident] += 1
            self._changed()
        try:
            yield
        finally:
            if ident in self._members:
                self._members[ident] -= 1

    def _changed(self) -> None:
        if self._wake is not None:
            self._wake.set()

    # --- asking --------------------------------------------------------------------------------

    async def ready(self) -> None:
        """Once per run, before anything is asked: the batches the journal holds outstanding
        are polled to their end and their answers stored."""
        if self._recovery is None:
            self._recovery = asyncio.ensure_future(self._recover())
        await asyncio.shield(self._recovery)

    async def _recover(self) -> None:
        outstanding = self.follower.outstanding()
        if outstanding:
            self._warn(
                f"polling the {len(outstanding)} batch(es) this run submitted before it "
                "stopped: their answers are stored before anything is asked again"
            )
            await self.follower.recover()
        self._seq = self.journal.next_seq()

    async def answer(self, spec: ProviderSpec, request: CompletionRequest, key: str) -> Completion:
        loop = asyncio.get_running_loop()
        if self._wake is None:
            self._wake = asyncio.Event()
            self._keep(self._dispatch())
        waiting = BatchRequest(spec, request, key, loop.create_future())
        self.again(waiting)
        try:
            with self.waiting():
                return await waiting.answer
        except asyncio.CancelledError:
            if waiting in self._queue:  # never sent: nobody is left to want it
                self._queue.remove(waiting)
            raise

    def again(self, waiting: BatchRequest) -> None:
        """Into the next batch: a new request, or one a batch left unanswered."""
        self._queue.append(waiting)
        self._joins += 1
        self._last_join = asyncio.get_running_loop().time()
        self._changed()

    def _keep(self, work: object) -> None:
        task = asyncio.ensure_future(work)  # type: ignore[call-overload]
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _dispatch(self) -> None:
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            if not self._queue:
                continue
            while True:  # until no request joined for settle_s
                joins = self._joins
                await asyncio.sleep(self.settle_s)
                if self._joins == joins:
                    break
            quiet_for = loop.time() - self._last_join
            everyone_waits = all(count > 0 for count in self._members.values())
            if self._queue and (everyone_waits or quiet_for >= self.quiet_s):
                self._flush()
            elif self._queue:
                loop.call_later(self.quiet_s - quiet_for, self._changed)

    def _flush(self) -> None:
        waiting, self._queue = self._queue, []
        try:
            self._check()  # the budget, a stop: no batch is started then
        except Exception as error:
            for request in waiting:
                fail(request, error)
            return
        groups: dict[ProviderSpec, list[BatchRequest]] = {}
        for request in waiting:
            # One batch per model and server: a kind's options (the mock's), which a config may
            # give any provider, do not split them.
            destination = request.spec.without_kinds_options()
            groups.setdefault(destination, []).append(request)
        for spec, requests in groups.items():
            for chunk in _chunks(requests):
                self._keep(self._submit(spec, chunk))

    async def _submit(self, spec: ProviderSpec, requests: list[BatchRequest]) -> None:
        """Journal the batch's intent, submit it, journal its id, follow it to its end."""
        api = self.follower.api(spec)
        assert self._seq is not None, "ready() runs before any request"
        seq, self._seq = self._seq, self._seq + 1
        keys = [r.key for r in requests]
        try:
            lines = [api.request_line(r.request, r.key) for r in requests]
            tag = self.journal.intent(
                seq,
                run_label=self.run_label,
                provider=described(spec),
                source=self.source,
                keys=keys,
            )
            batch_id, input_file = await api.submit(lines, tag)
            self.journal.submitted(seq, batch_id, input_file)
            for request in requests:
                request.sent += 1
            await self.follower.follow(seq, spec, batch_id, keys, {r.key: r for r in requests})
        except Exception as error:
            for request in requests:
                fail(request, error)


class BatchOwner(Protocol):
    """What the batches need of the gateway: where answers are journaled and stored."""

    spend: SpendJournal | None
    project_root: Path | None

    def store_batch_answer(
        self, model: str, key: str, completion: Completion, batch_id: str
    ) -> Completion: ...

    def count_billed(self, model: str, paid: CallCounts, estimate: str | None = None) -> None: ...

    def check_before_batch(self) -> None: ...


def collect_batches(
    settings: BatchSettings, owner: BatchOwner, *, warn: Callable[[str], None]
) -> BatchCollector:
    """The gateway's batches: each answer journaled and cached by `owner.store_batch_answer`,
    each billed answer without text counted by `owner.count_billed`; `owner.check_before_batch`
    before each batch (budget, stop)."""
    from pdbench.providers.openai_batches import OpenAIBatches

    spend = owner.spend
    follower = BatchFollower(
        settings.journal,
        poll_s=settings.poll_s,
        store=owner.store_batch_answer,
        billed=owner.count_billed,
        already_stored=lambda batch_id: set() if spend is None else spend.keys_of_batch(batch_id),
        api_for=lambda spec: OpenAIBatches(spec, project_root=owner.project_root),
        again=lambda request: collector.again(request),
    )
    collector = BatchCollector(
        follower,
        run_label=settings.run_label,
        source=spend.source if spend is not None else None,
        submit=settings.submit,
        check=owner.check_before_batch,
        warn=warn,
    )
    return collector


def _chunks(requests: list[BatchRequest]) -> Iterator[list[BatchRequest]]:
    """At most MAX_REQUESTS requests and about MAX_BYTES of prompts per batch."""
    chunk: list[BatchRequest] = []
    size = 0
    for request in requests:
        asked = request.request
        length = len(asked.system) + sum(len(text) for _, text in asked.messages)
        if chunk and (len(chunk) >= MAX_REQUESTS or size + length > MAX_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append(request)
        size += length
    if chunk:
        yield chunk
