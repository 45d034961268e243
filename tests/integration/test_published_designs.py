"""The shipped paper configs (conf/experiment/) run offline through the LLM path with the scripted
mock model, and a scripted model playing the published behaviour reproduces the published numbers
through pdbench's own pipeline: prompt -> mock reads the prompt -> strict parse -> rounds -> metrics.
Also: the option order shuffled per round, and reasoning stored with its attempt."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from pathlib import Path

import orjson
import pandas as pd
import pytest
from helpers import TEST_DEAL

from pdbench.analysis.identification.fingerprints import memory_one_fingerprint
from pdbench.analysis.identification.moves import MatchBatch
from pdbench.analysis.metrics.columns import read_matches
from pdbench.games.matrix.stored import as_rounds
from pdbench.runners.experiment import run_experiment
from pdbench.runners.plan import plan_matches
from pdbench.runners.prepare import LoadedExperiment, load

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ROOT / "conf" / "experiment"
CONFIGS = [
    "akata2025_pd.yaml",
    "akata2025_bos.yaml",
    "fontana2025_alpha.yaml",
    "payne2025_shadow.yaml",
]


def loaded(config: str, tmp_path: Path, *overrides: str, replicates: int | None = None):
    return load(
        PAPERS / config,
        [f"run.output_dir={tmp_path / 'runs'}", *overrides],
        replicates=replicates,
        project_root=ROOT,
    )


def only(experiment: LoadedExperiment, *names: str) -> LoadedExperiment:
    """The experiment with only the named conditions."""
    conditions = tuple(c for c in experiment.spec.conditions if c.name in names)
    assert len(conditions) == len(names)
    return dataclasses.replace(
        experiment, spec=experiment.spec.model_copy(update={"conditions": conditions})
    )


def rounds_of(run_dir: Path) -> list[dict]:
    stored = (run_dir / "rounds.jsonl").read_bytes().splitlines()
    return list(as_rounds(orjson.loads(line) for line in stored))  # as the readers read them


@pytest.mark.parametrize("config", CONFIGS)
def test_each_paper_config_runs_offline_through_the_llm_path(config, tmp_path):
    # Fontana's 100-round matches are cut to 12 rounds: still past the prompt's window of the
    # last 10 rounds, so every part of its prompt is built and parsed; all 11 conditions run.
    shorter = ("horizon.rounds=12",) if config == "fontana2025_alpha.yaml" else ()
    experiment = loaded(config, tmp_path, *shorter, replicates=2)
    assert experiment.spec.conditions[0].agent_a.provider.name == "mock"  # no key needed
    outcome = run_experiment(experiment)
    assert outcome.status == "complete"
    assert outcome.matches_played == 2 * len(experiment.spec.conditions)
    records = rounds_of(outcome.run_dir)
    assert {r["condition"] for r in records} == {c.name for c in experiment.spec.conditions}
    llm_rounds = [r for r in records if "agent_a_attempts" in r]
    assert llm_rounds and all(r["agent_a_invalid_outputs"] == 0 for r in llm_rounds)
    aggregates = pd.read_parquet(outcome.run_dir / "aggregates.parquet")
    assert set(aggregates["condition"]) == {c.name for c in experiment.spec.conditions}


def test_akata_scripted_grim_against_defect_once_writes_the_papers_gpt4_play(tmp_path):
    """Akata et al. report GPT-4 against "defect once": J, F, F, F, F, F, F, F, F, F and 90
    points; in self-play it cooperates every round, 80 points."""
    outcome = run_experiment(
        only(loaded("akata2025_pd.yaml", tmp_path, replicates=1), "vs_defect_once", "self_play")
    )
    records = rounds_of(outcome.run_dir)
    vs_defect_once = [r for r in records if r["condition"] == "vs_defect_once"]
    answers = [r["agent_a_attempts"][-1]["raw"] for r in vs_defect_once]
    assert answers == ["J"] + ["F"] * 9  # what the model answered, in the paper's words
    assert "".join(r["agent_a_action"] for r in vs_defect_once) == "C" + "D" * 9
    assert "".join(r["agent_b_action"] for r in vs_defect_once) == "D" + "C" * 9
    assert vs_defect_once[-1]["agent_a_cum_payoff"] == 90.0
    self_play = [r for r in records if r["condition"] == "self_play"]
    assert {r["agent_a_action"] + r["agent_b_action"] for r in self_play} == {"CC"}
    assert self_play[-1]["agent_a_cum_payoff"] == self_play[-1]["agent_b_cum_payoff"] == 80.0
    aggregates = pd.read_parquet(outcome.run_dir / "aggregates.parquet")
    row = aggregates[(aggregates.condition == "vs_defect_once") & (aggregates.level == "condition")]
    assert row["cooperation_rate_a"].item() == pytest.approx(0.1)


@pytest.mark.slow
def test_fontana_scripted_random_cooperates_at_its_rate_whatever_alpha(tmp_path):
    p, replicates, rounds = 0.3, 4, 100
    # "Whatever alpha": the two extremes (an opponent that never / always cooperates) and the
    # middle of the paper's 11 alphas. The scripted model ignores the opponent, so the alphas
    # in between add nothing a 0.0 / 0.5 / 1.0 run does not already show; each condition keeps
    # the paper's 100 rounds. 4 replicates (400 rounds a condition) instead of 20: each rate is
    # still held to 4 standard errors of its own sample, so the chance that a correct run fails
    # stays as low: exactly (binomial), 6.9e-5 per model rate and 4.8e-5 for the alpha 0.5
    # opponent, 2.6e-4 for the test, against 7.0e-5, 6.2e-5 and 2.7e-4 with 20 replicates.
    experiment = only(
        loaded(
            "fontana2025_alpha.yaml",
            tmp_path,
            "provider.mock.policy=random",
            f"provider.mock.params={{cooperate_prob: {p}}}",
            replicates=replicates,
        ),
        "alpha_0.0",
        "alpha_0.5",
        "alpha_1.0",
    )
    outcome = run_experiment(experiment)
    aggregates = pd.read_parquet(outcome.run_dir / "aggregates.parquet")
    by_alpha = aggregates[aggregates.level == "condition"].set_index("condition")
    tolerance = 4 * math.sqrt(p * (1 - p) / (replicates * rounds))  # 4 standard errors
    assert sorted(by_alpha.index) == ["alpha_0.0", "alpha_0.5", "alpha_1.0"]
    for condition in experiment.spec.conditions:
        alpha = float(condition.factors["alpha"])
        model, opponent = by_alpha.loc[condition.name, ["cooperation_rate_a", "cooperation_rate_b"]]
        assert abs(model - p) < tolerance, condition.name
        opponent_variance = max(alpha * (1 - alpha), 0.01)
        assert abs(opponent - alpha) < 4 * math.sqrt(opponent_variance / (replicates * rounds))


def test_payne_scripted_fingerprint_is_recovered_from_the_stored_rounds(tmp_path):
    """The default scripted model is memory-one with Gemini 2.5 Flash's reported fingerprint at
    25 %: pdbench's fingerprint of the stored rounds holds each number in its 99 % interval."""
    # 60 replicates, not 150: each number is checked against its own 99 % Wilson interval, so the
    # chance a correct run fails does not grow with fewer rounds: exactly (binomial, at the
    # occasions this seed gives, ~2.6 / 2.8 / 5.7 / 5.1 a replicate after CC / CD / DC / DD) it is
    # 3.8 % for the four numbers, against 4.4 % with 150 replicates; the fewest occasions expected
    # (~157, after CC) are far above the 50 the test asks for.
    experiment = only(
        loaded("payne2025_shadow.yaml", tmp_path, replicates=60),
        "end10_vs_random",
        "end10_vs_alternator",
    )
    outcome = run_experiment(experiment)
    matches = read_matches(outcome.run_dir)
    batch = MatchBatch.from_flat(matches.starts, matches.coop_a, matches.coop_b)
    fingerprint = memory_one_fingerprint(batch, confidence=0.99)
    reported = {"CC": 0.981, "CD": 0.017, "DC": 0.128, "DD": 0.122}
    for outcome_name, rate in fingerprint.after.items():
        assert rate.occasions > 50, outcome_name
        assert rate.ci_low <= reported[outcome_name] <= rate.ci_high, (outcome_name, rate)


def test_option_order_is_shuffled_per_round_recorded_and_seeded(tmp_path):
    # three runs of one workspace (one deal key): the seed decides, the run id does not
    first = run_experiment(
        only(loaded("akata2025_pd.yaml", tmp_path, "run.run_id=one", replicates=4), "vs_tft")
    )
    again = run_experiment(
        only(loaded("akata2025_pd.yaml", tmp_path, "run.run_id=two", replicates=4), "vs_tft")
    )
    other = run_experiment(
        only(
            loaded("akata2025_pd.yaml", tmp_path, "run.run_id=three", "run.seed=7", replicates=4),
            "vs_tft",
        )
    )
    records = rounds_of(first.run_dir)
    orders = [r["agent_a_option_order"] for r in records]
    assert set(orders) == {"CD", "DC"}  # both orders occur
    for record in records:  # the order recorded is the order shown
        question = record["agent_a_attempts"][0]["prompt"].splitlines()[-2]
        shown = (
            "Option J or Option F"
            if record["agent_a_option_order"] == "CD"
            else "Option F or Option J"
        )
        assert question == f"Q: Which Option do you choose, {shown}?"
    assert orders == [r["agent_a_option_order"] for r in rounds_of(again.run_dir)]
    assert orders != [r["agent_a_option_order"] for r in rounds_of(other.run_dir)]
    assert abs(Counter(orders)["DC"] / len(orders) - 0.5) < 0.3
    # a fixed order writes nothing
    fixed = run_experiment(
        only(loaded("akata2025_bos.yaml", tmp_path / "4", replicates=1), "vs_always_j")
    )
    assert all("agent_a_option_order" not in r for r in rounds_of(fixed.run_dir))


@pytest.mark.parametrize("store_prompts", [True, "hash", False])
def test_reasoning_is_stored_with_its_attempt(tmp_path, store_prompts):
    setting = {True: "true", False: "false", "hash": "hash"}[store_prompts]
    experiment = only(
        loaded("payne2025_shadow.yaml", tmp_path, f"run.store_prompts={setting}", replicates=1),
        "end10_vs_tft",
    )
    records = rounds_of(run_experiment(experiment).run_dir)
    attempt = records[0]["agent_a_attempts"][0] if store_prompts is not False else None
    if store_prompts is True:
        assert attempt["raw"].splitlines()[-1] == records[0]["agent_a_action"]
        assert attempt["reasoning"] == attempt["raw"].rsplit("\n", 1)[0]
        assert attempt["reasoning"].startswith("I play as MEMORY_ONE would.")
    elif store_prompts == "hash":
        assert "reasoning" not in attempt and len(attempt["reasoning_sha256"]) == 64
    else:
        assert all("reasoning" not in str(r.get("agent_a_attempts", "")) for r in records)


def test_a_hidden_cap_and_disclosed_ending_probability(tmp_path):
    experiment = loaded("payne2025_shadow.yaml", tmp_path, replicates=1)
    for condition in experiment.spec.conditions:
        assert condition.horizon.type == "geometric" and condition.horizon.max_rounds == 30
        assert condition.factors["stop_prob"] == str(condition.horizon.stop_prob)
    assert sorted({c.horizon.stop_prob for c in experiment.spec.conditions}) == [0.1, 0.25, 0.75]
    assert max(m.n_rounds for m in plan_matches(experiment.spec, TEST_DEAL)) <= 30
