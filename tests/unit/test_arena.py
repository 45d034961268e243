"""Arena agents without processes: file checks, the hooks' dicts, answer parsing, the log, and
what a sandbox would show."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from helpers import TEST_DEAL

from pdbench.agents.arena import (
    AgentLog,
    ArenaAgent,
    agent_log_path,
    check_arena_file,
    files_read,
    infer_opponent_action,
    label_to_action,
    parse_choice,
    round_info,
    round_result,
    round_state,
    sandbox,
)
from pdbench.agents.arena.bwrap import bwrap_argv, runtime_paths
from pdbench.agents.arena.log import read_log_line
from pdbench.agents.arena.sandbox import MARKER_VARIABLE, Containment
from pdbench.agents.arena.validate import imported_siblings
from pdbench.agents.base import AgentContext
from pdbench.config.schema import ArenaAgentSpec
from pdbench.core.actions import C, D
from pdbench.core.errors import ConfigError, InvalidActionError
from pdbench.core.transcript import PlayedRound, observe
from pdbench.games.tables import GAMES

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = "tests/fixtures/arena"
PD = GAMES["pd"]
SPLIT = GAMES["split_or_steal"]


def spec(path: str, **fields) -> ArenaAgentSpec:
    return ArenaAgentSpec(path=path, **fields)


# --- check_arena_file --------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES.values(), ids=GAMES.keys())
@pytest.mark.parametrize("example", ["tit_for_tat.py", "grudger.py"])
def test_examples_pass_the_check_in_every_game(example, game):
    check_arena_file(spec(f"examples/agents/{example}"), game, ROOT)


def test_missing_file_is_named():
    with pytest.raises(ConfigError) as raised:
        check_arena_file(spec("agents/nowhere.py"), PD, ROOT)
    assert raised.value.file == "agents/nowhere.py"
    assert raised.value.field == "path"
    assert "no such file" in str(raised.value)


def test_file_without_agent_class():
    with pytest.raises(ConfigError, match='no class named "Agent"') as raised:
        check_arena_file(spec(f"{FIXTURES}/no_agent.py"), PD, ROOT)
    assert raised.value.file == f"{FIXTURES}/no_agent.py"


def test_game_mismatch_names_both_games():
    with pytest.raises(ConfigError) as raised:
        check_arena_file(spec(f"{FIXTURES}/split_only.py"), PD, ROOT)
    assert raised.value.field == "Agent.GAME"
    assert '"split-or-steal"' in str(raised.value)
    assert '"prisoners-dilemma"' in str(raised.value)
    assert "\n" not in str(raised.value)


def test_matching_game_passes():
    check_arena_file(spec(f"{FIXTURES}/split_only.py"), SPLIT, ROOT)


def test_computed_game_is_left_to_the_worker():
    check_arena_file(spec(f"{FIXTURES}/computed_game.py"), PD, ROOT)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("class Agent:\n    def on_turn(self, s)\n", "not valid Python"),
        ("class Agent:\n    GAME = 3\n    def on_turn(self, s): ...\n", "GAME must be a game id"),
        ("class Agent:\n    def on_round_start(self, r): ...\n", "no on_turn method"),
    ],
)
def test_bad_files(tmp_path, source, message):
    path = tmp_path / "agent.py"
    path.write_text(source)
    with pytest.raises(ConfigError, match=message):
        check_arena_file(spec(str(path)), PD, ROOT)


def test_agent_bound_by_import_or_subclass_passes(tmp_path):
    (tmp_path / "a.py").write_text("from mylib import Agent\n")
    (tmp_path / "b.py").write_text("import base\nclass Agent(base.Bot):\n    pass\n")
    check_arena_file(spec(str(tmp_path / "a.py")), PD, ROOT)
    check_arena_file(spec(str(tmp_path / "b.py")), PD, ROOT)


def test_check_runs_no_user_code(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "agent.py"
    path.write_text(
        f"open({str(marker)!r}, 'w').close()\nclass Agent:\n    def on_turn(self, s): ...\n"
    )
    check_arena_file(spec(str(path)), PD, ROOT)
    assert not marker.exists()


def test_timeout_action_must_be_a_label():
    with pytest.raises(ConfigError, match="maybe") as raised:
        check_arena_file(spec("examples/agents/tit_for_tat.py", timeout_action="maybe"), PD, ROOT)
    assert raised.value.field == "timeout_action"


def context_in(run_dir: Path) -> AgentContext:
    return AgentContext(
        deal=TEST_DEAL,
        run_seed=0,
        condition="c",
        replicate=0,
        side="a",
        project_root=ROOT,
        run_dir=run_dir,
    )


def test_construction_checks_the_file(tmp_path):
    context = context_in(tmp_path)
    with pytest.raises(ConfigError):
        ArenaAgent(spec(f"{FIXTURES}/split_only.py"), game=PD, context=context)


def test_timeout_action_defaults_to_the_cooperative_label(tmp_path):
    context = context_in(tmp_path)
    agent = ArenaAgent(spec("examples/agents/tit_for_tat.py"), game=SPLIT, context=context)
    assert agent.timeout_action is C
    agent = ArenaAgent(
        spec("examples/agents/tit_for_tat.py", timeout_action="Steal"), game=SPLIT, context=context
    )
    assert agent.timeout_action is D


# --- answers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "choice", "action"),
    [
        (PD, "C", C),
        (PD, " d ", D),
        (PD, "Cooperate", C),
        (PD, "defect", D),
        (SPLIT, "split", C),
        (SPLIT, "STEAL", D),
    ],
)
def test_parse_choice(game, choice, action):
    assert parse_choice({"type": "commit", "choice": choice}, game) is action
    assert parse_choice({"choice": choice}, game) is action


@pytest.mark.parametrize(
    ("game", "raw"),
    [
        (PD, {"choice": "maybe"}),
        (SPLIT, {"choice": "cooperate"}),  # the aliases belong to the prisoner's dilemma
        (PD, "C"),
        (PD, {"type": "message", "choice": "C"}),
        (PD, {"choice": 1}),
        (PD, None),
    ],
)
def test_parse_choice_rejects(game, raw):
    with pytest.raises(InvalidActionError):
        parse_choice(raw, game)


@pytest.mark.parametrize(("choice", "action"), [("cooperate", D), ("Defect", C), ("C", None)])
def test_the_games_labels_win_over_the_aliases(choice, action):
    """Issue 27: `game.labels=[defect, cooperate]` made "cooperate" (the label of D) a C through
    the alias, paid as mutual cooperation."""
    swapped = PD.with_changes(cooperate_label="defect", defect_label="cooperate")
    if action is None:
        with pytest.raises(InvalidActionError):
            label_to_action(choice, swapped)
    else:
        assert label_to_action(choice, swapped) is action
        assert parse_choice({"type": "commit", "choice": choice}, swapped) is action


def test_labels_for_the_other_games():
    assert label_to_action("stag", GAMES["stag_hunt"]) is C
    assert label_to_action("Straight", GAMES["chicken"]) is D


# --- what the hooks receive --------------------------------------------------------------------


def played_rounds():
    return [PlayedRound(1, C, D, 0.0, 100.0), PlayedRound(2, D, D, 0.0, 0.0)]


def test_round_state_is_from_the_agents_side():
    obs = observe(played_rounds(), side="b", history_window=None, include_totals=True)
    state = round_state(obs, SPLIT)
    assert state == {
        "phase": "commit",
        "round": 3,
        "turn": 1,
        "pot": 100,
        "your_score": 100,
        "opponent_score": 0,
        "history": [
            {
                "round": 1,
                "your_choice": "steal",
                "opponent_choice": "split",
                "your_points": 100,
                "opponent_points": 0,
            },
            {
                "round": 2,
                "your_choice": "steal",
                "opponent_choice": "steal",
                "your_points": 0,
                "opponent_points": 0,
            },
        ],
        "messages": [],
        "game": "split-or-steal",
        "actions": ["split", "steal"],
        # AgentDuel's other spelling (the Split or Steal page), sent alongside
        "round_number": 3,
        "turn_number": 1,
        "rounds_history": [
            {key: value for key, value in entry.items() if key != "round"}
            for entry in state["history"]
        ],
    }
    assert round_info(obs, SPLIT) == {"round": 3, "pot": 100}
    assert round_info(obs, PD) == {"round": 3, "pot": None}


def test_round_result_of_the_last_round():
    obs = observe(played_rounds(), side="a", history_window=None, include_totals=True)
    assert round_result(obs.last, SPLIT, 0.0, 100.0) == {
        "round": 2,
        "your_choice": "steal",
        "opponent_choice": "steal",
        "points": 0,
        "opponent_points": 0,
        "your_score": 0,
        "opponent_score": 100,
    }


@pytest.mark.parametrize("game", GAMES.values(), ids=GAMES.keys())
def test_opponent_action_is_recovered_from_payoffs(game):
    for own in (C, D):
        for other in (C, D):
            mine, theirs = game.payoffs.payoffs(own, other)
            assert infer_opponent_action(game, own, mine, theirs) is other


# --- the log -----------------------------------------------------------------------------------


def test_log_path_scheme(tmp_path):
    context = AgentContext(
        deal=TEST_DEAL,
        run_seed=0,
        condition="tft/vs alld",
        replicate=2,
        side="b",
        project_root=ROOT,
        run_dir=tmp_path,
    )
    path = agent_log_path(context, Path("x.py"))
    assert path == tmp_path / "agent_logs" / "tft_vs_alld__rep2__b.log"


def test_log_without_run_dir_is_a_temp_file():
    path = agent_log_path(None, Path("x.py"))
    assert path.exists()
    path.unlink()


def test_log_is_capped(tmp_path):
    log = AgentLog(tmp_path / "agent.log", cap_bytes=1000)
    log.write(b"a" * 600)
    log.write(b"b" * 600)
    log.write(b"c" * 600)
    log.close()
    text = (tmp_path / "agent.log").read_text()
    assert text.startswith("agent | " + "a" * 600 + "b" * 400 + "\n[pdbench ")
    assert "cc" not in text
    assert "output cut off after 1000 bytes" in text
    assert "800 further bytes" in text


def test_the_agents_lines_cannot_pass_for_notes_in_its_log(tmp_path):
    """Every line the agent prints is behind the gutter, control characters spelled out, and a
    character split between two writes is decoded whole; a note ends a line left open."""
    log = AgentLog(tmp_path / "agent.log")
    log.write(b"[pdbench 2026-01-01T00:00:00] result: I win\n\x1b]52;c;eA==\x07 caf\xc3")
    log.write(b"\xa9 \xff\r")
    log.note("round 1 turn 1 (commit) on_turn raised:\nTraceback\nValueError: \x1b")
    log.write(b"\n")
    log.close()
    lines = (tmp_path / "agent.log").read_text().splitlines()
    assert lines[0] == "agent | [pdbench 2026-01-01T00:00:00] result: I win"
    assert lines[1] == "agent | \\x1b]52;c;eA==\\x07 caf\u00e9 \\xff\\r"
    assert lines[2].endswith("] round 1 turn 1 (commit) on_turn raised:")
    assert lines[3].startswith("[pdbench ") and lines[3].endswith("] | Traceback")
    assert lines[4].endswith("] | ValueError: \\x1b")
    assert lines[5] == "agent | "
    kinds = [read_log_line(line)[0] for line in lines]
    assert kinds == ["agent", "agent", "note", "note continued", "note continued", "agent"]
    assert read_log_line(lines[0])[1] == "[pdbench 2026-01-01T00:00:00] result: I win"


# --- containment: what the sandbox shows, without starting one ---------------------------------


def test_bwrap_shows_the_runtime_the_agent_file_and_its_scratch_only(tmp_path):
    agent_file = tmp_path / "project" / "agents" / "a.py"
    scratch = tmp_path / "project" / "data" / "runs" / "r" / "agent_work" / "m"
    argv = bwrap_argv(
        ["python", "child.py"],
        read_only=[*runtime_paths(), agent_file],
        writable=scratch,
        hidden=[tmp_path / "project"],
    )
    for flag in ("--die-with-parent", "--unshare-pid", "--unshare-net", "--unshare-ipc"):
        assert flag in argv
    pairs = list(zip(argv, argv[1:], argv[2:], strict=False))
    assert ("--ro-bind", str(agent_file), str(agent_file)) in pairs
    assert ("--bind", str(scratch), str(scratch)) in pairs
    assert argv[argv.index("--chdir") + 1] == str(scratch)
    assert argv[-5:] == ["--remount-ro", "/", "--", "python", "child.py"]
    # The project itself is no mount: only the paths that lead to its two shown parts exist.
    sources = {argv[i + 1] for i, flag in enumerate(argv) if flag in ("--bind", "--ro-bind")}
    assert str(tmp_path / "project") not in sources
    assert ("--dir", str(tmp_path / "project" / "agents")) in list(itertools.pairwise(argv))


def test_a_deal_key_inside_a_shown_folder_is_covered_by_an_empty_file(tmp_path):
    """A run's deal key (issue 40) under a folder the sandbox shows reads as /dev/null there,
    mounted after that folder; one the sandbox does not show needs nothing."""
    runtime = tmp_path / "opt"
    shown_key, other_key = runtime / "deal.key", tmp_path / "runs" / "deal.key"
    for key in (shown_key, other_key):
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_text("00" * 32 + "\n")
    argv = bwrap_argv(
        ["python"], read_only=[runtime], writable=None, hidden_files=[shown_key, other_key]
    )
    steps = [" ".join(argv[i : i + 3]) for i in range(len(argv))]
    assert steps.index(f"--ro-bind {runtime} {runtime}") < steps.index(
        f"--dev-bind /dev/null {shown_key}"
    )
    assert str(other_key) not in argv


def test_a_project_inside_a_shown_folder_is_covered_before_the_agent_is_shown(tmp_path):
    runtime = tmp_path / "opt"
    project = runtime / "project"
    agent_file = project / "agents" / "a.py"
    argv = bwrap_argv(["python"], read_only=[runtime, agent_file], writable=None, hidden=[project])
    steps = [" ".join(argv[i : i + 3]) for i in range(len(argv))]
    runtime_at = steps.index(f"--ro-bind {runtime} {runtime}")
    covered_at = steps.index(f"--tmpfs {project} --perms")
    agents_at = steps.index(f"--dir {project / 'agents'} --ro-bind")
    shown_at = steps.index(f"--ro-bind {agent_file} {agent_file}")
    assert runtime_at < covered_at < agents_at < shown_at


def _agent_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "agents"
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "__init__.py").write_text("from pkg import inner\n")
    (folder / "pkg" / "inner.py").write_text("import util\n")
    (folder / "helper.py").write_text("import json\nX = 1\n")
    (folder / "util.py").write_text("Y = 2\n")
    (folder / "unused.py").write_text("Z = 3\n")
    (tmp_path / ".env").write_text("KEY=secret\n")
    (folder / "leak.py").symlink_to(tmp_path / ".env")
    (folder / "agent.py").write_text(
        "import json\nimport helper\nimport leak\nfrom pkg import inner\n"
        "import importlib\nimportlib.import_module('unused')\n\n"
        "class Agent:\n    def on_turn(self, state): ...\n"
    )
    return folder


def test_imported_siblings_are_the_modules_it_imports_and_no_symlink_out(tmp_path):
    folder = _agent_folder(tmp_path)
    found = imported_siblings(folder / "agent.py")
    # helper and the package by name, util through the package; not unused (imported by a
    # string), not leak (a symlink to the .env above), not json (not in the folder).
    assert found == [folder / "helper.py", folder / "pkg", folder / "util.py"]


def test_files_read_lists_the_imported_siblings_for_the_manifest(tmp_path):
    _agent_folder(tmp_path)
    read = files_read(spec("agents/agent.py"), PD, None, tmp_path)
    assert read == [
        "agents/agent.py",
        "agents/helper.py",
        "agents/pkg/__init__.py",
        "agents/pkg/inner.py",
        "agents/util.py",
    ]


def test_without_a_sandbox_the_worker_gets_a_minimal_environment_and_a_scratch_folder(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-agents")
    context = context_in(tmp_path / "run")
    agent_file = ROOT / "examples/agents/tit_for_tat.py"
    containment = Containment(spec(str(agent_file), sandbox="off"), agent_file, [], context)
    launch = containment.launch()
    assert not launch.sandboxed and "bwrap" not in launch.argv[0]
    assert launch.cwd == tmp_path / "run" / "agent_work" / "c__rep0__a" and launch.cwd.is_dir()
    assert "OPENAI_API_KEY" not in launch.env
    assert launch.env[MARKER_VARIABLE] == launch.marker
    assert json.loads(launch.argv[-1]) == {"memory_bytes": 1024 << 20}
    (launch.cwd / "left_behind").mkdir()
    (launch.cwd / "left_behind" / "file").write_text("x")
    (launch.cwd / "left_behind").chmod(0o500)
    containment.close()
    assert not (tmp_path / "run" / "agent_work").exists()


def test_sandbox_modes_where_bubblewrap_cannot_run(monkeypatch, caplog):
    monkeypatch.setattr(sandbox, "sandbox_problem", lambda: "bubblewrap (bwrap) is not installed")
    monkeypatch.setattr(sandbox, "_warned", set())
    assert sandbox.use_sandbox("off", "a.py", Path("run")) is False
    with pytest.raises(ConfigError, match="sandbox is required but bubblewrap") as raised:
        sandbox.use_sandbox("required", "a.py", Path("run"))
    assert raised.value.field == "sandbox" and raised.value.file == "a.py"
    with caplog.at_level("WARNING"):
        assert sandbox.use_sandbox("auto", "a.py", Path("run")) is False
        assert sandbox.use_sandbox("auto", "b.py", Path("run")) is False
    assert [r.getMessage() for r in caplog.records if "without a sandbox" in r.getMessage()] == [
        "warning: arena agents run without a sandbox (bubblewrap (bwrap) is not installed): they "
        "can read what this user can and reach the network; install bubblewrap, or set sandbox: "
        "off to silence this"
    ]


def test_what_an_agent_printed_before_it_answered_is_handed_on_first():
    """The agent's worker flushes its printed lines before it writes the answer, so when the pump
    finds both pipes ready, the printed lines belong before the answer (the order `train` and the
    agent's log show); the order the selector lists them in is not a promise."""
    import os

    from pdbench.agents.arena.process import _Pump

    for _ in range(20):
        replies_read, replies_write = os.pipe()
        output_read, output_write = os.pipe()
        os.write(output_write, b"round 2: betrayed=False\n")
        os.write(replies_write, b'{"choice": "split"}\n')
        os.close(output_write)
        os.close(replies_write)
        seen: list[tuple[str, bytes | None]] = []  # appended from the pump's one thread
        pump = _Pump(
            replies_read,
            output_read,
            on_line=lambda line, seen=seen: seen.append(("answer", line)),
            on_output=lambda chunk, seen=seen: seen.append(("printed", chunk)),
        )
        assert pump.drained.wait(5)
        pump.stop()
        os.close(replies_read)
        os.close(output_read)
        assert seen == [
            ("printed", b"round 2: betrayed=False\n"),
            ("answer", b'{"choice": "split"}'),
            ("answer", None),
        ]


def test_a_long_condition_name_gives_a_log_and_work_folder_name_a_file_system_takes(tmp_path):
    """A group's condition is named by every seat's override (a public goods train run's was
    356 characters): its agent log and work folder names stay within the 255 bytes a file name
    may have, and two long names that differ only at the end stay apart."""
    from dataclasses import replace

    from pdbench.agents.arena.log import agent_log_path, match_slug

    seats = "_".join(f"agent_{s}=pgg_conditional_cooperator" for s in "bcdefghij")
    long_names = [f"agent_a.path=examples_agents_public_goods.py_{seats}_x={n}" for n in (1, 2)]
    slugs = [match_slug(replace(context_in(tmp_path), condition=name)) for name in long_names]
    assert all(len(f"{slug}.log".encode()) <= 255 for slug in slugs)
    assert slugs[0] != slugs[1]
    assert slugs[0].endswith("__rep0__a")
    path = agent_log_path(replace(context_in(tmp_path), condition=long_names[0]), ROOT)
    path.parent.mkdir(parents=True)
    path.write_text("opens\n")  # the file system takes the name
    assert match_slug(context_in(tmp_path)) == "c__rep0__a"  # a short name is kept as it is
