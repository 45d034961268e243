"""Issue 40: `pdbench train` shows the user's terminal only what pdbench means. An agent file
prints terminal escape sequences (a window title, a clipboard write, a hidden link), carriage
returns, BEL, a C1 control and lines made up as pdbench's own notes (a fake result, a fake turn),
answers with text that looks like a note's structure and raises an exception carrying an escape
sequence: none of its control characters reaches the terminal (each is shown spelled out), and
every line it made is shown indented under `printed:`, never at column 0 where pdbench's own
lines are."""

from __future__ import annotations

import re

from in_process import run_front_door
from project_copy import command_env, shared_copy

FORGER = r"""
import sys


class Agent:
    GAME = "prisoners-dilemma"

    def on_turn(self, round_state):
        if round_state["round"] == 1:
            print("\x1b]0;pwned title\x07", end="")
            print("\x1b]52;c;cHduZWQ=\x07")
            print("\x1b]8;;https://evil.example\x1b\\click here\x1b]8;;\x1b\\")
            print("progress 10%\rprogress 100%")
            print("\x07bell \x9b31mred \u202eevil\u2028next")
            print("[pdbench 2026-01-01T00:00:00] result: forger 999 - 0 alld: forger wins")
            print("[pdbench 2026-01-01T00:00:00] round 9 turn 9 (commit) saw: {}")
            sys.stdout.write("an unfinished line")
            sys.stdout.flush()
            return {"type": "commit", "choice": "cooperate", "x": "z saw: \x1b[2J"}
        raise ValueError("bad \x1b]52;c;eA==\x07 thing")
"""

RAW_CONTROLS = ("\x1b", "\x07", "\r", "\x9b", "\u202e", "\u2028")
PDBENCH_LINES = re.compile(
    r"(training |round \d+ turn \d+ \(\w+\)$|result: |run dir: |agent log: |look at it: )"
)


def test_agent_output_is_escaped_and_never_passes_for_pdbenchs_own(tmp_path):
    agent = tmp_path / "forger.py"
    agent.write_text(FORGER)
    args = ["train", str(agent), "--rounds", "2", "--against", "alld"]
    done = run_front_door(
        "cli",
        [*args, "--output-dir", str(tmp_path / "runs")],
        cwd=shared_copy(),
        env=command_env(tmp_path),
    )
    assert done.code == 2, done.stderr  # round 2's exception is a failed turn
    shown = done.stdout + done.stderr
    for raw in RAW_CONTROLS:
        assert raw not in shown, f"{raw!r} reached the terminal"

    out = done.stdout.splitlines()
    column_0 = [line for line in out if not line.startswith(" ")]
    assert all(PDBENCH_LINES.match(line) for line in column_0), column_0
    assert [line for line in out if line.startswith("result: ")] == [
        next(line for line in out if line.startswith("result: forger@"))
    ]
    printed = [line.removeprefix("  printed:  ") for line in out if line.startswith("  printed:")]
    assert printed == [
        "\\x1b]0;pwned title\\x07\\x1b]52;c;cHduZWQ=\\x07",
        "\\x1b]8;;https://evil.example\\x1b\\click here\\x1b]8;;\\x1b\\",
        "progress 10%\\rprogress 100%",
        "\\x07bell \\x9b31mred \\u202eevil\\u2028next",
        "[pdbench 2026-01-01T00:00:00] result: forger 999 - 0 alld: forger wins",
        "[pdbench 2026-01-01T00:00:00] round 9 turn 9 (commit) saw: {}",
        "an unfinished line",
    ]
    answered = [line for line in out if line.startswith("  answered: ")]
    assert answered[0] == (
        '  answered: {"type": "commit", "choice": "cooperate", "x": "z saw: \\u001b[2J"}'
    )
    assert "  | ValueError: bad \\x1b]52;c;eA==\\x07 thing" in out

    # The log on disk is as safe to `cat`: the same lines, spelled out, marked as the agent's.
    (log,) = (tmp_path / "runs").glob("train-forger-*/agent_logs/*.log")
    text = log.read_text()
    assert not any(raw in text for raw in RAW_CONTROLS)
    assert "\nagent | [pdbench 2026-01-01T00:00:00] result: forger 999" in text
    assert not re.search(r"^\[pdbench [^\]]*\] result:", text, re.MULTILINE)
