"""One planned match (issue 43): a `PlannedMatch` holds the rules its match is played with,
whatever the game (a 2x2 game's `MatrixGame` with the condition's table, the match's drawn
length and its noise; a turn game's rules), and the 2x2 games' numpy batch is their entry's
`vectorised` path, which the runner finds by asking the entry, as it does for a turn game's."""

from __future__ import annotations

import dataclasses

from helpers import TEST_DEAL

from pdbench.config.schema import ExperimentSpec
from pdbench.games.base import agent_game, draws_from_game_seed, setting_warnings
from pdbench.games.matrix.rules import MatrixGame
from pdbench.games.registry import game_entry
from pdbench.runners.plan import PlannedMatch, plan_matches
from pdbench.runners.turn_batch import vectorised_players


def _plan(conditions: list[dict], replicates: int = 3) -> list[PlannedMatch]:
    spec = ExperimentSpec.model_validate(
        {"run": {"seed": 5, "replicates": replicates}, "conditions": conditions}
    )
    return plan_matches(spec, TEST_DEAL)


def _policies(a: str, b: str) -> dict:
    return {"agent_a": {"type": "policy", "policy": a}, "agent_b": {"type": "policy", "policy": b}}


def test_a_planned_match_holds_its_rules_not_a_game_per_family():
    fields = {field.name for field in dataclasses.fields(PlannedMatch)}
    assert "rules" in fields
    assert not {"game", "turn_game"} & fields


def test_a_2x2_match_s_rules_are_its_table_drawn_length_and_noise():
    plan = _plan(
        [
            {
                "name": "noisy",
                "game": {"id": "battle_of_the_sexes", "noise": 0.1},
                "horizon": {"type": "geometric", "stop_prob": 0.2},
                **_policies("tft", "gtft"),
            },
            {"name": "fixed", "game": {"id": "pd"}, "horizon": {"type": "fixed", "rounds": 7}}
            | _policies("tft", "alld"),
        ]
    )
    for planned in plan:
        rules = planned.rules
        assert isinstance(rules, MatrixGame)
        assert f"{type(rules).__module__}:{type(rules).__name__}" == (
            game_entry(planned.game_id).rules
        )
        assert rules.game == planned.condition.game.build()  # the condition's table
        assert rules.rounds == planned.n_rounds
        assert rules.noise == planned.condition.game.noise
        assert rules.rounds_shown == (planned.horizon.type == "fixed")
        for seat in ("a", "b"):  # a 2x2 agent is given the table from its own side
            assert agent_game(rules, seat) == rules.game.seen_by(seat)
    asymmetric = plan[0].rules.game
    assert agent_game(plan[0].rules, "b") != agent_game(plan[0].rules, "a"), asymmetric.id
    lengths = {planned.n_rounds for planned in plan if planned.condition.name == "noisy"}
    assert len(lengths) > 1, "the geometric lengths differ, and each match's rules say its own"


def test_a_turn_game_match_s_rules_are_its_variant_s():
    plan = _plan(
        [
            {
                "name": "dice",
                "game": {"id": "liars_dice", "options": {"dice_per_player": 2}},
                "agent_a": {"type": "policy", "policy": "liars_random"},
                "agent_b": {"type": "policy", "policy": "liars_random"},
            }
        ],
        replicates=2,
    )
    for planned in plan:
        assert planned.rules == planned.condition.game.build_turn()
        assert agent_game(planned.rules, "a") is planned.rules  # a turn game's agent: its rules


def test_the_2x2_batch_is_the_entry_s_vectorised_path():
    assert game_entry("pd").vectorised == "pdbench.games.matrix.vectorised"
    plan = _plan(
        [
            {"name": "policies", "game": {"id": "pd"}} | _policies("tft", "gtft"),
            {
                "name": "talk",
                "game": {"id": "pd", "negotiation": {"exchanges": 1}},
                **_policies("tft", "alld"),
            },
            {
                "name": "llm",
                "game": {"id": "pd"},
                "agent_a": {"type": "llm", "provider": {"name": "mock", "model": "m"}},
                "agent_b": {"type": "policy", "policy": "tft"},
            },
        ],
        replicates=1,
    )
    by_condition = {planned.condition.name: planned for planned in plan}
    players = vectorised_players(by_condition["policies"])
    assert players is not None and set(players) == {"a", "b"}
    assert vectorised_players(by_condition["talk"]) is None  # the batch has no talk phase
    assert vectorised_players(by_condition["llm"]) is None


def test_a_match_s_length_calls_and_seeds_are_asked_of_its_game_not_its_family():
    """What the plan says of a match (its length known before play, its turn cap, the most
    provider calls, the seeds its record keeps) is asked of the game's entry and rules."""
    llm = {"type": "llm", "provider": {"name": "mock", "model": "m"}, "max_retries": 2}
    talk_condition = {
        "name": "talk",
        "game": {"id": "pd", "negotiation": {"exchanges": 2}},
        "horizon": {"type": "fixed", "rounds": 7},
        "agent_a": llm,
        "agent_b": {"type": "policy", "policy": "tft"},
    }
    dice_condition = {
        "name": "dice",
        "game": {"id": "liars_dice", "max_turns": 50},
        "agent_a": llm,
        "agent_b": {"type": "policy", "policy": "liars_random"},
    }
    (talk,) = _plan([talk_condition], replicates=1)  # a run plays one family
    (dice,) = _plan([dice_condition], replicates=1)
    length = talk.horizon_length
    assert length is not None and (length.rounds, length.talks_per_round) == (7, 2)
    assert talk.turn_cap is None and talk.most_turns == length.turns
    # each round: one decision with every retry (1 + 2 calls) and two talk turns (a call each)
    assert talk.max_llm_calls == 7 * (1 + 2 + 2)
    assert "game" not in talk.seeds and not draws_from_game_seed(talk.rules)
    assert dice.horizon_length is None and dice.turn_cap == dice.most_turns == 50
    assert dice.max_llm_calls == 50 * (1 + 2)  # every turn, every retry, at most the cap
    assert dice.seeds["game"] == dice.game_seed and draws_from_game_seed(dice.rules)


def test_the_payoff_warnings_of_a_setting_are_the_rules_to_give():
    """GTFT's default generosity makes it ALLC in the stag hunt: the 2x2 rules say so of the
    seat's agent; rules without a payoff table have no such warning to give."""
    (hunt,) = _plan([{"name": "hunt", "game": {"id": "stag_hunt"}} | _policies("gtft", "tft")], 1)
    dice_condition = {
        "name": "dice",
        "game": {"id": "liars_dice"},
        "agent_a": {"type": "policy", "policy": "liars_random"},
        "agent_b": {"type": "policy", "policy": "liars_random"},
    }
    (dice,) = _plan([dice_condition], replicates=1)
    (warning,) = setting_warnings(hunt.rules, hunt.condition.agent_a, "a")
    assert warning.field == "params.generous_prob"
    assert setting_warnings(hunt.rules, hunt.condition.agent_b, "b") == []
    assert setting_warnings(dice.rules, dice.condition.agent_a, "a") == []
