"""`pdbench ladder` trusts nothing it reads unchecked (issue 40): a 2x2 round must pay what the game
pays for the actions stored and add up to its cumulative payoffs, a turn game's scores come from
replaying its stored actions through the rules, links in a run folder are refused as the other
commands refuse them, and a match held by several folders (a copy of a run under another run id)
counts once. What is left out is said, printed and stored."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
from in_process import run_front_door
from project_copy import command_env, shared_copy

from pdbench.games.matrix.stored import as_round_lines

DICE = "conf/experiment/ladder_liars_dice.yaml"


def pdbench(tmp: Path, *args: str):
    return run_front_door("cli", list(args), cwd=shared_copy(), env=command_env(tmp))


def run(tmp: Path, run_id: str, *overrides: str, config: str = "conf/config.yaml") -> Path:
    done = pdbench(
        tmp, "run", config, "--run-id", run_id, "-q", f"run.output_dir={tmp / 'runs'}", *overrides
    )
    assert done.code == 0, done.stderr
    return tmp / "runs" / run_id


def ladder(tmp: Path, *run_dirs: Path) -> tuple[pd.DataFrame, str]:
    out = tmp / "ladder"
    shutil.rmtree(out, ignore_errors=True)
    done = pdbench(tmp, "ladder", *map(str, run_dirs), "--out", str(out))
    assert done.code == 0, done.stderr
    return pd.read_parquet(out / "ladder.parquet"), done.stdout


def rated(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["table"] == "rating"].set_index("agent")


def skipped(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["table"] == "skipped"]


def copy_run(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


def edit_lines(path: Path, edit: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
    """Rewrite every line of a JSON-lines file through `edit` (None: the line unchanged)."""
    lines = []
    for line in path.read_bytes().splitlines():
        record = orjson.loads(line)
        lines.append(orjson.dumps(edit(record) or record))
    path.write_bytes(b"\n".join(lines) + b"\n")


def add_up(path: Path) -> None:
    """Make every stored cumulative payoff the sum of the stored payoffs so far (after an edit of
    the payoffs, so that only another check can tell)."""
    totals: dict[tuple[str, int, str], float] = {}

    def summed(record: dict[str, Any]) -> dict[str, Any]:
        for side in ("a", "b"):
            key = (record["condition"], record["replicate"], side)
            totals[key] = totals.get(key, 0.0) + record[f"agent_{side}_payoff"]
            record[f"agent_{side}_cum_payoff"] = totals[key]
        return record

    edit_lines(path, summed)


@pytest.fixture(scope="module")
def allc_alld(tmp_path_factory) -> Path:
    """ALLC against ALLD, 3 matches of 6 rounds: ALLC loses every one (0 against 5 a round).
    Only read: each test edits a copy."""
    return run(
        tmp_path_factory.mktemp("allc_alld"),
        "allc_alld",
        "agent_a=allc",
        "agent_b=alld",
        "horizon.rounds=6",
        "run.replicates=3",
    )


@pytest.fixture(scope="module")
def dice(tmp_path_factory) -> Path:
    """Two Liar's Dice matches (each seat once) of liars_probability against liars_random."""
    return run(
        tmp_path_factory.mktemp("dice"),
        "dice",
        "run.replicates=1",
        "tournament.agents=[liars_probability,liars_random]",
        config=DICE,
    )


# --- 2x2 rounds: the game's payoffs, added up --------------------------------------------------


def _pays_nine_to_allc(record: dict[str, Any]) -> dict[str, Any] | None:
    """ALLC paid 9 in every round of matches 0 and 1 (no cell of the dilemma pays 9)."""
    if record["replicate"] == 2:
        return None
    return {**record, "agent_a_payoff": 9.0}


def _cumulative_edited(record: dict[str, Any]) -> dict[str, Any] | None:
    if record["replicate"] == 2 or record["round_index"] != 6:
        return None
    return {**record, "agent_a_cum_payoff": 60.0}


def _flip_without_noise(record: dict[str, Any]) -> dict[str, Any] | None:
    """ALLD's move stored as C in round 1, with the payoffs of C against C: every payoff is one the
    game pays for the stored moves, but the match was played without noise and says ALLD meant D."""
    if record["replicate"] == 2 or record["round_index"] != 1:
        return None
    played = {"agent_b_action": "C", "agent_b_intended": "D"}
    return {**record, **played, "agent_a_payoff": 3.0, "agent_b_payoff": 3.0}


@pytest.mark.parametrize(
    ("edit", "adds_up", "reason"),
    [
        (_pays_nine_to_allc, True, "the game pays"),
        (_cumulative_edited, False, "cumulative payoff"),
        (_flip_without_noise, True, "without noise"),
    ],
    ids=["impossible payoff", "cumulative payoff", "flip without noise"],
)
def test_a_2x2_round_the_game_could_not_have_produced_leaves_its_match_out(
    tmp_path, allc_alld, edit, adds_up, reason
):
    edited = copy_run(allc_alld, tmp_path / "edited")
    # the edits are made on the run's rounds as record version 1 stored them (the kept reader's
    # checks; version 2's lines: the test below)
    rounds = edited / "rounds.jsonl"
    rounds.write_bytes(as_round_lines(rounds.read_bytes()))
    edit_lines(edited / "rounds.jsonl", edit)
    if adds_up:
        add_up(edited / "rounds.jsonl")
    table, printed = ladder(tmp_path, edited)
    ratings = rated(table)
    assert ratings.loc["allc", "wins"] == 0 and ratings.loc["alld", "wins"] == 1
    assert ratings.loc["allc", "matches"] == 1  # only the untouched match 2 counts
    left = skipped(table)
    assert sorted(left["replicate"]) == [0, 1]
    assert all(reason in note for note in left["note"]), list(left["note"])
    assert "1 finished matches counted" in printed
    assert "2 left out" in printed and reason in printed


def _v2_pays_nine_to_allc(record: dict[str, Any]) -> dict[str, Any] | None:
    if record["replicate"] == 2:
        return None
    shown = record["revealed"]
    return {**record, "revealed": {**shown, "payoffs": {**shown["payoffs"], "a": 9.0}}}


def _v2_flip_without_noise(record: dict[str, Any]) -> dict[str, Any] | None:
    """ALLD's commit D played as C in round 1 of a match without noise, with C against C's
    payoffs."""
    if record["replicate"] == 2 or record["round"] != 1:
        return None
    played = {"actions": {"a": "C", "b": "C"}, "payoffs": {"a": 3.0, "b": 3.0}}
    return {**record, "revealed": {**record["revealed"], **played}}


@pytest.mark.parametrize(
    ("edit", "reason"),
    [(_v2_pays_nine_to_allc, "the game pays"), (_v2_flip_without_noise, "without noise")],
    ids=["impossible payoff", "flip without noise"],
)
def test_a_2x2_turn_line_the_game_could_not_have_produced_leaves_its_match_out(
    tmp_path, allc_alld, edit, reason
):
    """The same checks on record version 2's lines, read through the projection."""
    edited = copy_run(allc_alld, tmp_path / "edited")
    assert b'"family":"matrix"' in (edited / "rounds.jsonl").read_bytes()
    edit_lines(edited / "rounds.jsonl", edit)
    table, _ = ladder(tmp_path, edited)
    assert rated(table).loc["allc", "matches"] == 1  # only the untouched match 2 counts
    left = skipped(table)
    assert sorted(left["replicate"]) == [0, 1]
    assert all(reason in note for note in left["note"]), list(left["note"])


def test_a_match_whose_stored_rounds_disagree_with_its_ledger_line_is_left_out(tmp_path, allc_alld):
    edited = copy_run(allc_alld, tmp_path / "edited")
    edit_lines(
        edited / "matches.jsonl",
        lambda entry: {**entry, "n_rounds": 5} if entry["replicate"] == 0 else None,
    )
    table, _ = ladder(tmp_path, edited)
    (note,) = skipped(table)["note"]
    assert "6 rounds stored but its ledger line says 5" in note
    assert rated(table).loc["alld", "matches"] == 2


# --- turn games: scores from the replay -------------------------------------------------------


def test_a_turn_game_outcome_edited_is_left_out_and_the_rest_score_as_replayed(tmp_path, dice):
    edited = copy_run(dice, tmp_path / "edited")
    first: dict[str, Any] = {}

    def huge_score(record: dict[str, Any]) -> dict[str, Any] | None:
        if record.get("outcome") is None or first:
            return None
        first.update(record)
        outcome = {**record["outcome"], "scores": {"a": 0.0, "b": 1e12}, "winner": "b"}
        return {**record, "outcome": outcome}

    edit_lines(edited / "rounds.jsonl", huge_score)
    table, printed = ladder(tmp_path, edited)
    left = skipped(table)
    assert list(left["condition"]) == [first["condition"]]
    assert "differ from the replay" in left["note"].iloc[0]
    assert rated(table)["matches"].tolist() == [1, 1]
    assert "1 left out" in printed


def test_a_stored_action_the_rules_refuse_leaves_its_match_out(tmp_path, dice):
    edited = copy_run(dice, tmp_path / "edited")

    def impossible_bid(record: dict[str, Any]) -> dict[str, Any] | None:
        if (
            record["turn"] != 1
            or record["replicate"] != 0
            or "liars_random_vs" in record["condition"]
        ):
            return None
        seat = next(iter(record["actions"]))
        return {**record, "actions": {seat: {"type": "bid", "quantity": 99, "face": 9}}}

    edit_lines(edited / "rounds.jsonl", impossible_bid)
    table, _ = ladder(tmp_path, edited)
    (note,) = skipped(table)["note"]
    assert "stored turn 1" in note and "the rules" in note


# --- links ---------------------------------------------------------------------------------------


def test_a_rounds_file_linked_into_another_run_is_refused(tmp_path, allc_alld):
    other = copy_run(allc_alld, tmp_path / "other")  # another run's rounds, ALLC paid 9
    edit_lines(other / "rounds.jsonl", _pays_nine_to_allc)
    linked = copy_run(allc_alld, tmp_path / "linked")
    (linked / "rounds.jsonl").unlink()
    (linked / "rounds.jsonl").symlink_to(other / "rounds.jsonl")
    done = pdbench(tmp_path, "ladder", str(linked), "--out", str(tmp_path / "out"))
    assert done.code == 2, done.stdout
    assert done.stderr.count("\n") == 1 and "symbolic link" in done.stderr
    assert str(linked / "rounds.jsonl") in done.stderr
    assert not (tmp_path / "out").exists()


def test_a_run_folder_linked_into_a_sweep_is_refused(tmp_path, allc_alld):
    sweep = tmp_path / "sweep"
    (sweep / "shards").mkdir(parents=True)
    (sweep / "shards" / "job0").symlink_to(allc_alld, target_is_directory=True)
    done = pdbench(tmp_path, "ladder", str(sweep), "--out", str(tmp_path / "out"))
    assert done.code == 2, done.stdout
    assert "symbolic link" in done.stderr and "job0" in done.stderr


# --- one match counted once ----------------------------------------------------------------------


def test_a_copy_of_a_run_under_another_run_id_counts_each_match_once(tmp_path, allc_alld):
    copy = copy_run(allc_alld, tmp_path / "copy")
    renamed = {"run_id": "another_id"}
    manifest = orjson.loads((copy / "run_manifest.json").read_bytes())
    (copy / "run_manifest.json").write_bytes(orjson.dumps({**manifest, **renamed}))
    edit_lines(copy / "rounds.jsonl", lambda record: {**record, **renamed})
    alone, _ = ladder(tmp_path, allc_alld)
    both, printed = ladder(tmp_path, allc_alld, copy)
    assert "3 finished matches counted" in printed and "3 duplicates dropped" in printed
    assert rated(both).loc["alld", "matches"] == 3
    columns = ["rating", "ci_low", "ci_high", "matches"]
    assert rated(both)[columns].equals(rated(alone)[columns])  # no interval narrowed
    notes = skipped(both)["note"]
    assert len(notes) == 3 and all(note.startswith("duplicate of ") for note in notes)


def test_a_stored_game_the_config_would_refuse_is_one_line_and_exit_2(tmp_path, allc_alld):
    edited = copy_run(allc_alld, tmp_path / "edited")
    manifest = orjson.loads((edited / "run_manifest.json").read_bytes())
    manifest["config"]["conditions"][0]["game"]["payoffs"] = {"CC": [9.0, 9.0]}
    (edited / "run_manifest.json").write_bytes(orjson.dumps(manifest))
    done = pdbench(tmp_path, "ladder", str(edited), "--out", str(tmp_path / "out"))
    assert done.code == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "run_manifest.json" in done.stderr and ".game.payoffs" in done.stderr
    assert not (tmp_path / "out").exists()


# --- one reader for every run: each game's entry says how its matches are read ----------------


def test_each_game_names_how_its_outcomes_are_read_and_a_turn_game_by_default_is_replayed():
    from pdbench.games.registry import MATRIX_GAMES, TURN_GAMES
    from pdbench.ladder.readers import REPLAY_READER, outcome_reader

    assert {outcome_reader(game) for game in MATRIX_GAMES} == {
        "pdbench.games.matrix.outcomes:matrix_outcomes"
    }
    assert {outcome_reader(game) for game in TURN_GAMES if not TURN_GAMES[game].outcomes} == {
        REPLAY_READER
    }
    assert outcome_reader("no_such_game") is None


def test_a_game_naming_its_own_reader_is_read_by_it_and_an_unknown_game_is_refused(
    tmp_path, dice, monkeypatch
):
    """The reader is the game's (its entry's `outcomes`), not the family's: a game naming its
    own is read by it alone, and a run of a game no installed entry declares is refused."""
    import dataclasses
    import sys
    import types

    from pdbench.core.errors import PdbenchError
    from pdbench.games import registry
    from pdbench.ladder.outcomes import Outcomes
    from pdbench.ladder.readers import read_outcomes

    asked: list[tuple[Path, object]] = []

    def own_reader(run_dir: Path, conditions: object) -> Outcomes:
        asked.append((run_dir, conditions))
        return Outcomes(pd.DataFrame())

    module = types.ModuleType("a_games_own_reader")
    module.read = own_reader  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "a_games_own_reader", module)
    entry = registry.TURN_GAMES["liars_dice"]
    own = dataclasses.replace(entry, outcomes="a_games_own_reader:read")
    monkeypatch.setitem(registry.TURN_GAMES, "liars_dice", own)
    read_outcomes(dice)
    assert asked == [(dice.resolve(), None)]  # the whole run, by the game's reader alone

    monkeypatch.delitem(registry.TURN_GAMES, "liars_dice")
    with pytest.raises(PdbenchError, match="no outcome reader for game liars_dice"):
        read_outcomes(dice)


def test_a_run_mixing_games_read_by_different_readers_reads_each_condition_by_its_own(
    tmp_path, dice, monkeypatch
):
    """A run whose conditions' games name different readers: each reader reads its conditions
    only, and the outcomes are the two readers' together (here the replay's rows of one
    condition, and those of the other from a reader of its own giving none)."""
    import dataclasses
    import sys
    import types

    from pdbench.games import registry
    from pdbench.ladder.outcomes import OUTCOME_COLUMNS, Outcomes
    from pdbench.ladder.readers import read_outcomes
    from pdbench.storage.reader import RunReader

    whole = read_outcomes(dice)
    manifest = RunReader.open(dice).manifest()
    first, *others = manifest.matchups
    assert others, "the fixture's run has two conditions or more"
    renamed = {
        name: "own_reader_game" if name == first else m.game
        for name, m in manifest.matchups.items()
    }
    edited = copy_run(dice, tmp_path / "mixed")
    stored = orjson.loads((edited / "run_manifest.json").read_bytes())
    for name, game in renamed.items():
        stored["matchups"][name]["game"] = game
    (edited / "run_manifest.json").write_bytes(orjson.dumps(stored))
    asked: list[object] = []

    def own_reader(run_dir: Path, conditions: object) -> Outcomes:
        asked.append(conditions)
        return Outcomes(pd.DataFrame(columns=OUTCOME_COLUMNS))

    module = types.ModuleType("a_games_own_reader")
    module.read = own_reader  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "a_games_own_reader", module)
    own = dataclasses.replace(
        registry.TURN_GAMES["liars_dice"], id="own_reader_game", outcomes="a_games_own_reader:read"
    )
    monkeypatch.setitem(registry.TURN_GAMES, "own_reader_game", own)
    mixed = read_outcomes(edited)
    assert asked == [[first]]
    expected = whole.table[whole.table["condition"] != first].reset_index(drop=True)
    assert len(expected) and mixed.table.drop(columns="run_id").equals(
        expected.drop(columns="run_id")
    )
