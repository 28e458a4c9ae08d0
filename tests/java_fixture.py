"""Builds the Java fixture jar when needed and talks to it over pipes.

The jar is java-compat/fixture/target/serreg-fixture.jar (the Maven module
``fixture``, which shades serreg-core, serreg-arrow and the example classes). It
is rebuilt with ``mvn -B -q package`` in java-compat/ (which also runs every
module's JUnit tests and builds the javadoc of serreg-core and serreg-arrow, so
a javadoc error fails the build) when it is missing or older than any pom.xml
or any file under a module's src/.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
JAVA_DIR = ROOT / "java-compat"
MODULES = ("serreg-core", "serreg-arrow", "fixture")
PUBLISHED_MODULES = ("serreg-core", "serreg-arrow")
JAR = JAVA_DIR / "fixture" / "target" / "serreg-fixture.jar"
JVM_ARGS = ["--add-opens=java.base/java.nio=ALL-UNNAMED"]
SPARE_MIN = 1 << 20  # replies from this size on may reuse an earlier reply's buffer


class JavaBuildError(RuntimeError):
    pass


def surefire_reports(module: str) -> list[Path]:
    """The JUnit reports the last build of ``module`` left."""
    return sorted((JAVA_DIR / module / "target" / "surefire-reports").glob("TEST-*.xml"))


def javadoc_jars(module: str) -> list[Path]:
    """The javadoc jar the last build of ``module`` wrote (none if javadoc failed or was skipped)."""
    return sorted((JAVA_DIR / module / "target").glob(f"{module}-*-javadoc.jar"))


def _newest_source_mtime() -> float:
    files = [JAVA_DIR / "pom.xml"]
    for module in MODULES:
        files.append(JAVA_DIR / module / "pom.xml")
        files.extend(p for p in (JAVA_DIR / module / "src").rglob("*") if p.is_file())
    return max(p.stat().st_mtime for p in files)


def jar_is_stale() -> bool:
    """Missing, older than a source file, or built without the JUnit tests or the javadoc of every module."""
    if not JAR.exists():
        return True
    if not all(surefire_reports(m) for m in MODULES) or not all(javadoc_jars(m) for m in PUBLISHED_MODULES):
        return True
    return JAR.stat().st_mtime < _newest_source_mtime()


def build_jar() -> bool:
    """Build the jar if stale; return whether a build ran. Raises JavaBuildError with Maven's output."""
    if not jar_is_stale():
        return False
    mvn = shutil.which("mvn")
    if mvn is None:
        raise JavaBuildError("Maven (mvn) is not on PATH; it is needed to build java-compat/")
    proc = subprocess.run([mvn, "-B", "-q", "package"], cwd=JAVA_DIR, capture_output=True, text=True)
    if proc.returncode != 0 or not JAR.exists():
        raise JavaBuildError(
            f"'mvn -B -q package' failed in java-compat/ (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
        )
    return True


def _widen_pipe(pipe) -> None:
    """Ask Linux for a 1 MiB pipe buffer (the default is 64 KiB): fewer switches between the processes."""
    try:
        import fcntl

        fcntl.fcntl(pipe.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (ImportError, OSError):
        pass  # not Linux, or not allowed: the default size still works


class JavaProcess:
    """One running fixture (``echo``, ``echo --key HEX`` or ``arrow-ipc-echo``): send a message, get the reply."""

    # The largest reply buffer so far, reused for a reply that fits once nothing refers to it any
    # more (no decoded value views it): Java reuses its read buffer the same way, and a fresh
    # 100 MB buffer costs more to zero and fault in than the pipe takes to fill it.
    _spare: Optional[bytearray] = None

    def __init__(self, mode: str = "echo", *args: str) -> None:
        self.proc = subprocess.Popen(
            ["java", *JVM_ARGS, "-jar", str(JAR), mode, *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=1 << 20,
        )
        for pipe in (self.proc.stdin, self.proc.stdout):
            _widen_pipe(pipe)
        # Replies are read straight into their final buffer, past Python's read buffer.
        self._raw_out = self.proc.stdout.raw

    def send(self, write_body, length: int) -> None:
        """Write one message: the 8-byte length, then ``write_body(stdin)`` writes ``length`` bytes."""
        stdin = self.proc.stdin
        stdin.write(struct.pack("<Q", length))
        write_body(stdin)
        stdin.flush()

    def receive(self):
        """Read one reply into writable memory (decoded arrays are views of it): a fresh bytearray,
        or for a large reply a view of the largest earlier reply's buffer once nothing refers to it."""
        header = self._read_exactly(8)
        (length,) = struct.unpack("<Q", header)
        if length < SPARE_MIN:
            return self._read_exactly(length)
        spare, self._spare = self._spare, None
        # References now: `spare` and getrefcount's argument; any other is a live value or frame.
        if spare is not None and len(spare) >= length and sys.getrefcount(spare) <= 2:
            reply = memoryview(spare)[:length]
            self._read_into(reply)
            self._spare = spare
            return reply
        out = self._read_exactly(length)
        self._spare = out if spare is None or len(out) >= len(spare) else spare
        return out

    def round_trip(self, frame) -> bytearray:
        view = memoryview(frame)
        self.send(lambda f: f.write(view), view.nbytes)
        return self.receive()

    def _read_exactly(self, n: int) -> bytearray:
        out = bytearray(n)
        self._read_into(memoryview(out))
        return out

    def _read_into(self, view: memoryview) -> None:
        n, got = view.nbytes, 0
        while got < n:
            k = self._raw_out.readinto(view[got:])
            if not k:
                raise EOFError(f"the Java fixture closed its output after {got} of {n} bytes; stderr:\n"
                               + self.proc.stderr.read().decode(errors="replace"))
            got += k

    def close(self) -> int:
        self.proc.stdin.close()
        code = self.proc.wait(timeout=60)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return code
