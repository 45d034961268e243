"""CoopEval's design, exactly (issue 45, docs/mechanisms.md "What matches CoopEval"): repetition's
told and discounted continuation chance, recomputed here from the stored rounds with CoopEval's
own weights (`payoffs_base.py@8559e85:51-82`, re-typed below, not the package's); everything in
this process, seeded and small."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from pdbench.agents.judged_prompts import render_prompt
from pdbench.games.normal_form.metrics import state_row
from pdbench.games.normal_form.rules import NormalForm, rules_of
from tests.in_process import run_front_door
from tests.unit.test_normal_form import play_with_mock

ROOT = Path(__file__).resolve().parents[2]
COOPERATIVE_MEDIATOR = {"type": "design", "mediator": {"1": "A0", "2": "A0"}}
COOPEVAL_PD = {"CC": [2, 2], "CD": [0, 3], "DC": [3, 0], "DD": [1, 1]}


def coopeval_discounted_average(payoffs: np.ndarray, d: float) -> np.ndarray:
    """CoopEval's `_compute_discounted_average` (payoffs_base.py@8559e85:57-80), (rounds,
    players) -> (players,): round t weighs (1 - d) d^t, the last d^(T-1)."""
    rounds = payoffs.shape[0]
    w = (1 - d) * (d ** np.arange(rounds))
    w[-1] = d ** (rounds - 1)
    return (payoffs * w[:, None]).sum(axis=0)


def play_out(rules: NormalForm, moves: list[tuple[str, str]], seed: int = 4):
    state = rules.initial_state(seed)
    revealed = []
    for a, b in moves:
        before = state
        state = rules.apply(
            state, {"a": {"type": "play", "action": a}, "b": {"type": "play", "action": b}}
        )
        revealed.append(rules.revealed(before, state))
    return state, revealed


MOVES = [("A0", "A0"), ("A0", "A1"), ("A1", "A0"), ("A1", "A1"), ("A0", "A0")]


@pytest.mark.parametrize("mechanism", ["repetition", "reputation"])
def test_a_discounted_score_is_coopevals_weighted_average_of_the_stored_rounds(mechanism):
    options = {"base": "pd", "payoffs": COOPEVAL_PD, "mechanism": mechanism, "rounds": 5}
    if mechanism == "reputation":
        options["groups"] = 2
    discounted = rules_of({**options, "discount": 0.8})
    summed = rules_of(options)
    for rules in (discounted, summed):
        seats = rules.seats
        state = rules.initial_state(4)
        stored = []
        for a, b in MOVES:
            moves = {
                s: {"type": "play", "action": a if i % 2 == 0 else b} for i, s in enumerate(seats)
            }
            before = state
            state = rules.apply(state, moves)
            stored.append(rules.revealed(before, state)["payoffs"])
        raw = np.array([[row[s] for s in seats] for row in stored], dtype=float)
        d = rules.discount
        expected = raw.sum(axis=0) if d == 1 else coopeval_discounted_average(raw, d)
        scores = rules.scores(state)
        assert [scores[s] for s in seats] == pytest.approx(list(expected), abs=1e-12)
        rows = state_row(rules, state)
        for i, seat in enumerate(seats):  # the raw sum is kept beside the ranked score
            assert rows[seat]["score"] == scores[seat]
            assert rows[seat]["payoff_sum"] == pytest.approx(raw[:, i].sum())
            assert rows[seat]["discount"] == d
            assert float(state.totals[i]) == pytest.approx(raw[:, i].sum())  # running sums


def test_coopevals_weights_by_hand():
    """d = 0.8, 5 rounds: 0.2, 0.16, 0.128, 0.1024 and the tail 0.8^4 = 0.4096 (sum 1)."""
    rules = NormalForm(
        base="pd", payoffs=COOPEVAL_PD, mechanism="repetition", rounds=5, discount=0.8
    )
    state, _ = play_out(rules, MOVES)  # a gets 2, 0, 3, 1, 2
    assert rules.scores(state)["a"] == pytest.approx(0.4 + 0 + 0.384 + 0.1024 + 0.8192)


def test_the_default_discount_is_not_recorded_and_changes_nothing():
    from pdbench.games.base import recorded_options

    plain = NormalForm(mechanism="repetition", rounds=5)
    assert "discount" not in recorded_options(plain)
    assert (
        recorded_options(NormalForm(mechanism="repetition", rounds=5, discount=0.8))["discount"]
        == 0.8
    )
    state, _ = play_out(plain, MOVES)
    assert plain.scores(state) == {"a": 3 + 0 + 5 + 1 + 3, "b": 3 + 5 + 0 + 1 + 3}


def test_the_prompt_tells_coopevals_continuation_chance_and_the_mock_still_plays():
    rules = NormalForm(
        base="pd", payoffs=COOPEVAL_PD, mechanism="repetition", rounds=3, discount=0.8
    )
    shown = rules.observe(rules.initial_state(0), "a")
    assert shown["discount"] == 0.8
    prompt = render_prompt(ROOT, shown, "")
    # CoopEval's sentence with int(0.8 * 100) (repetition.py@8559e85:52-65, prompts.py:128-136)
    assert (
        "After each round, there is a 80% chance probability that an additional round will "
        "take place. You have already played this game for 0 round(s) in the past."
    ) in prompt
    assert "rounds in all" not in prompt and "3 rounds" not in prompt
    plain = NormalForm(base="pd", payoffs=COOPEVAL_PD, mechanism="repetition", rounds=3)
    told = render_prompt(ROOT, plain.observe(plain.initial_state(0), "a"), "")
    assert "3 rounds in all" in told and "chance" not in told  # discount 1: as before
    assert play_with_mock(rules, "cooperative").finished[-1].realised == (0, 0)


@pytest.mark.parametrize(
    "options, named",
    [
        ({"mechanism": "repetition", "discount": 0}, "discount"),
        ({"mechanism": "repetition", "discount": 1.2}, "discount"),
        ({"mechanism": "repetition", "discount": "0.8"}, "discount"),
        ({"mechanism": "mediation", "discount": 0.8}, "discount"),
    ],
)
def test_a_bad_discount_is_refused_by_its_name(options, named):
    with pytest.raises(ValueError, match=rf"^{named}"):
        rules_of({"base": "pd", **options})


@pytest.mark.parametrize(
    "overrides, reason",
    [
        (["mechanism=repetition", "mechanism.discount=1.5"], "at most 1"),
        # public goods' own reputation game sums its rounds: a discount is refused, not ignored
        (
            [
                "game=public_goods",
                "mechanism=reputation",
                "mechanism.discount=0.8",
                "population={mech_tft:4,mech_alld:4}",
            ],
            "sums its rounds",
        ),
    ],
)
def test_a_bad_discount_on_the_command_line_exits_2_naming_it(tmp_path, overrides, reason):
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    args = ["validate", str(ROOT / "conf" / "config.yaml"), *overrides]
    ran = run_front_door("cli", args, cwd=tmp_path, env=env)
    assert ran.code == 2, ran.stderr
    assert "mechanism.discount" in ran.stderr and reason in ran.stderr
    assert "Traceback" not in ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1


def test_the_repetition_preset_ranks_on_the_discounted_score_and_says_so(tmp_path):
    """coopeval_pd_repetition.yaml (discount 0.8): each stored round keeps its own payoffs, the
    aggregated score is CoopEval's average of them (recomputed here), the sum is kept beside it,
    and the end-of-run table says which score it shows."""
    import orjson
    import pandas as pd

    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "200"}
    preset = ROOT / "conf" / "experiment" / "coopeval_pd_repetition.yaml"
    args = ["run", str(preset), "run.replicates=1", f"run.output_dir={tmp_path / 'runs'}"]
    ran = run_front_door("cli", args, cwd=tmp_path, env=env)
    assert ran.code == 0, ran.stderr
    assert "score: CoopEval's discounted average" in ran.stdout
    assert "llm_vs_llm, llm_vs_tft, tft_vs_alld (d = 0.8)" in " ".join(ran.stdout.split())
    (run_dir,) = (tmp_path / "runs").glob("coopeval_pd_repetition-*")
    plays: dict[str, list[dict]] = {}
    for line in (run_dir / "rounds.jsonl").read_bytes().splitlines():
        record = orjson.loads(line)
        plays.setdefault(record["condition"], []).append(record["revealed"]["payoffs"])
    table = pd.read_parquet(run_dir / "aggregates.parquet")
    for condition, rounds in plays.items():
        assert len(rounds) == 15
        raw = np.array([[r["a"], r["b"]] for r in rounds], dtype=float)
        row = table[(table["condition"] == condition) & (table["level"] == "replicate")].iloc[0]
        expected = coopeval_discounted_average(raw, 0.8)
        assert [row["score_a"], row["score_b"]] == pytest.approx(list(expected), abs=1e-12)
        assert [row["payoff_sum_a"], row["payoff_sum_b"]] == pytest.approx(list(raw.sum(axis=0)))
        assert row["discount_a"] == 0.8


# --- design once (mediation.py@8559e85:198-228, contracting.py:207-234) -----------------------

DESIGN_ONCE = """\
run: {seed: 7, replicates: 2}
provider: {name: mock, model: mock}
game:
  id: normal_form
  options: {base: pd, payoffs: {CC: [2, 2], CD: [0, 3], DC: [3, 0], DD: [1, 1]},
            mechanism: MECHANISM, rounds: 1, strategies: mixed, design_scope: SCOPE}
conditions:
  - {name: llm_vs_llm, agent_a: {ref: agent/llm_default.yaml, overrides: {temperature: 1.0}},
     agent_b: {ref: agent/llm_default.yaml, overrides: {temperature: 1.0}}}
  - {name: llm_vs_designer, agent_a: {ref: agent/llm_default.yaml, overrides: {temperature: 1.0}},
     agent_b: mech_designer}
  - {name: llm_vs_random, agent_a: {ref: agent/llm_default.yaml, overrides: {temperature: 1.0}},
     agent_b: mech_random}
"""


def run_designs(tmp_path: Path, mechanism: str, scope: str) -> tuple[list[dict], dict]:
    """The stored design turns of a run, and its manifest's call counts."""
    import orjson

    path = tmp_path / f"{mechanism}_{scope}.yaml"
    path.write_text(DESIGN_ONCE.replace("MECHANISM", mechanism).replace("SCOPE", scope))
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    args = ["run", str(path), "-q", f"run.output_dir={tmp_path / 'runs'}"]
    ran = run_front_door("cli", args, cwd=tmp_path, env=env)
    assert ran.code == 0, ran.stderr
    (run_dir,) = (tmp_path / "runs").glob(f"{path.stem}-*")
    lines = [orjson.loads(x) for x in (run_dir / "rounds.jsonl").read_bytes().splitlines()]
    manifest = orjson.loads((run_dir / "run_manifest.json").read_bytes())
    return [line for line in lines if line["phase"] == "design"], manifest


# the LLM's calls of DESIGN_ONCE: its phases (design, vote, play; contracting's sign too) x 4
# LLM seats (two in llm_vs_llm, seat a in the others) x 2 replicates; under run scope seat a's
# design is one call per replicate, not one per condition: 2 x 2 fewer live calls, answered from
# the cache
PHASES = {"mediation": 3, "contracting": 4}


@pytest.mark.parametrize("mechanism", ["mediation", "contracting"])
def test_run_scope_designs_once_per_agent_and_seat_and_every_match_reuses_it(tmp_path, mechanism):
    turns, manifest = run_designs(tmp_path, mechanism, "run")
    assert len(turns) == 6  # every match still has its design turn, for the record
    designs: dict[tuple[int, str, str], set[str]] = {}
    ids: dict[tuple[int, str, str], set[str]] = {}
    for turn in turns:
        assert turn["revealed"]["design_scope"] == "run"
        for seat, action in turn["actions"].items():
            key = (turn["replicate"], turn[f"agent_{seat}"], seat)
            design = action.get("mediator", action.get("contract"))
            designs.setdefault(key, set()).add(repr(sorted(design.items())))
            ids.setdefault(key, set()).add(turn["revealed"]["design_ids"][seat])
    # one design per agent, seat and replicate, and every match's record names it by one id
    assert all(len(found) == 1 for found in designs.values()), designs
    assert all(len(found) == 1 for found in ids.values()), ids
    calls = manifest["provider_calls"]
    live = PHASES[mechanism] * 4 * 2
    assert (calls["live"], calls["cached"]) == (live - 4, 4)  # each design paid for once


def test_the_page_names_each_reused_design_by_its_id():
    from pdbench.games.normal_form.view import phase_rows

    rules = NormalForm(mechanism="mediation", design_scope="run")
    state = rules.initial_state(0)
    designs = {"a": COOPERATIVE_MEDIATOR, "b": COOPERATIVE_MEDIATOR}
    after = rules.apply(state, designs)
    turn = {"phase": "design", "round": 1, "actions": designs}
    turn["revealed"] = rules.revealed(state, after)
    rows = phase_rows([turn], {"a": "A", "b": "B"})
    shown = turn["revealed"]["design_ids"]["a"]
    assert shown == turn["revealed"]["design_ids"]["b"] and len(shown) == 12
    assert rows[0]["outcome"] == f"design {shown}, reused by every match"


def test_match_scope_is_todays_a_design_per_match(tmp_path):
    turns, manifest = run_designs(tmp_path, "mediation", "match")
    assert all(turn.get("revealed") is None for turn in turns)
    calls = manifest["provider_calls"]
    assert (calls["live"], calls["cached"]) == (PHASES["mediation"] * 4 * 2, 0)


@pytest.mark.parametrize(
    "options, named",
    [
        ({"mechanism": "repetition", "design_scope": "run"}, "design_scope"),
        (
            {"mechanism": "mediation", "design_scope": "run", "decide": "every_round"},
            "design_scope",
        ),
        ({"mechanism": "mediation", "design_scope": "tournament"}, "design_scope"),
    ],
)
def test_a_bad_design_scope_is_refused_by_its_name(options, named):
    with pytest.raises(ValueError, match=rf"^{named}"):
        rules_of({"base": "pd", **options})


# --- a population per model x seat (agent_registry.py@8559e85:23-34, RandomMatcher at
# match_scheduler_reputation.py:20-56) ------------------------------------------------------


def test_a_reputation_population_is_re_matched_within_its_seats_as_stored(tmp_path):
    """Every stored round's pairs hold one seat of each position (a, c, e, g Player 1; b, d, f,
    h Player 2), a seat keeps its position all match, and each agent has as many seats in each
    position, as CoopEval's one agent per model and seat."""
    import orjson

    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    args = [
        "run",
        str(ROOT / "conf" / "config.yaml"),
        "-q",
        "game=pd",
        "mechanism=reputation",
        "mechanism.rounds=6",
        "population={mech_tft:2,mech_alld:4,mech_reputation:2}",
        "run.replicates=1",
        f"run.output_dir={tmp_path / 'runs'}",
    ]
    ran = run_front_door("cli", args, cwd=tmp_path, env=env)
    assert ran.code == 0, ran.stderr
    (run_dir,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    lines = [orjson.loads(x) for x in (run_dir / "rounds.jsonl").read_bytes().splitlines()]
    agent = {k.removeprefix("agent_"): v for k, v in lines[0].items() if k.startswith("agent_")}
    assert len(agent) == 8 and len(lines) == 6
    positions: dict[str, set[int]] = {}
    for line in lines:
        groups = line["revealed"]["groups"]
        assert sorted(s for g in groups for s in g) == sorted(agent)  # everyone, once
        for group in groups:
            assert [("abcdefgh".index(s) % 2) for s in group] == [0, 1], groups
            for place, seat in enumerate(group):
                positions.setdefault(seat, set()).add(place)
    assert all(len(found) == 1 for found in positions.values())  # re-matched within its seat
    per_type: dict[str, list[int]] = {}
    for seat, (place,) in positions.items():
        per_type.setdefault(agent[seat], [0, 0])[place] += 1
    assert all(first == second for first, second in per_type.values()), per_type
    assert len({str(sorted(map(sorted, line["revealed"]["groups"]))) for line in lines}) > 1


@pytest.mark.parametrize(
    "population, named",
    [
        ("population={mech_tft:3,mech_alld:1}", "population.mech_tft"),
        ("population={mech_tft:2,mech_alld:1,mech_allc:3}", "population.mech_alld"),
    ],
)
def test_a_reputation_population_that_misses_a_seat_exits_2_naming_the_entry(
    tmp_path, population, named
):
    """An odd count would put an agent in one seat group more than the other (the issue of an
    odd count meeting one seat group): refused, naming the entry."""
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    args = ["validate", str(ROOT / "conf" / "config.yaml"), "game=pd", "mechanism=reputation"]
    ran = run_front_door("cli", [*args, population], cwd=tmp_path, env=env)
    assert ran.code == 2, ran.stderr
    assert named in ran.stderr and "multiple of 2" in ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1 and "Traceback" not in ran.stderr


def test_the_reputation_preamble_tells_the_chance_and_the_mock_still_reads_the_tree():
    from pdbench.games.normal_form.reputation_prompt import read_reputation

    rules = rules_of(
        {"base": "pd", "mechanism": "reputation", "rounds": 3, "groups": 2, "discount": 0.8}
    )
    state = rules.initial_state(1)
    moves = {s: {"type": "play", "action": "A1" if s == "a" else "A0"} for s in rules.seats}
    state = rules.apply(state, moves)
    prompt = render_prompt(ROOT, rules.observe(state, "b"), "")
    assert (
        "After each round, there is a 80% chance probability that an additional round will take "
        "place. You have already played this game for 1 round(s) in the past."
    ) in prompt
    assert "rounds in all" not in prompt
    shown = read_reputation(prompt)
    assert shown is not None and shown["players"][1]["history"][-1]["action"] in ("A0", "A1")


def test_public_goods_seat_groups_match_one_player_of_each_position_as_coopeval():
    """CoopEval's RandomMatcher (match_scheduler_reputation.py@8559e85:44-56) re-typed: each
    round every position's seats (p mod N) are shuffled and group g is the g-th of each."""
    from pdbench.games.public_goods.matching import draw_round

    size, groups = 3, 4
    draws = [draw_round(5, number, size, groups, "seat_groups", 1) for number in range(1, 9)]
    assert draws == [draw_round(5, n, size, groups, "seat_groups", 1) for n in range(1, 9)]
    for draw in draws:
        assert sorted(p for g in draw.groups for p in g) == list(range(size * groups))
        for group in draw.groups:
            assert [p % size for p in group] == [0, 1, 2]  # one of each position, in order
            assert [draw.labels[p] for p in group] == ["P1", "P2", "P3"]  # "Player {seat}"
    assert len({d.groups for d in draws}) > 1  # re-matched


def test_public_goods_under_the_reputation_mechanism_plays_coopevals_seat_groups(tmp_path):
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    args = ["validate", str(ROOT / "conf" / "config.yaml"), "game=public_goods"]
    args += ["mechanism=reputation", "game.options.players=2"]
    ran = run_front_door(
        "cli", [*args, "population={pgg_free_rider:3,pgg_random:1}"], cwd=tmp_path, env=env
    )
    assert ran.code == 2 and "population.pgg_free_rider" in ran.stderr, ran.stderr
    from pdbench.runners.prepare import load

    spec = load(
        ROOT / "conf" / "config.yaml",
        [*args[2:], "population={pgg_free_rider:2,pgg_random:2}", f"run.output_dir={tmp_path}"],
        project_root=ROOT,
    ).spec
    assert spec.conditions[0].game.options["matching"] == "seat_groups"


def test_run_scope_with_the_cache_off_is_refused_not_designed_per_match(tmp_path):
    """The design is shared through the replay cache: with it off each match would draw its own."""
    path = tmp_path / "off.yaml"
    path.write_text(DESIGN_ONCE.replace("MECHANISM", "mediation").replace("SCOPE", "run"))
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    args = ["run", str(path), "-q", f"run.output_dir={tmp_path / 'runs'}", "run.cache.mode=off"]
    ran = run_front_door("cli", args, cwd=tmp_path, env=env)
    assert ran.code == 2, ran.stderr
    assert "run.cache.mode" in ran.stderr and "design_scope" in ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists() or not any(
        (tmp_path / "runs").glob("off-*/rounds.jsonl")
    )
    validated = run_front_door("cli", ["validate", *args[1:2], *args[3:]], cwd=tmp_path, env=env)
    assert validated.code == 2 and "run.cache.mode" in validated.stderr  # refused when validated
