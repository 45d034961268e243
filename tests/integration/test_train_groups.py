"""`pdbench train` on a group game (issue 44, public goods): the file takes seat a and every
other seat the game has is filled by the game's own training opponents (declared by its entry in
pdbench/games/registry.py, issue 43), the result names every seat, and `--rounds` sets the
game's number of rounds when the game has one (asked of the game, not guessed from its family)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import orjson
import pytest
from helpers import only_run_dir
from project_copy import shared_copy
from training import train

from pdbench.cli.train_table import training_table
from pdbench.games.registry import MATRIX_GAMES, TURN_GAMES, game_entry

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agents" / "public_goods.py"
ENTRY = TURN_GAMES["public_goods"]


def stored_turns(run_dir: Path) -> list[dict]:
    return [orjson.loads(line) for line in (run_dir / "rounds.jsonl").read_bytes().splitlines()]


def test_the_public_goods_example_trains_in_a_full_group_and_the_result_names_every_seat(
    tmp_path,
):
    done = train(tmp_path, str(EXAMPLE), "--rounds", "3")
    assert done.code == 0, done.stderr
    lines = done.stdout.splitlines()
    opponents = [ENTRY.training_opponents[i % len(ENTRY.training_opponents)] for i in range(3)]
    header = ", ".join(name.upper() for name in opponents)
    assert lines[0].startswith(f"training public_goods.py (public_goods) against {header} ")
    assert lines[0].endswith("in public_goods: 3 rounds")
    run_dir = only_run_dir(tmp_path / "runs")
    turns = stored_turns(run_dir)
    (last,) = [turn for turn in turns if "outcome" in turn]
    scores = last["outcome"]["scores"]
    assert sorted(scores) == ["a", "b", "c", "d"]
    assert max(t["round"] for t in turns) == 3
    # every turn the file took is shown: 3 rounds of contributing (no talk, no punishment)
    seen = [json.loads(x.removeprefix("  saw:      ")) for x in lines if x.startswith("  saw: ")]
    assert [s["phase"] for s in seen] == ["contribute"] * 3
    (result,) = [line for line in lines if line.startswith("result: ")]
    shown = result.removeprefix("result: ").rsplit(": ", 1)[0].split(" - ")
    assert shown[0].startswith("public_goods@") and shown[0].endswith(f" {scores['a']:g}")
    expected = zip("bcd", opponents, strict=True)
    assert shown[1:] == [f"{name} {scores[seat]:g}" for seat, name in expected]
    best = max(scores.values())
    winners = [seat for seat in "abcd" if scores[seat] == best]
    if len(winners) == 1:
        assert result.endswith(" wins")
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    assert manifest["status"] == "complete"


def test_the_rounds_of_a_game_that_sets_them_are_the_games_default_without_rounds(tmp_path):
    done = train(tmp_path, str(EXAMPLE))
    assert done.code == 0, done.stderr
    assert done.stdout.splitlines()[0].endswith("in public_goods: 10 rounds")


def test_against_fills_every_other_seat_and_an_unknown_opponent_exits_2_naming_it(tmp_path):
    done = train(tmp_path, str(EXAMPLE), "--rounds", "1", "--against", "pgg_free_rider")
    assert done.code == 0, done.stderr
    header = done.stdout.splitlines()[0]
    assert "against PGG_FREE_RIDER, PGG_FREE_RIDER, PGG_FREE_RIDER in public_goods" in header
    refused = train(tmp_path / "no", str(EXAMPLE), "--against", "pgg_free_rder")
    assert refused.code == 2
    assert refused.stderr.startswith('error: unknown --against "pgg_free_rder"')
    assert refused.stderr.count("\n") == 1
    assert not (tmp_path / "no" / "runs").exists()


def test_seats_sets_the_group_size_and_a_fixed_size_game_refuses_it(tmp_path):
    done = train(tmp_path, str(EXAMPLE), "--rounds", "1", "--seats", "3")
    assert done.code == 0, done.stderr
    (last,) = [t for t in stored_turns(only_run_dir(tmp_path / "runs")) if "outcome" in t]
    assert sorted(last["outcome"]["scores"]) == ["a", "b", "c"]
    liar = EXAMPLE.parent / "liars_dice.py"
    refused = train(tmp_path / "no", str(liar), "--seats", "3")
    assert refused.code == 2 and refused.stderr.count("\n") == 1
    assert refused.stderr.startswith("error: --seats: liars_dice seats 2 players")


def test_every_game_declares_its_training_opponents_and_whether_it_sets_its_rounds():
    house = {path.stem for path in (EXAMPLE.parents[2] / "conf" / "agent").glob("*.yaml")}
    for entry in TURN_GAMES.values():
        assert entry.training_opponents, entry.id
        assert set(entry.training_opponents) <= house, entry.id
    assert ENTRY.rounds_option == "rounds"
    assert TURN_GAMES["liars_dice"].rounds_option == ""


def test_the_training_table_asks_the_game_and_refuses_what_it_cannot_take(monkeypatch):
    pair = training_table("pd", None, 4, None)
    assert (pair.opponents, pair.overrides) == ({"agent_b": "tft"}, ("horizon.rounds=4",))
    group = training_table("public_goods", None, 2, 5)
    assert list(group.opponents) == ["agent_b", "agent_c", "agent_d", "agent_e"]
    assert group.opponents["agent_e"] == ENTRY.training_opponents[0]  # cycled
    assert group.overrides == ("game.options.rounds=2", "game.options.players=5")
    with pytest.raises(ValueError, match="--seats: pd seats 2 players, always"):
        training_table("pd", None, None, 3)
    with pytest.raises(ValueError, match="--seats: public_goods seats 2 to 10 players, not 11"):
        training_table("public_goods", None, None, 11)
    bare = dataclasses.replace(ENTRY, training_opponents=())
    monkeypatch.setitem(TURN_GAMES, "public_goods", bare)
    with pytest.raises(ValueError, match="public_goods names no training opponent"):
        training_table("public_goods", None, None, None)
    assert training_table("public_goods", "pgg_random", None, None).opponents["agent_c"] == (
        "pgg_random"
    )


def test_rounds_set_the_horizon_of_a_game_whose_horizon_sets_its_length(monkeypatch):
    """`--rounds` asks the entry how a match's length is set, not the game's family: a game
    whose horizon sets its length takes `horizon.rounds`, whatever its family."""
    assert game_entry("pd").horizon_sets_length and not ENTRY.horizon_sets_length
    by_horizon = dataclasses.replace(ENTRY, horizon_sets_length=True)
    monkeypatch.setitem(TURN_GAMES, "public_goods", by_horizon)
    assert training_table("public_goods", None, 4, None).overrides == ("horizon.rounds=4",)
    bare = dataclasses.replace(game_entry("pd"), horizon_sets_length=False)
    monkeypatch.setitem(MATRIX_GAMES, "pd", bare)
    with pytest.raises(ValueError, match="--rounds: pd has no set number of rounds"):
        training_table("pd", None, 4, None)


def test_a_file_inside_the_project_is_named_from_its_root_so_the_run_is_the_same_anywhere(
    tmp_path,
):
    """The run id, the condition and the agent log's name come from the file as the project
    names it: the same in any checkout (the docs' blocks and a colleague's run agree)."""
    done = train(tmp_path, "examples/agents/public_goods.py", "--rounds", "2")
    assert done.code == 0, done.stderr
    manifest = json.loads((only_run_dir(tmp_path / "runs") / "run_manifest.json").read_text())
    (condition,) = manifest["conditions"]
    assert "agent_a.path=examples/agents/public_goods.py" in condition
    assert str(shared_copy()) not in json.dumps(manifest)
