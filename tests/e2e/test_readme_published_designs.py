""" "Reproducing published designs" (docs/published-designs.md since issue 28) shows real output:
running the Akata commands again prints the same table rows (the run id included, as it is the
config's hash)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs_text import section

PROJECT = Path(__file__).resolve().parents[2]
SECTION = section("Reproducing published designs")


def shown_output(config: str) -> list[list[str]]:
    """The section's console block for `pdbench run <config>`: its run line and table rows."""
    block = re.search(
        rf"```console\n\$ uv run pdbench run {re.escape(config)}\n(.*?)```", SECTION, re.S
    )
    assert block, f"no console block for {config}"
    return table_rows(block.group(1))


def table_rows(output: str) -> list[list[str]]:
    """The run line, the header and the rows of the summary table, split into words, with each
    row's calls as their total.

    Conditions whose agents write the same prompt (always_j and tft: the model cooperates
    throughout both) share one cached answer, and which condition asks first, paying live while
    the other reads the cache, depends on scheduling; so does the cost cell of the mock ("-" when
    a row made no live call, else $0). The total of calls, every other cell and the rounds are
    deterministic."""
    rows: list[list[str]] = []
    for line in output.splitlines():
        if line.startswith("coop:"):  # the caption under the table
            break
        if line.strip() and not line.lstrip().startswith("─"):
            rows.append(line.split())
    for row in rows[2:]:  # the condition rows: ..., calls, cost $
        row[-2] = _total_calls(row[-2])
        row[-1] = "-" if row[-1] in ("-", "0.0000") else row[-1]
    return rows


def _total_calls(word: str) -> str:
    live_cached = re.fullmatch(r"(\d+)/(\d+)", word)
    return f"calls={sum(map(int, live_cached.groups()))}" if live_cached else word


@pytest.mark.parametrize(
    "config", ["conf/experiment/akata2025_pd.yaml", "conf/experiment/akata2025_bos.yaml"]
)
def test_the_readme_shows_what_the_command_prints(config, tmp_path):
    script = Path(sys.executable).with_name("pdbench")  # what `uv run pdbench` runs
    done = subprocess.run(
        [str(script), "run", config, f"run.output_dir={tmp_path}"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "200"},
    )
    assert done.returncode == 0, done.stderr
    assert table_rows(done.stdout) == shown_output(config)
