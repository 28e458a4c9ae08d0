"""Files that several processes share: written whole or not at all, and cleaned up after writers that died.

Used by the content-addressed store (``serreg.cas``), ``serreg.dump`` and the
shared-memory regions of ``serreg.shm``:

- :func:`write_atomically` writes pieces (a frame's header, in-band and
  buffers, never joined) into a locked temporary file and renames it into
  place, so a reader never sees half a file and a file that a reader has
  mapped is never changed or shortened in place: the name moves to a new file
  and the old one lives on while it is mapped.
- :func:`remove_stale_files` removes the files with a given prefix that no live
  process uses: old enough, not locked (a writer holds an exclusive lock while
  it writes; a reader of ``serreg.shm`` holds a shared one while it has the
  region mapped), and, where the name says which process made it, that process
  is gone. Files are only ever unlinked, never truncated: a process that has
  one mapped keeps reading it safely.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from types import ModuleType
from typing import IO, Any, Callable, Iterable, Optional

fcntl: Optional[ModuleType]
try:
    import fcntl
except ImportError:  # not POSIX: stale files are recognised by age alone
    fcntl = None

__all__ = [
    "STALE_AFTER_SECONDS",
    "TEMPORARY_PREFIX",
    "lock_shared",
    "open_regular",
    "process_is_alive",
    "remove_stale_files",
    "write_atomically",
]

TEMPORARY_PREFIX = ".tmp-"
# A temporary file this old and not locked by a live writer was left by one that died.
STALE_AFTER_SECONDS = 60
# Without file locks (not POSIX) only the age tells, so it must be far longer than any write.
STALE_AFTER_SECONDS_WITHOUT_LOCKS = 24 * 3600


def write_atomically(path: str, pieces: Iterable[Any], *, mode: Optional[int] = None, clean: bool = True,
                     before_rename: Optional[Callable[[IO[bytes], str], None]] = None) -> int:
    """Write the concatenation of ``pieces`` to ``path`` whole or not at all; return the bytes written.

    The pieces go one by one into a locked temporary file in the same directory,
    which is renamed to ``path`` when complete (``mode``: its permission bits,
    e.g. 0o400 for a file nobody should write again). The lock tells a later
    cleaner that the writer is alive; a writer that dies loses it, and the file
    it leaves is removed by the next write into that directory (``clean=False``:
    the caller cleans up itself). ``before_rename(file, temporary_path)`` is
    called on the complete file (flushed) just before it gets its name.
    """
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=TEMPORARY_PREFIX)
    written = 0
    try:
        with os.fdopen(handle, "wb") as f:
            if fcntl is not None:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX)  # a new file: nobody else holds it
            for piece in pieces:
                written += f.write(piece)
            f.flush()
            if before_rename is not None:
                before_rename(f, temporary)
            if mode is not None:
                os.fchmod(f.fileno(), mode)
            os.replace(temporary, path)  # still locked: a cleaner never takes a file being written
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    if clean:
        remove_stale_files(directory, TEMPORARY_PREFIX)
    return written


def open_regular(path: str) -> tuple[IO[bytes], int]:
    """``(open file, size)`` of the regular file at ``path`` (a symbolic link is followed), for reading.

    Anything else someone may have put under that name is refused with ``IsADirectoryError`` or a
    ``ValueError`` saying what it is, before a byte is read: a FIFO (opened without waiting for a writer,
    which would block forever), a device such as ``/dev/zero`` (endless), a socket or a directory.
    ``FileNotFoundError`` and ``PermissionError`` are raised as ``open`` raises them.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        status = os.fstat(fd)
        if stat.S_ISDIR(status.st_mode):
            raise IsADirectoryError(21, "Is a directory", path)
        if not stat.S_ISREG(status.st_mode):
            kind = ("a FIFO" if stat.S_ISFIFO(status.st_mode) else "a character device" if stat.S_ISCHR(status.st_mode)
                    else "a block device" if stat.S_ISBLK(status.st_mode) else "a socket" if stat.S_ISSOCK(status.st_mode)
                    else "not a regular file")
            raise ValueError(f"{path} is {kind}, not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), status.st_size
    except BaseException:
        os.close(fd)
        raise


def lock_shared(fd: int) -> None:
    """Take a shared lock on an open file: a cleaner leaves the file alone while any process holds one.

    The lock belongs to the open file, so a memory map made from it (or from a
    duplicate of the descriptor) keeps it until the map is closed.
    """
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_SH)


def process_is_alive(pid: int) -> bool:
    """True if a process with this id exists (one of another user counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return True  # not knowable here: keep the file
    return True


def remove_stale_files(directory: str, prefix: str, older_than: float = STALE_AFTER_SECONDS,
                       owner_alive: Optional[Callable[[str], bool]] = None) -> int:
    """Remove the files in ``directory`` whose names start with ``prefix`` and that no live process uses.

    A file is stale when it is older than ``older_than`` seconds, no process
    holds a lock on it, and (if ``owner_alive`` is given) ``owner_alive(name)``
    is False. Returns how many files were removed.
    """
    removed = 0
    now = time.time()
    try:
        entries = [entry for entry in os.scandir(directory) if entry.name.startswith(prefix)]
    except OSError:
        return 0
    for entry in entries:
        with contextlib.suppress(OSError):  # gone already, or not ours to remove
            if not entry.is_file(follow_symlinks=False):
                continue
            if owner_alive is not None and owner_alive(entry.name):
                continue
            age = now - entry.stat(follow_symlinks=False).st_mtime
            if fcntl is None:
                if age > max(older_than, STALE_AFTER_SECONDS_WITHOUT_LOCKS):
                    os.unlink(entry.path)
                    removed += 1
                continue
            if age <= older_than:
                continue
            with open(entry.path, "rb") as f:
                try:
                    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # a live writer or reader holds it
                if os.path.samestat(os.fstat(f.fileno()), os.stat(entry.path, follow_symlinks=False)):
                    os.unlink(entry.path)
                    removed += 1
    return removed
