"""The run's one door to providers: replay cache, bounded concurrency, cost budget and counters.

The runner creates one `ProviderGateway` per run and hands it to every LLM agent. A request is
answered from the cache when possible; otherwise (unless the mode is `replay`) by a live call,
at most `max_concurrency` at a time, and never once the budget is spent. Identical requests in
flight at the same moment share one live call, so the cache holds exactly the answers that were
played and a re-run from cache plays them again.

With batching (run.batch: providers/batching.py), the uncached requests of a provider that takes
batches are collected and sent as batches instead; their answers are journaled and cached the
same way, at the batch rate.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pdbench.config.schema import ProviderSpec
from pdbench.core.errors import (
    BudgetExhausted,
    CacheMiss,
    ConfigError,
    StopRequested,
    WriteFailed,
)
from pdbench.providers.answer_checks import impossible_usage, is_other_model, with_possible_usage
from pdbench.providers.base import Completion, CompletionRequest, ProviderClient
from pdbench.providers.batching import BatchCollector, BatchSettings, collect_batches
from pdbench.providers.cache import ReplayCache, warn_on_stderr
from pdbench.providers.cache_shards import ShardedCache
from pdbench.providers.concurrency import AdaptiveLimit, current_call
from pdbench.providers.kinds import make_client
from pdbench.providers.unanswered import timed_out_reason
from pdbench.storage.schema import CallCounts
from pdbench.storage.spend import SpendJournal

CacheMode = Literal["readwrite", "off", "replay"]


def _owed_spend_key(spend: SpendJournal) -> str:
    """The cache entry holding a journal's owed spend lines: no request's key looks like it."""
    return "owed-spend:" + hashlib.sha256(str(spend.path.resolve()).encode()).hexdigest()


class ProviderGateway:
    def __init__(
        self,
        *,
        max_concurrency: int = 8,
        cache_dir: Path | None = None,
        cache_mode: CacheMode = "readwrite",
        max_cost_usd: float | None = None,
        spend: SpendJournal | None = None,
        cache_shard: tuple[Path, str] | None = None,
        project_root: Path | None = None,
        client_factory: Callable[[ProviderSpec], ProviderClient] | None = None,
        warn: Callable[[str], None] | None = None,
        batching: BatchSettings | None = None,
    ) -> None:
        """`client_factory` builds the client for a provider spec (default: `make_client`);
        `warn` says one line (a damaged cache; default: stderr). `cache_shard` (folder, name):
        answers bought are written to that shard, not to the cache folder (a sweep's job).
        `batching`: the run's batches (run.batch, or batches a killed run left to poll)."""
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
        if cache_mode == "replay" and cache_dir is None:
            raise ConfigError("replay needs a cache folder to replay from", field="cache.mode")
        self.cache_mode = cache_mode
        self.max_cost_usd = max_cost_usd
        # Every paid call is journaled; the budget counts what the whole run (or sweep) spent.
        self.spend = spend
        self.project_root = project_root
        self._warn = warn or warn_on_stderr
        self._said: set[tuple[str, ...]] = set()  # warnings already given in this run
        base = (
            ReplayCache(cache_dir, warn=warn)
            if cache_dir is not None and cache_mode != "off"
            else None
        )
        self.cache: ReplayCache | ShardedCache | None = base
        if cache_shard is not None and base is not None:
            self.cache = ShardedCache(*cache_shard, base, warn=warn)
        if self.cache is not None and spend is not None:
            self._restore_bought_answers(self.cache, spend)
        self.stats = CallCounts()  # tokens and cost count live calls only
        self.in_flight = 0
        self.peak_in_flight = 0  # the most live calls ever in flight at once
        self.max_concurrency = max_concurrency
        # Calls in flight: at most max_concurrency, fewer while the provider rate limits.
        self.limit = AdaptiveLimit(max_concurrency, say=self._warn)  # a long wait is said
        self._client_factory = client_factory or (
            lambda spec: make_client(spec, project_root=project_root)
        )
        self._clients: dict[ProviderSpec, ProviderClient] = {}
        self._pending: dict[str, asyncio.Future[Completion]] = {}
        # Set by the runner: once it says so (Ctrl-C, SIGTERM), no new live call starts.
        self.stop_requested: Callable[[], bool] = lambda: False
        self.batches: BatchCollector | None = None
        if batching is not None:
            self.batches = collect_batches(batching, self, warn=self._warn)

    def batch_member(self) -> contextlib.AbstractContextManager[None]:
        """Entered by the runner around each match: with batching, the batches wait for it."""
        return self.batches.member() if self.batches is not None else contextlib.nullcontext()

    @staticmethod
    def _restore_bought_answers(cache: ReplayCache | ShardedCache, spend: SpendJournal) -> None:
        """Answers this run paid for whose cache write never happened (a full disk, a kill
        between the two writes) go into the cache now, so they are not bought again."""
        for key, answer in spend.answers().items():
            if cache.get(key) is None:
                cache.set(key, answer)
        owed_key = _owed_spend_key(spend)
        owed = cache.get(owed_key)
        if owed is not None:  # spend lines a full run folder did not take
            for line in owed.get("lines", []):
                spend.record(CallCounts.from_json(line))
            cache.delete(owed_key)

    @property
    def cache_rejected(self) -> int:
        """Cache entries that failed their checksum in this run (asked again)."""
        return self.cache.rejected if self.cache is not None else 0

    def client(self, spec: ProviderSpec) -> ProviderClient:
        if spec not in self._clients:
            self._clients[spec] = self._client_factory(spec)
        return self._clients[spec]

    async def complete(self, provider_spec: ProviderSpec, request: CompletionRequest) -> Completion:
        batched = False
        if self.batches is not None:
            await self.batches.ready()  # a resumed run first stores what its batches answered
            batched = self.batches.takes(provider_spec)
        if self.cache is None:
            return await self._ask(provider_spec, request, batched)

        key = request.cache_key()
        while True:
            stored = self.cache.get(key)
            if stored is not None:
                return self._from_cache(stored)
            pending = self._pending.get(key)
            if pending is None:
                break
            try:
                with self._waiting(batched):
                    await asyncio.shield(pending)
            except BaseException:
                task = asyncio.current_task()
                if not pending.done() or (task is not None and task.cancelling()):
                    raise  # we were cancelled ourselves (maybe as the shared call was)
                continue  # the shared call failed: look again, then try our own
            return self._from_cache(pending.result().to_json_dict())
        if self.cache_mode == "replay":
            raise CacheMiss(
                f"replay mode: no cached answer for {request.provider} model {request.model} "
                f"(key {key[:12]}); run once with cache mode readwrite to record it"
            )

        future: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            completion = await self._ask(provider_spec, request, batched, key)
            if not batched:  # a batch's answers are cached as the batch ends
                self.cache.set(key, completion.to_json_dict())
        except BaseException as error:
            if isinstance(error, Exception):
                future.set_exception(error)
                future.exception()  # mark it retrieved: there may be nobody waiting
            else:
                future.cancel()
            raise
        else:
            future.set_result(completion)
        finally:
            del self._pending[key]
        return completion

    async def _ask(
        self, spec: ProviderSpec, request: CompletionRequest, batched: bool, key: str | None = None
    ) -> Completion:
        if batched and self.batches is not None:
            return await self.batches.answer(spec, request, key or request.cache_key())
        return await self._live(spec, request, key)

    def _waiting(self, batched: bool) -> contextlib.AbstractContextManager[None]:
        """A wait for an answer another match asked for: with batches, the match waits too."""
        batches = self.batches if batched else None
        return batches.waiting() if batches is not None else contextlib.nullcontext()

    def _from_cache(self, stored: dict[str, Any]) -> Completion:
        # The completion keeps the price it had when it was bought, so a replay writes the same
        # rounds as the live run; the run's spend counts live calls only (see CallCounts.paid).
        completion = Completion.from_json_dict(stored, cached=True)
        self.stats.cached += 1
        self.stats.cost_usd_saved += completion.cost_usd or 0.0
        return completion

    def _check_budget(self) -> None:
        if self.max_cost_usd is None:
            return
        # What may have been billed: the paid calls and the estimate of those that timed out.
        total = self.spend.total() if self.spend is not None else self.stats
        spent = total.cost_usd_at_most
        if spent >= self.max_cost_usd:
            estimated = (
                f", ${total.estimated_cost_usd:.4f} of it estimated for calls that timed out"
                if total.estimated_cost_usd
                else ""
            )
            raise BudgetExhausted(
                f"cost budget spent: ${spent:.4f}{estimated} of max_cost_usd "
                f"${self.max_cost_usd:.4f}; no new provider call is started"
            )

    def _check_stop(self) -> None:
        if self.stop_requested():
            raise StopRequested("the run is stopping: no new provider call is started")

    def check_before_batch(self) -> None:
        """No batch is submitted once a stop came or the budget is spent."""
        self._check_stop()
        self._check_budget()

    async def _live(
        self, provider_spec: ProviderSpec, request: CompletionRequest, key: str | None = None
    ) -> Completion:
        self._check_stop()
        self._check_budget()
        client = self.client(provider_spec)
        async with self.limit.slot() as call:
            self._check_stop()  # the stop may have come while this call waited for its turn
            self._check_budget()  # calls that finished while we waited may have spent it
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            try:
                with current_call(call):  # the provider reports 429s and backs off through it
                    completion = await client.acomplete(request)
                if not call.rate_limits:
                    self.limit.succeeded()
            finally:
                self.in_flight -= 1
                self._count_billed_without_answer(client, provider_spec, request.model)
        return self._journal_paid(request.model, key, completion)

    def _journal_paid(
        self, model: str, key: str | None, completion: Completion, batch_id: str | None = None
    ) -> Completion:
        """Check and count an answer paid for, journaled before it is used (so it survives a
        kill): the answer as counted."""
        completion, paid = self._checked(model, completion)
        if self.spend is not None:
            try:
                self.spend.record(
                    paid,
                    key=key,
                    answer=completion.to_json_dict() if key is not None else None,
                    model=model,
                    reported_model=completion.reported_model if paid.other_model else None,
                    batch_id=batch_id,
                )
            except WriteFailed as failure:
                if not failure.written:  # journaled in the run's reserve: kept, and counted
                    self._keep_unjournaled(key, completion, paid)
                raise
        self.stats += paid  # in place: the progress display holds this counter
        return completion

    def store_batch_answer(
        self, model: str, key: str, completion: Completion, batch_id: str
    ) -> Completion:
        """An answer from a batch: journaled at the batch rate, then cached."""
        completion = self._journal_paid(model, key, completion, batch_id)
        if self.cache is not None:
            self.cache.set(key, completion.to_json_dict())
        return completion

    def count_billed(self, model: str, paid: CallCounts, estimate: str | None = None) -> None:
        """A call billed without a usable answer (or, with `estimate`, maybe billed): journaled
        and counted, never cached."""
        if self.spend is not None:
            self.spend.record(paid, model=model, estimate=estimate)
        self.stats += paid  # in place: the progress display holds this counter

    def _keep_unjournaled(self, key: str | None, completion: Completion, paid: CallCounts) -> None:
        """The run folder took no spend line (a full disk) but the cache, elsewhere, may: the
        answer goes into the cache (not bought again on resume) and its spend line is owed
        there, journaled when the run resumes (`_restore_bought_answers`)."""
        if self.cache is None or self.spend is None or key is None:
            return
        try:
            self.cache.set(key, completion.to_json_dict())
            owed_key = _owed_spend_key(self.spend)
            owed = (self.cache.get(owed_key) or {}).get("lines", [])
            self.cache.set(owed_key, {"lines": [*owed, paid.paid().to_json()]})
        except WriteFailed:
            pass  # the cache's disk is full too: the call is asked again on resume

    def _count_billed_without_answer(
        self, client: ProviderClient, spec: ProviderSpec, model: str
    ) -> None:
        """Journal the answers a provider charged for that had no usable text (tool calls, an
        unreadable body): paid, so counted and seen by the budget, though never cached; and the
        calls that timed out, which it may have billed: estimates, marked with their reason,
        kept apart from what was paid, and seen by the budget too (providers/unanswered.py)."""
        take = getattr(client, "take_billed_without_answer", None)
        for paid in take() if take is not None else ():
            self.count_billed(model, paid, timed_out_reason(spec) if paid.estimated_calls else None)

    def _checked(self, model: str, completion: Completion) -> tuple[Completion, CallCounts]:
        """The answer as counted and what it cost: impossible usage is counted as no tokens at an
        unknown price, an answer from another model is priced as reported; both are said once
        and counted (see providers/answer_checks.py)."""
        impossible = impossible_usage(completion)
        if impossible:
            self._say_once(
                ("usage",),
                f"{model}: the server reported impossible usage (input_tokens "
                f"{completion.input_tokens}, output_tokens {completion.output_tokens}, cost "
                f"{completion.cost_usd}); counted as 0 tokens at an unknown price (further "
                "ones are counted in run_manifest.json spend.impossible_usage, not said)",
            )
            completion = with_possible_usage(completion)
        other = is_other_model(model, completion.reported_model)
        if other:
            self._say_once(
                ("model", model, str(completion.reported_model)),
                f"asked {model} but the server says {completion.reported_model} "
                "answered: played and priced as it reports (both names are stored with each "
                "attempt and spend.jsonl line; counted in run_manifest.json spend.other_model)",
                per_run=True,
            )
            completion = dataclasses.replace(completion, requested_model=model)
        if completion.cost_usd is None and not impossible:
            self._say_once(
                ("price", model),
                f"the price of {model} is unknown to litellm: its cost is recorded as "
                "null (calls at an unknown price are counted in run_manifest.json "
                "spend.unknown_price)",
                per_run=True,
            )
        paid = CallCounts(
            live=1,
            input_tokens=completion.input_tokens,
            output_tokens=completion.output_tokens,
            cost_usd=completion.cost_usd or 0.0,
            unknown_price=int(completion.cost_usd is None),
            impossible_usage=int(impossible),
            other_model=int(other),
            cached_input_tokens=completion.cached_input_tokens or 0,
            cache_write_tokens=completion.cache_write_tokens or 0,
        )
        return completion, paid

    def _say_once(self, what: tuple[str, ...], message: str, *, per_run: bool = False) -> None:
        """Say `message` once in this process; with `per_run`, once in the whole run (every job
        of a sweep, whichever process or machine runs it: see `first_to_say`)."""
        if what in self._said:
            return
        self._said.add(what)
        if per_run and self.spend is not None and not first_to_say(self.spend.path.parent, what):
            return
        self._warn(message)

    def close(self) -> None:
        for client in self._clients.values():
            close = getattr(client, "close", None)
            if close is not None:
                close()
        self._clients.clear()
        if self.cache is not None:
            self.cache.close()


SAID_DIR = ".said"  # beside the spend journal: which once-per-run warnings were given


def first_to_say(folder: Path, what: tuple[str, ...]) -> bool:
    """Whether this process is the first of the run to say `what`: a marker created exclusively
    in `folder` (the run's, or the sweep's, beside the spend journal every job appends to), so a
    warning is given once per run however many processes play its jobs. When the marker cannot
    be written the warning is given (said twice rather than never)."""
    digest = hashlib.sha256("\x1f".join(what).encode()).hexdigest()[:16]
    marker = folder / SAID_DIR / digest
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o644))
    except FileExistsError:
        return False
    except OSError:
        return True
    return True
