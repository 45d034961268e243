"""Issue 31's done-when for training: `pdbench train` on the examples' agent files of every game
(every file in examples/agents/ whose GAME is one of the platform's five games: split-or-steal,
liars-dice, passcode, nuclear-war, nil-recruitment; public-goods, a group of four, issue 44;
and donor-game, a population of eight, issue 45)
shows the agent's prints under its turns and
ends with its result. A judged game plays its default house opponent, and its third party (the
Keeper, the judge) is the game's house default, named in the header line."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from helpers import only_run_dir
from in_process import run_front_door
from project_copy import command_env, shared_copy

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"
GAMES = (
    "split-or-steal",
    "liars-dice",
    "passcode",
    "nuclear-war",
    "nil-recruitment",
    "public-goods",
    "donor-game",
    "normal-form",
)
THIRD_PARTY = {"passcode": "keeper: TRUTHFUL (house default)"} | {
    game: "judge: SCRIPTED_JUDGE (house default)" for game in ("nuclear-war", "nil-recruitment")
}


def declared_game(path: Path) -> str | None:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ClassDef) and node.name == "Agent":
            for item in node.body:
                if isinstance(item, ast.Assign) and [t.id for t in item.targets] == ["GAME"]:  # type: ignore[attr-defined]
                    return ast.literal_eval(item.value)
    return None


EXAMPLE_GAMES = {
    path.name: declared_game(path)
    for path in sorted(EXAMPLES.glob("*.py"))
    if declared_game(path) in GAMES
}


def test_every_game_has_an_example_file():
    assert sorted(set(EXAMPLE_GAMES.values())) == sorted(GAMES)


@pytest.mark.parametrize("example", sorted(EXAMPLE_GAMES))
def test_training_an_example_shows_its_prints_and_ends_with_its_result(tmp_path, example):
    game = EXAMPLE_GAMES[example]
    done = run_front_door(
        "cli",
        ["train", str(EXAMPLES / example), "--output-dir", str(tmp_path / "runs")],
        cwd=shared_copy(),
        env=command_env(tmp_path),
    )
    assert done.code == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"training {example} ")
    if game in THIRD_PARTY:
        assert f", {THIRD_PARTY[game]}: " in lines[0]
    # turn by turn: what it saw, what it answered, what it printed
    seen = [i for i, line in enumerate(lines) if line.startswith("  saw:      {")]
    answered = [i for i, line in enumerate(lines) if line.startswith("  answered: {")]
    printed = [i for i, line in enumerate(lines) if line.startswith("  printed:  ")]
    assert seen and answered and printed
    for i in seen:
        assert json.loads(lines[i].removeprefix("  saw:      "))["game"] == game
    run_dir = only_run_dir(tmp_path / "runs")
    (log,) = (run_dir / "agent_logs").iterdir()
    for i in printed:  # each print is the agent's own, as its log keeps it
        assert lines[i].removeprefix("  printed:  ") in log.read_text()
    # ... and ends with its result, after every turn shown
    (result,) = [i for i, line in enumerate(lines) if line.startswith("result: ")]
    assert result > max(seen + answered + printed)
    assert lines[result].startswith(f"result: {Path(example).stem}@")
    stored = [json.loads(line) for line in (run_dir / "rounds.jsonl").read_text().splitlines()]
    if game in ("split-or-steal",):
        return
    (last,) = [turn for turn in stored if "outcome" in turn]
    scores = last["outcome"]["scores"]
    if len(scores) == 2:
        assert f" {scores['a']:g} - {scores['b']:g} " in lines[result]
    else:  # a group: every seat's score, in seat order
        shown = lines[result].rsplit(": ", 1)[0].split(" - ")
        assert [part.rsplit(" ", 1)[1] for part in shown] == [
            f"{scores[seat]:g}" for seat in sorted(scores)
        ]
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    assert manifest["status"] == "complete"
