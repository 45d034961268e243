"""`pdbench train`: the example agent files play a short match against a house agent, shown turn
by turn (what the agent saw, answered and printed) and ending with the result; the match is a
normal stored run; mistakes in the file are shown with the file's own line and exit 2."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest
from in_process import run_front_door
from project_copy import command_env, shared_copy
from training import only_run, train

from pdbench.games.matrix.stored import as_rounds

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"


@pytest.mark.parametrize(
    ("example", "extra", "printed"),
    [
        ("negotiator.py", [], "printed:  round 1: betrayed=False"),
        ("grudger.py", ["--game", "prisoners-dilemma", "--against", "alld"], "printed:  grudge"),
        ("tit_for_tat.py", ["--game", "stag-hunt", "--rounds", "3"], None),
    ],
)
def test_an_example_agent_trains_turn_by_turn_and_ends_with_its_result(
    tmp_path, example, extra, printed
):
    done = train(tmp_path, str(EXAMPLES / example), *extra)
    assert done.code == 0, done.stderr
    out = done.stdout
    assert "round 1 turn" in out and "  saw:      {" in out and "  answered: {" in out
    if printed:
        assert printed in out
    result = [line for line in out.splitlines() if line.startswith("result: ")]
    assert len(result) == 1 and Path(example).stem in result[0]
    run_dir = only_run(tmp_path)
    assert run_dir.name.startswith(f"train-{Path(example).stem}-")
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert (run_dir / "aggregates.parquet").is_file()
    # what the agent printed is kept in its log, as in any run
    (log,) = (run_dir / "agent_logs").iterdir()
    if printed:
        assert printed.removeprefix("printed:  ") in log.read_text()


def test_an_agent_that_only_commits_is_told_split_or_steal_talks_first(tmp_path):
    """Split or steal is trained as AgentDuel plays it, with two exchanges of messages before
    each commit: an agent that answers a commit where a message is asked is told so."""
    agent = tmp_path / "commits.py"
    agent.write_text(
        "class Agent:\n"
        "    def on_turn(self, round_state):\n"
        '        return {"type": "commit", "choice": "split"}\n'
    )
    done = train(tmp_path, str(agent), "--game", "split-or-steal")
    assert done.code == 2
    assert "(negotiate)" in done.stdout
    assert 'on_turn must return {"type": "message", "text": "..."} in the negotiate phase' in (
        done.stdout
    )
    assert "result: commits@" in done.stdout


def _plays(path: Path) -> tuple[str, ...]:
    """The games an example file says it plays (its PLAYS)."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["PLAYS"]:  # type: ignore[attr-defined]
            return ast.literal_eval(node.value)
    return ()


def test_tit_for_tat_plays_every_game_its_docstring_claims(tmp_path):
    """Issue 41: the example said it "plays every game" and raised on every Liar's Dice turn. It
    names the games it plays (PLAYS): one sweep plays it in each, as `pdbench train` would (the
    game's AgentDuel form: split or steal with its talk), and no turn of it fails."""
    from pdbench.agents.arena.training import game_of
    from pdbench.cli.train import _game_option

    path = EXAMPLES / "tit_for_tat.py"
    games = [_game_option(game_of(path, None, name), shared_copy()) for name in _plays(path)]
    assert len(games) == 5
    done = run_front_door(
        "module",
        [
            "-m",
            f"game={','.join(games)}",
            "agent_a=arena",
            f"agent_a.path={path}",
            "agent_a.sandbox=off",  # the example's play is the point here, not the sandbox
            "agent_b=tft",
            "horizon.rounds=2",
            "run.replicates=1",
            "run.run_id=plays",
            f"run.output_dir={tmp_path / 'runs'}",
            f"hydra.sweep.dir={tmp_path / 'hydra'}",
        ],
        cwd=shared_copy(),
        env=command_env(tmp_path),
    )
    assert done.code == 0, done.stderr[-3000:]
    stored = (tmp_path / "runs" / "plays" / "rounds.jsonl").read_text().splitlines()
    rounds = list(as_rounds(json.loads(line) for line in stored))  # as the readers read them
    assert {r["condition"] for r in rounds} == {f"game={game}" for game in games}
    assert not [r for r in rounds if r["agent_a_error"]]
    talk = [m for r in rounds for m in r.get("conversation") or [] if m["speaker"] == "a"]
    assert talk and not [m for m in talk if m["error"]]  # split or steal's talk phase too


def test_tit_for_tat_refuses_a_game_it_does_not_play_saying_which_it_does(tmp_path):
    done = train(tmp_path, str(EXAMPLES / "tit_for_tat.py"), "--game", "liars-dice")
    assert done.code == 2
    assert "tit_for_tat.py plays prisoners-dilemma, split-or-steal" in done.stdout


def test_an_exception_in_a_hook_shows_the_agents_own_traceback_and_exits_2(tmp_path):
    agent = tmp_path / "broken.py"
    agent.write_text(
        "class Agent:\n"
        '    GAME = "split-or-steal"\n'
        "    def on_turn(self, round_state):\n"
        '        print("thinking about round", round_state["round"])\n'
        '        if round_state["phase"] == "commit" and round_state["round"] == 2:\n'
        '            raise KeyError("no such key")\n'
        '        if round_state["phase"] == "negotiate":\n'
        '            return {"type": "message", "text": "hi"}\n'
        '        return {"type": "commit", "choice": "split"}\n'
    )
    done = train(tmp_path, str(agent), "--rounds", "2")
    assert done.code == 2
    out = done.stdout
    assert "printed:  thinking about round 2" in out
    assert f'  |   File "{agent}", line 6, in on_turn' in out
    assert "  | KeyError: 'no such key'" in out
    assert "child.py" not in out  # pdbench's own frames are cut away
    assert "result: broken@" in out
    assert done.stderr.strip().endswith("1 turn(s) of your agent failed (shown above)")
    assert (only_run(tmp_path) / "rounds.jsonl").is_file()  # the match is stored all the same


def test_a_syntax_error_is_shown_at_its_line(tmp_path):
    agent = tmp_path / "typo.py"
    agent.write_text(
        'class Agent:\n    GAME = "split-or-steal"\n    def on_turn(self round_state):\n'
    )
    done = train(tmp_path, str(agent))
    assert done.code == 2
    lines = done.stderr.splitlines()
    assert lines[0] == f"error: {agent}: not valid Python (line 3)"
    assert f'File "{agent}", line 3' in lines[1]
    assert "def on_turn(self round_state):" in lines[2]
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("class Helper:\n    pass\n", 'Agent: defines no class named "Agent"'),
        (
            'class Agent:\n    GAME = "split-or-stael"\n',
            'Agent.GAME: unknown game "split-or-stael" (did you mean "split_or_steal"?)',
        ),
        ("class Agent:\n    def on_turn(self, s):\n        pass\n", "Agent.GAME: not set"),
    ],
)
def test_a_file_that_cannot_train_is_one_line_naming_it_and_exit_2(tmp_path, body, message):
    agent = tmp_path / "mine.py"
    agent.write_text(body)
    done = train(tmp_path, str(agent))
    assert done.code == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"error: {agent}: {message}")
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "runs").exists()


def test_an_unknown_house_agent_is_one_line_with_a_suggestion(tmp_path):
    done = train(tmp_path, str(EXAMPLES / "negotiator.py"), "--against", "tfft")
    assert done.code == 2
    assert done.stderr.startswith('error: unknown --against "tfft" (did you mean "tft"?)')
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("game", "cause", "shown"),
    [
        ("split-or-steal", 'raise ImportError("no module named numpyy")\n', "ImportError"),
        ("liars-dice", 'raise ImportError("no module named numpyy")\n', "ImportError"),
        # what a file the sandbox cannot read gives (0600 and pdbench run as root): the sandboxed
        # agent runs as nobody, so the file parses here and cannot be imported there
        ("liars-dice", None, "PermissionError"),
    ],
)
def test_an_agent_that_cannot_load_shows_why_and_its_match_is_never_rated(
    tmp_path, game, cause, shown
):
    """Issue 41: `train` on a file the sandbox could not read said "10 turn(s) of your agent
    failed (shown above)" with nothing above, and stored the match as a loss that the ladder
    counted. An agent that never started never played: the match is aborted with the reason,
    `train` shows it and exits 2, and the ladder skips the match."""
    agent = tmp_path / "mine.py"
    agent.write_text(
        (cause or "")
        + f'class Agent:\n    GAME = "{game}"\n    def on_turn(self, s):\n        return {{}}\n'
    )
    if cause is None:
        if os.geteuid() != 0:
            pytest.skip("only root reads a 0600 file the sandboxed agent (nobody) cannot")
        agent.chmod(0o600)
    done = train(tmp_path, str(agent), *(["--rounds", "2"] if game == "split-or-steal" else []))
    assert done.code == 2, (done.stdout, done.stderr)
    assert "the agent could not start" in done.stdout and shown in done.stdout
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: {agent}: ") and "could not start" in last, done.stderr
    assert "turn(s) of your agent failed" not in done.stderr
    run_dir = only_run(tmp_path)
    ledger = [json.loads(line) for line in (run_dir / "matches.jsonl").read_text().splitlines()]
    assert len(ledger) == 1 and "could not start" in ledger[0]["error"]
    (log,) = (run_dir / "agent_logs").iterdir()
    assert shown in log.read_text()  # the agent's log says why, as for any failure
    ladder = run_front_door(
        "cli",
        ["ladder", str(run_dir), "--out", str(tmp_path / "ladder")],
        cwd=shared_copy(),
        env=command_env(tmp_path),
    )
    # nothing to rate: the one match is skipped as aborted, never counted as a loss
    assert "no finished match" in ladder.stderr and "1 left out: 1 aborted" in ladder.stderr, ladder
