"""Every code block of README.md, docs/*.md and the other parts' Markdown runs as written (see tests/markdown_blocks.py for the marks).

Each chain of Python blocks runs in a fresh interpreter in an empty directory,
as a reader who copies it would run it; a block that fails only because an
optional library is missing is skipped, saying which. Blocks marked as another
language are not run, and an unmarked block fails the collection test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from markdown_blocks import Block, MarkdownError, blocks, chains, markdown_files

ROOT = Path(__file__).resolve().parent.parent
RUNNER = Path(__file__).resolve().parent / "markdown_blocks.py"
FILES = markdown_files(ROOT)


def _blocks(path: Path) -> list[Block]:
    return blocks(path.read_text(), path.relative_to(ROOT).as_posix())


def _chains() -> list[list[Block]]:
    found = []
    for path in FILES:
        try:
            found.extend(chains(_blocks(path)))
        except MarkdownError:
            pass  # test_every_block_is_marked reports it
    return found


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_block_is_marked(path):
    found = _blocks(path)
    for block in found:
        if block.language in {"python", "py"}:
            compile(block.code, block.name, "exec")  # partial blocks too: at least valid Python


@pytest.mark.parametrize("chain", _chains(), ids=lambda chain: chain[0].name)
def test_python_blocks_run_as_written(chain, tmp_path):
    spec = tmp_path / "chain.json"
    spec.write_text(json.dumps([{"path": b.path, "line": b.line, "code": b.code} for b in chain]))
    result = tmp_path / "result.json"
    work = tmp_path / "work"
    work.mkdir()
    completed = subprocess.run(
        [sys.executable, str(RUNNER), str(spec), str(result)],
        cwd=work, capture_output=True, text=True, timeout=600,
    )
    assert result.exists(), f"the runner died (status {completed.returncode}):\n{completed.stdout}\n{completed.stderr}"
    outcome = json.loads(result.read_text())
    if outcome["status"] == "skipped":
        pytest.skip(f"{chain[0].path}:{outcome['block']}: {outcome['reason']}")
    assert outcome["status"] == "passed", (
        f"the block at {chain[0].path}:{outcome['block']} failed:\n{outcome['traceback']}\n"
        f"stdout:\n{completed.stdout}\nstderr:\n{completed.stderr[-3000:]}"
    )


def test_the_collector_refuses_unmarked_and_indented_blocks_and_runs_failing_ones(tmp_path):
    with pytest.raises(MarkdownError, match="without an info string"):
        blocks("text\n\n```\nx = 1\n```\n", "bad.md")
    with pytest.raises(MarkdownError, match="indented code block"):
        blocks("text\n\n    pip install serreg\n", "bad.md")
    with pytest.raises(MarkdownError, match="unknown python block mode"):
        blocks("```python runs-later\nx = 1\n```\n", "bad.md")
    # A list item's indented continuation is not a code block.
    assert blocks("- item\n\n    more of the item\n", "ok.md") == []
    found = blocks(
        "```python\nx = 1\n```\n\n```python continued\nassert x == 1\n```\n\n"
        "```python partial\nundefined_name\n```\n\n```python\nassert x == 1\n```\n\n```sh\nexit 1\n```\n",
        "doc.md",
    )
    groups = chains(found)
    assert [[b.line for b in group] for group in groups] == [[1, 5], [13]]
    outcomes = []
    for group in groups:
        spec, result = tmp_path / "chain.json", tmp_path / "result.json"
        spec.write_text(json.dumps([{"path": b.path, "line": b.line, "code": b.code} for b in group]))
        subprocess.run([sys.executable, str(RUNNER), str(spec), str(result)], cwd=tmp_path, timeout=120, check=True)
        outcomes.append(json.loads(result.read_text()))
    assert outcomes[0]["status"] == "passed"
    # The block run alone does not see x: it fails, and the traceback names the Markdown line.
    assert outcomes[1]["status"] == "failed" and outcomes[1]["block"] == 13
    assert 'File "doc.md", line 14' in outcomes[1]["traceback"] and "NameError" in outcomes[1]["traceback"]
