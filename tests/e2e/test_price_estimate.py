"""Issue 33: a price before the run. `pdbench validate` and `--dry-run` print, per provider and
model, the expected and maximum calls and tokens and the price from litellm's (local) price map;
the manifest keeps the estimate and the summary shows it against what was spent."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from in_process import run_front_door
from project_copy import command_env

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from helpers import only_run_dir
from openai_stub_server import StubServer

ROOT = Path(__file__).resolve().parents[2]
GPT = ["provider=openai", "provider.model=openai/gpt-4o-mini"]


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _estimate(stdout: str, model: str) -> dict[str, str]:
    block = stdout.split(model, 1)[1]
    fields = {}
    for name in ("calls", "input tokens", "output tokens", "tokens counted", "price"):
        fields[name] = re.search(rf"^\s+{name}\s+(.*)$", block, re.MULTILINE).group(1)
    return fields


def test_validate_prices_a_hosted_model_from_the_price_map(tmp_path):
    from pdbench.providers.litellm_setup import import_litellm

    ran = run_front_door(
        "cli", ["validate", "conf/experiment.yaml", *GPT], cwd=ROOT, env=command_env(tmp_path)
    )
    assert ran.code == 0, ran.stderr
    found = _estimate(ran.stdout, "litellm openai/gpt-4o-mini")
    # conf/experiment.yaml: 2 LLM conditions x 3 replicates x 20 rounds; 2 retries each at most
    assert found["calls"] == "120 / 360"
    expected_in, most_in = re.match(
        r"([\d,]+) \(([\d,]+) .*\) / ([\d,]+)", found["input tokens"]
    ).group(1, 3)
    expected_out, most_out = (_number(v) for v in found["output tokens"].split(" / "))
    price = import_litellm().model_cost["gpt-4o-mini"]
    money = re.findall(r"\$([\d.]+)", found["price"])
    assert "litellm price map" in found["price"]
    # no prefix reaches the 1,024 tokens hosted providers cache from: all at the input rate
    assert float(money[0]) == pytest.approx(
        _number(expected_in) * price["input_cost_per_token"]
        + expected_out * price["output_cost_per_token"],
        abs=1e-4,
    )
    assert float(money[1]) == pytest.approx(
        _number(most_in) * price["input_cost_per_token"]
        + most_out * price["output_cost_per_token"],
        abs=1e-4,
    )
    assert 0 < float(money[0]) < float(money[1])
    # the rendered default prompt is a few hundred tokens a round
    assert 120 * 200 < _number(expected_in) < 120 * 1500
    assert "estimate (cl100k_base" in found["tokens counted"]  # gpt-4o's o200k is not litellm's


def test_with_batches_the_estimate_gives_both_prices_and_the_wall_time(tmp_path):
    """Issue 46: with run.batch, the batch price beside the immediate one (the map's batch rates
    for gpt-4o-mini: half), and the wall time: the batches in a row x run.batch_latency_s."""
    args = ["validate", "conf/experiment.yaml", *GPT, "run.batch=true"]
    ran = run_front_door(
        "cli", [*args, "run.batch_latency_s=1800"], cwd=ROOT, env=command_env(tmp_path)
    )
    assert ran.code == 0, ran.stderr
    found = _estimate(ran.stdout, "litellm openai/gpt-4o-mini")
    batch = re.search(r"^\s+batch price\s+(.*)$", ran.stdout, re.MULTILINE).group(1)
    immediate = [float(m) for m in re.findall(r"\$([\d.]+)", found["price"])]
    batched = [float(m) for m in re.findall(r"\$([\d.]+)", batch)]
    assert batched == pytest.approx([m / 2 for m in immediate], abs=1e-4)
    assert "litellm price map's batch prices" in batch
    # 20 rounds, each one batch (two more with both retries); 30 min a batch, at most 24 h
    assert (
        "batches       20 in a row (60 if every retry is used); wall time 10 h expected "
        "(20 x run.batch_latency_s=1800 s, an assumption), at most 60 days" in ran.stdout
    )
    # without run.batch the estimate is what it was
    plain = run_front_door("cli", args[:-1], cwd=ROOT, env=command_env(tmp_path))
    assert "batch" not in plain.stdout


def test_an_unknown_price_is_unknown_never_zero(tmp_path):
    ran = run_front_door(
        "cli",
        [
            "run",
            "conf/experiment.yaml",
            "provider=litellm",
            "provider.model=openai/no-such-model-x",
            "--dry-run",
        ],
        cwd=ROOT,
        env=command_env(tmp_path),
    )
    assert ran.code == 0, ran.stderr
    found = _estimate(ran.stdout, "litellm openai/no-such-model-x")
    assert found["price"].startswith("unknown / unknown")
    assert "$0" not in found["price"]


def test_the_manifest_keeps_the_estimate_and_the_summary_sets_it_against_the_spend(tmp_path):
    env = {**command_env(tmp_path), "OPENAI_API_KEY": "dummy"}
    with StubServer() as stub:
        ran = run_front_door(
            "cli",
            [
                "run",
                "conf/experiment.yaml",
                *GPT,
                f"provider.api_base={stub.api_base}",
                f"run.output_dir={tmp_path / 'runs'}",
                "--replicates",
                "1",
                "-q",
            ],
            cwd=ROOT,
            env=env,
        )
    assert ran.code == 0, ran.stderr
    run_dir = only_run_dir(tmp_path / "runs")
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    (estimate,) = manifest["estimate"]
    assert estimate["model"] == "openai/gpt-4o-mini" and estimate["calls_expected"] == 40
    assert estimate["price_usd_expected"] > 0 and estimate["price"] == "litellm price map"
    assert manifest["spend"]["live"] == 40  # every answer valid: as expected
    line = next(x for x in ran.stdout.splitlines() if x.startswith("estimate before the run"))
    assert "openai/gpt-4o-mini: 40 calls" in line and "spent: $" in line


def test_a_turn_game_is_not_estimated_and_says_so_never_zero(tmp_path):
    ran = run_front_door(
        "cli",
        [
            "validate",
            "conf/config.yaml",
            "game=liars_dice",
            "agent_a=llm_default",
            "agent_b=liars_random",
            *GPT,
        ],
        cwd=ROOT,
        env=command_env(tmp_path),
    )
    assert ran.code == 0, ran.stderr
    block = ran.stdout.split("litellm openai/gpt-4o-mini", 1)[1]
    assert "not estimated: liars_dice is a turn-based game" in block
    assert "$0" not in block and "calls          0" not in block
