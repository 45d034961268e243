"""Every kind of run the tool writes, made with real pdbench commands, for the viewer's tests.

`make_viewer_runs(tmp)` runs, in a copy of the committed project, on the mock model (and one
HTTP stub that fails): an all-aborted run (as docs/real-models.md's local-model example makes),
partial aborts, a sweep with an empty condition beside a finished one, an unfinished run (transport
failures), an interrupted run (SIGINT mid-run), a noisy run and a negotiated split-or-steal run
(`STATUS_KINDS`); and a tiny run of each turn game (`GAME_KINDS`).
`expected_tally(run_dir)` counts what happened from the stored files alone, independently of
the viewer's code, for the page's summary to be checked against.

`shared_viewer_runs(tmp_path_factory)` makes them once per test session, for every module and
every xdist worker (a file lock beside the workers' temp folders, and a marker file once made):
the viewer only reads a run, so the modules can share one set. Each run is made by the same
pdbench entry function a user's `python -m pdbench` calls, run in the test process
(tests/in_process.py): what the runs hold is the point here, not the process. The interrupted
run is the exception: SIGINT reaches a real process, as a user's Ctrl-C does.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest
from in_process import run_front_door
from project_copy import copy_project
from session_once import made_once
from stub_http import LocalStubServer, StubHandler

from pdbench.games.matrix.stored import as_rounds

# every status and shape of a 2x2 run
STATUS_KINDS = ("aborted", "partial", "empty", "unfinished", "interrupted", "noisy", "negotiated")
# a run of each turn game, tiny (house players, the mock as LLM player, Keeper or judge): Liar's
# Dice with a match aborted by its LLM player, Passcode over two words with an audited LLM
# Keeper, Nuclear War with an LLM judge and the sides swapped, NIL Recruitment with a panel of
# three judges beside a single one, sides swapped; public goods with two groups of three re-drawn
# every round (strangers), talk and punishment
GAME_KINDS = (
    "liars_dice",
    "passcode",
    "nuclear_war",
    "nil_recruitment",
    "public_goods",
    "donor_game",
)
KINDS = STATUS_KINDS + GAME_KINDS
PGG_PLAYERS = (
    "pgg_punisher",
    "pgg_free_rider",
    "pgg_conditional_cooperator",
    "pgg_antisocial_punisher",
    "pgg_full_contributor",
    "pgg_hump",
)
PANEL_EXPERIMENT = """\
run: {seed: 2, replicates: 2}
game: {id: nil_recruitment, options: {rounds: 1, swap_sides: true}}
conditions:
  - {name: panel, agent_a: debate_fixed, agent_b: debate_priorities,
     judge: [priorities, first_speaker, llm]}
  - {name: alone, agent_a: debate_priorities, agent_b: debate_fixed}
"""


class FailingHandler(StubHandler):
    """Every chat completion answers 503: a transport failure, the match stays unfinished."""

    def do_POST(self) -> None:
        self.read_body()
        self.send_answer(503, "application/json", b'{"error": {"message": "overloaded"}}')


def _command(project: Path, tmp: Path, args: list[str], run_id: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pdbench",
        *args,
        f"run.output_dir={tmp / 'runs'}",
        f"run.cache.dir={tmp / 'cache' / run_id}",
    ]


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PDBENCH_SWEEP_ID", "PDBENCH_RUN_DIR")}


def _run(project: Path, command: list[str], ok: tuple[int, ...] = (0,)) -> None:
    """`python -m pdbench ARGS` through its entry function in this process (`hydra_entry`, what
    the module runs), with the same argv, working folder and environment."""
    assert command[:3] == [sys.executable, "-m", "pdbench"], command
    done = run_front_door("module", command[3:], cwd=project, env=_env(), wall_limit_s=300)
    assert done.code in ok, (command, done.code, done.stderr[-3000:])


def shared_viewer_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`make_viewer_runs` once per session, whichever module or xdist worker asks first; the
    others wait on the lock and read the same runs (the viewer never writes into a run)."""
    tmp = made_once(tmp_path_factory, "shared-viewer-runs", make_viewer_runs)
    made = {kind: tmp / "runs" / kind for kind in KINDS}
    for kind, run_dir in made.items():
        assert (run_dir / "run_manifest.json").is_file(), f"{kind}: no run was written"
    return made


def make_viewer_runs(tmp: Path) -> dict[str, Path]:
    """Make the runs of `KINDS` under tmp/runs; returns kind -> run dir."""
    project = copy_project(tmp / "project")
    runs = tmp / "runs"
    # The interrupted run is slow (mock latency) and mostly waits: it runs in its own process
    # meanwhile, and a thread stops it with SIGINT once its first rounds are stored.
    # Its environment is taken now: a command run in this process swaps os.environ meanwhile.
    interrupted = threading.Thread(target=_interrupted, args=(project, tmp, _env()), daemon=True)
    interrupted.start()
    try:
        single = {
            "aborted": ["agent_a=llm_default", "agent_b=tft", "provider.mock.invalid_rate=1.0"],
            "partial": ["agent_a=llm_default", "agent_b=tft", "provider.mock.invalid_rate=0.75"],
            "noisy": ["agent_a=tft", "agent_b=grim", "game.noise=0.1", "horizon.rounds=30"],
            "negotiated": [
                "game=agentduel_split_or_steal",
                "agent_a=llm_default",
                "agent_b=tft",
                "horizon.rounds=5",
                "run.replicates=2",
            ],
            "liars_dice": [
                "game=liars_dice",
                "game.options.dice_per_player=2",
                "agent_a=llm_default",
                "agent_a.on_invalid=abort",
                "provider.mock.invalid_rate=0.58",  # one of the three matches aborts (tests/golden/deal.key)
                "agent_b=liars_probability",
                "run.replicates=3",
            ],
            "passcode": [
                "game=passcode",
                "game.options.words_per_match=2",
                "agent_a=passcode_halving",
                "agent_b=passcode_lengths",
                "keeper=llm",
                "keeper_audit=truthful",
                "run.replicates=2",
            ],
            "public_goods": [
                "game=public_goods",
                *(
                    f"agent_{seat}={player}"
                    for seat, player in zip("abcdef", PGG_PLAYERS, strict=True)
                ),
                "game.options.players=3",
                "game.options.groups=2",
                "game.options.matching=strangers",
                "game.options.talk=true",
                "game.options.punish=true",
                "game.options.rounds=4",
                # CoopEval's reputation: the round detail shows what a player was shown
                "game.options.reputation_depth=2",
                "run.replicates=2",
            ],
            "donor_game": [
                "game=donor_game",
                "game.options.players=5",
                "game.options.rounds=4",
                "game.options.norm=stern_judging",
                "agent_a=llm_default",
                "agent_b=donor_discriminator",
                "agent_c=donor_never_give",
                "agent_d=donor_always_give",
                "agent_e=donor_random",
                "run.replicates=2",
            ],
            "nuclear_war": [
                "game=nuclear_war",
                "game.options.swap_sides=true",
                "agent_a=debate_fixed",
                "agent_b=debate_priorities",
                "judge=llm",
                "run.replicates=2",
            ],
        }
        for kind, overrides in single.items():
            # a run whose every match aborted ends `aborted`, exit 6 (issue 26); at 0.75 invalid
            # answers a 20-round match rarely survives, so `partial` (matches aborted part-way, with
            # rounds stored) ends so too
            ok = (6,) if kind in ("aborted", "partial") else (0,)
            _run(project, _command(project, tmp, [*overrides, f"run.run_id={kind}"], kind), ok)
        # A sweep: one condition's every match aborts in round 1, the other's finish.
        _run(
            project,
            _command(
                project,
                tmp,
                [
                    "-m",
                    "agent_a=llm_default",
                    "agent_b=tft",
                    "provider.mock.invalid_rate=0.0,1.0",
                    "horizon.rounds=10",
                    "run.run_id=empty",
                    f"hydra.sweep.dir={tmp / 'hydra'}",
                ],
                "empty",
            ),
            ok=(6,),  # one condition has no finished match: the sweep ends `aborted`
        )
        # a panel is an experiment file's (the Hydra door offers none): `pdbench run FILE`
        panel = tmp / "panel.yaml"
        panel.write_text(PANEL_EXPERIMENT)
        done = run_front_door(
            "cli",
            ["run", str(panel), "--run-id", "nil_recruitment", "-q",
             f"run.output_dir={runs}", f"run.cache.dir={tmp / 'cache' / 'nil_recruitment'}"],
            cwd=project, env=_env(), wall_limit_s=300,
        )  # fmt: skip
        assert done.code == 0, done.stderr[-3000:]
        with LocalStubServer(FailingHandler) as server:
            _run(
                project,
                _command(
                    project,
                    tmp,
                    [
                        "agent_a=llm_default",
                        "agent_b=tft",
                        "provider=litellm",
                        "provider.model=openai/gpt-4o-mini",
                        f"provider.api_base={server.api_base}",
                        "provider.max_attempts=1",
                        "run.run_id=unfinished",
                    ],
                    "unfinished",
                ),
                ok=(1, 2, 3, 4, 5, 6, 7),
            )
    finally:
        interrupted.join(timeout=300)
    assert not interrupted.is_alive(), "the interrupted run did not stop"
    made = {kind: runs / kind for kind in KINDS}
    for kind, run_dir in made.items():
        assert (run_dir / "run_manifest.json").is_file(), f"{kind}: no run was written"
    return made


def _interrupted(project: Path, tmp: Path, env: dict[str, str]) -> None:
    """A slow mock run stopped by SIGINT once a few rounds are stored."""
    command = _command(
        project,
        tmp,
        [
            "agent_a=llm_default",
            "agent_b=tft",
            "provider.mock.latency_s=0.05",
            "run.replicates=30",
            "run.max_concurrency=1",
            "run.run_id=interrupted",
        ],
        "interrupted",
    )
    process = subprocess.Popen(
        command, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    rounds = tmp / "runs" / "interrupted" / "rounds.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if rounds.is_file() and rounds.stat().st_size > 0:
            break
        time.sleep(0.1)
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
    process.wait(timeout=120)


def _jsonl(path: Path) -> list[dict]:
    """A JSON-lines file's records; a 2x2 run's turn lines read as rounds, as the readers do."""
    if not path.is_file():
        return []
    lines = (orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip())
    return list(as_rounds(lines))


def _ledger(run_dir: Path) -> list[dict]:
    """The ledger lines of a run, or of every shard of a sweep."""
    lines = _jsonl(run_dir / "matches.jsonl")
    if lines or not (run_dir / "shards").is_dir():
        return lines
    return [
        line for path in sorted(run_dir.glob("shards/*/matches.jsonl")) for line in _jsonl(path)
    ]


def expected_tally(run_dir: Path) -> dict[str, int]:
    """What happened, counted from rounds.jsonl, matches.jsonl and the manifest's plan."""
    manifest = orjson.loads((run_dir / "run_manifest.json").read_bytes())
    ledger = _ledger(run_dir)
    rounds = _jsonl(run_dir / "rounds.jsonl")
    if not rounds and (run_dir / "shards").is_dir():
        rounds = [r for p in sorted(run_dir.glob("shards/*/rounds.jsonl")) for r in _jsonl(p)]
    finished = {(m["condition"], m["replicate"]) for m in ledger if not m["error"]}
    aborted = {(m["condition"], m["replicate"]) for m in ledger if m["error"]}
    stored = finished | aborted
    kept = [r for r in rounds if (r["condition"], r["replicate"]) in stored]
    if any(r.get("family") == "turn" for r in kept):  # a turn game: the players' marks per turn
        kept = [_as_round(r) for r in kept]
    invalid = sum(r.get(f"agent_{s}_invalid_outputs") or 0 for r in kept for s in "ab")
    invalid += sum(
        1 for m in ledger for a in m.get("aborted_round_attempts") or () if not a["valid"]
    )
    return {
        "planned": manifest["matches"]["planned"],
        "finished": len(finished),
        "aborted": len(aborted),
        "invalid outputs": invalid,
        "fallbacks": sum(bool(r.get(f"agent_{s}_fallback")) for r in kept for s in "ab"),
        "timeouts": sum(bool(r.get(f"agent_{s}_timeout")) for r in kept for s in "ab"),
        "errors": sum(r.get(f"agent_{s}_error") is not None for r in kept for s in "ab"),
    }


def _as_round(turn: dict) -> dict:
    """A turn line's players' marks under the 2x2 round's names (a third party's are not the
    players': the tally counts the two players)."""
    marks = turn.get("decisions") or {}
    return {
        f"agent_{seat}_{key}": value
        for seat in "ab"
        for key, value in (
            ("invalid_outputs", int((marks.get(seat) or {}).get("invalid_outputs") or 0)),
            ("fallback", bool((marks.get(seat) or {}).get("fallback"))),
            ("timeout", bool((marks.get(seat) or {}).get("timeout"))),
            ("error", (marks.get(seat) or {}).get("error")),
        )
    }


def tally_words(counts: dict[str, int]) -> str:
    """The summary's words for these counts, as the page writes them."""

    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'s' if n != 1 else ''}"

    unfinished = max(0, counts["planned"] - counts["finished"] - counts["aborted"])
    return (
        f"{counts['planned']} match{'es' if counts['planned'] != 1 else ''} planned: "
        f"{counts['finished']} finished, {counts['aborted']} aborted, {unfinished} not finished · "
        + " · ".join(
            plural(counts[key], key[:-1])
            for key in ("invalid outputs", "fallbacks", "timeouts", "errors")
        )
    )
