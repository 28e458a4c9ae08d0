"""Builds the TypeScript package (js-compat/) when needed and talks to its echo fixture over pipes.

The fixture is js-compat/dist/fixture/echo.js, built by ``npm run build`` (the TypeScript
compiler), after ``npm ci`` when js-compat/node_modules is missing or older than
package-lock.json. It is rebuilt when missing or older than any source file (src/, test/,
fixture/, bench/, package.json, package-lock.json, tsconfig.json). The message protocol is
the Java fixture's: an 8-byte little-endian length, then that many bytes, each way.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from java_fixture import JavaProcess

ROOT = Path(__file__).resolve().parent.parent
JS_DIR = ROOT / "js-compat"
ECHO = JS_DIR / "dist" / "fixture" / "echo.js"
NODE_TESTS = JS_DIR / "dist" / "test"
_SOURCES = ("src", "test", "fixture", "bench")
_FILES = ("package.json", "package-lock.json", "tsconfig.json")


class TypeScriptBuildError(RuntimeError):
    pass


def tools_missing() -> str | None:
    """Why the TypeScript tests cannot run here (node or npm absent), or None."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        return f"{' and '.join(missing)} not on PATH: the TypeScript package (js-compat/) needs Node.js 18+ and npm"
    return None


def _newest_source_mtime() -> float:
    files = [JS_DIR / name for name in _FILES]
    for folder in _SOURCES:
        files += [p for p in (JS_DIR / folder).rglob("*") if p.is_file()]
    return max(p.stat().st_mtime for p in files)


def _run(args: list[str]) -> None:
    proc = subprocess.run(args, cwd=JS_DIR, capture_output=True, text=True)
    if proc.returncode != 0:
        raise TypeScriptBuildError(f"'{' '.join(args)}' failed in js-compat/ (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")


def build() -> bool:
    """Install the npm dependencies and compile if stale; return whether anything ran."""
    ran = False
    modules = JS_DIR / "node_modules" / ".package-lock.json"
    if not modules.exists() or modules.stat().st_mtime < (JS_DIR / "package-lock.json").stat().st_mtime:
        _run(["npm", "ci", "--no-audit", "--no-fund"])
        ran = True
    if ran or not ECHO.exists() or ECHO.stat().st_mtime < _newest_source_mtime():
        _run(["npm", "run", "build"])
        ran = True
    return ran


class TypeScriptProcess(JavaProcess):
    """One running echo fixture (``echo.js`` or ``echo.js --key HEX``): the Java fixture's protocol and
    reader, another process."""

    def __init__(self, *args: str) -> None:  # the parent's pipes and reads, another command
        self.proc = subprocess.Popen(
            ["node", str(ECHO), *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=1 << 20,
        )
        self._raw_out = self.proc.stdout.raw
