"""A condition's population (issues 44 and 45): agents with counts fill a game's seats in order,
beyond agent_j, on the Hydra command line and in experiment files alike; the stored config says
the population; a wrong total, an unknown agent, a count below 1 or a population given beside a
seat's own field is one line naming the file and the field (exit 2)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pdbench.config.schema import ExperimentSpec
from pdbench.core.errors import ConfigError
from pdbench.core.seats import player_seats, stored_seat_agents
from pdbench.runners.prepare import load
from tests.in_process import run_front_door

ROOT = Path(__file__).resolve().parents[2]
GAME = "game=public_goods"


def _policies(condition) -> list[str]:
    return [spec.policy for spec in condition.players.values()]


def test_the_mapping_fills_the_seats_in_order_and_its_total_sets_the_group_size():
    loaded = load(
        "conf/config.yaml",
        [GAME, "population={pgg_conditional_cooperator:3,pgg_free_rider:2,pgg_hump:1}"],
        project_root=ROOT,
    )
    condition = loaded.spec.conditions[0]
    assert list(condition.players) == [f"agent_{s}" for s in "abcdef"]
    assert _policies(condition) == ["pgg_conditional_cooperator"] * 3 + ["pgg_free_rider"] * 2 + [
        "pgg_hump"
    ]
    assert condition.game.options["players"] == 6  # conf/game's 4 was a default
    stored = loaded.spec.model_dump(mode="json")["conditions"][0]
    assert "agent_a" not in stored and "agent_c" not in stored
    assert [(e["agent"]["policy"], e["count"]) for e in stored["population"]] == [
        ("pgg_conditional_cooperator", 3),
        ("pgg_free_rider", 2),
        ("pgg_hump", 1),
    ]
    # the stored config validates again to the same condition, and names every seat's agent
    again = ExperimentSpec.model_validate(loaded.spec.model_dump(mode="json"))
    assert again.conditions[0].players == condition.players
    assert [a["policy"] for a in stored_seat_agents(stored).values()] == _policies(condition)


def test_seats_beyond_j_come_from_the_population(tmp_path):
    experiment = tmp_path / "strangers.yaml"
    experiment.write_text(
        "game: {id: public_goods, options: {groups: 7, rounds: 2, matching: strangers}}\n"
        "conditions:\n"
        "  - name: mixed\n"
        "    population:\n"
        "      - {agent: pgg_conditional_cooperator, count: 14}\n"
        "      - {agent: {ref: agent/pgg_conditional_cooperator.yaml,"
        " overrides: {params: {opening: 0.25}}},"
        " count: 13}\n"
        "      - {agent: {type: policy, policy: pgg_punisher}, count: 1}\n"
    )
    condition = load(experiment, project_root=ROOT).spec.conditions[0]
    assert condition.game.options["players"] == 4  # 28 seats over 7 groups
    assert list(condition.players)[-3:] == ["agent_z", "agent_za", "agent_zb"]
    assert list(condition.players) == [f"agent_{s}" for s in player_seats(28)]
    assert condition.players["agent_zb"].policy == "pgg_punisher"  # type: ignore[union-attr]
    assert condition.players["agent_o"].params == {"opening": 0.25}  # type: ignore[union-attr]


def test_the_identical_seats_of_one_entry_are_separate_players():
    loaded = load("conf/config.yaml", [GAME, "population={pgg_random:4}"], project_root=ROOT)
    players = loaded.spec.conditions[0].players
    assert len(players) == 4 and len({id(spec) for spec in players.values()}) == 1
    assert loaded.spec.conditions[0].game.options["players"] == 4


def test_an_llm_in_a_population_takes_the_shared_provider_and_persona():
    loaded = load(
        "conf/config.yaml",
        [GAME, "population={llm_default:2,pgg_free_rider:2}", "persona=exploitative"],
        project_root=ROOT,
    )
    llm = loaded.spec.conditions[0].players["agent_b"]
    assert llm.type == "llm" and llm.provider.name == "mock"  # type: ignore[union-attr]
    assert llm.persona == "exploitative"  # type: ignore[union-attr]
    assert "prompts/public_goods/contribute.md" in loaded.referenced_files


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        (
            ["population={pgg_random:3,pgg_hump:3}", "game.options.players=4"],
            r"population: 6 players in all, but public_goods plays 4 seats here, set by "
            r"game.options.players",
        ),
        (
            ["population={pgg_random:3,pgg_hump:2}", "game.options.groups=2"],
            "population: 5 players in all, but public_goods plays 8 seats",
        ),
        (["population={pgg_randm:4}"], r'population.pgg_randm: unknown agent "pgg_randm"'),
        (["population={pgg_random:0,pgg_hump:4}"], r"population.pgg_random: a count is a whole"),
        (["population={pgg_random:two}"], r"population.pgg_random: a count is a whole"),
        (["population={pgg_random:101}"], "population: 101 players in all; a game seats 2 to 100"),
        (["population={pgg_random:4}", "agent_c=pgg_hump"], "population: .*agent_c is given too"),
        (["population={pgg_random:4}", "agent_a=pgg_hump"], "population: .*agent_a is given too"),
        (["population={tft:4}"], r"population.tft.policy: .*public_goods"),
        (["population=[{agent:pgg_random}]"], r"population\[0\]: an entry is \{agent"),
    ],
)
def test_a_wrong_population_is_one_line_naming_the_field(overrides, words):
    with pytest.raises(ConfigError, match=words) as raised:
        load("conf/config.yaml", [GAME, *overrides], project_root=ROOT)
    assert str(raised.value).startswith("conf/config.yaml: ")


def test_more_seats_than_agent_a_to_j_bind_ask_for_a_population():
    ten = [f"agent_{seat}=pgg_random" for seat in "abcdefghij"]
    with pytest.raises(ConfigError, match="population: missing: public_goods plays 12 seats here"):
        load("conf/config.yaml", [GAME, *ten, "game.options.groups=3"], project_root=ROOT)


def test_a_pair_game_takes_a_population_of_two_only():
    pair = load("conf/config.yaml", ["population={tft:1,alld:1}"], project_root=ROOT)
    assert _policies(pair.spec.conditions[0]) == ["tft", "alld"]
    with pytest.raises(ConfigError, match="population: 3 players in all, but pd plays 2 seats"):
        load("conf/config.yaml", ["population={tft:2,alld:1}"], project_root=ROOT)


def test_an_experiment_file_refuses_a_population_beside_a_seat(tmp_path):
    experiment = tmp_path / "both.yaml"
    experiment.write_text(
        "game: {id: public_goods}\n"
        "conditions:\n"
        "  - {name: both, agent_a: pgg_random, population: {pgg_hump: 4}}\n"
    )
    with pytest.raises(ConfigError, match=r"conditions\[0\]\(both\): population: .*agent_a"):
        load(experiment, project_root=ROOT)
    experiment.write_text(
        "game: {id: public_goods}\nconditions:\n  - {name: neg, population: {pgg_hump: -1}}\n"
    )
    with pytest.raises(ConfigError, match=r"conditions\[0\]\(neg\).population.pgg_hump: a count"):
        load(experiment, project_root=ROOT)


@pytest.mark.parametrize(
    "overrides", ["{population: {pgg_random: 4}}", "['population.pgg_hump=3']"]
)
def test_a_conditions_overrides_may_not_change_its_population(tmp_path, overrides):
    experiment = tmp_path / "over.yaml"
    experiment.write_text(
        "game: {id: public_goods}\nconditions:\n"
        f"  - {{name: x, population: {{pgg_hump: 4}}, overrides: {overrides}}}\n"
    )
    with pytest.raises(ConfigError, match=r"conditions\[0\]\(x\).overrides.population: "):
        load(experiment, project_root=ROOT)


def test_the_front_door_exits_2_with_one_line(tmp_path):
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    done = run_front_door(
        "cli",
        ["validate", "conf/config.yaml", GAME, "population={pgg_random:2,tft_x:2}"],
        cwd=ROOT,
        env=env,
    )
    assert done.code == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "error: conf/config.yaml: population.tft_x: unknown agent"
    )
    assert "Traceback" not in done.stderr
