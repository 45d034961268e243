"""benchmarks/run.py: the Markdown table and the README block it rewrites (no benchmark is run)."""

import importlib.util
import os
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("pdbench_benchmarks_run", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def _machine(bench):
    return bench.Machine(
        cores=2,
        platform="Linux-test",
        python="3.12.1",
        date="2026-01-01 00:00 UTC",
        load_start=(1.0, 2.0, 3.0),
        load_end=(1.5, 2.5, 3.5),
        repeat=3,
        commit="abc1234",
    )


def _table(bench) -> str:
    rows = [
        bench.Row("1. round robin", "rounds/s", "350,000 [300,000 - 400,000]", ">= 300,000", True),
        bench.Row("1. round robin", "peak RSS", "280 MiB"),
        bench.Row("4. start-up", "`pdbench --help` wall", "2.00 s", "< 1.5 s", False),
    ]
    return bench.render_markdown(_machine(bench), rows, ["a note | with a pipe"])


def test_table_states_machine_values_targets_and_whether_they_were_met(bench):
    table = _table(bench)
    lines = table.splitlines()
    assert lines[0].startswith("Machine: 2 cores, Linux-test, Python 3.12.1, 2026-01-01")
    assert "1.00 / 2.00 / 3.00 at start" in lines[0] and "commit abc1234" in lines[0]
    assert "median of 3 runs" in lines[0]
    assert "| benchmark | measure | value | target | met |" in lines
    assert "| 1. round robin | rounds/s | 350,000 [300,000 - 400,000] | >= 300,000 | yes |" in lines
    # The benchmark's name is shown once per group; a figure without target has no verdict.
    assert "|  | peak RSS | 280 MiB |  |  |" in lines
    assert "| 4. start-up | `pdbench --help` wall | 2.00 s | < 1.5 s | **no** |" in lines
    assert lines[-1] == "1. a note | with a pipe"


def test_a_pipe_inside_a_cell_is_escaped(bench):
    rows = [bench.Row("b", "x | y", "1")]
    table = bench.render_markdown(_machine(bench), rows)
    assert "| b | x \\| y | 1 |  |  |" in table.splitlines()


def test_measured_shows_the_median_and_the_range(bench):
    assert bench.measured([3.0, 1.0, 2.0], unit="s") == "2.00 [1.00 - 3.00] s"
    assert bench.measured([1234.5], digits=0) == "1,234"


def test_readme_block_is_replaced_and_the_rest_kept(bench, tmp_path):
    readme = tmp_path / "README.md"
    before = "# Title\n\n## Benchmarks\n\nintro\n\n"
    after = "\n\n## Next section\n\ntext\n"
    readme.write_text(
        before + f"{bench.README_START}\n(not measured yet)\n{bench.README_END}" + after
    )
    table = _table(bench)

    assert bench.replace_readme_block(readme, table)
    text = readme.read_text()
    assert text.startswith(before) and text.endswith(after)
    assert "(not measured yet)" not in text
    inner = text.split(bench.README_START)[1].split(bench.README_END)[0]
    assert inner == "\n" + table

    # Again with the same table: nothing changes; with another one: only the block changes.
    assert bench.replace_readme_block(readme, table)
    assert readme.read_text() == text
    assert bench.replace_readme_block(readme, "new table\n")
    assert readme.read_text() == (
        before + f"{bench.README_START}\nnew table\n{bench.README_END}" + after
    )


@pytest.mark.parametrize(
    "content",
    [
        "# README without markers\n",
        "<!-- benchmarks:start -->\nonly the start marker\n",
        "<!-- benchmarks:end -->\n<!-- benchmarks:start -->\nend before start\n",
    ],
)
def test_without_both_markers_nothing_is_written(bench, tmp_path, content):
    readme = tmp_path / "README.md"
    readme.write_text(content)
    assert not bench.replace_readme_block(readme, "table\n")
    assert readme.read_text() == content


def test_the_repository_readme_has_the_block(bench):
    text = bench.README.read_text()
    assert text.index(bench.README_START) < text.index(bench.README_END)


def test_options(bench):
    args = bench.parse_args([])
    assert args.repeat == 3 and not args.quick and args.only == list(bench.BENCHMARKS)
    quick = bench.parse_args(["--quick", "--only", "rr,startup"])
    assert quick.repeat == 1 and quick.only == ["rr", "startup"]
    assert bench.parse_args(["--quick", "--repeat", "2"]).repeat == 2
    with pytest.raises(SystemExit):
        bench.parse_args(["--only", "nope"])


# --- benchmark 6 (opt-in): two local llama.cpp servers, tested without any server -------------


def test_the_servers_case_is_opt_in(bench):
    assert "servers" not in bench.parse_args([]).only
    assert bench.parse_args(["--only", "servers", "--repeat", "1"]).only == ["servers"]
    assert "servers" in bench.RUNNERS


def test_the_base_url_is_read_from_serve_locals_line(bench):
    assert bench.base_url_of("base URL: http://127.0.0.1:40123/v1\n") == "http://127.0.0.1:40123/v1"
    assert bench.base_url_of("serving smollm2-135m-instruct (x.gguf) in 0.9 s") is None


FAKE_SERVER = (
    "import os, time; print('serving fake', flush=True); "
    "print(f'base URL: http://127.0.0.1:{os.getpid()}/v1', flush=True); time.sleep(60)"
)


def test_local_servers_start_each_its_own_process_and_stop_them_all(bench, tmp_path):
    command = [sys.executable, "-c", FAKE_SERVER]
    with bench.local_servers(command, 2, env=dict(os.environ), work=tmp_path) as urls:
        pids = [int(url.split(":")[2].split("/")[0]) for url in urls]
        assert len(set(pids)) == 2 and all(_alive(pid) for pid in pids)
    assert not any(_alive(pid) for pid in pids)


def test_a_server_that_does_not_start_is_an_error_naming_its_log(bench, tmp_path):
    command = [sys.executable, "-c", "import sys; sys.exit('error: no model file')"]
    failing = bench.local_servers(command, 2, env=dict(os.environ), work=tmp_path)
    with pytest.raises(bench.BenchmarkError, match="no model file"), failing:
        pass


def test_the_experiment_lists_the_servers_and_is_valid(bench, tmp_path):
    from pdbench.runners.prepare import load

    urls = ["http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"]
    for count in (1, 2):
        path = tmp_path / f"servers-{count}.yaml"
        path.write_text(
            bench.servers_experiment(
                output_dir=tmp_path / "runs", api_bases=urls[:count], sizes=bench.QUICK
            )
        )
        provider = load(path, [], project_root=bench.REPO).spec.conditions[0].agent_a.provider
        assert provider.api_bases == tuple(urls[:count])
        assert provider.name == "litellm"


def test_the_rows_give_both_rates_and_their_ratio_per_run(bench):
    rows = bench.servers_rows({1: [2.0, 3.0], 2: [3.0, 6.0]}, {1: [10.0, 9.0], 2: [6.0, 5.0]}, "x")
    values = {row.measure: row.value for row in rows}
    assert values["one server: calls/s, run phase"] == "2.50 [2.00 - 3.00]"
    assert values["throughput two / one"] == "1.75 [1.50 - 2.00] x"  # 3/2 and 6/3
    assert values["wall, whole command: one / two servers"] == (
        "9.50 [9.00 - 10.00] s / 5.50 [5.00 - 6.00] s"
    )


def test_the_servers_table_has_its_own_readme_block(bench):
    rows = [bench.Row("1. round robin", "rounds/s", "1"), bench.Row(bench.SERVERS_LABEL, "r", "2")]
    only_servers = bench.readme_tables(_machine(bench), rows, [], ["servers"])
    assert [markers for markers, _ in only_servers] == [(bench.SERVERS_START, bench.SERVERS_END)]
    assert "round robin" not in only_servers[0][1] and bench.SERVERS_LABEL in only_servers[0][1]
    both = bench.readme_tables(_machine(bench), rows, ["n"], ["rr", "servers"])
    assert "| 1. round robin |" in both[0][1] and bench.SERVERS_LABEL not in both[0][1]
    text = bench.README.read_text()
    assert text.index(bench.SERVERS_START) < text.index(bench.SERVERS_END)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A child that exited but was not reaped yet is a zombie: not running.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0] != "Z"
    except OSError:
        return False


# --- benchmark 7 (opt-in): public goods groups, their floor checked against a real small run ---


def test_the_public_goods_case_is_opt_in_with_its_own_readme_block(bench):
    assert "pgg" not in bench.parse_args([]).only and "pgg" in bench.RUNNERS
    rows = [
        bench.Row("1. round robin", "rounds/s", "1"),
        bench.Row(bench.PGG_LABEL + " (x)", "r", "2"),
    ]
    only_pgg = bench.readme_tables(_machine(bench), rows, [], ["pgg"])
    assert [markers for markers, _ in only_pgg] == [(bench.PGG_START, bench.PGG_END)]
    assert "round robin" not in only_pgg[0][1] and bench.PGG_LABEL in only_pgg[0][1]
    main = bench.readme_tables(_machine(bench), rows, [], ["rr"])
    assert bench.PGG_LABEL not in main[0][1]
    text = bench.README.read_text()
    assert text.index(bench.PGG_START) < text.index(bench.PGG_END)


def test_the_numpy_floor_writes_the_rounds_the_run_writes(bench, tmp_path):
    """The floor plays the benchmark's condition and writes rounds.jsonl as pdbench does (its
    check would say False otherwise: a byte changed in the floor's line fails it)."""
    from pdbench.runners.experiment import run_experiment
    from pdbench.runners.prepare import load

    experiment = tmp_path / "pgg.yaml"
    experiment.write_text(
        bench.pgg_experiment(output_dir=tmp_path, groups=6, rounds=4, every_phase=False)
    )
    run_dir = run_experiment(load(experiment, run_id="r", project_root=SCRIPT.parents[1])).run_dir
    floor_spec = importlib.util.spec_from_file_location(
        "pdbench_benchmarks_floor", SCRIPT.with_name("public_goods_floor.py")
    )
    floor = importlib.util.module_from_spec(floor_spec)
    floor_spec.loader.exec_module(floor)
    assert floor.write_floor(run_dir, tmp_path / "floor.jsonl") == 6 * 4
    assert floor.check_same_rounds(run_dir, tmp_path / "floor.jsonl")
    changed = (tmp_path / "floor.jsonl").read_bytes().replace(b'"amount":20', b'"amount":19', 1)
    (tmp_path / "floor.jsonl").write_bytes(changed)
    assert not floor.check_same_rounds(run_dir, tmp_path / "floor.jsonl")
