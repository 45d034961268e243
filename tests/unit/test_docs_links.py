"""Issue 28: the README stays navigable. Its reference sections live in docs/ pages; every
relative link in README.md and docs/*.md leads to a file that exists and, with an #anchor, to a
heading of that file; docs/README.md indexes every page; the README's contents list every section.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs_text import PROJECT, anchors, links, pages, section_of, slug


def relative_links(page: Path) -> list[str]:
    return [t for t in links(page.read_text(encoding="utf-8")) if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(PROJECT)))
def test_every_relative_link_leads_to_a_file_and_a_heading(page):
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no file {file}")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text()):
            broken.append(f"{target}: no heading #{anchor} in {file.relative_to(PROJECT)}")
    assert not broken, "\n".join(broken)


def test_the_link_check_sees_a_broken_link_and_anchor(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("# T\n\n## A b, c\n\n[x](docs/p.md#two) [y](#a-b-c)\n")
    (tmp_path / "docs" / "p.md").write_text("# P\n\n```\n## two\n```\n[z](../README.md#nope)\n")
    assert anchors((tmp_path / "README.md").read_text()) == {"t", "a-b-c"}
    assert anchors((tmp_path / "docs" / "p.md").read_text()) == {"p"}
    assert relative_links(tmp_path / "README.md") == ["docs/p.md#two", "#a-b-c"]
    assert relative_links(tmp_path / "docs" / "p.md") == ["../README.md#nope"]


def test_docs_readme_indexes_every_page():
    index = (PROJECT / "docs" / "README.md").read_text(encoding="utf-8")
    listed = {t.partition("#")[0] for t in links(index)}
    pages_ = {p.name for p in (PROJECT / "docs").glob("*.md")} - {"README.md"}
    assert pages_ <= listed, f"docs/README.md does not list {sorted(pages_ - listed)}"
    assert listed <= pages_ | {"../README.md"}, f"docs/README.md lists {sorted(listed - pages_)}"


def test_the_readme_contents_link_every_section():
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    contents = readme.split("\n## ", 1)[0]
    linked = {t.lstrip("#") for t in links(contents)}
    sections = [line[3:] for line in readme.splitlines() if line.startswith("## ")]
    missing = [s for s in sections if slug(s) not in linked]
    assert not missing, f"the README's contents leave out {missing}"


def test_the_readme_is_one_page_of_essentials():
    """No README section runs beyond two screenfuls (100 lines; the persona grid, real output, is
    the longest), except the one a researcher reads in trouble (kept whole) and the benchmark
    table the script rewrites: the reference lives in docs/."""
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    long = []
    for title in [line[3:] for line in readme.splitlines() if line.startswith("## ")]:
        if title in ("When something goes wrong", "Benchmarks"):
            continue
        size = len(section_of(readme, title)[0].splitlines())
        if size > 100:
            long.append(f"{title}: {size} lines")
    assert not long, long
