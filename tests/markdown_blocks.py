"""The code blocks of a Markdown file, and the runner that executes its Python blocks.

Every code block must be fenced with an info string that says what it is.
The first word is the language; for ``python`` (or ``py``) further words say
how the block runs:

- ``python``: a complete program, run alone in a fresh interpreter (its own
  process, so registrations made by one block never help another);
- ``python continued``: runs after the block before it, in the same process
  and namespace (a chain that starts at the last plain ``python`` block);
- ``python partial``: deliberately incomplete; only compiled, never run.

Any other language (``sh``, ``console``, ``text``, ``java``, ``toml`` ...) is
not run. An indented code block or a fence without an info string is an error:
the collector cannot tell what it is.

Run as a program (``python markdown_blocks.py CHAIN.json RESULT.json``) this
module executes one chain of blocks as ``__main__`` and writes what happened;
a block that fails only because an optional library is not installed is
reported as skipped.
"""

from __future__ import annotations

import builtins
import json
import os
import re
import sys
import traceback
import types
from dataclasses import dataclass
from pathlib import Path

PYTHON = {"python", "py"}
RUN_MODES = {"", "continued", "partial"}
# Libraries a block may need that serreg's core does not: a block failing to import one is skipped.
OPTIONAL = {"numpy", "pyarrow", "pandas", "dask", "distributed", "ray", "matplotlib", "tqdm", "pyfory", "msgspec"}
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


@dataclass
class Block:
    path: str
    line: int  # 1-based line of the opening fence
    language: str
    mode: str
    code: str

    @property
    def name(self) -> str:
        return f"{self.path}:{self.line}"


# Build output, installed packages and caches hold Markdown of others: not ours to check.
_NOT_OURS = {".git", "node_modules", "target", "build", "dist", ".pytest_cache", ".mypy_cache", ".hypothesis"}


def markdown_files(root: Path) -> list[Path]:
    """README.md and docs/*.md first, then the Markdown of every other part (java-compat/, js-compat/, fuzz/, tests/)."""
    found = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d not in _NOT_OURS and not d.endswith(".egg-info"))
        found.extend(Path(folder, name) for name in sorted(names) if name.endswith(".md"))
    first = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    return [path for path in first if path in found] + [path for path in found if path not in first]


class MarkdownError(ValueError):
    """A code block the collector cannot classify."""


def blocks(text: str, path: str) -> list[Block]:
    """The fenced code blocks of ``text``; MarkdownError for an unmarked or indented one."""
    found: list[Block] = []
    lines = text.split("\n")
    i = 0
    previous_blank = True
    in_list = False
    while i < len(lines):
        line = lines[i]
        match = _FENCE.match(line)
        if match:
            fence, info = match["fence"], match["info"].strip()
            start = i
            i += 1
            body = []
            while i < len(lines) and not lines[i].lstrip().startswith(fence):
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise MarkdownError(f"{path}:{start + 1}: the code block is never closed")
            words = info.split()
            if not words:
                raise MarkdownError(
                    f"{path}:{start + 1}: a code block without an info string; mark it (python, "
                    "python continued, python partial, sh, console, text, ...)"
                )
            language = words[0].lower()
            mode = " ".join(words[1:])
            if language in PYTHON and mode not in RUN_MODES:
                raise MarkdownError(f"{path}:{start + 1}: unknown python block mode {mode!r}; use one of {sorted(RUN_MODES)}")
            found.append(Block(path, start + 1, language, mode, "\n".join(body) + "\n"))
            i += 1
            previous_blank = False
            continue
        stripped = line.strip()
        if re.match(r"^\s*([-*+]|\d+[.)])\s", line):
            in_list = True
        elif not stripped:
            pass
        elif not line.startswith(" "):
            in_list = False
        if line.startswith("    ") and stripped and previous_blank and not in_list:
            raise MarkdownError(
                f"{path}:{i + 1}: an indented code block; fence it with an info string (```sh, ```text, ...)"
            )
        previous_blank = not stripped
        i += 1
    return found


def chains(found: list[Block]) -> list[list[Block]]:
    """The runnable Python blocks grouped by process: a plain block and the continued ones after it."""
    groups: list[list[Block]] = []
    for block in found:
        if block.language not in PYTHON or block.mode == "partial":
            continue
        if block.mode == "continued":
            if not groups:
                raise MarkdownError(f"{block.name}: 'python continued' with no python block before it")
            groups[-1].append(block)
        else:
            groups.append([block])
    return groups


def _run(chain: list[dict], result_path: str) -> None:
    # The blocks run in a module of their own that is ``__main__``, as a script's code does:
    # classes and functions they define can be found by name (type hints, pickling).
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = main
    namespace = main.__dict__
    outcome: dict = {"status": "passed"}
    for block in chain:
        # Padded so a traceback's line numbers are the Markdown file's.
        source = "\n" * block["line"] + block["code"]
        try:
            exec(compile(source, block["path"], "exec"), namespace)
        except ModuleNotFoundError as error:
            missing = (error.name or "").split(".")[0]
            status = "skipped" if missing in OPTIONAL else "failed"
            outcome = {"status": status, "block": block["line"], "reason": f"{missing} is not installed",
                       "traceback": traceback.format_exc()}
            break
        except BaseException:  # SystemExit included: a block must not exit
            outcome = {"status": "failed", "block": block["line"], "traceback": traceback.format_exc()}
            break
    Path(result_path).write_text(json.dumps(outcome))


if __name__ == "__main__":
    _run(json.loads(Path(sys.argv[1]).read_text()), sys.argv[2])
