"""Issue 45's done-when for the donor game, through the Hydra door: a sweep over the four norms
of the offline mock as an LLM donor (the game's default persona, cooperative) in a population
of house players runs offline; every image the game stored is recomputed here, independently of the game's code, from
the stored choices and pairs alone (rounds.jsonl) under the norm's written table, and so is
every player's giving and norm consistency the aggregates hold; a second sweep replays every
answer from the cache (0 live calls) and stores the same rounds. Run in this process
(tests/in_process.py) in the shared copy of the committed project."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pandas as pd
import pytest
from sweeps import run_sweep, stored_rounds

NORMS = ("image_scoring", "standing", "stern_judging", "shunning")
# (gave, recipient good) -> the donor is good; shared/references/groups-and-mechanisms.md
TABLES = {
    "image_scoring": {(True, True): 1, (True, False): 1, (False, True): 0, (False, False): 0},
    "standing": {(True, True): 1, (True, False): 1, (False, True): 0, (False, False): 1},
    "stern_judging": {(True, True): 1, (True, False): 0, (False, True): 0, (False, False): 1},
    "shunning": {(True, True): 1, (True, False): 0, (False, True): 0, (False, False): 0},
}
POPULATION = [
    "game=donor_game",
    "agent_a=llm_default",
    "agent_b=donor_discriminator",
    "agent_c=donor_never_give",
    "agent_d=donor_always_give",
    "agent_e=donor_threshold",
    "agent_f=donor_random",
    "game.options.players=6",
    "game.options.rounds=6",
    "run.replicates=1",
]


def sweep(tmp_path: Path, name: str) -> Path:
    run_dir, _ = run_sweep(tmp_path, name, [*POPULATION, "game.options.norm=" + ",".join(NORMS)])
    return run_dir


def images_under(norm: str, match: list[dict]) -> list[dict[str, int]]:
    """Every seat's image before each round and after the last, judged by `norm`'s table."""
    images = dict.fromkeys(match[0]["actions"], 1)  # everyone starts good
    found = [images]
    for line in match:
        recipients = line["revealed"]["recipients"]
        images = {
            donor: TABLES[norm][(line["actions"][donor]["give"], images[recipients[donor]] == 1)]
            for donor in images
        }
        found.append(images)
    return found


@pytest.fixture(scope="module")
def first(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("donor_sweep")
    return tmp, sweep(tmp, "first")


def matches(run_dir: Path) -> dict[tuple[str, int], list[dict]]:
    found: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for line in stored_rounds(run_dir):
        found[(line["condition"], line["replicate"])].append(line)
    return found


def test_every_stored_image_is_the_norms_judgement_of_the_stored_choices(first):
    _, run_dir = first
    stored = matches(run_dir)
    assert len(stored) == 4  # a match a norm
    for (condition, _), match in stored.items():
        norm = match[-1]["outcome"]["options"]["norm"]
        assert f"game.options.norm={norm}" in condition
        expected = images_under(norm, match)
        for number, line in enumerate(match):
            assert line["revealed"]["images_before"] == expected[number], (condition, number)
            assert line["revealed"]["images"] == expected[number + 1], (condition, number)
        # the scores: b to each recipient of a gift, c from each giver
        options = match[-1]["outcome"]["options"]
        scores = dict.fromkeys(expected[0], float(options["endowment"]))
        for line in match:
            for donor, recipient in line["revealed"]["recipients"].items():
                if line["actions"][donor]["give"]:
                    scores[donor] -= options["cost"]
                    scores[recipient] += options["benefit"]
        assert match[-1]["outcome"]["scores"] == scores


def test_the_aggregates_giving_and_norm_consistency_are_the_stored_choices(first):
    _, run_dir = first
    table = pd.read_parquet(run_dir / "aggregates.parquet")
    replicates = table[table["level"] == "replicate"].set_index(["condition", "replicate"])
    for key, match in matches(run_dir).items():
        row = replicates.loc[key]
        norm = match[-1]["outcome"]["options"]["norm"]
        under = {n: images_under(n, match) for n in NORMS}
        for seat in match[0]["actions"]:
            gave = [line["actions"][seat]["give"] for line in match]
            assert row[f"giving_rate_{seat}"] == pytest.approx(sum(gave) / len(gave))
            for n in NORMS:
                good = [
                    TABLES[n][(g, under[n][i][line["revealed"]["recipients"][seat]] == 1)]
                    for i, (g, line) in enumerate(zip(gave, match, strict=True))
                ]
                assert row[f"norm_{n}_{seat}"] == pytest.approx(sum(good) / len(good)), (
                    key,
                    seat,
                    n,
                )
            seen = [
                under[norm][i][line["revealed"]["recipients"][seat]] for i, line in enumerate(match)
            ]
            to_good = [g for g, s in zip(gave, seen, strict=True) if s == 1]
            to_bad = [g for g, s in zip(gave, seen, strict=True) if s == 0]
            if to_good and to_bad:
                share = sum(to_good) / len(to_good) - sum(to_bad) / len(to_bad)
                assert row[f"discriminator_share_{seat}"] == pytest.approx(share)
            else:
                assert pd.isna(row[f"discriminator_share_{seat}"])
        # the house players are what they say: c never gives, d always does
        assert row["giving_rate_c"] == 0.0 and row["giving_rate_d"] == 1.0
        assert row["norm_image_scoring_d"] == 1.0 and row["norm_image_scoring_c"] == 0.0


def test_the_mock_donor_discriminates_and_a_second_sweep_replays_with_no_live_call(first):
    tmp, run_dir = first
    table = pd.read_parquet(run_dir / "aggregates.parquet")
    conditions = table[table["level"] == "condition"]
    assert len(conditions) == 4 and (conditions["giving_rate_a"] > 0).all()
    # the cooperative mock is the discriminator: it gives to the good and refuses the bad
    assert (conditions["give_to_good_a"] == 1.0).all()
    assert (conditions["give_to_bad_a"].dropna() == 0.0).all()
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    assert manifest["provider_calls"]["live"] > 0
    second = sweep(tmp, "second")
    calls = json.loads((second / "run_manifest.json").read_text())["provider_calls"]
    assert calls["live"] == 0 and calls["cached"] == manifest["provider_calls"]["live"]
    assert stored_rounds(second) == stored_rounds(run_dir)
