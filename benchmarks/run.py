"""pdbench's performance benchmarks, end to end through the real command line (project issue 8).

    uv run python benchmarks/run.py                  # all five, median of 3 runs each
    uv run python benchmarks/run.py --quick          # a smaller smoke version (1 run each)
    uv run python benchmarks/run.py --write-readme   # also rewrite the table in README.md
    uv run python benchmarks/run.py --only rr,agg --profile --keep
    uv run python benchmarks/run.py --only servers --repeat 1   # opt-in: two real llama.cpp servers

Every measured command is a fresh `pdbench` process (the venv's console script), timed from
spawn to exit, with that process's own peak RSS taken from `os.wait4`. Experiment files, run
dirs and the replay cache (PDBENCH_CACHE_DIR) live in a temporary folder, never in data/.
What each benchmark measures: benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import pstats
import queue
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from io import StringIO
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
README_START = "<!-- benchmarks:start -->"
README_END = "<!-- benchmarks:end -->"

POLICIES = ("allc", "alld", "tft", "grim", "gtft", "wsls")
# Benchmark 5's conditions: a mix of deterministic and random (gtft) policies.
AGG_PAIRS = (
    ("tft", "alld"),
    ("gtft", "wsls"),
    ("grim", "gtft"),
    ("wsls", "alld"),
    ("allc", "gtft"),
)
FORBIDDEN_AT_STARTUP = ("litellm", "streamlit")
# Modules whose import cost is worth showing for the start-up paths.
WATCHED_IMPORTS = (
    "typer",
    "rich",
    "pydantic",
    "omegaconf",
    "yaml",
    "numpy",
    "pandas",
    "pyarrow",
    "hydra",
    "diskcache",
    "litellm",
    "streamlit",
)
BENCHMARKS = ("rr", "llm", "startup", "agg")  # "llm" includes benchmark 3 (replay)
# Run only when named in --only: they need the `local` group and a few minutes of both cores.
OPT_IN = ("servers", "pgg")
SERVERS_START = "<!-- benchmarks-servers:start -->"  # the opt-in case's own README block
SERVERS_END = "<!-- benchmarks-servers:end -->"
PGG_START = "<!-- benchmarks-pgg:start -->"  # benchmark 7's own README block
PGG_END = "<!-- benchmarks-pgg:end -->"


@dataclass(frozen=True)
class Sizes:
    rr_replicates: int = 100  # x 36 ordered policy pairs
    rr_rounds: int = 200
    llm_matches: int = 32
    llm_rounds: int = 20
    llm_latency_s: float = 0.05
    concurrencies: tuple[int, ...] = (1, 8, 64)
    replay_concurrency: int = 8
    agg_replicates: int = 1000  # x len(AGG_PAIRS)
    agg_rounds: int = 200
    servers_matches: int = 8  # benchmark 6: LLM vs TFT on SmolLM2, one server then two
    servers_rounds: int = 10
    servers_concurrency: int = 4
    pgg_groups: int = 10_000  # benchmark 7: four-player groups of house players
    pgg_rounds: int = 10
    pgg_turn_groups: int = 1_000  # the turn loop, played at this smaller size


FULL = Sizes()
QUICK = Sizes(
    rr_replicates=10,
    llm_rounds=5,
    agg_replicates=100,
    servers_rounds=3,
    pgg_groups=1_000,
    pgg_turn_groups=100,
)

# Targets.
RR_ROUNDS_PER_S = 300_000
LLM_EFFICIENCY = 0.8
REPLAY_SPEEDUP = 20.0
STARTUP_S = 1.5
AGG_WALL_S = 10.0
AGG_PEAK_MIB = 1024.0


class BenchmarkError(RuntimeError):
    """A command failed or an artifact was not what the benchmark expects."""


# --- the table ---------------------------------------------------------------------------------


@dataclass
class Row:
    """One line of the results table; `met` is None for a figure without a target."""

    benchmark: str
    measure: str
    value: str
    target: str = ""
    met: bool | None = None


@dataclass
class Machine:
    cores: int | None
    platform: str
    python: str
    date: str
    load_start: tuple[float, float, float] | None = None
    load_end: tuple[float, float, float] | None = None
    repeat: int = 3
    commit: str | None = None
    cpu_pressure: str | None = None  # Linux PSI, e.g. "87.95% of the last minute"


def render_markdown(machine: Machine, rows: Sequence[Row], notes: Sequence[str] = ()) -> str:
    """The results as Markdown: a line about the machine, the table, then numbered notes."""

    def load(values: tuple[float, float, float] | None) -> str:
        return " / ".join(f"{v:.2f}" for v in values) if values else "n/a"

    header = (
        f"Machine: {machine.cores} cores, {machine.platform}, Python {machine.python}, "
        f"{machine.date}; load average (1/5/15 min) {load(machine.load_start)} at start, "
        f"{load(machine.load_end)} at end"
        + (f"; tasks waited for a CPU {machine.cpu_pressure} (PSI)" if machine.cpu_pressure else "")
        + (f"; commit {machine.commit}" if machine.commit else "")
        + f". Values: median of {machine.repeat} run{'s' if machine.repeat != 1 else ''}"
        + (" [min - max]." if machine.repeat > 1 else ".")
    )
    lines = [
        header,
        "",
        "| benchmark | measure | value | target | met |",
        "|---|---|---|---|---|",
    ]
    previous = None
    for row in rows:
        met = "" if row.met is None else ("yes" if row.met else "**no**")
        shown = "" if row.benchmark == previous else row.benchmark
        previous = row.benchmark
        cells = [shown, row.measure, row.value, row.target, met]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    if notes:
        lines.append("")
        lines.extend(f"{i}. {note}" for i, note in enumerate(notes, start=1))
    return "\n".join(lines) + "\n"


def replace_readme_block(
    readme: Path, content: str, markers: tuple[str, str] = (README_START, README_END)
) -> bool:
    """Put `content` between the benchmark markers of `readme`, keeping the markers and
    everything outside them. Returns False (and changes nothing) when a marker is missing."""
    text = readme.read_text(encoding="utf-8")
    start = text.find(markers[0])
    if start < 0:
        return False
    inner_start = start + len(markers[0])
    end = text.find(markers[1], inner_start)
    if end < 0:
        return False
    updated = text[:inner_start] + "\n" + content.strip("\n") + "\n" + text[end:]
    if updated != text:
        readme.write_text(updated, encoding="utf-8")
    return True


def _number(value: float, digits: int) -> str:
    return f"{value:,.{digits}f}"


def measured(samples: Sequence[float], *, digits: int = 2, unit: str = "") -> str:
    """`median [min - max] unit` (just the median for one sample)."""
    suffix = f" {unit}" if unit else ""
    text = _number(statistics.median(samples), digits)
    if len(samples) > 1:
        text += f" [{_number(min(samples), digits)} - {_number(max(samples), digits)}]"
    return text + suffix


# --- running and measuring one command ---------------------------------------------------------


@dataclass
class Measured:
    command: list[str]
    wall_s: float
    peak_rss_mib: float | None  # this process's (and its waited-for children's) peak RSS
    cpu_s: float | None  # user + system CPU time, likewise
    returncode: int
    stdout: str
    stderr: str


def _rss_mib(ru_maxrss: int) -> float:
    # Linux reports KiB, macOS bytes.
    return ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else ru_maxrss / 1024


def run_measured(
    command: Sequence[str], *, env: dict[str, str], cwd: Path = REPO, check: bool = True
) -> Measured:
    """Run a command to completion; wall time from spawn to exit and its own peak RSS.

    `os.wait4` on the child's pid gives that child's rusage, unlike
    getrusage(RUSAGE_CHILDREN), which is the maximum over every child ever waited for.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            list(command), cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err
        )
        if hasattr(os, "wait4"):
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            peak = _rss_mib(usage.ru_maxrss)
            cpu = usage.ru_utime + usage.ru_stime
        else:  # pragma: no cover - Windows
            proc.wait()
            wall = time.perf_counter() - start
            peak = cpu = None
        out.seek(0)
        err.seek(0)
        result = Measured(
            command=list(command),
            wall_s=wall,
            peak_rss_mib=peak,
            cpu_s=cpu,
            returncode=proc.returncode,
            stdout=out.read().decode(errors="replace"),
            stderr=err.read().decode(errors="replace"),
        )
    if check and result.returncode != 0:
        tail = "\n".join((result.stderr or result.stdout).strip().splitlines()[-8:])
        raise BenchmarkError(f"exit code {result.returncode}: {' '.join(result.command)}\n{tail}")
    return result


def pdbench_command() -> list[str]:
    """The installed console script of this venv, else one on PATH, else the CLI via -c."""
    script = Path(sys.executable).with_name("pdbench")
    if script.is_file():
        return [str(script)]
    found = shutil.which("pdbench")
    if found:
        return [found]
    return [
        sys.executable,
        "-c",
        "import sys; sys.argv[0] = 'pdbench'; from pdbench.cli import main; main()",
    ]


def python_cli(*python_options: str) -> list[str]:
    """The same CLI through this interpreter, so interpreter options (-X importtime) apply."""
    return [
        sys.executable,
        *python_options,
        "-c",
        "import sys; sys.argv[0] = 'pdbench'; from pdbench.cli import main; main()",
    ]


# --- helpers for artifacts ---------------------------------------------------------------------


def count_lines(path: Path) -> int:
    lines = 0
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 24):
            lines += chunk.count(b"\n")
    return lines


def read_manifest(run_dir: Path) -> dict[str, Any]:
    import json

    path = run_dir / "run_manifest.json"
    if not path.is_file():
        raise BenchmarkError(f"no run_manifest.json in {run_dir}")
    return json.loads(path.read_text())


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def run_phase_s(manifest: dict[str, Any]) -> float:
    """Seconds from the run's start (after config loading) to its final manifest (before
    aggregation), from the manifest's own millisecond timestamps."""
    return (_utc(manifest["updated_utc"]) - _utc(manifest["started_utc"])).total_seconds()


def check_run(run_dir: Path, *, rounds: int | None = None) -> dict[str, Any]:
    """The three artifacts exist, the run is complete and (if given) has `rounds` lines."""
    for name in ("rounds.jsonl", "run_manifest.json", "aggregates.parquet"):
        if not (run_dir / name).is_file():
            raise BenchmarkError(f"{name} missing in {run_dir}")
    manifest = read_manifest(run_dir)
    if manifest.get("status") != "complete":
        raise BenchmarkError(f"{run_dir}: status {manifest.get('status')}: {manifest.get('error')}")
    if rounds is not None:
        found = count_lines(run_dir / "rounds.jsonl")
        if found != rounds:
            raise BenchmarkError(f"{run_dir}/rounds.jsonl has {found} lines, expected {rounds}")
    return manifest


def _yaml_experiment(
    *, output_dir: Path, replicates: int, rounds: int, conditions: list[str], extra: str = ""
) -> str:
    return (
        "# generated by benchmarks/run.py\n"
        "run:\n"
        "  seed: 8\n"
        f"  output_dir: {output_dir.as_posix()}\n"
        f"  replicates: {replicates}\n"
        "game: {id: pd}\n"
        f"horizon: {{type: fixed, rounds: {rounds}}}\n"
        f"{extra}"
        "conditions:\n" + "".join(f"  - {c}\n" for c in conditions)
    )


# --- the benchmarks ----------------------------------------------------------------------------


@dataclass
class Context:
    work: Path
    sizes: Sizes
    repeat: int
    profile: bool
    base_env: dict[str, str]
    pdbench: list[str] = field(default_factory=pdbench_command)
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    profiles: list[str] = field(default_factory=list)

    def env(self, cache_dir: Path) -> dict[str, str]:
        return {**self.base_env, "PDBENCH_CACHE_DIR": str(cache_dir)}

    def add(self, row: Row) -> None:
        self.rows.append(row)
        if row.met is False:
            self.missed.append(f"{row.benchmark}: {row.measure}")
        shown = (
            "" if row.met is None else f"  (target {row.target}: {'met' if row.met else 'MISSED'})"
        )
        print(f"  {row.measure}: {row.value}{shown}", flush=True)

    def note(self, text: str) -> str:
        """Add a numbered note; returns its marker, e.g. "(2)"."""
        self.notes.append(text)
        return f"({len(self.notes)})"


def _log(text: str) -> None:
    print(text, flush=True)


def _load1() -> str:
    try:
        return f"load {os.getloadavg()[0]:.2f}"
    except OSError:  # pragma: no cover
        return "load n/a"


def bench_round_robin(ctx: Context) -> None:
    s = ctx.sizes
    name = "1. policy round robin"
    pairs = [(a, b) for a in POLICIES for b in POLICIES]
    total = len(pairs) * s.rr_replicates * s.rr_rounds
    runs = ctx.work / "runs"
    config = ctx.work / "round_robin.yaml"
    config.write_text(
        _yaml_experiment(
            output_dir=runs,
            replicates=s.rr_replicates,
            rounds=s.rr_rounds,
            conditions=[f"{{name: {a}_vs_{b}, agent_a: {a}, agent_b: {b}}}" for a, b in pairs],
        )
    )
    _log(
        f"\n{name}: {len(pairs)} conditions x {s.rr_replicates} replicates x {s.rr_rounds} "
        f"rounds = {total:,} rounds ({_load1()})"
    )
    walls, rates, rss, phase_rates, cpu_rates = [], [], [], [], []
    command = None
    for i in range(ctx.repeat):
        run_id = f"rr-{i}"
        command = [*ctx.pdbench, "run", str(config), "-q", "--run-id", run_id]
        result = run_measured(command, env=ctx.env(ctx.work / f"cache-rr-{i}"))
        manifest = check_run(runs / run_id, rounds=total)
        walls.append(result.wall_s)
        rates.append(total / result.wall_s)
        phase_rates.append(total / max(run_phase_s(manifest), 1e-3))
        if result.peak_rss_mib is not None:
            rss.append(result.peak_rss_mib)
        if result.cpu_s:
            cpu_rates.append(total / result.cpu_s)
        _log(
            f"  run {i + 1}: {result.wall_s:.2f} s ({result.cpu_s or 0:.2f} s CPU), "
            f"{total / result.wall_s:,.0f} rounds/s, peak {result.peak_rss_mib or 0:.0f} MiB"
        )
        shutil.rmtree(runs / run_id)  # 250 MB each
    label = f"{name} ({total:,} rounds, 3 artifacts)"
    ctx.add(Row(label, "wall time, whole command", measured(walls, unit="s")))
    rate_ok = statistics.median(rates) >= RR_ROUNDS_PER_S
    ctx.add(
        Row(
            label,
            "rounds/s, whole command",
            measured(rates, digits=0),
            f">= {RR_ROUNDS_PER_S:,}",
            rate_ok,
        )
    )
    marker = ctx.note(
        "Run phase: from the manifest's started_utc to its final updated_utc, i.e. play + write "
        "rounds.jsonl, without process start-up, config loading and aggregation."
    )
    ctx.add(Row(label, f"rounds/s, run phase only {marker}", measured(phase_rates, digits=0)))
    if cpu_rates:
        cpu_marker = ctx.note(
            "Per CPU second: rounds / (user + system CPU time of the command, from os.wait4). "
            "Less sensitive than wall time to other jobs competing for the cores; it is what "
            "wall time would approach on an idle machine if nothing ran in parallel."
        )
        ctx.add(
            Row(
                label,
                f"rounds per CPU second, whole command {cpu_marker}",
                measured(cpu_rates, digits=0),
            )
        )
    if rss:
        ctx.add(Row(label, "peak RSS", measured(rss, digits=0, unit="MiB")))
    if not rate_ok and ctx.profile and command is not None:
        profile_run(
            ctx,
            name,
            [*command[len(ctx.pdbench) : -1], "rr-profile"],
            ctx.env(ctx.work / "cache-rr-profile"),
        )


def bench_llm(ctx: Context) -> None:
    """Benchmarks 2 (concurrency) and 3 (replay)."""
    s = ctx.sizes
    name = "2. LLM concurrency"
    runs = ctx.work / "runs"
    config = ctx.work / "llm.yaml"
    calls = s.llm_matches * s.llm_rounds
    config.write_text(
        _yaml_experiment(
            output_dir=runs,
            replicates=s.llm_matches,
            rounds=s.llm_rounds,
            # temperature > 0 puts the replicate into the cache key, and a random mock strategy
            # makes the prompts differ too: no two matches share a call.
            extra=(
                "provider:\n"
                "  name: mock\n"
                "  model: mock-random\n"
                f"  mock: {{strategy: random, latency_s: {s.llm_latency_s}}}\n"
            ),
            conditions=[
                '{name: llm_vs_tft, agent_a: {ref: "agent/llm_default.yaml", '
                "overrides: {temperature: 0.7}}, agent_b: tft}"
            ],
        )
    )
    _log(
        f"\n{name}: {s.llm_matches} matches x {s.llm_rounds} rounds, LLM (mock, "
        f"{s.llm_latency_s} s per call) vs TFT, concurrency {s.concurrencies} ({_load1()})"
    )
    eff_cmd: dict[int, list[float]] = {c: [] for c in s.concurrencies}
    eff_run: dict[int, list[float]] = {c: [] for c in s.concurrencies}
    walls: dict[int, list[float]] = {c: [] for c in s.concurrencies}
    phases: dict[int, list[float]] = {c: [] for c in s.concurrencies}
    replay_walls, replay_phases, speedup_cmd, speedup_run = [], [], [], []
    replay_live: list[int] = []
    for i in range(ctx.repeat):
        for c in s.concurrencies:  # interleaved, so background load spreads over the levels
            cache = ctx.work / f"cache-llm-c{c}-r{i}"  # fresh and empty
            run_id = f"llm-c{c}-r{i}"
            command = [
                *ctx.pdbench,
                "run",
                str(config),
                f"run.max_concurrency={c}",
                "-q",
                "--run-id",
                run_id,
            ]
            result = run_measured(command, env=ctx.env(cache))
            manifest = check_run(runs / run_id, rounds=calls)
            live = manifest["provider_calls"]["live"]
            if manifest["provider_calls"]["cached"] != 0 or live < calls:
                raise BenchmarkError(
                    f"{run_id}: expected {calls} live calls and none cached, got "
                    f"{manifest['provider_calls']}"
                )
            ideal = live * s.llm_latency_s / min(c, s.llm_matches)
            phase = run_phase_s(manifest)
            walls[c].append(result.wall_s)
            phases[c].append(phase)
            eff_cmd[c].append(ideal / result.wall_s)
            eff_run[c].append(ideal / phase)
            _log(
                f"  run {i + 1}, concurrency {c}: {result.wall_s:.2f} s ({phase:.2f} s run "
                f"phase), {live} live calls, ideal {ideal:.2f} s"
            )
            if c == s.replay_concurrency:
                replay_id = f"{run_id}-replay"
                replayed = run_measured(
                    [
                        *ctx.pdbench,
                        "run",
                        str(config),
                        f"run.max_concurrency={c}",
                        "-q",
                        "--run-id",
                        replay_id,
                    ],
                    env=ctx.env(cache),
                )
                replay_manifest = check_run(runs / replay_id, rounds=calls)
                replay_calls = replay_manifest["provider_calls"]
                replay_live.append(replay_calls["live"])
                if replay_calls["cached"] != live:
                    raise BenchmarkError(
                        f"{replay_id}: expected {live} cached calls, got {replay_calls}"
                    )
                replay_phase = max(run_phase_s(replay_manifest), 1e-3)
                replay_walls.append(replayed.wall_s)
                replay_phases.append(replay_phase)
                speedup_cmd.append(result.wall_s / replayed.wall_s)
                speedup_run.append(phase / replay_phase)
                _log(
                    f"  run {i + 1}, replay: {replayed.wall_s:.2f} s ({replay_phase:.3f} s "
                    f"run phase), {replay_calls['live']} live / {replay_calls['cached']} cached"
                )

    label = f"{name} ({calls} calls, {s.llm_latency_s} s each)"
    eff_note = ctx.note(
        "Efficiency = (live calls x latency / achievable concurrency) / wall time. "
        f"With {s.llm_matches} matches at most {s.llm_matches} calls can be in flight (one per "
        f"match per round), so the achievable concurrency is min(concurrency, {s.llm_matches}); "
        f"at 64 the ideal time is {s.llm_rounds} rounds x {s.llm_latency_s} s. "
        "'Whole command' includes process start-up, config loading and aggregation (see "
        "benchmark 4), which alone exceed the ideal run time at high concurrency; 'run phase' "
        "uses the manifest's started_utc..updated_utc."
    )
    top = max(s.concurrencies)
    for c in s.concurrencies:
        achievable = min(c, s.llm_matches)
        shown_c = f"{c}" if achievable == c else f"{c} (achievable {achievable})"
        ctx.add(
            Row(
                label,
                f"concurrency {shown_c}: wall, whole command / run phase",
                f"{measured(walls[c])} / {measured(phases[c])} s",
            )
        )
        target = f">= {LLM_EFFICIENCY}" if c == top else ""
        for what, samples in (("whole command", eff_cmd[c]), ("run phase", eff_run[c])):
            met = statistics.median(samples) >= LLM_EFFICIENCY if c == top else None
            ctx.add(
                Row(
                    label,
                    f"concurrency {shown_c}: efficiency, {what} {eff_note}",
                    measured(samples),
                    target,
                    met,
                )
            )
    if ctx.profile and statistics.median(eff_run[top]) < LLM_EFFICIENCY:
        profile_run(
            ctx,
            f"{name} at {top}",
            ["run", str(config), f"run.max_concurrency={top}", "-q", "--run-id", "llm-profile"],
            ctx.env(ctx.work / "cache-llm-profile"),
        )

    name3 = "3. replay"
    label3 = f"{name3} (benchmark 2 at concurrency {s.replay_concurrency}, from the cache)"
    ctx.add(
        Row(
            label3,
            "live calls (manifest)",
            measured(replay_live, digits=0),
            "0",
            all(n == 0 for n in replay_live),
        )
    )
    ctx.add(
        Row(
            label3,
            "wall, whole command / run phase",
            f"{measured(replay_walls)} s / {measured(replay_phases, digits=3)} s",
        )
    )
    speed_note = ctx.note(
        "Speed-up = live run / replay run at the same concurrency. On the whole command both "
        "include the same ~1-2 s of process start-up, which caps the ratio near "
        "(run phase + start-up) / start-up; the run-phase ratio compares the play alone."
    )
    for what, samples in (("whole command", speedup_cmd), ("run phase", speedup_run)):
        ctx.add(
            Row(
                label3,
                f"speed-up vs live, {what} {speed_note}",
                measured(samples, digits=1, unit="x"),
                f">= {REPLAY_SPEEDUP:.0f}x",
                statistics.median(samples) >= REPLAY_SPEEDUP,
            )
        )


def _import_times(stderr: str) -> dict[str, tuple[int, int]]:
    """`python -X importtime` output -> module: (self us, cumulative us)."""
    times = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:"):
            continue
        parts = line[len("import time:") :].split("|")
        if len(parts) != 3 or not parts[0].strip().isdigit():
            continue  # the header line
        times[parts[2].strip()] = (int(parts[0]), int(parts[1]))
    return times


def _imported(times: dict[str, tuple[int, int]], package: str) -> bool:
    return any(m == package or m.startswith(package + ".") for m in times)


def bench_startup(ctx: Context) -> None:
    name = "4. start-up"
    _log(f"\n{name} ({_load1()})")
    env = ctx.env(ctx.work / "cache-startup")
    commands = {
        "pdbench --help": ["--help"],
        "pdbench validate conf/experiment.yaml": ["validate", "conf/experiment.yaml"],
    }
    for shown, args in commands.items():
        walls = [run_measured([*ctx.pdbench, *args], env=env).wall_s for _ in range(ctx.repeat)]
        ok = statistics.median(walls) < STARTUP_S
        ctx.add(Row(name, f"`{shown}` wall", measured(walls, unit="s"), f"< {STARTUP_S} s", ok))

        traced = run_measured(python_cli("-X", "importtime") + args, env=env)
        times = _import_times(traced.stderr)
        loaded = [p for p in FORBIDDEN_AT_STARTUP if _imported(times, p)]
        ctx.add(
            Row(
                name,
                f"`{shown}` imports litellm / streamlit",
                ", ".join(loaded) if loaded else "neither",
                "neither",
                not loaded,
            )
        )
        heavy = [
            f"{m} {times[m][1] / 1000:.0f} ms"
            for m in WATCHED_IMPORTS
            if m in times and times[m][1] >= 20_000
        ]
        total = sum(t[0] for t in times.values()) / 1000
        ctx.add(
            Row(
                name,
                f"`{shown}` imports (-X importtime)",
                f"{len(times)} modules, {total:.0f} ms; "
                + (", ".join(heavy) if heavy else "no watched module >= 20 ms"),
            )
        )
        if not ok and ctx.profile:
            top = sorted(times.items(), key=lambda kv: kv[1][0], reverse=True)[:20]
            ctx.profiles.append(
                f"## {name}: {shown}: top imports by self time (-X importtime)\n"
                + "\n".join(
                    f"{s / 1000:8.1f} ms self {c / 1000:8.1f} ms cum  {m}" for m, (s, c) in top
                )
            )


def bench_aggregate(ctx: Context) -> None:
    s = ctx.sizes
    name = "5. aggregation"
    total = len(AGG_PAIRS) * s.agg_replicates * s.agg_rounds
    runs = ctx.work / "runs"
    config = ctx.work / "aggregate.yaml"
    config.write_text(
        _yaml_experiment(
            output_dir=runs,
            replicates=s.agg_replicates,
            rounds=s.agg_rounds,
            conditions=[f"{{name: {a}_vs_{b}, agent_a: {a}, agent_b: {b}}}" for a, b in AGG_PAIRS],
        )
    )
    _log(
        f"\n{name}: {len(AGG_PAIRS)} conditions x {s.agg_replicates} replicates x "
        f"{s.agg_rounds} rounds = {total:,} rounds ({_load1()})"
    )
    env = ctx.env(ctx.work / "cache-agg")
    run_dir = runs / "agg"
    made = run_measured([*ctx.pdbench, "run", str(config), "-q", "--run-id", "agg"], env=env)
    check_run(run_dir, rounds=total)
    size_mib = (run_dir / "rounds.jsonl").stat().st_size / 2**20
    _log(f"  generated in {made.wall_s:.1f} s ({size_mib:.0f} MiB of rounds.jsonl)")
    walls, rss, cpus = [], [], []
    command = [*ctx.pdbench, "aggregate", str(run_dir)]
    for i in range(ctx.repeat):
        (run_dir / "aggregates.parquet").unlink()
        result = run_measured(command, env=env)
        check_run(run_dir)
        walls.append(result.wall_s)
        if result.peak_rss_mib is not None:
            rss.append(result.peak_rss_mib)
        if result.cpu_s is not None:
            cpus.append(result.cpu_s)
        _log(
            f"  run {i + 1}: {result.wall_s:.2f} s ({result.cpu_s or 0:.2f} s CPU), "
            f"peak {result.peak_rss_mib or 0:.0f} MiB"
        )
    label = f"{name} (`pdbench aggregate`, {total:,} rounds, {size_mib:.0f} MiB)"
    wall_ok = statistics.median(walls) < AGG_WALL_S
    ctx.add(Row(label, "wall time", measured(walls, unit="s"), f"< {AGG_WALL_S:.0f} s", wall_ok))
    if cpus:
        ctx.add(Row(label, "CPU time (user + system)", measured(cpus, unit="s")))
    rss_ok = bool(rss) and statistics.median(rss) < AGG_PEAK_MIB
    ctx.add(
        Row(
            label,
            "peak RSS",
            measured(rss, digits=0, unit="MiB") if rss else "n/a",
            "< 1 GiB",
            rss_ok,
        )
    )
    if ctx.profile and not (wall_ok and rss_ok):
        profile_run(ctx, name, ["aggregate", str(run_dir)], env)


# --- benchmark 6 (opt-in): one model on two local llama.cpp servers ---------------------------

SERVERS_LABEL = "6. two local servers (SmolLM2-135M, llama.cpp, 1 thread each)"
SERVER_START_S = 120.0  # model loading on a busy 2-core machine


def base_url_of(line: str) -> str | None:
    """The URL in `pdbench serve-local`'s `base URL: http://127.0.0.1:<port>/v1` line."""
    prefix = "base URL: "
    return line.strip()[len(prefix) :] if line.startswith(prefix) else None


def _await_base_url(process: subprocess.Popen[str], log: Path, timeout_s: float) -> str:
    """Read the server's stdout (in a thread: readline may block) until its base URL."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + timeout_s
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if line is None:
            break
        if url := base_url_of(line):
            return url
    tail = "\n".join(log.read_text(errors="replace").strip().splitlines()[-5:])
    raise BenchmarkError(f"the local server did not start ({' '.join(process.args)}):\n{tail}")


@contextlib.contextmanager
def local_servers(
    command: Sequence[str], count: int, *, env: dict[str, str], work: Path
) -> Iterator[list[str]]:
    """`count` servers, each a process of `command` (serve-local on a free port); yields their
    base URLs once all are ready, and stops them all at the end (Ctrl-C, then kill)."""
    processes: list[subprocess.Popen[str]] = []
    try:
        urls = []
        for number in range(count):
            log = work / f"server-{number}.log"
            with log.open("w") as stderr:
                process = subprocess.Popen(
                    list(command),
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=stderr,
                    text=True,
                )
            processes.append(process)
            urls.append(_await_base_url(process, log, SERVER_START_S))
        yield urls
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def servers_experiment(*, output_dir: Path, api_bases: Sequence[str], sizes: Sizes) -> str:
    """LLM (llm_default, temperature 0.7 so no two matches share a call; grammar: every answer
    a label, one call per round) vs TFT, on the servers listed."""
    listed = ", ".join(api_bases)
    return _yaml_experiment(
        output_dir=output_dir,
        replicates=sizes.servers_matches,
        rounds=sizes.servers_rounds,
        extra=(
            "provider:\n"
            "  name: litellm\n"
            "  model: openai/smollm2-135m-instruct\n"
            f"  api_bases: [{listed}]\n"
            "  timeout_s: 120.0\n"
        ),
        conditions=[
            '{name: llm_vs_tft, agent_a: {ref: "agent/llm_default.yaml", '
            "overrides: {temperature: 0.7, constrain: grammar}}, agent_b: tft}"
        ],
    )


def servers_rows(
    rates: dict[int, list[float]], walls: dict[int, list[float]], load: str
) -> list[Row]:
    """The table's rows: calls/s on one server and on two (run phase), their ratio per run."""
    ratios = [two / one for one, two in zip(rates[1], rates[2], strict=True)]
    return [
        Row(SERVERS_LABEL, "one server: calls/s, run phase", measured(rates[1])),
        Row(SERVERS_LABEL, "two servers (api_bases): calls/s, run phase", measured(rates[2])),
        Row(SERVERS_LABEL, "throughput two / one", measured(ratios, unit="x")),
        Row(
            SERVERS_LABEL,
            "wall, whole command: one / two servers",
            f"{measured(walls[1], unit='s')} / {measured(walls[2], unit='s')}",
        ),
        Row(SERVERS_LABEL, "machine load during the case", load),
    ]


def bench_servers(ctx: Context) -> None:
    """Benchmark 6: the same LLM run against one llama.cpp server, then against two."""
    s = ctx.sizes
    runs = ctx.work / "runs"
    calls = s.servers_matches * s.servers_rounds
    _log(
        f"\n{SERVERS_LABEL}: {s.servers_matches} matches x {s.servers_rounds} rounds, LLM vs "
        f"TFT, run.max_concurrency {s.servers_concurrency}, on one server then two ({_load1()})"
    )
    load_start = _load_average()
    rates: dict[int, list[float]] = {1: [], 2: []}
    walls: dict[int, list[float]] = {1: [], 2: []}
    serve = [*ctx.pdbench, "serve-local", "--port", "0", "--threads", "1"]
    with local_servers(serve, 2, env=ctx.base_env, work=ctx.work) as urls:
        for i in range(ctx.repeat):
            for count in (1, 2):
                config = ctx.work / f"servers-{count}.yaml"
                config.write_text(
                    servers_experiment(output_dir=runs, api_bases=urls[:count], sizes=s)
                )
                run_id = f"servers-{count}-r{i}"
                command = [*ctx.pdbench, "run", str(config), "-q", "--run-id", run_id]
                command.append(f"run.max_concurrency={s.servers_concurrency}")
                result = run_measured(command, env=ctx.env(ctx.work / f"cache-{run_id}"))
                manifest = check_run(runs / run_id, rounds=calls)
                live = manifest["provider_calls"]["live"]
                if manifest["provider_calls"]["cached"] != 0 or live < calls:
                    raise BenchmarkError(
                        f"{run_id}: {manifest['provider_calls']}, not {calls} live"
                    )
                phase = run_phase_s(manifest)
                rates[count].append(live / phase)
                walls[count].append(result.wall_s)
                _log(
                    f"  run {i + 1}, {count} server(s): {live} calls in {phase:.1f} s run phase "
                    f"({live / phase:.2f} calls/s), {result.wall_s:.1f} s whole command"
                )
    load_end = _load_average()
    load = (
        "load average (1/5/15 min) "
        + " at start, ".join(
            " / ".join(f"{v:.2f}" for v in values) if values else "n/a"
            for values in (load_start, load_end)
        )
        + " at end"
    )
    for row in servers_rows(rates, walls, load):
        ctx.add(row)


PGG_LABEL = "7. public goods groups of house players"
PGG_HOUSE = (  # seat -> house type; benchmarks/public_goods_floor.py plays the same four
    "agent_a: pgg_conditional_cooperator, agent_b: pgg_free_rider, agent_c: pgg_hump, "
    "agent_d: pgg_full_contributor"
)
# The same command with the game's vectorised path switched off: every match by the turn loop.
TURN_LOOP_ONLY = (
    "import dataclasses, sys; from pdbench.games import registry; "
    "entry = registry.TURN_GAMES['public_goods']; "
    "registry.TURN_GAMES['public_goods'] = dataclasses.replace(entry, vectorised=''); "
    "sys.argv = ['pdbench', *sys.argv[1:]]; from pdbench.cli import main; main()"
)


def pgg_experiment(*, output_dir: Path, groups: int, rounds: int, every_phase: bool) -> str:
    phases = ", talk: true, punish: true" if every_phase else ""
    return (
        "# generated by benchmarks/run.py (benchmark 7)\n"
        f"run: {{seed: 8, replicates: {groups}, output_dir: {output_dir.as_posix()}}}\n"
        "conditions:\n"
        f"  - {{name: house, game: {{id: public_goods, options: {{rounds: {rounds}{phases}}}}}, "
        f"{PGG_HOUSE}}}\n"
    )


def bench_public_goods(ctx: Context) -> None:
    """Benchmark 7: groups of house players end to end (fast path), the numpy floor writing the
    same rounds, and the turn loop at a smaller size."""
    s = ctx.sizes
    runs = ctx.work / "runs"
    label = f"{PGG_LABEL} ({s.pgg_groups:,} groups of 4 x {s.pgg_rounds} rounds)"
    _log(f"\n{label} ({_load1()})")
    load_start = _load_average()
    cases = {  # name -> (groups, every phase, command prefix)
        "contributions": (s.pgg_groups, False, ctx.pdbench),
        "every phase": (s.pgg_groups, True, ctx.pdbench),
        "turn loop": (s.pgg_turn_groups, False, [sys.executable, "-c", TURN_LOOP_ONLY]),
    }
    walls: dict[str, list[float]] = {name: [] for name in cases}
    cpus: dict[str, list[float]] = {name: [] for name in cases}
    phases: dict[str, list[float]] = {name: [] for name in cases}
    played_cpus: dict[str, list[float]] = {name: [] for name in cases}
    floor_walls, floor_cpus = [], []
    for i in range(ctx.repeat):
        for name, (groups, every_phase, prefix) in cases.items():
            config = ctx.work / f"pgg-{name.replace(' ', '-')}.yaml"
            config.write_text(
                pgg_experiment(
                    output_dir=runs, groups=groups, rounds=s.pgg_rounds, every_phase=every_phase
                )
            )
            run_id = f"pgg-{name.replace(' ', '-')}-{i}"
            command = [*prefix, "run", str(config), "-q", "--run-id", run_id]
            result = run_measured(command, env=ctx.env(ctx.work / f"cache-{run_id}"))
            turns = s.pgg_rounds * ((4 + 2) if every_phase else 1)
            manifest = check_run(runs / run_id, rounds=groups * turns)
            # The same aggregation again, alone: its CPU, taken from the command's, leaves the
            # CPU of start-up, play and storing (the run has no switch to skip aggregating).
            again = run_measured(
                [*ctx.pdbench, "aggregate", str(runs / run_id)],
                env=ctx.env(ctx.work / f"cache-{run_id}"),
            )
            walls[name].append(result.wall_s)
            cpus[name].append(result.cpu_s or 0.0)
            played_cpus[name].append((result.cpu_s or 0.0) - (again.cpu_s or 0.0))
            phases[name].append(run_phase_s(manifest))
            _log(
                f"  run {i + 1}, {name}: {result.wall_s:.1f} s wall, {result.cpu_s or 0:.1f} s "
                f"CPU ({played_cpus[name][-1]:.1f} s without aggregating), run phase "
                f"{phases[name][-1]:.1f} s"
            )
            if name == "contributions":
                floor = run_measured(
                    [
                        sys.executable,
                        str(REPO / "benchmarks" / "public_goods_floor.py"),
                        str(runs / run_id),
                        str(ctx.work / "floor.jsonl"),
                    ],
                    env=ctx.base_env,
                )
                numbers = re.search(r"in ([\d.]+) s wall, ([\d.]+) s CPU", floor.stdout)
                if numbers is None:
                    raise BenchmarkError(f"the floor said: {floor.stdout.strip()}")
                floor_walls.append(float(numbers.group(1)))
                floor_cpus.append(float(numbers.group(2)))
                _log(f"  run {i + 1}, numpy floor: {floor.stdout.strip()}")
            shutil.rmtree(runs / run_id)
    small = f"turn loop, {s.pgg_turn_groups:,} groups"
    for title, name in (
        ("contributions only", "contributions"),
        ("every phase (talk, punish)", "every phase"),
        (f"{small}, contributions only", "turn loop"),
    ):
        ctx.add(Row(label, f"{title}: wall / CPU, whole command", _pair(walls, cpus, name)))
        ctx.add(Row(label, f"{title}: run phase (1)", measured(phases[name], unit="s")))
        ctx.add(
            Row(
                label,
                f"{title}: CPU without aggregating (2)",
                measured(played_cpus[name], unit="s"),
            )
        )
        if name == "contributions":
            ctx.add(
                Row(
                    label,
                    "contributions only: numpy floor writing the same rounds, wall / CPU (3)",
                    f"{measured(floor_walls, unit='s')} / {measured(floor_cpus, unit='s')}",
                )
            )
    ctx.add(
        Row(label, "machine load (1/5/15 min) at start / end", _loads(load_start, _load_average()))
    )


def _pair(walls: dict[str, list[float]], cpus: dict[str, list[float]], name: str) -> str:
    return f"{measured(walls[name], unit='s')} / {measured(cpus[name], unit='s')}"


def _loads(*values: tuple[float, float, float] | None) -> str:
    return " / ".join(" ".join(f"{v:.2f}" for v in load) if load else "n/a" for load in values)


RUNNERS: dict[str, Callable[[Context], None]] = {
    "rr": bench_round_robin,
    "llm": bench_llm,
    "startup": bench_startup,
    "agg": bench_aggregate,
    "servers": bench_servers,
    "pgg": bench_public_goods,
}


# --- profiling what missed -------------------------------------------------------------------


def profile_run(ctx: Context, title: str, args: list[str], env: dict[str, str]) -> None:
    """Run the CLI once under cProfile and keep the top functions for the report."""
    out = ctx.work / f"profile-{len(ctx.profiles)}.prof"
    code = (
        "import sys, cProfile; sys.argv = ['pdbench', *sys.argv[1:]]; "
        "from pdbench.cli import main; "
        f"cProfile.run('main()', {str(out)!r})"
    )
    _log(f"  profiling: pdbench {' '.join(args)}")
    try:
        run_measured([sys.executable, "-c", code, *args], env=env)
    except BenchmarkError as error:
        # main() ends in sys.exit(); cProfile.run still writes the file first.
        if not out.is_file():
            ctx.profiles.append(f"## {title}: profiling failed: {error}")
            return
    stream = StringIO()
    stream.write(f"## {title}: pdbench {' '.join(args)}\n")
    stream.write("### pdbench's own functions by cumulative time\n")
    # Restricted to files under a pdbench/ folder (the CLI's call chain and imports otherwise
    # fill the top of the list).
    pstats.Stats(str(out), stream=stream).sort_stats("cumulative").print_stats("/pdbench/", 30)
    stream.write("### everything by own time\n")
    stats = pstats.Stats(str(out), stream=stream)
    stats.strip_dirs()
    stats.sort_stats("tottime").print_stats(20)
    ctx.profiles.append(stream.getvalue())


# --- main ------------------------------------------------------------------------------------


def _load_average() -> tuple[float, float, float] | None:
    try:
        return os.getloadavg()
    except OSError:  # pragma: no cover
        return None


def _cpu_pressure() -> str | None:
    """Share of the last 60 s in which some runnable task waited for a CPU (Linux PSI)."""
    try:
        first = Path("/proc/pressure/cpu").read_text().splitlines()[0]
    except (OSError, IndexError):
        return None
    fields = dict(part.split("=", 1) for part in first.split()[1:] if "=" in part)
    return f"{fields['avg60']}% of the last minute" if "avg60" in fields else None


def _commit() -> str | None:
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "--short", "HEAD")
    if commit and git("status", "--porcelain", "--untracked-files=no"):
        commit += " + uncommitted changes"
    return commit


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="pdbench's performance benchmarks, through the real CLI.",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="runs per measurement; the median is reported (default 3, 1 with --quick)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smaller smoke version: 10x fewer rounds, shorter LLM matches",
    )
    parser.add_argument(
        "--only",
        default=",".join(BENCHMARKS),
        help=f"comma-separated subset of {','.join(BENCHMARKS)} "
        "(llm includes the replay benchmark), or the opt-in "
        f"{','.join(OPT_IN)} (two local llama.cpp servers; needs uv sync --group local)",
    )
    parser.add_argument(
        "--write-readme",
        action="store_true",
        help=f"replace the block between {README_START} and {README_END} in "
        "README.md with the table",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="run what missed its target once more under cProfile and print the top costs",
    )
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the temporary folder (configs, run dirs, caches, profiles)",
    )
    args = parser.parse_args(argv)
    args.only = [b.strip() for b in args.only.split(",") if b.strip()]
    unknown = sorted(set(args.only) - set(BENCHMARKS) - set(OPT_IN))
    if unknown:
        known = ", ".join((*BENCHMARKS, *OPT_IN))
        parser.error(f"unknown benchmark {', '.join(unknown)}; choose from {known}")
    if args.repeat is None:
        args.repeat = 1 if args.quick else 3
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def readme_tables(
    machine: Machine, rows: Sequence[Row], notes: Sequence[str], only: Sequence[str]
) -> list[tuple[tuple[str, str], str]]:
    """((start, end) markers, table) for each README block the benchmarks run fill: the main
    table (benchmarks 1-5) and the opt-in servers case's own, so running one leaves the other."""

    def is_pgg(row: Row) -> bool:
        return row.benchmark.startswith(PGG_LABEL) or row.benchmark == "pgg"

    opt_in = {SERVERS_LABEL, *OPT_IN}  # an opt-in case's rows, its error row included
    blocks = []
    if any(key in only for key in BENCHMARKS):
        main_rows = [row for row in rows if row.benchmark not in opt_in and not is_pgg(row)]
        blocks.append(((README_START, README_END), render_markdown(machine, main_rows, notes)))
    if "servers" in only:
        server_rows = [row for row in rows if row.benchmark in opt_in and not is_pgg(row)]
        blocks.append(((SERVERS_START, SERVERS_END), render_markdown(machine, server_rows)))
    if "pgg" in only:
        pgg_notes = [
            "Run phase: the manifest's started_utc to its final updated_utc (play and write "
            "rounds.jsonl; no start-up, config loading or aggregation).",
            "The command's CPU less the CPU of `pdbench aggregate` on its run folder (the same "
            "aggregation again): start-up, play and storing. The turn aggregates replay every "
            "match through the rules, which is most of the whole command's CPU.",
            "The floor (benchmarks/public_goods_floor.py): numpy over all groups at once and "
            "the same rounds.jsonl lines written with orjson, checked line for line against "
            "the run's; no plan, agents, ledger, manifest or aggregates. Timed inside its "
            "process (no start-up).",
        ]
        pgg_rows = [row for row in rows if is_pgg(row)]
        blocks.append(((PGG_START, PGG_END), render_markdown(machine, pgg_rows, pgg_notes)))
    return blocks


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    machine = Machine(
        cores=os.cpu_count(),
        platform=platform.platform(),
        python=platform.python_version(),
        date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        load_start=_load_average(),
        repeat=args.repeat,
        commit=_commit(),
    )
    work = Path(tempfile.mkdtemp(prefix="pdbench-bench-"))
    base_env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "NO_COLOR": "1"}
    ctx = Context(
        work=work,
        sizes=QUICK if args.quick else FULL,
        repeat=args.repeat,
        profile=args.profile,
        base_env=base_env,
    )
    _log(
        f"pdbench benchmarks{' (quick)' if args.quick else ''}: {' '.join(ctx.pdbench)}; "
        f"work folder {work}"
    )
    failures = []
    started = time.perf_counter()
    try:
        for key in (*BENCHMARKS, *OPT_IN):
            if key not in args.only:
                continue
            try:
                RUNNERS[key](ctx)
            except BenchmarkError as error:
                failures.append(f"{key}: {error}")
                ctx.add(Row(key, "error", str(error).splitlines()[0], "runs", False))
    finally:
        machine.load_end = _load_average()
        machine.cpu_pressure = _cpu_pressure()
        if args.keep:
            _log(f"\nkept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if args.quick:
        ctx.notes.append("Quick smoke version (--quick): smaller sizes than the targets assume.")
    _log(f"\nall benchmarks took {time.perf_counter() - started:.0f} s\n")
    for _, table in readme_tables(machine, ctx.rows, ctx.notes, args.only):
        print(table)
    for profile in ctx.profiles:
        print(profile)
    if ctx.missed:
        print("missed: " + "; ".join(ctx.missed))
    if args.write_readme:
        for markers, table in readme_tables(machine, ctx.rows, ctx.notes, args.only):
            if replace_readme_block(README, table, markers):
                print(f"wrote the table into {README} ({markers[0]})")
            else:
                print(
                    f"notice: {README} has no {markers[0]} ... {markers[1]} block; "
                    "nothing was written"
                )
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
