"""A small content-addressed store built on the canonical form.

``Store(directory).put(value)`` returns the value's digest (``serreg.digest``)
and ``get(digest)`` gives the value back. Equal values have one digest, so
they are stored once. Out-of-band buffers of at least ``blob_threshold`` bytes
are stored as their own blobs, named by the SHA-256 of their bytes: two
values sharing an array (or an Arrow column) share its blob, which is the
Merkle link of docs/FORMAT.md, section 9.7.

Layout under ``directory``::

    values/<2 hex>/<62 hex>   one record per value digest
    blobs/<2 hex>/<62 hex>    one file per large buffer, named by SHA-256 of its bytes

A record is one msgpack array ``[1, in_band_section: bin, buffers: array]``;
each buffer is a bin holding the buffer itself or ``[length: int, sha256: bin]``
naming a blob. ``get`` reads the record and its blobs into private memory,
re-hashes the frame it rebuilds, refuses a value whose hash is not the digest
asked for (naming the damaged file), and decodes exactly those bytes in
untrusted mode: ``put`` only writes canonical values, so a record that would
need pickle (one planted in the directory) is refused, and a file that
another process changes or shortens meanwhile can neither crash the reader
(as a memory-mapped one could, with SIGBUS) nor slip unverified bytes in.
Something else planted under a record's or blob's name (a FIFO, which would
block the reader, a link to a device such as /dev/zero, a directory) is
refused before a byte is read, and so is a record, or the blobs it names,
larger than the registry's ``max_frame_size``.
``put`` checks what is already stored under the value's names and rewrites
any record or blob that is missing or damaged, so "put the value again"
repairs a store. Files are written to a temporary name (``.tmp-*``, locked
while written) and renamed, so a reader never sees half a file; a temporary
file left by a writer that was killed is removed by a later ``put`` into the
same directory (or :meth:`Store.remove_stale_temporary_files`). Several
processes may share a store.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any, Optional, Union

import msgpack

from ._default import default_registry
from .canonical.form import pieces_digest
from .errors import LimitExceededError, SerregError
from .shared_files import TEMPORARY_PREFIX, open_regular, remove_stale_files, write_atomically
from .registry import Registry
from .result import buffer_views, with_class_hash
from .wire.class_id import CLASS_ID_HASH_SIZE
from .wire.frame import frame_pieces

__all__ = ["IntegrityError", "MissingValueError", "Store", "StoreError", "TEMPORARY_PREFIX"]

RECORD_VERSION = 1
DIGEST_SIZE = 32
DEFAULT_BLOB_THRESHOLD = 65536
_HASH_CHUNK = 1 << 20
# A record's bytes beyond the frame it rebuilds: its array and bin headers (a few bytes a buffer).
_RECORD_OVERHEAD = 1 << 20

Digest = Union[bytes, str]


class StoreError(SerregError):
    """A content-addressed store could not do what was asked."""


class MissingValueError(StoreError, KeyError):
    """No value with this digest is in the store."""

    def __str__(self) -> str:  # KeyError would show the message quoted
        return str(self.args[0])


class IntegrityError(StoreError):
    """A stored record or blob does not hash to its name: the file was changed or damaged."""


class Store:
    """A directory of canonical values addressed by their digest.

    Thread- and process-safe for concurrent ``put`` and ``get``: every file is
    complete once it has its final name. Values come back from ``get`` decoded
    from private, read-only copies of their blob files (one read each), never
    from memory another process can change, and always in untrusted mode:
    a serializer of your own must be allowed with ``registry.allow_class_ids``.
    """

    def __init__(self, directory: Union[str, os.PathLike[str]], *, registry: Optional[Registry] = None,
                 blob_threshold: int = DEFAULT_BLOB_THRESHOLD) -> None:
        if registry is None:
            registry = default_registry()
        if blob_threshold < 0:
            raise ValueError(f"blob_threshold must be >= 0, not {blob_threshold}")
        self.directory = os.fspath(directory)
        self.registry = registry
        self.blob_threshold = blob_threshold
        self._values = os.path.join(self.directory, "values")
        self._blobs = os.path.join(self.directory, "blobs")
        os.makedirs(self._values, exist_ok=True)
        os.makedirs(self._blobs, exist_ok=True)

    # ------------------------------------------------------------------ writing

    def put(self, value: Any) -> bytes:
        """Store ``value`` (once, however often it is put); return its 32-byte digest.

        What is already stored under the value's names is checked, and a record or
        blob that is missing or damaged is written again: putting a value repairs it.
        Raises CanonicalFormError for a value without a canonical form.
        """
        result = self.registry.serialize(value, canonical=True)
        in_band = bytes(result.in_band_buffer or b"")
        buffers = buffer_views(result)
        pieces, _ = frame_pieces([in_band], buffers)
        digest = pieces_digest(pieces)
        entries: list[Any] = []
        for buffer in buffers:
            if buffer.nbytes >= self.blob_threshold:
                blob = hashlib.sha256(buffer).digest()
                blob_path = self._blob_path(blob)
                if not _holds(blob_path, buffer.nbytes, blob):
                    write_atomically(blob_path, [buffer])
                entries.append([buffer.nbytes, blob])
            else:
                entries.append(buffer.tobytes())
        record = msgpack.packb([RECORD_VERSION, in_band, entries], use_bin_type=True)
        record_path = self._value_path(digest)
        if not _holds(record_path, len(record), hashlib.sha256(record).digest()):
            write_atomically(record_path, [record])
        return digest

    def remove_stale_temporary_files(self) -> int:
        """Remove the temporary files that writers which died left anywhere in the store;
        return how many. (``put`` does this for each directory it writes into.)"""
        removed = 0
        for root, _, _ in os.walk(self.directory):
            removed += remove_stale_files(root, TEMPORARY_PREFIX)
        return removed

    # ------------------------------------------------------------------ reading

    def __contains__(self, digest: Digest) -> bool:
        return os.path.exists(self._value_path(_digest_bytes(digest)))

    def get(self, digest: Digest) -> Any:
        """The value stored under ``digest``; IntegrityError if any of its files was damaged.

        The value is decoded untrusted (only the allow-listed class IDs), from the
        bytes whose hash was checked.
        """
        digest = _digest_bytes(digest)
        record_path = self._value_path(digest)
        most = self.registry.limits.max_frame_size
        try:
            f, size = self._open_stored(record_path, "the value record")
        except FileNotFoundError:
            raise MissingValueError(f"no value with digest {digest.hex()} is in the store {self.directory}") from None
        with f:
            if most is not None and size > most + _RECORD_OVERHEAD:
                raise LimitExceededError(
                    f"the value record {record_path} holds {size} bytes, more than a frame of max_frame_size={most} "
                    "needs; it was not read (raise the limit with serreg.Limits(max_frame_size=...) if such "
                    "values are expected)")
            record = f.read(size + 1)
        if len(record) != size:
            raise IntegrityError(f"the value record {record_path} changed size while it was read; put the value again")
        in_band, entries = self._parse_record(record, record_path)
        claimed = sum(entry[0] for entry in entries if type(entry) is list and len(entry) == 2 and type(entry[0]) is int)
        if most is not None and claimed + len(record) > most:
            raise LimitExceededError(
                f"the value record {record_path} names blobs of {claimed} bytes in all, more than "
                f"max_frame_size={most}; none was read (raise the limit with serreg.Limits(max_frame_size=...) "
                "if such values are expected)")
        buffers = [self._load_buffer(entry, i, record_path) for i, entry in enumerate(entries)]
        pieces, _ = frame_pieces([in_band], buffers)
        if pieces_digest(pieces) != digest:
            self._blame(digest, entries, buffers, record_path)
        result = with_class_hash(in_band[:CLASS_ID_HASH_SIZE], in_band[CLASS_ID_HASH_SIZE:], buffers)
        return self.registry.deserialize(result, trusted=False)

    def _parse_record(self, record: bytes, path: str) -> tuple[bytes, list[Any]]:
        try:
            parsed = msgpack.unpackb(record, raw=False)
        except (ValueError, TypeError, msgpack.ExtraData) as error:
            raise IntegrityError(
                f"the value record {path} is damaged: not a msgpack record ({error}); put the value again to repair it"
            ) from error
        if (type(parsed) is not list or len(parsed) != 3 or parsed[0] != RECORD_VERSION
                or type(parsed[1]) is not bytes or len(parsed[1]) < CLASS_ID_HASH_SIZE or type(parsed[2]) is not list):
            raise IntegrityError(
                f"the value record {path} is damaged: expected [{RECORD_VERSION}, in-band, buffers]; "
                "put the value again to repair it"
            )
        return parsed[1], parsed[2]

    def _load_buffer(self, entry: Any, index: int, record_path: str) -> memoryview:
        if type(entry) is bytes:
            return memoryview(entry)
        if (type(entry) is not list or len(entry) != 2 or type(entry[0]) is not int
                or type(entry[1]) is not bytes or len(entry[1]) != DIGEST_SIZE):
            raise IntegrityError(
                f"the value record {record_path} is damaged: buffer {index} is {entry!r:.100}; put the value again "
                "to repair it"
            )
        length, blob = entry
        path = self._blob_path(blob)
        try:
            f, size = self._open_stored(path, f"blob (buffer {index} of the value record {record_path})")
            with f:
                if size != length:
                    raise IntegrityError(
                        f"blob {path} (buffer {index} of the value record {record_path}) holds {size} bytes, "
                        f"not {length}: it was changed or truncated; put the value again to restore it"
                    )
                data = f.read(length)  # private memory: what is hashed is what is decoded
        except FileNotFoundError:
            raise IntegrityError(
                f"blob {path} (buffer {index} of the value record {record_path}) is missing; put the value again"
            ) from None
        if len(data) != length:
            raise IntegrityError(
                f"blob {path} (buffer {index} of the value record {record_path}) was shortened while it was read; "
                "put the value again to restore it"
            )
        return memoryview(data)

    @staticmethod
    def _open_stored(path: str, what: str) -> tuple[Any, int]:
        """(open file, size) of a stored regular file; IntegrityError for anything else under its name
        (a FIFO would block the reader, a device such as /dev/zero never ends, a directory ...)."""
        try:
            return open_regular(path)
        except (ValueError, IsADirectoryError) as error:
            raise IntegrityError(f"{what} is not a file serreg wrote: {error}; put the value again "
                                 "to replace it") from error

    def _blame(self, digest: bytes, entries: Any, buffers: Any, record_path: str) -> None:
        for index, (entry, buffer) in enumerate(zip(entries, buffers)):
            if type(entry) is list and hashlib.sha256(buffer).digest() != entry[1]:
                raise IntegrityError(
                    f"blob {self._blob_path(entry[1])} (buffer {index} of the value record {record_path}) is "
                    "damaged: its bytes no longer hash to its name; put the value again to repair it"
                )
        raise IntegrityError(
            f"the value record {record_path} is damaged: its frame does not hash to {digest.hex()}; "
            "put the value again to repair it"
        )

    # ------------------------------------------------------------------ paths

    def _value_path(self, digest: bytes) -> str:
        name = digest.hex()
        return os.path.join(self._values, name[:2], name[2:])

    def _blob_path(self, blob: bytes) -> str:
        name = blob.hex()
        return os.path.join(self._blobs, name[:2], name[2:])

    def __repr__(self) -> str:
        return f"Store({self.directory!r})"


def _digest_bytes(digest: Digest) -> bytes:
    if isinstance(digest, str):
        try:
            digest = bytes.fromhex(digest)
        except ValueError:
            raise ValueError(f"a digest is 32 bytes or 64 hex characters, not {digest!r}") from None
    if not isinstance(digest, (bytes, bytearray)) or len(digest) != DIGEST_SIZE:
        raise ValueError(f"a digest is 32 bytes or 64 hex characters, not {digest!r}")
    return bytes(digest)


def _holds(path: str, size: int, sha256: bytes) -> bool:
    """True if the file at ``path`` has ``size`` bytes hashing to ``sha256`` (read in chunks)."""
    try:
        f, found = open_regular(path)
    except (FileNotFoundError, ValueError, IsADirectoryError):
        return False  # missing, or something else under its name (a FIFO ...): written again, by rename
    with f:
        if found != size:
            return False
        hasher = hashlib.sha256()
        for chunk in iter(lambda: f.read(_HASH_CHUNK), b""):
            hasher.update(chunk)
    return hasher.digest() == sha256
