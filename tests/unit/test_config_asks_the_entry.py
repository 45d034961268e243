"""The config asks a game's entry what it needs, never the game's family (issue 43): the
settings its rules take, whether the condition's horizon sets a match's length, how a message
names it, how a seat's agent is checked, and (for a policy agent) the house a policy belongs to.
An entry declaring otherwise is read otherwise, whichever family it was made by."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import ValidationError

from pdbench.config.game_spec import GameSpec
from pdbench.config.schema import ConditionSpec, PolicyAgentSpec
from pdbench.games import registry

TFT = {"type": "policy", "policy": "tft"}
LIARS = {"type": "policy", "policy": "liars_random"}


def _declare(monkeypatch, game_id: str, **changes) -> None:
    games = registry.MATRIX_GAMES if game_id in registry.MATRIX_GAMES else registry.TURN_GAMES
    monkeypatch.setitem(games, game_id, dataclasses.replace(games[game_id], **changes))


def test_a_setting_the_entry_does_not_take_is_refused_naming_the_game_as_the_entry_says(
    monkeypatch,
):
    assert GameSpec(id="pd", noise=0.1).noise == 0.1
    _declare(monkeypatch, "pd", settings=("table",), called="the plain pd")
    with pytest.raises(ValidationError, match="noise: the plain pd has no noise"):
        GameSpec(id="pd", noise=0.1)
    GameSpec(id="pd", payoffs={"CC": (3, 3), "CD": (0, 5), "DC": (5, 0), "DD": (1, 1)})


def test_the_horizon_sets_the_length_of_a_game_whose_entry_says_so():
    by_length = GameSpec(id="pd", noise=0.25).rules_builder(rounds_shown=False)
    seven = by_length(7)
    assert (seven.rounds, seven.noise, seven.rounds_shown) == (7, 0.25, False)
    variant = GameSpec(id="liars_dice", options={"faces": 4}).rules_builder(rounds_shown=True)
    assert variant(3) is variant(40) and variant(3).faces == 4  # the rules end its matches


def test_a_seats_agent_is_checked_as_the_entry_says(monkeypatch):
    with pytest.raises(ValidationError, match="liars_random plays liars_dice, not the 2x2 game pd"):
        ConditionSpec.model_validate({"name": "c", "agent_a": LIARS, "agent_b": TFT})
    _declare(monkeypatch, "pd", seat_fit="")  # checked as a round_state's agent
    with pytest.raises(
        ValidationError, match="liars_random does not play pd \\(it plays liars_dice"
    ):
        ConditionSpec.model_validate({"name": "c", "agent_a": LIARS, "agent_b": TFT})


def test_a_policy_belongs_to_the_houses_that_name_it():
    two_by_two = tuple(registry.MATRIX_GAMES)
    assert PolicyAgentSpec(policy="tft").houses == two_by_two
    assert PolicyAgentSpec(policy="liars_random").houses == ("liars_dice",)
    # what the policy agent asks its house player: a classic strategy says it draws nothing
    assert PolicyAgentSpec(policy="tft").is_deterministic
    assert not PolicyAgentSpec(policy="random").is_deterministic
    assert not PolicyAgentSpec(policy="liars_random").is_deterministic
    words = "tft does not play liars_dice \\(it plays " + ", ".join(two_by_two) + "\\)"
    with pytest.raises(ValidationError, match=words):
        ConditionSpec.model_validate(
            {"name": "c", "game": {"id": "liars_dice"}, "agent_a": TFT, "agent_b": LIARS}
        )


def test_a_strategy_registered_later_joins_the_2x2_games_house(monkeypatch):
    from pdbench.strategies import POLICIES

    monkeypatch.setitem(POLICIES, "late_tft", POLICIES["tft"])
    late = PolicyAgentSpec(policy="late_tft")
    assert late.houses == tuple(registry.MATRIX_GAMES) and late.is_deterministic
