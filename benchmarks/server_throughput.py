"""Full use of the model server (issue 33): the same requests sent by pdbench (its provider
gateway and litellm client) and by a plain asyncio client (httpx) to the same local llama.cpp
server with several slots; pdbench's throughput should be at least 0.9 of the plain client's.

    uv run python benchmarks/server_throughput.py [--slots 4] [--requests 48] [--repeats 3]

Both clients send the same chat completion bodies (temperature 0, max_tokens 8, a prompt of
about 200 tokens made unique per request so that no answer and no prompt prefix is reused
between the two clients) with as many in flight as the server has slots, alternating which goes
first. Prints requests/s of each (median of the repeats), the ratio and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from pdbench.config.schema import ProviderSpec  # noqa: E402
from pdbench.providers.base import CompletionRequest  # noqa: E402
from pdbench.providers.gateway import ProviderGateway  # noqa: E402
from pdbench.providers.local_server import LocalServer  # noqa: E402

RULES = (
    "You are playing a repeated game against one other player. In every round, you and the "
    "other player each choose C or D at the same time. Points: both C, 3 each; both D, 1 each; "
    "C against D, 0 for C and 5 for D. "
) * 3


def prompts(n: int) -> list[str]:
    batch = uuid.uuid4().hex[:8]
    return [f"[{batch}-{i}] {RULES}Round {i}: your action? Answer C or D." for i in range(n)]


async def by_pdbench(server: LocalServer, texts: list[str], slots: int) -> float:
    spec = ProviderSpec(
        name="litellm",
        model=f"openai/{server.model_name}",
        api_base=server.api_base,
        timeout_s=600,
        cache_prompt=False,
    )
    gateway = ProviderGateway(max_concurrency=slots, cache_mode="off", project_root=REPO)
    requests = [
        CompletionRequest(
            provider="litellm",
            model=spec.model,
            api_base=spec.api_base,
            system="",
            messages=(("user", text),),
            temperature=0.0,
            max_tokens=8,
        )
        for text in texts
    ]
    await gateway.complete(spec, requests[0])  # litellm's first call sets up its client
    started = time.perf_counter()
    await asyncio.gather(*(gateway.complete(spec, r) for r in requests[1:]))
    elapsed = time.perf_counter() - started
    gateway.close()
    return (len(requests) - 1) / elapsed


async def by_plain_client(server: LocalServer, texts: list[str], slots: int) -> float:
    import httpx

    limit = asyncio.Semaphore(slots)
    url = f"{server.api_base}/chat/completions"

    async with httpx.AsyncClient(timeout=600) as client:

        async def one(text: str) -> None:
            async with limit:
                body = {
                    "model": server.model_name,
                    "messages": [{"role": "user", "content": text}],
                    "temperature": 0.0,
                    "max_tokens": 8,
                    "cache_prompt": False,
                }
                response = await client.post(url, json=body)
                response.raise_for_status()
                response.json()["choices"][0]["message"]["content"]

        await one(texts[0])
        started = time.perf_counter()
        await asyncio.gather(*(one(t) for t in texts[1:]))
        elapsed = time.perf_counter() - started
    return (len(texts) - 1) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--requests", type=int, default=48)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    load_before = os.getloadavg()
    pdbench_rates, plain_rates = [], []
    with LocalServer(port=0, parallel=args.slots, threads=args.threads, ctx=1024) as server:
        for repeat in range(args.repeats):
            order = (
                (by_pdbench, by_plain_client) if repeat % 2 == 0 else (by_plain_client, by_pdbench)
            )
            for client in order:
                rate = asyncio.run(client(server, prompts(args.requests + 1), args.slots))
                print(f"  {client.__name__}: {rate:.3f} requests/s", flush=True)
                (pdbench_rates if client is by_pdbench else plain_rates).append(rate)
    load_after = os.getloadavg()
    pdbench_rate, plain_rate = statistics.median(pdbench_rates), statistics.median(plain_rates)
    print(f"slots {args.slots}, threads {args.threads}, {args.requests} requests x {args.repeats}")
    print(f"pdbench: {pdbench_rate:.2f} requests/s {[round(r, 2) for r in pdbench_rates]}")
    print(f"plain httpx: {plain_rate:.2f} requests/s {[round(r, 2) for r in plain_rates]}")
    print(f"ratio pdbench / plain: {pdbench_rate / plain_rate:.2f}")
    print(f"load average (1/5/15 min) before {load_before}, after {load_after}")


if __name__ == "__main__":
    main()
