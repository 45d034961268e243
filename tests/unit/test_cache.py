"""The replay cache and the gateway in front of it: keys, JSON values, replay, budget, concurrency."""

import asyncio
import json
import time
from dataclasses import replace
from pathlib import Path

import diskcache
import pytest

from pdbench.agents.llm.prompts import PromptBuilder
from pdbench.config.schema import LLMAgentSpec, MockBehaviour, ProviderSpec
from pdbench.core.errors import BudgetExhausted, CacheMiss
from pdbench.core.horizon import FixedHorizon
from pdbench.core.transcript import observe
from pdbench.games.tables import GAMES
from pdbench.providers.base import Completion, CompletionRequest
from pdbench.providers.cache import ReplayCache, resolve_cache_dir
from pdbench.providers.gateway import ProviderGateway, make_client
from pdbench.providers.mock import MockProvider

ROOT = Path(__file__).resolve().parents[2]
MOCK = ProviderSpec()


def request(
    *, persona=None, temperature=0.0, sample=None, seed=None, prompt_extra="", namespace=None
):
    spec = LLMAgentSpec(persona=persona, temperature=temperature)
    prompts = PromptBuilder(spec, game=GAMES["pd"], horizon=FixedHorizon(5), project_root=ROOT)
    obs = observe([], side="a", history_window=None, include_totals=False)
    return CompletionRequest(
        provider="mock",
        model="mock-reciprocal",
        api_base=None,
        system=prompts.system,
        messages=(("user", prompts.round_prompt(obs) + prompt_extra),),
        temperature=temperature,
        max_tokens=16,
        seed=seed,
        sample=sample,
        namespace=namespace,
    )


# --- keys --------------------------------------------------------------------------------------


def test_key_is_sha256_of_canonical_json():
    req = request()
    assert len(req.cache_key()) == 64
    assert req.cache_key() == request().cache_key()
    assert set(req.key_fields()) == {
        "provider",
        "model",
        "api_base",
        "system",
        "messages",
        "temperature",
        "max_tokens",
        "seed",
        "response_format",
        "sample",
    }


@pytest.mark.parametrize(
    "changed",
    [
        request(persona="exploitative"),
        request(temperature=0.7),
        request(seed=1),
        request(prompt_extra=" "),
        replace(request(), model="other"),
        replace(request(), api_base="http://localhost:8000/v1"),
        replace(request(), max_tokens=17),
        replace(request(), response_format="json"),
        request(namespace="fresh draw"),
        replace(request(), provider_options=(("invalid_rate", 0.5),)),
        replace(request(), messages=(*request().messages, ("assistant", "x"), ("user", "fix it"))),
    ],
)
def test_anything_that_changes_the_answer_changes_the_key(changed):
    assert changed.cache_key() != request().cache_key()


def test_the_sample_counts_only_when_sampling():
    """At temperature 0 replicates and conditions replay one answer; above it each condition and
    replicate is a fresh sample."""
    assert request(sample="c#3").sample is None
    assert request(sample="c#3").cache_key() == request(sample="d#0").cache_key()
    hot = request(temperature=0.7, sample="c#3")
    assert hot.sample == "c#3"
    assert hot.cache_key() != request(temperature=0.7, sample="c#0").cache_key()
    assert hot.cache_key() != request(temperature=0.7, sample="d#3").cache_key()


# --- the cache folder ----------------------------------------------------------------------------


def test_hit_miss_and_json_values(tmp_path):
    key = request().cache_key()
    value = Completion("D", 10, 1, 0.25).to_json_dict()
    with ReplayCache(tmp_path / "cache") as cache:
        assert cache.get(key) is None
        cache.set(key, value)
        assert cache.get(key) == value
        assert key in cache and len(cache) == 1
    with ReplayCache(tmp_path / "cache") as cache:  # persists
        assert cache.get(key) == value
    with diskcache.Cache(str(tmp_path / "cache")) as raw:
        stored = raw.get(key)
        assert isinstance(stored, str)
        entry = json.loads(stored)  # the value as JSON text, with its checksum
        assert entry["value"] == {
            "text": "D",
            "input_tokens": 10,
            "output_tokens": 1,
            "cost_usd": 0.25,
        }
        assert len(entry["checksum"]) == 64
        assert raw.eviction_policy == "none"


def test_resolve_cache_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("PDBENCH_CACHE_DIR", raising=False)
    assert resolve_cache_dir("data/cache", tmp_path) == tmp_path / "data" / "cache"
    assert resolve_cache_dir(str(tmp_path / "abs"), Path("/elsewhere")) == tmp_path / "abs"
    monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path / "from_env"))
    assert resolve_cache_dir("data/cache", Path("/elsewhere")) == tmp_path / "from_env"


# --- the gateway -------------------------------------------------------------------------------


class PricedMock(MockProvider):
    """The mock at a price, to exercise cost accounting without a network."""

    def __init__(self, behaviour, price):
        super().__init__(behaviour)
        self.price = price

    async def acomplete(self, request):
        completion = await super().acomplete(request)
        return replace(completion, cost_usd=self.price)


def priced(price):
    return lambda spec: PricedMock(spec.mock, price)


def run(coroutine):
    return asyncio.run(coroutine)


def test_second_call_is_served_from_the_cache(tmp_path):
    gateway = ProviderGateway(cache_dir=tmp_path, client_factory=priced(0.5))
    live = run(gateway.complete(MOCK, request()))
    again = run(gateway.complete(MOCK, request()))
    assert not live.cached and again.cached
    assert again.text == live.text
    assert (again.input_tokens, again.output_tokens) == (live.input_tokens, live.output_tokens)
    # A replayed answer keeps its price (so replayed rounds are identical); the run's spend
    # counts it as saved, not as spent.
    assert again.cost_usd == live.cost_usd == 0.5
    assert gateway.stats.to_json() == {
        "live": 1,
        "cached": 1,
        "input_tokens": live.input_tokens,
        "output_tokens": live.output_tokens,
        "cost_usd": 0.5,
        "cost_usd_saved": 0.5,
        "unknown_price": 0,
        "agent_turns": 0,
        "impossible_usage": 0,
        "other_model": 0,
        "cached_input_tokens": 0,
        "cache_write_tokens": 0,
        "estimated_calls": 0,
        "estimated_input_tokens": 0,
        "estimated_output_tokens": 0,
        "estimated_cost_usd": 0.0,
        "estimated_unknown_price": 0,
    }
    gateway.close()

    replay = ProviderGateway(cache_dir=tmp_path, cache_mode="replay")
    assert run(replay.complete(MOCK, request())).text == live.text
    assert replay.stats.live == 0
    replay.close()


def test_a_changed_persona_or_temperature_misses(tmp_path):
    gateway = ProviderGateway(cache_dir=tmp_path)
    run(gateway.complete(MOCK, request()))
    run(gateway.complete(MOCK, request(persona="cooperative")))
    run(gateway.complete(MOCK, request(temperature=0.5)))
    assert (gateway.stats.live, gateway.stats.cached) == (3, 0)


def test_off_mode_never_caches(tmp_path):
    gateway = ProviderGateway(cache_dir=tmp_path / "c", cache_mode="off")
    run(gateway.complete(MOCK, request()))
    run(gateway.complete(MOCK, request()))
    assert (gateway.stats.live, gateway.stats.cached) == (2, 0)
    assert not (tmp_path / "c").exists()


def test_replay_miss_raises_and_names_the_model(tmp_path):
    gateway = ProviderGateway(cache_dir=tmp_path, cache_mode="replay")
    with pytest.raises(CacheMiss, match="mock-reciprocal"):
        run(gateway.complete(MOCK, request()))
    assert gateway.stats.live == 0


def test_budget_stops_new_live_calls_but_not_cached_ones(tmp_path):
    gateway = ProviderGateway(cache_dir=tmp_path, max_cost_usd=1.0, client_factory=priced(0.6))
    run(gateway.complete(MOCK, request(seed=1)))
    run(gateway.complete(MOCK, request(seed=2)))  # 0.6 < 1.0: may still start
    with pytest.raises(BudgetExhausted, match="budget"):
        run(gateway.complete(MOCK, request(seed=3)))
    assert run(gateway.complete(MOCK, request(seed=1))).cached
    assert gateway.stats.live == 2
    assert gateway.stats.cost_usd == pytest.approx(1.2)


def test_unknown_prices_are_counted(tmp_path):
    gateway = ProviderGateway(cache_dir=None, max_cost_usd=0.1, client_factory=priced(None))
    for seed in range(3):
        run(gateway.complete(MOCK, request(seed=seed)))
    assert gateway.stats.unknown_price == 3
    assert gateway.stats.cost_usd == 0.0


def test_concurrency_is_bounded(tmp_path):
    slow = ProviderSpec(mock=MockBehaviour(latency_s=0.05))
    gateway = ProviderGateway(cache_dir=tmp_path, max_concurrency=3)

    async def twelve():
        return await asyncio.gather(
            *(gateway.complete(slow, request(seed=seed)) for seed in range(12))
        )

    start = time.perf_counter()
    run(twelve())
    elapsed = time.perf_counter() - start
    assert gateway.peak_in_flight == 3
    assert elapsed >= 4 * 0.05
    assert gateway.stats.live == 12


def test_identical_requests_in_flight_share_one_live_call(tmp_path):
    slow = ProviderSpec(mock=MockBehaviour(latency_s=0.05, strategy="random"))
    gateway = ProviderGateway(cache_dir=tmp_path)

    async def same_twice():
        return await asyncio.gather(*(gateway.complete(slow, request()) for _ in range(2)))

    first, second = run(same_twice())
    assert first.text == second.text
    assert (gateway.stats.live, gateway.stats.cached) == (1, 1)


def test_a_cancelled_wait_for_a_shared_call_does_not_buy_the_answer_itself(tmp_path):
    """Both matches waiting on one call are cancelled at once (a run that stops): the owner's
    call ends cancelled first, and the other must end cancelled too, not start a call of its own
    (with batches, that call waited for a batch that never came, and the run hung)."""
    slow = ProviderSpec(mock=MockBehaviour(latency_s=5.0))
    gateway = ProviderGateway(cache_dir=tmp_path)

    async def both_cancelled():
        owner = asyncio.ensure_future(gateway.complete(slow, request()))
        waiter = asyncio.ensure_future(gateway.complete(slow, request()))
        await asyncio.sleep(0.05)  # both in: the owner's call in flight, the other waits on it
        owner.cancel()
        waiter.cancel()
        return await asyncio.gather(owner, waiter, return_exceptions=True)

    outcomes = run(both_cancelled())
    assert [type(outcome) for outcome in outcomes] == [asyncio.CancelledError] * 2
    assert gateway.stats.live == 0 and gateway.peak_in_flight == 1


def test_clients_are_built_once_per_provider_spec(tmp_path):
    gateway = ProviderGateway(cache_dir=None)
    assert gateway.client(MOCK) is gateway.client(ProviderSpec())
    assert gateway.client(MOCK) is not gateway.client(ProviderSpec(model="other"))
    assert isinstance(make_client(MOCK), MockProvider)
