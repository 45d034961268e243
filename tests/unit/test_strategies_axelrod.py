"""pdbench's policies play exactly as Axelrod-Python 4.14 does, move for move.

tests/fixtures/axelrod_reference/matches.json holds Axelrod's own play, recorded by
scripts/record_axelrod_reference.py (Axelrod is not a dependency): every ordered pair of the
deterministic policies over 200 rounds, and a tournament of the six classic strategies. Each
recorded match is replayed through the match loop and through the runner's batch path.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import TEST_DEAL, play

from pdbench.config.schema import ExperimentSpec
from pdbench.games.tables import GAMES
from pdbench.runners.batch import play_batch
from pdbench.runners.plan import plan_matches
from pdbench.strategies import POLICIES, make_policy

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "axelrod_reference" / "matches.json"
REFERENCE = json.loads(FIXTURE.read_text())
PLAYERS = REFERENCE["players"]
TURNS = REFERENCE["turns"]
PD = GAMES["pd"]
MATCH_IDS = [f"{m['a']}-vs-{m['b']}" for m in REFERENCE["matches"]]


def first_difference(expected: str, actual: str) -> str:
    for index, (want, got) in enumerate(zip(expected, actual, strict=True), start=1):
        if want != got:
            return f"round {index}: Axelrod {want}, pdbench {got}"
    return "none"


def policy(name: str):
    return make_policy(name, PD, PLAYERS[name]["params"])


def test_the_reference_is_axelrod_4_14_in_the_default_game():
    assert REFERENCE["axelrod_version"] == "4.14.0"
    assert REFERENCE["game"] == {"R": 3, "S": 0, "T": 5, "P": 1}
    assert PD.payoffs.as_outcomes()["CD"] == [0.0, 5.0]
    assert len(REFERENCE["matches"]) == len(PLAYERS) ** 2


def test_every_deterministic_policy_is_recorded_or_says_why_not():
    deterministic = {name for name, cls in POLICIES.items() if not cls.stochastic}
    assert deterministic <= set(PLAYERS), "re-run scripts/record_axelrod_reference.py"
    assert set(POLICIES) == set(PLAYERS) | set(REFERENCE["not_recorded"])


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_each_docstring_names_the_axelrod_strategy(name):
    entry = PLAYERS.get(name) or REFERENCE["not_recorded"][name]
    axelrod_class = entry["axelrod"].split("(")[0]
    assert axelrod_class in POLICIES[name].__doc__


@pytest.mark.parametrize("match", REFERENCE["matches"], ids=MATCH_IDS)
def test_the_loop_form_plays_axelrods_moves(match):
    result = play(policy(match["a"]), policy(match["b"]), TURNS, seed=1, opponent_seed=2)
    moves_a = "".join(r.played.action_a.value for r in result.rounds)
    moves_b = "".join(r.played.action_b.value for r in result.rounds)
    assert moves_a == match["moves_a"], first_difference(match["moves_a"], moves_a)
    assert moves_b == match["moves_b"], first_difference(match["moves_b"], moves_b)


def test_the_batch_form_plays_axelrods_moves():
    spec = ExperimentSpec.model_validate(
        {
            "run": {"seed": 1, "replicates": 2},
            "conditions": [
                {
                    "name": match_id,
                    "horizon": {"type": "fixed", "rounds": TURNS},
                    "agent_a": {
                        "type": "policy",
                        "policy": m["a"],
                        "params": PLAYERS[m["a"]]["params"],
                    },
                    "agent_b": {
                        "type": "policy",
                        "policy": m["b"],
                        "params": PLAYERS[m["b"]]["params"],
                    },
                }
                for match_id, m in zip(MATCH_IDS, REFERENCE["matches"], strict=True)
            ],
        }
    )
    by_condition: dict[str, list] = {}
    for planned in plan_matches(spec, TEST_DEAL):
        by_condition.setdefault(planned.condition.name, []).append(planned)
    wrong = []
    for match_id, match in zip(MATCH_IDS, REFERENCE["matches"], strict=True):
        for arrays in play_batch(by_condition[match_id]):
            moves_a = "".join("C" if c else "D" for c in arrays.coop_a)
            moves_b = "".join("C" if c else "D" for c in arrays.coop_b)
            if (moves_a, moves_b) != (match["moves_a"], match["moves_b"]):
                wrong.append(f"{match_id}: {first_difference(match['moves_a'], moves_a)}")
    assert not wrong, wrong


def test_the_tournaments_deterministic_payoffs_are_pdbenchs():
    # Axelrod's mean payoff per turn of row against column, for the entries no random player
    # takes part in: pdbench's 200-round matches give the same numbers.
    tournament = REFERENCE["tournament"]
    names = tournament["players"]
    assert tournament["turns"] == TURNS
    compared = 0
    for i, row in enumerate(names):
        for j, column in enumerate(names):
            if tournament["stochastic"][i][j]:
                continue
            assert not tournament["repetitions_differ"][i][j]
            result = play(make_policy(row, PD), make_policy(column, PD), TURNS)
            mean_payoff = result.rounds[-1].cum_payoff_a / TURNS
            assert mean_payoff == pytest.approx(tournament["mean_payoff_matrix"][i][j]), (
                f"{row} vs {column}"
            )
            compared += 1
    assert compared == 25  # every pair without GTFT


def test_the_tournament_ranking_is_recorded_for_every_player():
    tournament = REFERENCE["tournament"]
    assert sorted(tournament["ranking"]) == sorted(tournament["players"])
    assert tournament["ranking"][0] == "tft"  # Axelrod's winner, as in his tournaments
