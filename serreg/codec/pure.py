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

from typing import Mapping, Any, Callable, Optional, Protocol

from msgpack import Packer, Timestamp, Unpacker, unpackb
from msgpack.exceptions import ExtraData, OutOfData, StackError

from .._registry.paths import locate
from ..owned_views import RELEASED_VALUE, is_released
from ..errors import DeserializationError, LimitExceededError, SerializationError, SerregError
from ..limits import DECODE_STATE, MSGPACK_MAX_NESTING
from ..structs.lists import read_struct_list
from ..structs.scope import DECODE_SCOPE, IMPLICIT_TABLES, read_instance
from ..result import NO_BUFFERS, OutOfBandBuffers
from ..wire.class_id import CLASS_ID_HASH_SIZE
from .checks import STRUCTURE_CHECK_THRESHOLD, TIMESTAMP, check_structure, dict_from_pairs, refuse_timestamps
from .layout import MAX_NESTING, NESTED_EXT_TYPE, STRUCT_EXT_TYPE, STRUCT_LIST_EXT_TYPE
from .pack_state import EncodeNested, PackState, check_whole, substitute
from .scan import holds_any
from .stack import READ_DEPTH, WRITE_DEPTH, roomy
from .top import TopLevelEntries

__all__ = ["DecodeNested", "MsgpackCodec", "SnapshotSource"]

# Decodes one nested value: (ClassIDHash, serializer in-band, the shared buffers, byte offset or None) -> value.
DecodeNested = Callable[[bytes, memoryview, OutOfBandBuffers, Optional[int]], object]



class _Snapshot(Protocol):
    @property
    def rewritten_types(self) -> tuple[type, ...]: ...
    @property
    def ext_writers(self) -> Mapping[type, Callable[..., Any]]: ...
    @property
    def list_writers(self) -> Mapping[type, Callable[..., Any]]: ...
    @property
    def packed_as_is(self) -> Mapping[type, bytes]: ...
    @property
    def unpacked_as_is(self) -> Mapping[bytes, type]: ...


class SnapshotSource(Protocol):
    """Where the codec reads, per pack, the types msgpack would pack by itself but must not
    (bytearray, memoryview, and the native types a user has registered a serializer for)."""

    @property
    def snapshot(self) -> _Snapshot: ...


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
        self._idle: list[Any] = []  # (Packer, _PackState) pairs not in use by any thread
        entries = TopLevelEntries(self.unpack, snapshots)
        self.serialize_top = entries.serialize_top
        self.unpack_top = entries.unpack_top
        self.bind_registry = entries.bind_registry
        self.bind_decoder = entries.bind_decoder
        self.top_value = entries.top_value
        self.bind_implicit = entries.bind_implicit
        self.publish_implicit = entries.publish_implicit
        self.publish_implicit_read = entries.publish_implicit_read

    def _new_packer(self) -> tuple[Any, ...]:
        state = PackState(self._encode_nested)
        return Packer(default=state.nested, strict_types=True, use_bin_type=True, autoreset=True), state

    def pack(self, obj: Any, oob: list[Any]) -> bytes:
        """Pack ``obj`` into msgpack bytes; nested buffers are appended to ``oob``. A list of struct
        instances of one definition, ``obj`` itself included, is written as ext 2 (10.3)."""
        return self._pack(obj, oob, True)

    def pack_array(self, items: Any, oob: list[Any]) -> bytes:
        """Pack the sequence ``items`` as a msgpack array, never as ext 2 (a tuple's in-band, 10.3)."""
        return self._pack(list(items), oob, False)

    def _pack(self, obj: Any, oob: list[Any], list_value: bool) -> bytes:
        idle = self._idle
        try:
            packer, state = entry = idle.pop()  # list.pop and append are atomic: no lock needed
        except IndexError:
            packer, state = entry = self._new_packer()  # none idle (first call, or a nested pack)
        state.oob = oob
        packed: Optional[bytes] = None
        try:
            state.use(IMPLICIT_TABLES.get() or self._snapshots.snapshot)
            if holds_any(obj, state.scan):
                obj = substitute(obj, state.rewritten, state.struct_list, root=True, list_value=list_value)
            calls = state.calls
            plain = WRITE_DEPTH.enter_plain(obj)  # the C stack of the Packer's walk, counted on a small stack
            try:
                packed = packer.pack(obj)  # msgpack empties the Packer's buffer when pack() raises
            finally:
                WRITE_DEPTH.leave_plain(plain)
            if state.calls != calls:  # Python code ran meanwhile: the value may have changed under msgpack
                check_whole(packed)
            return packed
        except SerregError:
            raise
        except (ValueError, TypeError, OverflowError, UnicodeEncodeError) as error:
            raise _explain_pack_error(obj, error) from error
        finally:
            state.oob = None
            if len(idle) < _MAX_IDLE_PACKERS and (packed is None or len(packed) <= _KEEP_PACKER_MAX_OUTPUT):
                idle.append(entry)

    def ext_hook_without_buffers(self, code: int, payload: bytes) -> Any:
        """The ext hook for in-band data known to have no out-of-band buffers (an in-process
        result without any): one bound method instead of a closure per call."""
        if code != NESTED_EXT_TYPE or len(payload) < CLASS_ID_HASH_SIZE:
            raise DeserializationError("not a nested value")  # the caller retries on the full path
        return self._decode_nested(payload[:CLASS_ID_HASH_SIZE], memoryview(payload)[CLASS_ID_HASH_SIZE:], NO_BUFFERS, None)

    def explain_pack_error(self, obj: Any, error: Exception) -> SerializationError:
        """The SerializationError pack() raises when packing ``obj`` failed with ``error``."""
        return _explain_pack_error(obj, error)

    @staticmethod
    def _unpack_struct(payload: Any, ext_hook: Any, state: Any, untrusted: bool, code: int = STRUCT_EXT_TYPE) -> Any:
        """One ext 1 (a struct instance, section 10.3) or ext 2 (a list of instances, whose instances are one
        level deeper as ext 1 in an array would be), counted as a nested value against max_depth before its
        payload is unpacked (instances may nest inside each other)."""
        depth = state.depth + 1 if state is not None else 1
        if state is not None:
            if depth > state.max_depth:
                raise LimitExceededError(
                    f"values are nested more than max_depth={state.max_depth} deep (struct instances); raise it "
                    "with serreg.Limits(max_depth=...) if such values are expected"
                )
            if depth > READ_DEPTH.most:
                raise _too_deep_for_the_stack()
            state.depth = depth
        try:
            if untrusted:
                if len(payload) > STRUCTURE_CHECK_THRESHOLD:
                    check_structure(payload)
            if code == STRUCT_LIST_EXT_TYPE:
                return read_struct_list(payload, ext_hook, dict_from_pairs if untrusted else None)
            # On the heap, like nested values: struct instances nest inside each other.
            items = _unpack_on_heap(payload, ext_hook, dict_from_pairs if untrusted else None)
            return read_instance(items)
        finally:
            if state is not None:
                state.depth = depth - 1

    def unpack(self, data: Any, oob: Any, plain_only: bool = False) -> Any:
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
        scope = DECODE_SCOPE.get()
        leaves = scope.leaves if scope is not None else ()

        def ext_hook(code: int, payload: bytes) -> Any:
            if plain_only:
                raise _NestedFound
            if code == STRUCT_EXT_TYPE:
                # A struct of plain scalars (fixarray, index < 128): nothing in it can nest, so it is
                # unpacked without a hook (an ext inside fails the field's type check) and not counted.
                if len(payload) > 1 and 0x91 <= payload[0] <= 0x9F and payload[1] < len(leaves):
                    reader = leaves[payload[1]]
                    if reader is not None:
                        try:
                            items = unpackb(payload)
                        except ExtraData as error:
                            raise _extra_data(len(payload), len(payload) - len(error.extra)) from None
                        return reader(items)
                return self._unpack_struct(payload, ext_hook, state, untrusted)
            if code == STRUCT_LIST_EXT_TYPE:
                return self._unpack_struct(payload, ext_hook, state, untrusted, code)
            if code != NESTED_EXT_TYPE:
                raise DeserializationError(
                    f"msgpack ext type {code} is not used by serreg (only ext 0, nested value, ext 1, struct, and "
                    "ext 2, list of structs)"
                )
            if len(payload) < CLASS_ID_HASH_SIZE:
                raise DeserializationError(
                    f"nested value of {len(payload)} bytes is too short to hold a ClassIDHash"
                )
            if state is not None and state.depth >= READ_DEPTH.most:
                raise _too_deep_for_the_stack()
            value = decode_nested(payload[:CLASS_ID_HASH_SIZE], memoryview(payload)[CLASS_ID_HASH_SIZE:], oob, None)
            kind = type(value)
            if kind is Timestamp or ((kind is list or kind is dict) and holds_any(value, TIMESTAMP)):
                nested_timestamps.append(value)
            return value

        try:
            try:
                # raw=False and use_list=True are msgpack's defaults (>= 1.0); not passing them saves a little per call.
                if state is not None and state.depth > 1 and not roomy(state.depth):
                    value = _unpack_on_heap(data, ext_hook, dict_from_pairs if untrusted else None)
                elif untrusted:
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
            except OutOfData as error:
                raise DeserializationError("invalid msgpack in-band data: it ends inside a value") from error
            except ExtraData as error:
                raise _extra_data(len(data), len(data) - len(error.extra)) from None
            except StopIteration as error:
                raise DeserializationError("a nested serializer asked for more out-of-band buffers than the frame holds") from error
            except (ValueError, TypeError, UnicodeDecodeError) as error:
                if type(error) is ValueError and str(error) == _UNPACKB_CUT_SHORT:
                    raise DeserializationError("invalid msgpack in-band data: it ends inside a value") from error
                raise DeserializationError(f"invalid msgpack in-band data: {type(error).__name__}: {error}") from error
        finally:
            # The hook names itself (for struct instances inside struct instances): without this the
            # cycle would keep the frame's buffers (say, a memory map's) alive until a garbage collection.
            del ext_hook
        if plain_only and holds_any(value, TIMESTAMP):
            return NotImplemented  # ext -1, which msgpack decodes without asking the hook
        refuse_timestamps(value, nested_timestamps)
        return value


# What unpackb says of a document cut short, where an Unpacker raises OutOfData: both are worded
# "it ends inside a value" (as the compiled codec words it), whichever reader met it.
_UNPACKB_CUT_SHORT = "Unpack failed: incomplete input"


class _NestedFound(Exception):
    """Raised by the ext hook of ``unpack(..., plain_only=True)``."""






def _unpack_on_heap(data: Any, ext_hook: Any, pairs_hook: Any) -> Any:
    """``unpackb`` for a nested value on a thread whose stack has no room for another unpackb
    (serreg/codec/stack.py): an Unpacker keeps msgpack's parse stack in its own object on the
    heap, so the level costs the thread only a few call frames."""
    size = len(data)
    unpacker = Unpacker(None, ext_hook=ext_hook, strict_map_key=False, object_pairs_hook=pairs_hook,
                        max_buffer_size=max(size, 1))
    unpacker.feed(data)
    value = unpacker.unpack()
    if unpacker.tell() != size:
        raise _extra_data(size, unpacker.tell())
    return value


def _extra_data(size: int, used: int) -> DeserializationError:
    """The error for a document of ``size`` bytes whose one value ends at byte ``used``: the same
    whichever msgpack reader found it (unpackb or an Unpacker on the heap), and the same words as
    the compiled codec's (serreg/codec/_core_decode.h), which counts from the same document start
    (an ext 1 payload, a nested value's in-band)."""
    return DeserializationError(
        f"invalid msgpack in-band data: {size - used} bytes of extra data after the value, "
        f"which ends at byte {used} of {size}"
    )


def _explain_pack_error(obj: Any, error: Exception) -> SerializationError:
    message = str(error)
    if "recursion limit" in message or isinstance(error, RecursionError):
        return SerializationError(
            f"value is nested more than {MAX_NESTING} levels deep or contains itself", path="obj"
        )
    if isinstance(error, UnicodeEncodeError):
        path = locate(obj, _is_unencodable_str)
        return SerializationError(f"str is not valid UTF-8 text ({error.reason}); encode it or pass bytes", path=path)
    if isinstance(error, ValueError):
        path = locate(obj, is_released)
        if path is not None:
            return SerializationError(RELEASED_VALUE, path=path)
    return SerializationError(f"msgpack could not pack the value: {type(error).__name__}: {message}", path="obj")


def _too_deep_for_the_stack() -> LimitExceededError:
    return LimitExceededError(
        f"values are nested more than {READ_DEPTH.most} deep, as deep as this thread's C stack "
        f"({READ_DEPTH.size // 1024} KiB) holds; read them on a thread with a larger stack (threading.stack_size)"
    )


def _is_unencodable_str(value: Any) -> bool:
    if type(value) is not str:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
