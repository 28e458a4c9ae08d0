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
CHECK = JS_DIR / "dist" / "fixture" / "check.js"
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

    def __init__(self, *args: str, script: Path = ECHO) -> None:  # the parent's pipes and reads, another command
        self.proc = subprocess.Popen(
            ["node", str(script), *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=1 << 20,
        )
        self._raw_out = self.proc.stdout.raw


class TypeScriptCheck:
    """The check fixture (``check.js``): each frame is read trusted and untrusted, and the answer is
    ``[trusted outcome, untrusted outcome, the trusted value written again or None]``. An answer that
    takes more than ``seconds`` (a loop without end) or never comes (the process died: out of memory,
    a crash) is reported as an escape in both modes, and a fresh process serves the next frame."""

    def __init__(self, seconds: float = 20.0) -> None:
        self.seconds = seconds
        self.process = TypeScriptProcess(script=CHECK)

    def answer(self, frame: bytes) -> tuple[str, str, bytes | None]:
        import select

        import serreg

        process = self.process
        failure = None
        try:
            process.send(lambda f: f.write(frame), len(frame))
            ready, _, _ = select.select([process.proc.stdout], [], [], self.seconds)
            if ready:
                trusted, untrusted, written = serreg.deserialize(process.receive())
                return trusted, untrusted, None if written is None else bytes(written)
            failure = f"ESCAPED: no answer within {self.seconds:g} s (a loop without end?)"
        except (EOFError, BrokenPipeError, OSError) as error:
            failure = f"ESCAPED: the process died ({str(error)[-300:]})"
        process.proc.kill()
        process.proc.wait()
        self.process = TypeScriptProcess(script=CHECK)
        return failure, failure, None

    def close(self) -> int:
        return self.process.close()
