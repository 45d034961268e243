"""Issue 45's done-when sweep through the front door: `python -m pdbench -m game=pd,public_goods
mechanism=none,reputation,mediation,contracting` with every seat the offline mock (eight seats
bound, agent_a .. agent_h: a multiple of both group sizes, 2 and conf/game/public_goods.yaml's 4,
so both reputation cells have two groups or more; the smaller games leave the further seats out
with a warning) runs offline, and the same sweep again replays every answer (0 live calls) to the
same rounds. In the pd reputation condition every seat was shown (its observation digest, replayed
from the stored actions) the reputation tree the stored rounds give (recomputed here by an
independent reader, tests/reputation_records.py). `pdbench tournament` on a pd reputation run of
a population gives a payoff matrix recomputed here from rounds.jsonl. Too few seats exit 2
naming what to bind. Run in this process (tests/in_process.py)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pandas as pd
from in_process import run_front_door
from project_copy import command_env, shared_copy
from reputation_records import expected_history
from sweeps import provider_calls, stored_rounds

from pdbench.games.normal_form.rules import rules_of
from pdbench.games.reputation_tree import pseudonyms
from pdbench.runners.turns import observation_digest

SEATS = [f"agent_{s}=llm_default" for s in "abcdefgh"]


def front_door(tmp_path: Path, entry: str, args: list[str]) -> Any:
    return run_front_door(entry, args, cwd=shared_copy(), env=command_env(tmp_path))


def sweep(tmp_path: Path, name: str) -> Path:
    output = tmp_path / name
    done = front_door(
        tmp_path,
        "module",
        [
            "-m",
            "game=pd,public_goods",
            "mechanism=none,reputation,mediation,contracting",
            *SEATS,
            "mechanism.rounds=4",
            "run.replicates=1",
            f"run.output_dir={output}",
            f"hydra.sweep.dir={tmp_path / 'hydra' / name}",
        ],
    )
    assert done.code == 0, done.stdout + done.stderr
    (run_dir,) = [d for d in output.iterdir() if d.is_dir()]
    return run_dir


def check_shown(match: list[dict[str, Any]]) -> None:
    """Every seat's observation before every round is the one the rules give from the stored
    actions (its digest), and its tree is the one the stored rounds give."""
    outcome = match[-1]["outcome"]
    rules = rules_of(outcome["options"])
    names = dict(zip(rules.seats, pseudonyms(outcome["seed"], len(rules.seats)), strict=True))
    revealed = {line["round"]: line["revealed"] for line in match}
    state = rules.initial_state(outcome["seed"])
    for line in match:
        now = line["round"]
        for seat in rules.seats:
            seen = rules.observe(state, seat)
            assert observation_digest(seen) == line["observation_digest"][seat]
            (group,) = [g for g in revealed[now]["groups"] if seat in g]
            listed = [seat] + [s for s in group if s != seat]
            me = {**names, seat: "You"}
            first = max(1, now - rules.lookup_depth)
            for player, who in zip(seen["reputation"]["players"], listed, strict=True):
                assert player["history"] == expected_history(
                    revealed, me, who, now, first, 1, rules.reputation_order
                )
        state = rules.apply(state, line["actions"])


def test_the_mechanism_sweep_of_pd_and_public_goods_runs_offline_and_replays(tmp_path):
    first = sweep(tmp_path, "first")
    stored = stored_rounds(first)
    by_condition: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in stored:
        by_condition[line["condition"]].append(line)
    assert len(by_condition) == 8
    pd_reputation = by_condition["game=pd,mechanism=reputation"]
    assert pd_reputation[0]["seats"] == list("abcdefgh")
    assert [line["round"] for line in pd_reputation] == [1, 2, 3, 4]
    check_shown(pd_reputation)
    public_goods = by_condition["game=public_goods,mechanism=reputation"]
    options = public_goods[-1]["outcome"]["options"]
    assert public_goods[0]["game"] == "public_goods"
    assert (options["groups"], options["matching"], options["reputation_depth"]) == (
        2,
        "seat_groups",  # CoopEval's RandomMatcher: one player of each position a group
        3,
    )
    assert options["reputation_order"] == 3
    stored_groups = [
        g for line in public_goods for g in (line.get("revealed") or {}).get("groups", [])
    ]
    assert stored_groups  # each one seat of each position (a, e; b, f; ...), CoopEval's matching
    for group in stored_groups:
        assert ["abcdefgh".index(seat) % 4 for seat in group] == [0, 1, 2, 3], group
    table = pd.read_parquet(first / "aggregates.parquet")
    conditions = table[table["level"] == "condition"].set_index("condition")
    assert conditions.loc["game=pd,mechanism=reputation", "cooperation_rate_h"] == 1.0
    assert provider_calls(first)["live"] > 0

    second = sweep(tmp_path, "second")  # the same sweep again, the same cache
    assert provider_calls(second)["live"] == 0
    assert provider_calls(second)["cached"] == provider_calls(first)["live"]
    assert stored_rounds(second) == stored


def test_tournament_on_a_pd_reputation_population_gives_the_recorded_payoffs(tmp_path):
    """On a discounted run (CoopEval's repetition score): the matrix is the stored rounds'
    payoffs per encounter, recomputed here, and the report says the run's own score differs."""
    output = tmp_path / "runs"
    done = front_door(
        tmp_path,
        "module",
        [
            "game=pd",
            "mechanism=reputation",
            "population={mech_tft:2,mech_alld:2,mech_reputation:2,mech_random:2}",
            "mechanism.rounds=6",
            "mechanism.discount=0.8",
            "run.replicates=2",
            f"run.output_dir={output}",
        ],
    )
    assert done.code == 0, done.stdout + done.stderr
    (run_dir,) = [d for d in output.iterdir() if d.is_dir()]
    done = front_door(tmp_path, "cli", ["tournament", str(run_dir)])
    assert done.code == 0, done.stdout + done.stderr
    # The run's own score is CoopEval's discounted average; the ranking here averages each
    # encounter's payoffs undiscounted, and says so, so the two "scores" are never confused.
    said = " ".join(done.stdout.split())
    assert "the run's own score is not this ranking's" in said, done.stdout
    assert "discounted average" in said and "(d = 0.8)" in said, done.stdout
    table = pd.read_parquet(run_dir / "tournament.parquet")
    payoff = table[table["table"] == "payoff"].set_index(["player", "opponent"])["mean_payoff"]

    # recomputed: per match, per pair of seats that met, each side's payoff per encounter
    per_pair: dict[tuple[str, str], list[float]] = defaultdict(list)
    lines = [json.loads(line) for line in (run_dir / "rounds.jsonl").read_text().splitlines()]
    for replicate in {line["replicate"] for line in lines}:
        match = [line for line in lines if line["replicate"] == replicate]
        kind = {s: match[0][f"agent_{s}"] for s in match[0]["seats"]}
        got: dict[tuple[str, str], list[float]] = defaultdict(list)
        for line in match:
            for one, other in line["revealed"]["groups"]:
                got[(one, other)].append(line["revealed"]["payoffs"][one])
                got[(other, one)].append(line["revealed"]["payoffs"][other])
        for (one, other), points in got.items():
            per_pair[(kind[one], kind[other])].append(sum(points) / len(points))
    assert set(payoff.index) >= set(per_pair)
    for pair, values in per_pair.items():
        assert abs(payoff[pair] - sum(values) / len(values)) < 1e-9, pair


def test_reputation_with_too_few_seats_exits_2_naming_what_to_bind(tmp_path):
    bad = front_door(
        tmp_path, "cli", ["validate", "conf/config.yaml", "game=pd", "mechanism=reputation"]
    )
    assert bad.code == 2
    (line,) = bad.stderr.strip().splitlines()
    assert "population" in line and "at least 4 seats" in line and "2 seats bound" in line


def test_an_experiment_file_sizes_each_conditions_groups_by_its_seats(tmp_path):
    from pdbench.runners.prepare import load

    path = tmp_path / "reputation.yaml"
    path.write_text(
        "game: {id: pd}\nmechanism: reputation\nconditions:\n"
        "  - {name: pop, population: {mech_tft: 2, mech_alld: 2}}\n"
        "  - {name: seats, agent_a: tft, agent_b: alld, agent_c: allc, agent_d: mech_reputation,"
        " agent_e: tft, agent_f: tft}\n"
        "  - {name: pg, game: {id: public_goods}, population: {pgg_free_rider: 4,"
        " pgg_reputation_reciprocator: 4}}\n"
    )
    spec = load(path, [], project_root=shared_copy()).spec
    games = {c.name: c.game for c in spec.conditions}
    assert (games["pop"].id, games["pop"].options["groups"]) == ("normal_form", 2)
    assert games["seats"].options["groups"] == 3
    assert spec.conditions[1].agent_a.policy == "mech_tft"  # tft's counterpart
    pg = games["pg"].options
    assert games["pg"].id == "public_goods"
    assert (pg["groups"], pg["matching"], pg["reputation_depth"], pg["reputation_order"]) == (
        2,
        "seat_groups",  # CoopEval's RandomMatcher: one player of each position a group
        3,
        3,
    )
