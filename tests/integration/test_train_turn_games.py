"""`pdbench train` on a turn game's agent file (issue 31 for Liar's Dice): the example file plays
the game's default house player (liars_probability), shown turn by turn (the round_state it saw,
its action and its prints) and ending with the result, stored as a normal run the ladder reads;
an exception in on_turn shows the agent's own traceback and line and exits 2."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
from training import only_run, train

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"


def stored_turns(run_dir: Path) -> list[dict]:
    return [orjson.loads(line) for line in (run_dir / "rounds.jsonl").read_bytes().splitlines()]


def test_the_liars_dice_example_trains_turn_by_turn_against_liars_probability(tmp_path):
    done = train(tmp_path, str(EXAMPLES / "liars_dice.py"))
    assert done.code == 0, done.stderr
    out = done.stdout
    assert "against LIARS_PROBABILITY in liars_dice: until its rules end" in out.splitlines()[0]
    turns = stored_turns(only_run(tmp_path))
    mine = [t for t in turns if "a" in t["seats"]]
    assert mine, "the agent moved"
    # every turn it took is shown: where, what it saw (its own dice, never the opponent's), what
    # it answered and what it printed
    first = mine[0]
    header = f"round {first['round']} turn {first['turn']}"
    assert header in out
    seen = [line for line in out.splitlines() if line.startswith("  saw:      {")]
    assert len(seen) == len(mine)
    state = json.loads(seen[0].removeprefix("  saw:      "))
    assert state["game"] == "liars-dice" and len(state["your_dice"]) == 5
    assert "opponent_dice" not in state
    answered = [line for line in out.splitlines() if line.startswith("  answered: {")]
    assert [json.loads(a.removeprefix("  answered: ")) for a in answered] == [
        t["actions"]["a"] for t in mine
    ]
    assert out.count("  printed:  ") == len(mine)
    result = [line for line in out.splitlines() if line.startswith("result: ")]
    (last,) = [t for t in turns if "outcome" in t]
    scores = last["outcome"]["scores"]
    assert len(result) == 1 and result[0].startswith("result: liars_dice@")
    assert f" {scores['a']:g} - {scores['b']:g} liars_probability: " in result[0]
    won = "liars_dice@" if scores["a"] > scores["b"] else "liars_probability wins"
    assert won in result[0].rsplit(": ", 1)[1]
    manifest = json.loads((only_run(tmp_path) / "run_manifest.json").read_text())
    assert manifest["status"] == "complete"
    (log,) = (only_run(tmp_path) / "agent_logs").iterdir()
    assert "my dice [" in log.read_text()  # its prints are kept in its log, as in any run


def test_an_exception_in_on_turn_shows_the_agents_traceback_and_line_and_exits_2(tmp_path):
    agent = tmp_path / "broken_liar.py"
    agent.write_text(
        "class Agent:\n"
        '    GAME = "liars-dice"\n'
        "    def on_turn(self, round_state):\n"
        '        print("my dice", round_state["your_dice"])\n'
        '        if round_state["current_bid"] is not None:\n'
        '            return {"type": "challenge", "why": round_state["no_such_key"]}\n'
        '        return {"type": "bid", "quantity": 1, "face": 6}\n'
    )
    done = train(tmp_path, str(agent), "--against", "liars_bluffer")
    assert done.code == 2
    out = done.stdout
    assert "printed:  my dice [" in out
    assert f'  |   File "{agent}", line 6, in on_turn' in out
    assert "  | KeyError: 'no_such_key'" in out
    assert "child.py" not in out  # pdbench's own frames are cut away
    assert "result: broken_liar@" in out
    assert done.stderr.strip().endswith("turn(s) of your agent failed (shown above)")
    failed = int(done.stderr.split("error: ")[1].split(": ")[1].split(" turn")[0])
    marked = [
        t
        for t in stored_turns(only_run(tmp_path))
        if t.get("decisions", {}).get("a", {}).get("error")
    ]
    assert failed == len(marked) >= 1


def test_rounds_do_not_apply_to_a_turn_game(tmp_path):
    done = train(tmp_path, str(EXAMPLES / "liars_dice.py"), "--rounds", "3")
    assert done.code == 2
    assert done.stderr.startswith("error: --rounds: ") and done.stderr.count("\n") == 1
    assert not (tmp_path / "runs").exists()
