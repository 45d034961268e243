"""Every option of every config group composes into a valid experiment (one checker over all
that is registered, as the style guide asks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdbench.config.schema import SEAT_FIELDS
from pdbench.config.tree import group_options
from pdbench.games.registry import TURN_GAMES, turn_policies, turn_policy_games
from pdbench.runners.prepare import load

PROJECT = Path(__file__).resolve().parents[2]
PRIMARY = PROJECT / "conf" / "config.yaml"


def _cases():
    for group in ("agent", "game", "horizon", "persona", "provider"):
        for option in group_options(group, PROJECT):
            key = "agent_a" if group == "agent" else group
            overrides = [f"{key}={option}"]
            if group in ("persona", "provider"):  # they act through an LLM agent
                overrides.append("agent_a=llm_default")
            if option == "arena":  # its path is required (???): give it an example agent
                overrides.append("agent_a.path=examples/agents/tit_for_tat.py")
            # a turn game's house players play it, and only they (and arena, LLM agents) do
            turn_game = turn_policy_games().get(option) if group == "agent" else None
            if group == "game" and option in TURN_GAMES:
                turn_game = option
                overrides.append(f"agent_a={sorted(turn_policies(option))[0]}")
            elif turn_game is not None:
                overrides.append(f"game={turn_game}")
            if turn_game is not None:  # every other seat the game plays by default
                seats = SEAT_FIELDS[1 : TURN_GAMES[turn_game].seats.default]
                house = sorted(turn_policies(turn_game))[0]
                overrides.extend(f"{side}={house}" for side in seats)
            yield pytest.param(overrides, id=f"{group}={option}")


@pytest.mark.parametrize("overrides", list(_cases()))
def test_every_group_option_composes_and_validates(overrides):
    loaded = load(PRIMARY, overrides, project_root=PROJECT)
    condition = loaded.spec.conditions[0]
    game = condition.game
    assert game.rules_builder(rounds_shown=True)(1) is not None
    assert condition.horizon.build().max_length != 0
    if "agent_a=llm_default" in overrides:
        assert condition.agent_a.type == "llm"
        assert loaded.referenced_files  # the prompts it reads are hashed into its identity
