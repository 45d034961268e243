"""Regenerate and check every output block of README.md and docs/*.md by running its command.

    uv run python scripts/docs_output.py --write     # rewrite the blocks whose output changed
    uv run python scripts/docs_output.py --check     # exit 1, with a diff, if any block changed
                                                     # (either: exit 1 if a command failed)
    uv run python scripts/docs_output.py --list      # every block, its notes, what the suite skips
    ... --only README.md:94 --only ladder            # some blocks: page:line, page, a command word
    ... --suite                                      # only the blocks the test suite checks

Run `--write` after a change that alters what a documented command prints, and read the prose
around each changed block again (the lines it prints say which blocks changed, and which run ids
it replaced everywhere). tests/e2e/test_docs_output.py runs the check in the suite.

What a block is, its `...` gaps and its notes (`<!-- output: ... -->`), and what is masked before
comparing: scripts/docs_blocks.py. How its commands are run (a copy of the project, a fixed deal
key, a fresh replay cache per block, COLUMNS=100, in this process): scripts/docs_runner.py.
"""

from __future__ import annotations

import argparse
import difflib
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # docs_blocks, docs_runner
import docs_blocks
from docs_blocks import Block
from docs_runner import (
    PROJECT,
    Result,
    Runner,
    copy_workspace,
    cpu_now,
    write_deal_key,
)

__all__ = ["all_blocks", "report", "run_blocks", "write_deal_key", "write_pages"]


def all_blocks(root: Path = PROJECT) -> list[Block]:
    """Every output block of README.md and docs/*.md, in page order."""
    found = []
    for path in docs_blocks.page_paths(root):
        found += docs_blocks.blocks_of(str(path.relative_to(root)), path.read_text("utf-8"))
    return found


def selected(blocks: list[Block], only: list[str], suite: bool) -> list[Block]:
    chosen = [b for b in blocks if not (suite and "not-in-suite" in b.notes)]
    if not only:
        return chosen
    return [
        b
        for b in chosen
        if any(w in (b.where, b.page) or any(w in s.command for s in b.steps) for w in only)
    ]


def run_blocks(
    blocks: list[Block],
    chosen: list[Block],
    *,
    known: dict[str, tuple[str, Path]] | None = None,
    workspace: Path | None = None,
    progress: bool = False,
) -> tuple[list[Result], Runner]:
    """Run `chosen` (and the blocks whose runs they read) in a fresh copy of the project;
    `known`: command -> (its output, the run it made) for runs the caller has already."""
    folder = workspace or Path(tempfile.mkdtemp(prefix="pdbench-docs-"))
    runner = Runner(copy_workspace(folder / "project"), blocks, known or {})
    results = []
    for block in chosen:
        results.append(runner.run(block))
        if progress:
            print(state_of(results[-1]), flush=True)
    return results, runner


def state_of(result: Result) -> str:
    if result.skipped:
        state = f"skipped ({result.skipped})"
    else:
        state = "differs" if result.differs() or result.wrong_exit() else "same"
    took = f"{result.seconds:.1f} s, {result.cpu_seconds:.1f} s CPU"
    return f"{result.block.where}: {state} ({took})"


def report(results: list[Result]) -> list[str]:
    """Per block that differs: where, which command, and a diff of the masked lines."""
    lines = []
    for result in results:
        lines += [f"{result.block.where}: {problem}" for problem in result.wrong_exit()]
        for index in result.differs():
            step, out = result.block.steps[index], result.printed[index]
            calls_total = result.block.calls_total
            now = docs_blocks.shown_output(
                step.expected, docs_blocks.cut_long(out.lines, result.block.cut)
            )
            diff = difflib.unified_diff(
                [docs_blocks.mask(line, calls_total) for line in step.expected],
                [docs_blocks.mask(line, calls_total) for line in now],
                "the page",
                "the command now",
                lineterm="",
                n=1,
            )
            lines += [f"{result.block.where}: `{step.command}` prints something else:", *diff]
    return lines


def write_pages(results: list[Result], renamed: dict[str, str], root: Path = PROJECT) -> list[str]:
    """Rewrite the blocks that differ, and the ids they show that changed, everywhere; returns
    what it did. A command that exits otherwise than its page says failed: its block is kept
    (the check reports it). A page edited while the commands ran is refused (its blocks may have
    moved)."""
    changed = [r for r in results if r.differs() and not r.wrong_exit()]
    shown = "\n".join(line for r in changed for s in r.block.steps for line in s.expected)
    renamed = {old: new for old, new in renamed.items() if old in shown}
    by_page: dict[str, dict[str, list[list[str]]]] = {}
    for result in changed:
        printed = [p.lines for p in result.printed]
        by_page.setdefault(result.block.page, {})[result.block.where] = printed
    said = []
    for path in docs_blocks.page_paths(root):
        page = str(path.relative_to(root))
        text = path.read_text("utf-8")
        new = text
        if page in by_page:
            blocks = docs_blocks.blocks_of(page, text)
            now = {b.where: [s.command for s in b.steps] for b in blocks}
            for result in changed:
                if result.block.page == page and now.get(result.block.where) != [
                    s.command for s in result.block.steps
                ]:
                    raise SystemExit(f"{page} changed while the commands ran: run again")
            new = docs_blocks.rewritten_page(text, blocks, by_page[page])
        for old, fresh in renamed.items():
            new = new.replace(old, fresh)
        if new != text:
            path.write_text(new, "utf-8")
            said.append(f"rewrote {page}")
    said += [f"changed: {r.block.where} `{r.block.steps[0].command[:80]}`" for r in changed]
    said += [
        f"id: {old} -> {new} (everywhere in README.md and docs/)" for old, new in renamed.items()
    ]
    return said


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 if a block differs")
    mode.add_argument("--write", action="store_true", help="rewrite the blocks that differ")
    mode.add_argument("--list", action="store_true", help="list the blocks and their notes")
    parser.add_argument(
        "--only", action="append", default=[], help="page:line, a page, or a word of a command"
    )
    parser.add_argument("--suite", action="store_true", help="only the blocks the suite checks")
    args = parser.parse_args(argv)
    blocks = all_blocks()
    chosen = selected(blocks, args.only, args.suite)
    if args.list:
        for block in chosen:
            notes = "; ".join(f"{key}: {value}" for key, value in block.notes.items())
            print(f"{block.where}  {block.steps[0].command[:90]}")
            if notes:
                print(f"    {notes}")
        return 0
    started, cpu_started = time.monotonic(), cpu_now()
    results, runner = run_blocks(blocks, chosen, progress=True)
    problems = report(results)
    if args.write:
        print("\n".join(write_pages(results, runner.renamed)))
        problems = [f"{r.block.where}: {p}" for r in results for p in r.wrong_exit()]
    if problems:
        print("\n".join(problems))
    took = f"{time.monotonic() - started:.0f} s, {cpu_now() - cpu_started:.0f} s CPU"
    print(f"{len(runner.results)} blocks run in {took}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
