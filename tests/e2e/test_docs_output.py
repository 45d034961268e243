"""Issue 41: every output block of README.md and docs/*.md is what its command prints today, so
the numbers a reader sees cannot drift from what pdbench does.

scripts/docs_output.py runs each block's commands in a fresh copy of the project and compares
what they print with the block (run ids, times, pids and dates masked; a `...` line is a gap):
this runs its check over every block but the few a note leaves out of the suite (listed below,
so that none is forgotten; the script still checks them). A block that differs is rewritten by
`uv run python scripts/docs_output.py --write` (then read the prose around it again).

The README's persona grid is the session's shared grid (tests/persona_grid.py: the same command,
dealt with the docs' key), not a second run of it.
"""

from __future__ import annotations

import pytest
from docs_script import docs_output_script
from persona_grid import shared_persona_grid
from project_copy import GRID_COMMAND

docs_output = docs_output_script()
BLOCKS = docs_output.all_blocks()
IN_SUITE = [block for block in BLOCKS if "not-in-suite" not in block.notes]

# (page, first command) of every block the suite does not run; each page's note says why.
LEFT_OUT = {
    (
        "docs/analyze.md",
        "uv run python -m pdbench -m agent_a=llm_default agent_b=tft,grim,alld,random "
        "persona=cooperative,exploitative run.replicates=10",
    ),
    (
        "docs/analyze.md",
        "COLUMNS=170 uv run pdbench analyze data/runs/sweep-<id> --factor agent_b --reference tft",
    ),
    (
        "README.md",
        "uv run python -m pdbench agent_a=llm_default agent_b=tft provider=local "
        "agent_a.constrain=grammar",
    ),
    (
        "docs/public-goods.md",
        "COLUMNS=200 uv run pdbench run conf/config.yaml game=public_goods "
        "agent_a=pgg_conditional_cooperator agent_b=pgg_free_rider agent_c=pgg_random "
        "agent_d=pgg_punisher game.options.punish=true game.options.talk=true "
        "game.options.rounds=5 -q",
    ),
    ("docs/published-designs.md", "uv run pdbench run conf/experiment/fontana2025_alpha.yaml"),
    (
        "docs/published-designs.md",
        "uv run pdbench run conf/experiment/payne2025_shadow.yaml --replicates 100",
    ),
    (
        "docs/real-models.md",
        "uv run python -m pdbench agent_a=llm_default agent_b=tft provider=local",
    ),
    (
        "docs/real-models.md",
        "uv run python -m pdbench -m agent_a=llm_default agent_b=tft provider=local "
        "agent_a.on_invalid=fallback agent_a.constrain=none,grammar",
    ),
    ("docs/real-models.md", 'agg = pd.read_parquet("data/runs/sweep-<id>/aggregates.parquet")'),
    (
        "docs/scaling.md",
        "uv run python -m pdbench -m hydra/launcher=ray agent_a=tft,grim run.replicates=1",
    ),
}


def _named(block) -> tuple[str, str]:
    from docs_blocks import RUN_ID

    return block.page, RUN_ID.sub(r"\1-<id>", block.steps[0].command)


def test_the_blocks_left_out_of_the_suite_are_these_and_say_why():
    left_out = {_named(b): b.notes["not-in-suite"] for b in BLOCKS if "not-in-suite" in b.notes}
    assert set(left_out) == LEFT_OUT
    assert all(len(why) > 10 for why in left_out.values()), left_out


def test_no_block_the_suite_runs_reads_a_run_of_one_it_leaves_out():
    from docs_blocks import producers

    for block in IN_SUITE:
        for producer in producers(block, BLOCKS):
            assert "not-in-suite" not in producer.notes, (block.where, producer.where)


def _grid_block_command() -> str:
    grid = " ".join(GRID_COMMAND)
    (command,) = [
        step.command for block in IN_SUITE for step in block.steps if step.command.endswith(grid)
    ]
    return command


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> dict[str, object]:
    """Every block the suite runs, run once (in one copy of the project, in this process)."""
    grid_dir, grid_stdout = shared_persona_grid(tmp_path_factory)
    known = {_grid_block_command(): (grid_stdout, grid_dir)}
    results, _ = docs_output.run_blocks(
        BLOCKS, IN_SUITE, known=known, workspace=tmp_path_factory.mktemp("docs-output")
    )
    return {result.block.where: result for result in results}


@pytest.mark.parametrize("where", [block.where for block in IN_SUITE])
def test_the_block_is_what_its_command_prints(checked, where):
    result = checked[where]
    if result.skipped:
        pytest.skip(result.skipped)
    problems = docs_output.report([result])
    assert not problems, "\n".join(
        [
            *problems,
            f"if the change is meant: uv run python scripts/docs_output.py --write --only {where}",
        ]
    )
