"""Issue 27 (third red-team round), data lost or overwritten in a run folder: symbolic links
planted in it, a deleted ledger, temporaries of whole-file writes (concurrent writers, a kill
mid-write), and the run dir lock on a failing disk. Each through the `pdbench` command's own
entry point (tests/silently_wrong_helpers.console_in_process) or the storage calls it makes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from silently_wrong_helpers import ROOT, console_in_process, read_rounds

from pdbench.core.errors import WriteFailed
from pdbench.games.matrix.stored import as_rounds
from pdbench.storage import run_store
from pdbench.storage.tables import write_table_atomic

POLICIES = ROOT / "tests" / "fixtures" / "configs" / "policies.yaml"


def policy_run(tmp_path: Path, monkeypatch, run_id: str = "r", *extra: str):
    out = tmp_path / "runs"
    done = console_in_process(
        "run", str(POLICIES), f"run.output_dir={out}", "--run-id", run_id, "-q", *extra,
        monkeypatch=monkeypatch,
    )  # fmt: skip
    return done, out / run_id


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]


# --- symbolic links are never followed ----------------------------------------------------------


@pytest.mark.parametrize("name", [".lock", "rounds.jsonl", "spend.jsonl"])
@pytest.mark.parametrize("command", ["run", "aggregate"])
def test_a_link_in_a_run_folder_is_refused_and_its_target_untouched(
    tmp_path, monkeypatch, name, command
):
    done, run_dir = policy_run(tmp_path, monkeypatch)
    assert done.returncode == 0, done
    outside = tmp_path / "outside.txt"
    outside.write_text("someone else's file\n")
    (run_dir / name).unlink(missing_ok=True)
    (run_dir / name).symlink_to(outside)
    if command == "run":
        again, _ = policy_run(tmp_path, monkeypatch)
    else:
        again = console_in_process("aggregate", str(run_dir), monkeypatch=monkeypatch)
    assert again.returncode == 2, again
    line = one_error_line(again.stderr)
    assert f"{run_dir / name} is a symbolic link" in line, line
    assert outside.read_text() == "someone else's file\n"


def test_an_arena_agents_own_links_in_its_scratch_folder_do_not_block_a_resume(
    tmp_path, monkeypatch
):
    done, run_dir = policy_run(tmp_path, monkeypatch)
    assert done.returncode == 0, done
    scratch = run_dir / "agent_work" / "c__rep0__a"
    scratch.mkdir(parents=True)
    (scratch / "mine").symlink_to("/etc/hostname")  # what an agent may leave after a kill
    again, _ = policy_run(tmp_path, monkeypatch)
    assert again.returncode == 0, again


def test_a_link_planted_after_the_check_is_not_written_through(tmp_path):
    from pdbench.core.errors import PdbenchError
    from pdbench.storage import jsonl

    outside = tmp_path / "outside.txt"
    outside.write_text("kept\n")
    link = tmp_path / "rounds.jsonl"
    link.symlink_to(outside)
    with pytest.raises(PdbenchError, match="is a symbolic link"):
        jsonl.append_bytes(link, b'{"x": 1}\n')
    assert outside.read_text() == "kept\n"


# --- a deleted ledger ---------------------------------------------------------------------------


def test_rounds_without_their_ledger_are_moved_aside_and_said(tmp_path, monkeypatch):
    done, run_dir = policy_run(tmp_path, monkeypatch)
    assert done.returncode == 0, done
    stored = (run_dir / "rounds.jsonl").read_bytes()
    assert stored
    (run_dir / "matches.jsonl").unlink()
    again, _ = policy_run(tmp_path, monkeypatch)
    assert again.returncode == 0, again
    warnings = [line for line in again.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1 and "matches.jsonl is missing" in warnings[0], again.stderr
    (moved,) = (run_dir / "quarantine").iterdir()
    assert (moved / "rounds.jsonl").read_bytes() == stored  # nothing lost
    strip = lambda rows: [{k: v for k, v in r.items() if k != "timestamp_utc"} for r in rows]  # noqa: E731
    replayed = list(as_rounds(json.loads(line) for line in stored.splitlines()))
    assert strip(read_rounds(run_dir)) == strip(replayed)  # played again, the same rounds


def test_a_kill_before_the_first_ledger_line_is_not_damage(tmp_path):
    """A new run dir starts with an empty ledger: rounds written before the first ledger line
    (a kill between the two writes) are a kill's leftover, cut away without a quarantine."""
    from pdbench.storage import recovery

    store = run_store.RunStore.open(tmp_path / "r", config_hash="h")
    store.close()
    assert (tmp_path / "r" / "matches.jsonl").read_bytes() == b""
    (tmp_path / "r" / "rounds.jsonl").write_bytes(b'{"condition": "c", "replicate": 0}\n')
    found = recovery.recover(tmp_path / "r")
    assert found.damage is None and found.rounds_end == 0


# --- temporaries of whole-file writes -----------------------------------------------------------


def test_two_writers_of_one_table_at_once_each_leave_a_whole_file(tmp_path):
    """Two processes write aggregates.parquet 30 times each, at the same time: every write is
    whole (no 'free some space' from a shared temporary), the file left is readable and no
    temporary stays behind."""
    target = tmp_path / "aggregates.parquet"
    script = (
        "import sys, pandas as pd\n"
        "from pathlib import Path\n"
        "from pdbench.storage.tables import write_table_atomic\n"
        "table = pd.DataFrame({'writer': [sys.argv[2]] * 200000, 'x': range(200000)})\n"
        "for _ in range(40):\n"
        "    write_table_atomic(table, Path(sys.argv[1]))\n"
    )
    writers = [
        subprocess.Popen([sys.executable, "-c", script, str(target), name], stderr=subprocess.PIPE)
        for name in ("one", "two")
    ]
    errors = [writer.communicate(timeout=120)[1].decode() for writer in writers]
    assert [writer.returncode for writer in writers] == [0, 0], errors
    table = pd.read_parquet(target)
    assert len(table) == 200000 and table["writer"].nunique() == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["aggregates.parquet"]


def test_an_interrupted_write_leaves_no_temporary_and_the_old_file(tmp_path):
    from pdbench.storage.safe_files import replacing

    target = tmp_path / "analysis.parquet"
    write_table_atomic(pd.DataFrame({"x": [1]}), target)
    with pytest.raises(KeyboardInterrupt), replacing(target) as temporary:
        temporary.write_bytes(b"half")
        raise KeyboardInterrupt
    assert sorted(p.name for p in tmp_path.iterdir()) == ["analysis.parquet"]
    assert pd.read_parquet(target)["x"].tolist() == [1]


def test_temporaries_of_dead_writers_are_removed_by_the_next_write(tmp_path):
    from pdbench.storage.safe_files import remove_stale_temporaries, replacing

    target = tmp_path / "tournament.parquet"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    with replacing(target) as temporary:  # a name as this machine's writers make them
        host = temporary.name.split(".")[-2].split("-")[0]
        temporary.write_bytes(b"")
    stale = tmp_path / f"tournament.parquet.{host}-{dead.stdout.strip()}-abcdef.tmp"
    stale.write_bytes(b"left by a kill -9")
    legacy = tmp_path / "tournament.parquet.tmp"  # the one shared name older versions used
    legacy.write_bytes(b"left by a kill -9")
    alive = tmp_path / f"tournament.parquet.{host}-{os.getpid()}-abcdef.tmp"
    alive.write_bytes(b"a live writer's")
    remove_stale_temporaries(target)
    assert not stale.exists() and not legacy.exists() and alive.exists()


def test_a_killed_analysis_command_leaves_no_temporary_after_the_next_one(tmp_path, monkeypatch):
    done, run_dir = policy_run(tmp_path, monkeypatch)
    assert done.returncode == 0, done
    process = subprocess.Popen(
        [sys.executable, "-c",
         "import time, pandas as pd\n"
         "from pathlib import Path\n"
         "from pdbench.storage.safe_files import replacing\n"
         f"with replacing(Path({str(run_dir / 'aggregates.parquet')!r})) as t:\n"
         "    t.write_bytes(b'half'); print('ready', flush=True); time.sleep(60)\n"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    process.kill()  # kill -9: no handler runs
    process.wait(timeout=10)
    assert list(run_dir.glob("aggregates.parquet.*tmp"))
    again = console_in_process("aggregate", str(run_dir), monkeypatch=monkeypatch)
    assert again.returncode == 0, again
    assert not list(run_dir.glob("*.tmp")), list(run_dir.iterdir())


# --- the run dir lock on a failing disk ---------------------------------------------------------


def test_a_full_disk_when_the_lock_is_taken_is_write_failed(tmp_path, monkeypatch):
    real_write = run_store.RunDirLock.acquire

    class FullDisk:
        def __init__(self, handle):
            self._handle = handle

        def write(self, data):
            raise OSError(28, "No space left on device")

        def __getattr__(self, name):
            return getattr(self._handle, name)

    real_open = run_store.open_no_follow
    monkeypatch.setattr(run_store, "open_no_follow", lambda p, m: FullDisk(real_open(p, m)))
    with pytest.raises(WriteFailed, match=r"disk full while writing .*\.lock"):
        real_write(run_store.RunDirLock(tmp_path))


def test_releasing_the_lock_never_hides_the_error_on_its_way_out(tmp_path):
    lock = run_store.RunDirLock(tmp_path).acquire()

    class Unwritable:
        def __init__(self, handle):
            self._handle = handle

        def truncate(self, *args):
            raise PermissionError(13, "Permission denied")

        def __getattr__(self, name):
            return getattr(self._handle, name)

    lock._handle = Unwritable(lock._handle)
    lock.release()  # no exception: the error that ended the run is the one said
    again = run_store.RunDirLock(tmp_path).acquire()  # and the lock is free
    again.release()


def test_a_full_disk_at_start_is_exit_5_and_one_line(tmp_path):
    from silently_wrong_helpers import subprocess_env

    command = [sys.executable, str(ROOT / "tests" / "fault_injection.py"), ".lock", "0",
               "run", str(POLICIES), f"run.output_dir={tmp_path / 'runs'}", "--run-id", "r", "-q"]  # fmt: skip
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=subprocess_env(tmp_path), capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 5, (done.returncode, done.stderr)
    line = one_error_line(done.stderr)
    assert "disk full while writing" in line and ".lock" in line, line
    assert time.monotonic() - started < 120
