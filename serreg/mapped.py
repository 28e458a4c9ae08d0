"""Frames in files, read in place: ``serreg.dump(value, path)`` and ``serreg.load(path)``.

``dump`` writes a value's frame straight into a file: the header, the in-band
section and then each out-of-band buffer at its 64-byte-aligned offset, one
piece after the other from the value's own memory (no joined copy of the
frame). It writes to a temporary name and renames, so the file at ``path`` is
always whole, and a file someone has mapped is never changed or shortened in
place by a later ``dump`` to the same path (the name moves to the new file).

``load`` maps the file read-only and deserializes it with every out-of-band
buffer (arrays, Arrow buffers, bytes-like values) a read-only view of the
mapping: nothing is copied, the pages are read when the value is. Before
mapping, the file's size is checked against the frame header (a truncated or
grown file is a ``DeserializationError`` naming the file, never a SIGBUS) and
against ``Limits.max_frame_size``; the whole layout is then checked as for any
frame. A file is memory another process can write, so ``load`` is untrusted by
default (``trusted=True`` to decode pickled values from a writer you trust);
with ``key=`` the frame is verified and decoded from a private copy
(docs/FORMAT.md, section 4.2), and ``mmap=False`` reads the file into private
memory.

What mapping cannot protect against: a process that shortens the file *in
place* (``truncate``, ``open(path, "w")``) while a value loaded from it is
still in use makes the next read of a page past the new end raise SIGBUS in
the reader, as with any memory-mapped file. serreg itself never does this
(``dump`` renames, ``serreg.shm`` only unlinks); use ``mmap=False`` for files
that others may rewrite in place.
"""

from __future__ import annotations

import mmap as _mmap
import os
from typing import IO, Any, Optional, Union

from ._default import default_registry
from .errors import DeserializationError
from .shared_files import lock_shared, open_regular, write_atomically
from .limits import Limits
from .registry import Registry
from .result import SerializationResult
from .result import buffer_views, in_band_parts, signing_key
from .wire.frame import HEADER, HEADER_SIZE, MAGIC, check_frame_size, frame_pieces

__all__ = ["create_mapped", "dump", "load", "map_frame", "write_result"]

PathLike = Union[str, "os.PathLike[str]"]


def dump(value: Any, path: PathLike, *, registry: Optional[Registry] = None, key: Optional[bytes] = None,
         cross_language: bool = False) -> int:
    """Write ``value``'s frame into the file ``path`` (replaced whole); return the frame's length.

    The buffers go from the value's memory to the file without an intermediate
    copy. ``key`` signs the frame; ``cross_language=True`` refuses values that
    would need the Python-only fallback. The file is created readable and
    writable by its owner only (mode 0600, like ``tempfile.mkstemp``): chmod it
    to share it with other users.
    """
    registry = default_registry() if registry is None else registry
    result = registry.serialize(value, cross_language=cross_language, key=key)
    return write_result(result, os.fspath(path))


def write_result(result: SerializationResult, path: str, *, mode: Optional[int] = None, clean: bool = True) -> int:
    """Write a SerializationResult's frame into ``path`` piece by piece (renamed into place when whole)."""
    pieces, total = frame_pieces(in_band_parts(result), buffer_views(result), signing_key(result))
    write_atomically(path, pieces, mode=mode, clean=clean)
    return total


def create_mapped(result: SerializationResult, path: str, *,
                  mode: Optional[int] = None) -> tuple[_mmap.mmap, int]:
    """Write a one-buffer result's frame into ``path`` *without* its buffer's bytes (the file is
    extended with zeros, which a RAM-backed file system does not allocate until written) and
    return ``(writable mapping of the whole file, frame length)``: the caller fills the buffer,
    the last ``nbytes`` of the mapping, in place. The file is renamed into place at once.
    """
    pieces, total = frame_pieces(in_band_parts(result), buffer_views(result), signing_key(result))
    data = pieces.pop()  # the buffer: left as zeros
    head = sum(len(memoryview(piece).cast("B")) for piece in pieces)
    if head + memoryview(data).nbytes != total:
        raise ValueError("create_mapped takes a result whose frame ends with its one buffer (unsigned)")
    fds: list[int] = []
    mappings: list[_mmap.mmap] = []

    def extend_and_map(f: IO[bytes], temporary: str) -> None:
        f.truncate(total)
        # A descriptor of its own, locked shared once the writer's exclusive lock is gone (with
        # the rename): the mapping then keeps the region in use, as a reader's does.
        fds.append(os.open(temporary, os.O_RDWR | getattr(os, "O_CLOEXEC", 0)))
        mappings.append(_mmap.mmap(fds[0], total, access=_mmap.ACCESS_WRITE))

    try:
        write_atomically(path, pieces, mode=mode, clean=False, before_rename=extend_and_map)
        lock_shared(fds[0])
    finally:
        for fd in fds:
            os.close(fd)
    return mappings[0], total


def load(path: PathLike, *, mmap: bool = True, trusted: bool = False, key: Optional[bytes] = None,
         limits: Optional[Limits] = None, registry: Optional[Registry] = None) -> Any:
    """The value in the frame file ``path``, its buffers read-only views of the mapped file.

    ``trusted`` is False by default: a file is memory another process can write.
    ``mmap=False`` reads the file into private memory instead of mapping it.
    """
    registry = default_registry() if registry is None else registry
    limits = registry.limits if limits is None else limits
    where = os.fspath(path)
    data: Union[_mmap.mmap, bytes]
    try:
        f, _ = open_regular(where)  # a FIFO would block, a device never end
    except ValueError as error:
        raise DeserializationError(f"{error}: not a frame file; nothing was read", offset=0) from error
    with f:
        if mmap:
            data = map_frame(f.fileno(), limits, where)
        else:
            data = _read_frame(f, limits, where)
    return registry.deserialize(data, trusted=trusted, key=key, limits=limits)


def map_frame(fd: int, limits: Limits, where: str, expected_size: Optional[int] = None) -> _mmap.mmap:
    """Map the frame in the open file ``fd`` read-only, after checking its size against its header.

    ``expected_size``: the size the file must have (a shared-memory handle
    records it), so a region shortened or grown since it was written is refused
    before it is mapped.
    """
    size = os.fstat(fd).st_size
    if expected_size is not None and size != expected_size:
        raise DeserializationError(
            f"{where} holds {size} bytes, but its frame was written with {expected_size}: "
            "another process shortened, grew or replaced it; nothing was mapped",
            offset=min(size, expected_size),
        )
    _check_header(_read_header(fd), size, limits, where)
    return _mmap.mmap(fd, size, access=_mmap.ACCESS_READ)


def _read_frame(f: IO[bytes], limits: Limits, where: str) -> bytes:
    size = os.fstat(f.fileno()).st_size
    _check_header(_read_header(f.fileno()), size, limits, where)
    f.seek(0)
    data = f.read(size)
    if len(data) != size:
        raise DeserializationError(
            f"{where} was shortened to {len(data)} bytes while it was read (its frame is {size} bytes)",
            offset=len(data),
        )
    return data


def _read_header(fd: int) -> bytes:
    if hasattr(os, "pread"):
        return bytes(os.pread(fd, HEADER_SIZE, 0))
    os.lseek(fd, 0, os.SEEK_SET)  # no pread (Windows): the descriptor is ours, its position free
    return os.read(fd, HEADER_SIZE)


def _check_header(header: bytes, size: int, limits: Limits, where: str) -> None:
    """The file holds exactly one whole frame: what can be known from the header before mapping."""
    if size < HEADER_SIZE or len(header) < HEADER_SIZE:
        raise DeserializationError(
            f"{where} holds {size} bytes, too short for a serreg frame's {HEADER_SIZE}-byte header "
            "(truncated, or not a frame)",
            offset=min(size, len(header)),
        )
    magic, total = header[:4], HEADER.unpack(header)[7]
    if magic != MAGIC:
        raise DeserializationError(f"{where} is not a serreg frame: it starts with {magic!r}", offset=0)
    check_frame_size(total, limits)
    if total != size:
        state = "truncated" if total > size else "followed by other data"
        raise DeserializationError(
            f"{where} holds {size} bytes, but its frame header says the frame is {total} bytes: the file "
            f"is {state}; nothing was mapped",
            offset=24,
        )
