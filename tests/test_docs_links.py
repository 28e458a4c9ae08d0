"""Every relative link of our Markdown leads somewhere: the file exists, and a ``#anchor`` names one of its headings.

Anchors are made as GitHub makes them from a heading: lower case, punctuation other than ``-``
and ``_`` dropped, spaces turned into ``-``, and ``-1``, ``-2`` ... after a repeated heading.
Links inside code blocks are not links; web addresses are not followed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from markdown_blocks import blocks, markdown_files

ROOT = Path(__file__).resolve().parent.parent
FILES = markdown_files(ROOT)
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def _prose(path: Path) -> list[str]:
    """The lines of ``path`` outside its fenced code blocks."""
    lines = path.read_text().splitlines()
    inside: set[int] = set()
    for block in blocks(path.read_text(), path.name):
        start = block.line - 1
        inside.update(range(start, start + block.code.count("\n") + 2))
    return [line for number, line in enumerate(lines) if number not in inside]


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in _prose(path):
        heading = _HEADING.match(line)
        if heading is None:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def test_anchors_are_made_as_github_makes_them(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# The model\n\n## 4.1 Reading: `deserialize`\n\n## Notes\n\n## Notes\n\n```sh\n# not a heading\n```\n")
    assert anchors(page) == {"the-model", "41-reading-deserialize", "notes", "notes-1"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(path):
    broken = []
    for line in _prose(path):
        for link in _LINK.findall(line):
            if re.match(r"[a-z]+:", link):  # https:, mailto: ...
                continue
            target, _, anchor = link.partition("#")
            destination = (path.parent / target).resolve() if target else path
            if not destination.exists():
                broken.append(f"{link}: no such file")
            elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
                broken.append(f"{link}: no heading makes #{anchor}")
    assert not broken, broken
