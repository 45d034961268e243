"""The project's documentation as tests read it: README.md and the pages under docs/.

A section may move from the README to a docs page (issue 28: keep the README navigable), so a test
that checks what a section shows finds it by its heading wherever it lives, not by file.
"""

from __future__ import annotations

import re
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]


def pages(root: Path = PROJECT) -> list[Path]:
    """README.md, then every docs/*.md in name order."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def prose_lines(text: str) -> list[tuple[str, bool]]:
    """Each line with whether it is outside a fenced code block (a ``` line counts as fenced)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            lines.append((line, False))
            continue
        lines.append((line, not fenced))
    return lines


def heading_level(line: str) -> int:
    match = re.match(r"(#{1,6}) ", line)
    return len(match.group(1)) if match else 0


def section_of(text: str, title: str) -> list[str]:
    """The text under every heading `title` (without its #s) of one page, each up to the next
    heading of the same or a higher level."""
    lines = prose_lines(text)
    found = []
    for start, (line, prose) in enumerate(lines):
        level = heading_level(line) if prose else 0
        if level and line[level + 1 :].strip() == title:
            body = []
            for text_line, is_prose in lines[start + 1 :]:
                if is_prose and 0 < heading_level(text_line) <= level:
                    break
                body.append(text_line)
            found.append("\n".join(body) + "\n")
    return found


def section(title: str, root: Path = PROJECT) -> str:
    """The section titled `title`: from the docs page that holds it when one does (the README
    keeps a short summary under the same heading), else from README.md."""
    readme, *docs = pages(root)
    found = [s for page in docs for s in section_of(page.read_text("utf-8"), title)]
    found = found or section_of(readme.read_text("utf-8"), title)
    assert len(found) == 1, f"{len(found)} sections titled {title!r} in README.md and docs/"
    return found[0]


def slug(title: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", title.strip().lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown page (a repeat gets -1, -2, ...)."""
    seen: dict[str, int] = {}
    found = set()
    for line, prose in prose_lines(text):
        level = heading_level(line) if prose else 0
        if not level:
            continue
        base = slug(line[level + 1 :])
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def links(text: str) -> list[str]:
    """The targets of the Markdown links in a page's prose (not in code blocks or code spans)."""
    prose = "\n".join(line for line, is_prose in prose_lines(text) if is_prose)
    prose = re.sub(r"`[^`\n]*`", "", prose)
    return LINK.findall(prose)
