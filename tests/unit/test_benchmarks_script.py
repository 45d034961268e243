"""benchmarks/run.py: the Markdown table and the README block it rewrites (no benchmark is run)."""

import importlib.util
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
