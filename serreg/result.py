"""SerializationResult: in-band bytes plus out-of-band buffers, as in the proposal.

The functions after the classes are serreg's own access to a result's parts
(the ClassIDHash kept apart from the in-band, the signing key): the registry,
the canonical form and the content-addressed store use them.
"""

from __future__ import annotations

from typing import Protocol, Any, Iterable, List, Optional, Union

from .errors import DeserializationError, SerializationError
from .owned_views import RELEASED_PART, own_buffers, released_part, shared_view
from .wire.frame import ALIGNMENT, HEADER_SIZE, TABLE_ENTRY, compile_to_bytes, frame_pieces, join_frame, join_section, track
from .wire.class_id import CLASS_ID_HASH_SIZE
from .wire.signing import SIGNATURE_SIZE

__all__ = ["OutOfBandBuffers", "SerializationResult"]

_TABLE_ENTRY_SIZE = TABLE_ENTRY.size
_SECTION_BODY = HEADER_SIZE + CLASS_ID_HASH_SIZE  # where a frame's in-band starts after its ClassIDHash

BytesLike = Union[bytes, bytearray, memoryview]


class BinaryWriter(Protocol):
    """What ``SerializationResult.write_to`` writes to: a binary file, socket file, BytesIO ..."""

    def write(self, data: BytesLike, /) -> object: ...


class SerializationResult:
    """What a serializer returns: an in-band byte string and out-of-band buffers.

    ``in_band_buffer`` may be bytes, bytearray, memoryview or ``None`` (empty);
    ``out_of_band_buffers`` is a list of memoryviews that are handed to the
    deserializer as they are, never copied, when the result stays in-process.
    A ``pickle.PickleBuffer`` (or a memoryview of one) is kept as a memoryview of
    the same memory that holds no buffer export of a memoryview (see
    :mod:`serreg.owned_views`): such an export could crash CPython 3.11's
    garbage collector.

    The result returned by :func:`serreg.serialize` has the ClassIDHash of its
    serializer as the first 8 bytes of ``in_band_buffer`` (the "in-band
    section" of docs/FORMAT.md), so it can be nested in another serializer's
    in-band exactly like the proposal's ``ListSerializer`` does. Internally the
    hash and the serializer's own in-band are kept apart until someone reads
    ``in_band_buffer``, so an in-process round trip never joins them.

    A result returned by ``serialize(..., key=...)`` is *signed*: its frame
    (``to_bytes``, ``write_to``) carries an HMAC-SHA256 trailer under that key.
    """

    # _frame: None, or the frame (``to_bytes``) of this result while it has no key and no buffers, as the
    # compiled codec writes it in one allocation; its in-band section is then _frame[HEADER_SIZE:], and
    # _in_band is None until Python code asks for the parts (``_split``), at the latest when the result
    # is given a list of buffers (so a reader that finds buffers finds the parts). _buffers: None stands
    # for an empty list, made when ``out_of_band_buffers`` is first read; a bytes object stands for one buffer, a
    # memoryview of it (the compiled codec's top-level bytes: the list and the view are made when Python code
    # asks for them, a compiled reader takes the bytes as they are). A result the compiled codec made with
    # neither (bytes and None only) cannot be in a reference cycle: the garbage collector does not track it
    # until it is given a container here (``track``), as CPython does with tuples and dicts of atoms.
    __slots__ = ("_in_band", "_class_hash", "_buffers", "_key", "_frame")

    def __init__(self, in_band_buffer: Optional[BytesLike] = b"", out_of_band_buffers: Optional[List[memoryview]] = None) -> None:
        self._in_band = in_band_buffer
        self._class_hash: Optional[bytes] = None
        self._buffers: Union[List[memoryview], bytes, None] = (
            [] if out_of_band_buffers is None else own_buffers(out_of_band_buffers) if out_of_band_buffers else out_of_band_buffers)
        self._key: Optional[bytes] = None
        self._frame: Optional[bytes] = None

    @property
    def out_of_band_buffers(self) -> List[memoryview]:
        """The out-of-band buffers, in order (a list the caller may change)."""
        buffers = self._buffers
        if buffers is None:
            self._split()
            buffers = self._buffers = []
            track(self)
        elif buffers.__class__ is bytes:
            buffers = self._buffers = [memoryview(buffers)]
            track(self)
        return buffers  # type: ignore[return-value]  # (bytes only as the stand-in, replaced above)

    @out_of_band_buffers.setter
    def out_of_band_buffers(self, buffers: List[memoryview]) -> None:
        self._split()
        self._buffers = own_buffers(buffers) if buffers else buffers
        track(self)

    @property
    def signed(self) -> bool:
        """True if this result's frame is signed (it came from ``serialize(..., key=...)``)."""
        return self._key is not None

    def _split(self) -> None:
        """Give _in_band its value when the result was written as a frame (the parts read from it)."""
        if self._in_band is None and self._frame is not None:
            self._in_band = self._frame[_SECTION_BODY:]

    @property
    def in_band_buffer(self) -> Optional[BytesLike]:
        if self._class_hash is not None:
            frame, in_band = self._frame, self._in_band
            # the in-band section: one slice of the frame when there is one, else the hash and the rest joined
            self._in_band = frame[HEADER_SIZE:] if frame is not None else self._class_hash + (in_band if in_band is not None else b"")
            self._class_hash = None
        return self._in_band

    @in_band_buffer.setter
    def in_band_buffer(self, value: Optional[BytesLike]) -> None:
        self._in_band = value
        self._class_hash = None
        self._frame = None
        track(self)

    def _in_band_parts(self) -> list[BytesLike]:
        self._split()
        parts: list[BytesLike] = [] if self._class_hash is None else [self._class_hash]
        if self._in_band is not None:
            parts.append(self._in_band)
        return parts

    def _buffer_views(self) -> list[memoryview]:
        views = []
        for i, buffer in enumerate(self.out_of_band_buffers):
            view = shared_view(buffer)
            if "O" in view.format:
                raise SerializationError(
                    f"out-of-band buffer {i} holds the addresses of Python objects (format {view.format!r}, e.g. a "
                    "numpy object array), not data; serializers must return buffers of bytes"
                )
            if not view.c_contiguous:
                raise DeserializationError(f"out-of-band buffer {i} is not contiguous; serializers must return contiguous buffers")
            if view.ndim != 1 or view.format != "B":
                view = view.cast("B")
            views.append(view)
        return views

    @property
    def nbytes(self) -> int:
        """The size in bytes of the contiguous frame (what ``to_bytes`` returns)."""
        try:
            return self._nbytes()
        except ValueError as error:
            _raise_if_released(self, error)
            raise

    def _nbytes(self) -> int:
        if self._frame is not None and not self._buffers and self._key is None:
            return len(self._frame)
        self._split()
        class_hash, in_band, buffers = self._class_hash, self._in_band, self.out_of_band_buffers
        in_band_len = (0 if class_hash is None else len(class_hash)) + (0 if in_band is None else len(in_band))
        if not buffers and self._key is None:
            return HEADER_SIZE + in_band_len  # frame_length's answer, without its call
        end = HEADER_SIZE + _TABLE_ENTRY_SIZE * len(buffers) + in_band_len
        for buffer in buffers:  # frame_length's loop, without building the list of lengths and calling it
            end = ((end + ALIGNMENT - 1) & -ALIGNMENT) + (buffer.nbytes if type(buffer) is memoryview else shared_view(buffer).nbytes)
        return end if self._key is None else end + SIGNATURE_SIZE

    def to_bytes(self) -> bytes:
        """Return the contiguous frame (docs/FORMAT.md, section 4) as one bytes object.

        Each buffer is copied exactly once, into the result. A buffer released
        since (a memoryview's ``release()``) is a SerializationError naming it.
        """
        try:
            return self._to_bytes()
        except ValueError as error:
            _raise_if_released(self, error)
            raise

    def _to_bytes(self) -> bytes:
        if self._key is None:
            if not self._buffers:
                if self._frame is not None:
                    return self._frame  # written whole with the in-band: bytes, shared safely
                return join_section(self._class_hash, self._in_band)
            return join_frame(self._in_band_parts(), self._buffer_views())
        pieces, _ = frame_pieces(self._in_band_parts(), self._buffer_views(), self._key)
        return b"".join(pieces)

    def write_to(self, file: BinaryWriter) -> int:
        """Write the contiguous frame to a binary file object; return the bytes written.

        The buffers are written one by one, never joined into one object first.
        """
        try:
            pieces, total = frame_pieces(self._in_band_parts(), self._buffer_views(), self._key)
        except ValueError as error:
            _raise_if_released(self, error)
            raise
        for piece in pieces:
            file.write(piece)
        return total

    def __repr__(self) -> str:
        if released(self) is not None:
            return f"SerializationResult(its {released(self)} was released)"
        in_band_len = sum(len(p) for p in self._in_band_parts())
        sizes = [shared_view(b).nbytes for b in self.out_of_band_buffers]
        return f"SerializationResult(in_band={in_band_len} bytes, out_of_band={sizes})"


def _raise_if_released(result: SerializationResult, error: ValueError) -> None:
    """Raise the SerializationError that names the part of ``result`` that was released, if one was
    (``error`` is what reading it raised); return when none was (``error`` is another error)."""
    part = released(result)
    if part is not None:
        raise SerializationError(
            f"the serialization result's {part} is a memoryview that was released: keep every buffer of a "
            "result, and the object it views, unreleased until the result is written or read"
        ) from error


# The Python ``to_bytes``; a compiled build makes ``SerializationResult.to_bytes`` a C method of the class
# (the common case, no key and no buffers, with no Python frame and no call frame of its own) that calls
# this one for anything else.
python_to_bytes = SerializationResult.to_bytes
compile_to_bytes(SerializationResult)


class OutOfBandBuffers:
    """The iterator over out-of-band buffers handed to ``Serializer.deserialize``.

    All serializers of one frame share it and take buffers strictly in order.
    It is a plain iterator (``list(oob_iterator)`` works); a serializer that
    asks for a buffer past the end gets StopIteration, which the registry turns
    into a DeserializationError naming the class ID.
    """

    __slots__ = ("_buffers", "_next")

    def __init__(self, buffers: Iterable[Any]) -> None:
        self._buffers = buffers if isinstance(buffers, (list, tuple)) else list(buffers)
        self._next = 0

    def __iter__(self) -> OutOfBandBuffers:
        return self

    def __next__(self) -> memoryview:
        i = self._next
        if i >= len(self._buffers):
            raise StopIteration
        self._next = i + 1
        buffer = self._buffers[i]
        return buffer if type(buffer) is memoryview else shared_view(buffer)

    @property
    def remaining(self) -> int:
        return len(self._buffers) - self._next

    @property
    def position(self) -> int:
        """How many buffers have been taken; ``rewind(position)`` goes back there."""
        return self._next

    def rewind(self, position: int) -> None:
        """Hand out buffers again from ``position`` (a codec that decodes a document a
        second time, to report its error the way the pure-Python codec does)."""
        if not 0 <= position <= self._next:
            raise ValueError(f"cannot rewind to buffer {position}: {self._next} taken")
        self._next = position


# The iterator handed to serializers of a value without out-of-band buffers (it never advances).
NO_BUFFERS = OutOfBandBuffers(())


# ----------------------------------------------------------------- serreg's access to the parts


def as_result(returned: object, producer: str, value: Any) -> SerializationResult:
    """What a serializer returned, as a SerializationResult: the result itself, or plain
    in-band bytes (bytes, bytearray, memoryview) as a result without out-of-band buffers.
    Anything else is a SerializationError about ``value`` that names ``producer`` (for
    example "the serializer for class ID 'myapp.Point'")."""
    if isinstance(returned, SerializationResult):
        return returned
    if isinstance(returned, (bytes, bytearray, memoryview)):
        return SerializationResult(returned)
    raise SerializationError(
        f"{producer} returned {type(returned).__name__}, not a SerializationResult or bytes", value=value
    )


def own_result_buffers(result: SerializationResult, producer: str, value: Any) -> None:
    """:func:`~serreg.owned_views.own_buffers` of the buffers of a result a serializer returned (one it may
    have added a PickleBuffer to after making it), before serreg keeps them. A part that is not a buffer
    is a SerializationError about ``value`` that names ``producer``, as in :func:`as_result`."""
    in_band = result._in_band
    if in_band is not None and in_band.__class__ is not bytes and not isinstance(in_band, (bytearray, memoryview)):
        try:
            memoryview(in_band).release()
        except TypeError:
            raise SerializationError(
                f"{producer} returned a result whose in-band is {type(in_band).__name__}, not bytes", value=value
            ) from None
    buffers = result._buffers
    if buffers:
        try:
            result._buffers = own_buffers(buffers if buffers.__class__ is not bytes else result.out_of_band_buffers, True)
        except TypeError as error:
            raise SerializationError(f"{producer} returned a result whose {error}", value=value) from None


def with_class_hash(class_hash: bytes, in_band: Any, buffers: list[Any], key: Optional[bytes] = None) -> SerializationResult:
    """A result whose in-band section is ``class_hash`` + ``in_band``, kept apart until read;
    signed with ``key`` when one is given."""
    result = SerializationResult.__new__(SerializationResult)
    result._in_band = in_band
    result._class_hash = class_hash
    result._buffers = buffers
    result._key = key
    result._frame = None
    return result


def sections(result: SerializationResult) -> tuple[Any, Any]:
    """(ClassIDHash or None, in-band): the hash is None when it is not kept apart from the in-band."""
    result._split()
    return result._class_hash, result._in_band


def sections_and_size(result: SerializationResult) -> tuple[Any, Any, int]:
    """``sections(result)`` and ``result.nbytes``, in one call."""
    result._split()
    class_hash, in_band = result._class_hash, result._in_band
    if result._buffers or result._key is not None:
        return class_hash, in_band, result.nbytes
    return class_hash, in_band, HEADER_SIZE + (0 if class_hash is None else len(class_hash)) + (0 if in_band is None else len(in_band))


def check_unreleased(result: SerializationResult, producer: str, value: Any) -> None:
    """Refuse a result ``producer`` (say, "the serializer for class ID 'myapp.Point'") returned for
    ``value`` with a part that was released, naming the part."""
    part = released(result)
    if part is not None:
        raise SerializationError(f"{producer} returned a result whose {part} is {RELEASED_PART}", value=value)


def released(result: SerializationResult) -> Optional[str]:
    """Which part of ``result`` is a released memoryview or PickleBuffer (``"in-band buffer"``,
    ``"out-of-band buffer i"``), or None."""
    return released_part(result._in_band, result._buffers)


def signing_key(result: SerializationResult) -> Optional[bytes]:
    """The key ``result`` was signed with, or None."""
    return result._key


def in_band_parts(result: SerializationResult) -> list[BytesLike]:
    """The pieces of the in-band section, not joined."""
    return result._in_band_parts()


def buffer_views(result: SerializationResult) -> list[memoryview]:
    """The out-of-band buffers as 1-d byte memoryviews (DeserializationError if one is not contiguous)."""
    return result._buffer_views()
