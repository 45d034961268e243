"""scripts/docs_blocks.py: how an output block of the README and docs/ is found, compared with
what its command prints (the masks, the `...` gaps) and rewritten, without running anything."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import docs_blocks
from docs_blocks import GAP, blocks_of, matches, rewritten_page, shown_output

PAGE = """# A page

<!-- output: exit: 2; cut: 20 -->
```console
$ uv run pdbench run conf/config.yaml agent_a=tftt
error: a long line that goes on and on
```

```bash
uv run pdbench list   # not an output block
```

  ```console
  $ COLUMNS=170 uv run pdbench analyze data/runs/sweep-0123456789 \\
      --factor persona
  ...
  run sweep-0123456789: complete
  $ echo $?
  0
  ```

```python
>>> agg = pd.read_parquet("data/runs/sweep-0123456789/aggregates.parquet")
>>> print(len(agg))
12
```
"""


def test_blocks_are_found_with_their_steps_and_notes():
    found = blocks_of("page.md", PAGE)
    assert [(b.kind, b.line) for b in found] == [("console", 4), ("console", 13), ("session", 22)]
    first, second, session = found
    assert first.notes == {"exit": "2", "cut": "20"} and first.exit_code == 2 and first.cut == 20
    assert first.steps[0].command == "uv run pdbench run conf/config.yaml agent_a=tftt"
    # an indented block, a command continued over two lines, a gap, a second command
    assert second.indent == "  "
    assert [s.command for s in second.steps] == [
        "COLUMNS=170 uv run pdbench analyze data/runs/sweep-0123456789 --factor persona",
        "echo $?",
    ]
    assert second.steps[0].expected == [GAP, "run sweep-0123456789: complete"]
    assert [s.expected for s in session.steps] == [[], ["12"]]


def test_a_note_the_script_does_not_know_is_refused():
    with pytest.raises(ValueError, match=r"page\.md:2: unknown output note 'exits'"):
        blocks_of("page.md", "<!-- output: exits: 2 -->\n```console\n$ uv run pdbench x\n```\n")


@pytest.mark.parametrize(
    ("shown", "printed"),
    [
        ("run sweep-5f9007da38: complete", "run sweep-0123abcdef: complete"),  # a run id
        ("wrote data/ladders/e63f3dc35118/x", "wrote data/ladders/000000000000/x"),
        ("serving it in 1.1 s: 1 thread(s)", "serving it in 0.4 s: 1 thread(s)"),  # a time
        ("started (pid 8386, in a sandbox)", "started (pid 12, in a sandbox)"),
        ("at 2026-11-25 21:24 UTC", "at 2027-01-01 00:00 UTC"),
        ("a table cell   ", "a table cell"),  # trailing space
    ],
)
def test_what_differs_between_two_runs_is_masked(shown, printed):
    assert matches([shown], [printed])


@pytest.mark.parametrize(
    ("shown", "printed"),
    [
        ("llm_exploitative_vs_grim 2/2 0.23", "llm_exploitative_vs_grim 2/2 0.17"),  # a number
        ("in 20 rounds", "in 21 rounds"),  # not a duration
        ("train-negotiator@ca63f2bb", "train-negotiator@ca63f2bc"),  # an agent's content hash
    ],
)
def test_everything_else_must_match(shown, printed):
    assert not matches([shown], [printed])


def test_a_gap_stands_for_any_lines_and_anchors_the_rest():
    printed = ["[HYDRA] Launching", "[HYDRA] job 1", "run s: complete", "row 1", "run dir: x"]
    assert matches([GAP, "run s: complete", "row 1", "run dir: x"], printed)
    assert matches(["[HYDRA] Launching", GAP, "run dir: x"], printed)
    assert matches([GAP, "row 1", GAP], printed)
    assert matches([GAP, "run s: complete", GAP, "run dir: x"], printed)
    assert not matches([GAP, "row 2", GAP], printed)
    assert not matches(["[HYDRA] job 1", GAP], printed)  # the first part starts at the top
    assert not matches([GAP, "row 1"], printed)  # the last part ends at the bottom


def test_a_summarys_calls_may_be_split_either_way_when_the_block_says_so():
    shown = "always_j 3/3 1.00   27/3 0.0000"
    assert matches([shown], ["always_j 3/3 1.00   26/4 0.0000"], calls_total=True)
    assert matches(["tft 3/3 1.00  0/30      -"], ["tft 3/3 1.00  1/29 0.0000"], calls_total=True)
    assert not matches([shown], ["always_j 3/3 1.00   26/4 0.0000"])
    assert not matches([shown], ["always_j 3/3 1.00   26/5 0.0000"], calls_total=True)


def test_a_rewritten_block_keeps_its_shape():
    run, shown_run = "run s-0123456789: complete", "run s-abcdefabcd: complete"
    printed = ["[HYDRA] a", "[HYDRA] b", run, "row 1", "row 2", "coop: x", "done"]
    # the parts between gaps are found again by their first and last lines
    assert shown_output([GAP, shown_run, "row 1", GAP], printed) == [GAP, run, "row 1", GAP]
    assert shown_output(["[HYDRA] a", GAP, "done"], printed) == ["[HYDRA] a", GAP, "done"]
    # a new block written whole from its placeholder
    placeholder = docs_blocks.PLACEHOLDER
    assert shown_output([GAP, shown_run, placeholder], printed) == [GAP, *printed[2:]]


def test_a_page_is_rewritten_block_by_block_and_nothing_else_changes():
    new = rewritten_page(
        PAGE,
        blocks_of("page.md", PAGE),
        {"page.md:4": [["error: now a longer line than twenty characters"]]},
    )
    assert "error: now a lon ...\n" in new  # cut to the block's 20 characters
    assert new.replace("error: now a lon ...", "error: a long line that goes on and on") == PAGE
