"""Values in shared memory, handed from process to process by a small handle.

``handle = serreg.shm.put(value)`` writes the value's frame into a new
shared-memory region (a file in ``/dev/shm/serreg-<uid>/``, a RAM-backed file
system; elsewhere the temporary directory) and returns a :class:`Handle`: the
region's name and size, a few dozen bytes that pickle small, so a pipe, a
``multiprocessing.Queue`` or a ``concurrent.futures`` call carries it instead of
the data. ``value = serreg.shm.get(handle)`` in any process of the same user
maps the region read-only and deserializes it with every out-of-band buffer
(arrays, Arrow buffers, bytes-like values) a view of the mapping: handing over
1 GB costs what handing over 1 KB does, and the reader pays only for the pages
it reads.

Lifetime:

- A region's *name* lives until :meth:`Handle.release` (or ``get(...,
  release=True)``, for a handle meant for one reader), or until its writer
  process is gone (next paragraph).
- A region's *memory* lives while any process has it mapped: releasing or
  losing the handle, or the writer exiting, never invalidates a value already
  read; the memory is freed when the last value that views it is garbage
  collected (and the name is gone).
- Nothing outlives the processes that use it for long: ``put`` and ``get``
  (the first call in a process, then at most once per :data:`CLEANUP_INTERVAL`
  seconds) remove the regions whose writer (the process id in the name)
  is no longer running, that no process has mapped (a reader holds a shared
  file lock while it has the region mapped) and that are older than
  :data:`GRACE_SECONDS`, so a handle sent by a writer that then exited can still
  be read for that long. Cleaning only unlinks names, it never shortens a file,
  so a reader that has a region mapped is never hurt. :func:`cleanup` does the
  same on demand.

Safety:

- ``get`` is untrusted by default: the region is memory another process
  wrote, so pickled values and class IDs outside the allow-list are refused
  unless ``trusted=True``; the registry's limits hold as for any frame.
- A region is written once, under a temporary name, renamed when complete and
  made read-only (mode 0400): a reader never sees half a frame, and no serreg
  process writes it again. Before mapping, ``get`` checks the file's size
  against the handle and the frame header: a region shortened or grown since it
  was written is refused with a ``DeserializationError``, never a SIGBUS.
- With ``key=`` the frame must be signed; it is verified and decoded from a
  private copy (the buffers are copied once), so the bytes checked are the bytes
  decoded (docs/FORMAT.md, section 4.2).
- Not covered: a process of the same user (or root) that makes the file
  writable again and shortens it in place while a value from it is in use
  makes the reader's next read past the new end fail with SIGBUS, as with any
  shared memory; such a process could also change the bytes under the reader.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
import tempfile
import threading
import time
from typing import Any, Optional, Tuple

from ._default import default_registry
from .errors import DeserializationError, SerregError
from .shared_files import TEMPORARY_PREFIX, lock_shared, process_is_alive, remove_stale_files
from .limits import Limits
from .mapped import create_mapped, map_frame, write_result
from .registry import Registry

__all__ = ["GRACE_SECONDS", "Handle", "RegionGoneError", "cleanup", "directory", "empty", "get", "put", "release"]

REGION_PREFIX = "region-"
# How long a region whose writer has exited stays readable (a handle may still be on its way).
GRACE_SECONDS = 10.0
DIRECTORY_VARIABLE = "SERREG_SHM_DIR"
_NAME = re.compile(r"region-([0-9]{1,10})-[0-9a-f]{32}")
_READ_ONLY = 0o400
# put and get look for stale regions at most this often per process (cleanup() always does).
CLEANUP_INTERVAL = 1.0
_checked_directories: dict[Optional[str], str] = {}
_last_cleanup = [float("-inf")]
_lock = threading.Lock()


class RegionGoneError(DeserializationError, LookupError):
    """The region a handle names no longer exists: it was released, or its writer exited long ago."""


class Handle:
    """The name and size of a shared-memory region: small, picklable, valid in any process of the user.

    ``release()`` (or leaving a ``with handle:`` block) removes the name; values
    already read from the region stay valid.
    """

    __slots__ = ("name", "size")

    def __init__(self, name: str, size: int) -> None:
        if type(name) is not str or not _NAME.fullmatch(name):
            raise ValueError(f"not a serreg shared-memory region name: {name!r:.80}")
        if type(size) is not int or size < 0:
            raise ValueError(f"a region size is a non-negative int, not {size!r:.80}")
        self.name = name
        self.size = size

    @property
    def writer_pid(self) -> int:
        """The id of the process that wrote the region."""
        match = _NAME.fullmatch(self.name)
        assert match is not None  # checked in __init__
        return int(match.group(1))

    def release(self) -> bool:
        """Remove the region's name (idempotent); True if this call removed it."""
        return release(self)

    def __enter__(self) -> "Handle":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __reduce__(self) -> Tuple[type, Tuple[str, int]]:
        return (Handle, (self.name, self.size))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Handle) and (self.name, self.size) == (other.name, other.size)

    def __hash__(self) -> int:
        return hash((self.name, self.size))

    def __repr__(self) -> str:
        return f"Handle({self.name!r}, {self.size})"


def directory() -> str:
    """The directory of this user's regions (created on first use, mode 0700).

    ``$SERREG_SHM_DIR`` if set, else ``/dev/shm`` where it exists, else the
    temporary directory; in it, ``serreg-<uid>``.
    """
    base = os.environ.get(DIRECTORY_VARIABLE)
    known = _checked_directories.get(base)
    if known is not None:
        return known
    if not base:
        base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()
    uid = os.getuid() if hasattr(os, "getuid") else 0
    path = os.path.join(base, f"serreg-{uid}")
    os.makedirs(path, mode=0o700, exist_ok=True)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != uid):
        raise SerregError(
            f"{path} is not a directory owned by this user (uid {uid}); remove it or set {DIRECTORY_VARIABLE}"
        )
    _checked_directories[os.environ.get(DIRECTORY_VARIABLE)] = path
    return path


def put(value: Any, *, registry: Optional[Registry] = None, key: Optional[bytes] = None,
        cross_language: bool = False) -> Handle:
    """Write ``value``'s frame into a new shared-memory region; return its handle.

    The out-of-band buffers go from the value's memory into the region one by
    one (no joined copy). ``key`` signs the frame; ``cross_language=True``
    refuses values that would need the Python-only fallback (for a Java reader).
    """
    registry = default_registry() if registry is None else registry
    folder = directory()
    _cleanup_now_and_then(folder)
    result = registry.serialize(value, cross_language=cross_language, key=key)
    name = f"{REGION_PREFIX}{os.getpid()}-{secrets.token_hex(16)}"
    size = write_result(result, os.path.join(folder, name), mode=_READ_ONLY, clean=False)
    return Handle(name, size)


def empty(shape: Any, dtype: Any = "float64", *, registry: Optional[Registry] = None) -> Tuple[Any, Handle]:
    """A new region holding a numpy array of ``shape`` and ``dtype``: ``(array, handle)``.

    ``array`` is a writable view of the region (zero-filled, pages allocated as
    they are first written): build the data in it, then send ``handle``. The
    reader maps what is already there, so handing over the array costs the
    same at any size. The region is complete and read-only for everyone else
    from the start; only this ``array`` writes it: finish writing before the
    handle leaves the process (a reader sees later writes, and a value read
    while it changes is torn).
    """
    import numpy as np

    registry = default_registry() if registry is None else registry
    folder = directory()
    _cleanup_now_and_then(folder)
    template = np.zeros(shape, dtype)  # calloc'ed: no page of it is touched
    result = registry.serialize(template)
    name = f"{REGION_PREFIX}{os.getpid()}-{secrets.token_hex(16)}"
    mapping, size = create_mapped(result, os.path.join(folder, name), mode=_READ_ONLY)
    array = np.ndarray(template.shape, template.dtype, buffer=mapping, offset=size - template.nbytes)
    return array, Handle(name, size)


def get(handle: Handle, *, trusted: bool = False, key: Optional[bytes] = None, limits: Optional[Limits] = None,
        registry: Optional[Registry] = None, release: bool = False) -> Any:
    """The value in the region ``handle`` names, its buffers read-only views of the shared memory.

    Untrusted by default (``trusted=True`` for pickled values from a writer you
    trust). ``release=True`` removes the region's name once it is mapped (the
    handle was meant for this reader alone). RegionGoneError if the region no
    longer exists; DeserializationError if it is not the size it was written with.
    """
    if not isinstance(handle, Handle):
        raise TypeError(f"serreg.shm.get takes a serreg.shm.Handle, not {type(handle).__name__}")
    registry = default_registry() if registry is None else registry
    limits = registry.limits if limits is None else limits
    folder = directory()
    _cleanup_now_and_then(folder)
    path = os.path.join(folder, handle.name)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise RegionGoneError(
            f"shared-memory region {handle.name} no longer exists: it was released, or its writer (process "
            f"{handle.writer_pid}) exited more than {GRACE_SECONDS:g} s before it was read"
        ) from None
    try:
        lock_shared(fd)  # held by the mapping: no cleaner removes a region while it is mapped
        data = map_frame(fd, limits, f"shared-memory region {handle.name}", expected_size=handle.size)
    finally:
        os.close(fd)
        if release:
            handle.release()
    return registry.deserialize(data, trusted=trusted, key=key, limits=limits)


def release(handle: Handle) -> bool:
    """Remove the region's name (values already read from it stay valid); True if this call removed it."""
    try:
        os.unlink(os.path.join(directory(), handle.name))
    except FileNotFoundError:
        return False
    return True


def cleanup(folder: Optional[str] = None, grace_seconds: float = GRACE_SECONDS) -> int:
    """Remove the regions (and half-written ones) that no live process uses; return how many.

    A region is removed when its writer is no longer running, no process has it
    mapped, and it is older than ``grace_seconds``. ``put`` and ``get`` call this
    (at most once per CLEANUP_INTERVAL seconds in a process).
    """
    folder = directory() if folder is None else folder
    removed = remove_stale_files(folder, REGION_PREFIX, grace_seconds, _writer_alive)
    return removed + remove_stale_files(folder, TEMPORARY_PREFIX)


def _cleanup_now_and_then(folder: str) -> None:
    now = time.monotonic()
    with _lock:
        if now - _last_cleanup[0] < CLEANUP_INTERVAL:
            return
        _last_cleanup[0] = now
    cleanup(folder)


def _writer_alive(name: str) -> bool:
    match = _NAME.fullmatch(name)
    if match is None:
        return True  # not a name serreg gives: leave it alone
    pid = int(match.group(1))
    return pid == os.getpid() or process_is_alive(pid)
