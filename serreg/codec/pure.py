"""The msgpack in-band codec shared by the standard serializers (the pure-Python one).

Values msgpack has a type for (None, bool, int, float, str, bytes, list,
dict) are written as plain msgpack, with no per-element header. Every other
value is handed to its registered serializer and written as msgpack ext type 0
whose payload is the ClassIDHash followed by that serializer's in-band bytes;
its out-of-band buffers join the shared list at that moment, so document order
is buffer order (docs/FORMAT.md, section 3).

The codec knows no Registry: it is given the two callables that run a nested
value through its serializer (``encode_nested``, ``decode_nested``) and where
to read the types it must not let msgpack pack by itself (``snapshots``).
"""

from __future__ import annotations

from typing import Callable, Optional, Protocol

from msgpack import ExtType, Packer, Timestamp, unpackb
from msgpack.exceptions import StackError

from .._registry.paths import locate
from ..errors import DeserializationError, LimitExceededError, SerializationError, SerregError
from ..limits import DECODE_STATE, MSGPACK_MAX_NESTING
from ..result import NO_BUFFERS, OutOfBandBuffers, SerializationResult
from ..wire.class_id import CLASS_ID_HASH_SIZE
from .checks import STRUCTURE_CHECK_THRESHOLD, TIMESTAMP, check_structure, dict_from_pairs, refuse_timestamps
from .layout import MAX_NESTING, NESTED_EXT_TYPE
from .scan import holds_any

# Runs one nested value through its serializer: (its ClassIDHash, its serializer's result).
EncodeNested = Callable[[object], "tuple[bytes, SerializationResult]"]
# Decodes one nested value: (ClassIDHash, serializer in-band, the shared buffers, byte offset or None) -> value.
DecodeNested = Callable[[bytes, memoryview, OutOfBandBuffers, Optional[int]], object]



class _Snapshot(Protocol):
    rewritten_types: tuple


class SnapshotSource(Protocol):
    """Where the codec reads, per pack, the types msgpack would pack by itself but must not
    (bytearray, memoryview, and the native types a user has registered a serializer for)."""

    snapshot: _Snapshot


# What msgpack packs by itself (bytearray and memoryview aside, see scan.py).
_PACKED_BY_MSGPACK = frozenset((type(None), bool, int, float, str, bytes, list, dict))


class _PackState:
    """What a Packer's ``default`` needs to know about the pack() call it serves."""

    __slots__ = ("encode_nested", "oob")

    def __init__(self, encode_nested: EncodeNested) -> None:
        self.encode_nested = encode_nested
        self.oob: Optional[list] = None

    def nested(self, value) -> ExtType:
        class_hash, result = self.encode_nested(value)
        self.oob.extend(result.out_of_band_buffers)
        in_band = result.in_band_buffer
        # bytes + any in-band gives bytes, so ExtType's own argument checks (run in
        # Python, once per nested value) are skipped through the namedtuple's _make.
        return _make_ext((NESTED_EXT_TYPE, class_hash + in_band if in_band else class_hash))


_make_ext = ExtType._make

# A Packer whose output grew past this is dropped after use instead of kept for the
# next call, so a thread does not hold on to the buffer of one large value.
_KEEP_PACKER_MAX_OUTPUT = 1 << 20
# Idle Packers kept for reuse (each holds a 256 KiB buffer); deep nesting makes more, briefly.
_MAX_IDLE_PACKERS = 8


class MsgpackCodec:
    """Packs and unpacks value trees for one registry.

    ``encode_nested(value)`` serializes a value msgpack cannot pack by itself
    and returns its ClassIDHash and result; ``decode_nested(class_hash,
    in_band, oob, offset)`` decodes a nested value; ``snapshots.snapshot.
    rewritten_types`` are the types msgpack would pack by itself but must not
    (the registry's table, read once per pack).

    Thread safety: pack() takes an idle msgpack Packer from a shared pool and
    puts it back when done (creating a Packer allocates a 256 KiB buffer, which
    cost more than packing a small value); a pack() that finds none idle, such
    as one nested inside another, makes a new one.
    """

    def __init__(self, encode_nested: EncodeNested, decode_nested: DecodeNested, snapshots: SnapshotSource) -> None:
        self._encode_nested = encode_nested
        self._decode_nested = decode_nested
        self._snapshots = snapshots
        self._idle: list = []  # (Packer, _PackState) pairs not in use by any thread

    def _new_packer(self) -> tuple:
        state = _PackState(self._encode_nested)
        return Packer(default=state.nested, strict_types=True, use_bin_type=True, autoreset=True), state

    def pack(self, obj, oob: list) -> bytes:
        """Pack ``obj`` into msgpack bytes; nested buffers are appended to ``oob``."""
        idle = self._idle
        try:
            packer, state = entry = idle.pop()  # list.pop and append are atomic: no lock needed
        except IndexError:
            packer, state = entry = self._new_packer()  # none idle (first call, or a nested pack)
        state.oob = oob
        packed = None
        try:
            rewrite = self._snapshots.snapshot.rewritten_types
            if holds_any(obj, rewrite):
                obj = _substitute(obj, frozenset(rewrite), state.nested, root=True)
            packed = packer.pack(obj)  # msgpack empties the Packer's buffer when pack() raises
            return packed
        except SerregError:
            raise
        except (ValueError, TypeError, OverflowError, UnicodeEncodeError) as error:
            raise _explain_pack_error(obj, error) from error
        finally:
            state.oob = None
            if len(idle) < _MAX_IDLE_PACKERS and (packed is None or len(packed) <= _KEEP_PACKER_MAX_OUTPUT):
                idle.append(entry)

    def explain_pack_error(self, obj, error: Exception) -> SerializationError:
        """The SerializationError pack() raises when packing ``obj`` failed with ``error``."""
        return _explain_pack_error(obj, error)

    def unpack(self, data, oob, plain_only: bool = False):
        """Unpack one msgpack value; nested values are decoded by their serializers.

        With ``plain_only`` the document must hold plain msgpack only: at the
        first ext value (nested or not) the answer is NotImplemented.

        msgpack never accepts a declared length larger than the bytes it reads
        from. In untrusted mode a longer document is first walked without
        building anything, so containers that declare more items than follow
        are rejected before any list is allocated for them.
        """
        decode_nested = self._decode_nested
        state = DECODE_STATE.get()
        untrusted = state is not None and state.allowed is not None
        if untrusted and len(data) > STRUCTURE_CHECK_THRESHOLD:
            check_structure(data)

        nested_timestamps = []  # nested values that are or hold a Timestamp of their own (say, from pickle)

        def ext_hook(code, payload):
            if plain_only:
                raise _NestedFound
            if code != NESTED_EXT_TYPE:
                raise DeserializationError(f"msgpack ext type {code} is not used by serreg (only ext type 0, nested value)")
            if len(payload) < CLASS_ID_HASH_SIZE:
                raise DeserializationError(
                    f"nested value of {len(payload)} bytes is too short to hold a ClassIDHash"
                )
            value = decode_nested(payload[:CLASS_ID_HASH_SIZE], memoryview(payload)[CLASS_ID_HASH_SIZE:], oob, None)
            kind = type(value)
            if kind is Timestamp or ((kind is list or kind is dict) and holds_any(value, TIMESTAMP)):
                nested_timestamps.append(value)
            return value

        try:
            # raw=False and use_list=True are msgpack's defaults (>= 1.0); not passing them saves a little per call.
            if untrusted:
                value = unpackb(data, ext_hook=ext_hook, strict_map_key=False, object_pairs_hook=dict_from_pairs)
            else:
                value = unpackb(data, ext_hook=ext_hook, strict_map_key=False)
        except _NestedFound:
            return NotImplemented
        except SerregError:
            raise
        except RecursionError as error:
            raise DeserializationError("nested values are too deep to decode") from error
        except StackError as error:
            raise LimitExceededError(
                f"msgpack containers are nested more than {MSGPACK_MAX_NESTING} deep (msgpack's own limit)"
            ) from error
        except StopIteration as error:
            raise DeserializationError("a nested serializer asked for more out-of-band buffers than the frame holds") from error
        except (ValueError, TypeError, UnicodeDecodeError) as error:
            raise DeserializationError(f"invalid msgpack in-band data: {type(error).__name__}: {error}") from error
        if plain_only and holds_any(value, TIMESTAMP):
            return NotImplemented  # ext -1, which msgpack decodes without asking the hook
        refuse_timestamps(value, nested_timestamps)
        return value


class _NestedFound(Exception):
    """Raised by the ext hook of ``unpack(..., plain_only=True)``."""




def _substitute(obj, rewritten: frozenset, nested, root: bool = False):
    """Replace the values msgpack would pack by itself, but must not, by ext values.

    msgpack packs bytearray and memoryview as bin (they would come back as
    bytes), and list, dict, str ... without asking, so a user override of one
    of those is invisible to it. The codec rewrites a tree only when the scan
    found such a value in it. The root is the value being packed by its own
    serializer, so it is never replaced.
    """
    kind = type(obj)
    if not root and (kind in rewritten or kind not in _PACKED_BY_MSGPACK):
        # Every value with a serializer is turned into ext here, in document order,
        # so out-of-band buffers keep the order a reader consumes them in.
        return nested(obj)
    if kind is list:
        return [_substitute(item, rewritten, nested) for item in obj]
    if kind is dict:
        return {_substitute(k, rewritten, nested): _substitute(v, rewritten, nested) for k, v in obj.items()}
    return obj


def _explain_pack_error(obj, error: Exception) -> SerializationError:
    message = str(error)
    if "recursion limit" in message or isinstance(error, RecursionError):
        return SerializationError(
            f"value is nested more than {MAX_NESTING} levels deep or contains itself", path="obj"
        )
    if isinstance(error, UnicodeEncodeError):
        path = locate(obj, _is_unencodable_str)
        return SerializationError(f"str is not valid UTF-8 text ({error.reason}); encode it or pass bytes", path=path)
    return SerializationError(f"msgpack could not pack the value: {type(error).__name__}: {message}", path="obj")


def _is_unencodable_str(value) -> bool:
    if type(value) is not str:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
