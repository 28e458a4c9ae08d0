"""The msgpack in-band codec shared by the standard serializers.

Values msgpack has a type for (None, bool, int, float, str, bytes, list,
dict) are written as plain msgpack, with no per-element header. Every other
value is handed to its registered serializer and written as msgpack ext type 0
whose payload is the ClassIDHash followed by that serializer's in-band bytes;
its out-of-band buffers join the shared list at that moment, so document order
is buffer order (docs/FORMAT.md, section 3).
"""

from __future__ import annotations

from collections import Counter

from msgpack import ExtType, Packer, Unpacker, unpackb
from msgpack.exceptions import StackError

from .class_id import CLASS_ID_HASH_SIZE
from .errors import DeserializationError, LimitExceededError, SerializationError, SerregError
from .limits import DECODE_STATE, MSGPACK_MAX_NESTING
from .paths import locate
from .result import NO_BUFFERS
from .scan import holds_any

NESTED_EXT_TYPE = 0

# What msgpack packs by itself (bytearray and memoryview aside, see scan.py).
_PACKED_BY_MSGPACK = frozenset((type(None), bool, int, float, str, bytes, list, dict))

# msgpack's own nesting limit; deeper values raise a clear SerializationError.
MAX_NESTING = 511

# Untrusted in-bands longer than this have their structure checked before any object
# is built (see MsgpackCodec.unpack); below it the worst case is a few MiB.
STRUCTURE_CHECK_THRESHOLD = 1024

# In untrusted mode a map or set in which more keys than this repeat a hash value is
# refused: Python builds such a dict in quadratic time (hash flooding), and big ints and
# decimals make any number of keys with equal hashes cheap to write.
MAX_KEYS_PER_HASH = 64


class _PackState:
    """What a Packer's ``default`` needs to know about the pack() call it serves."""

    __slots__ = ("registry", "oob")

    def __init__(self, registry) -> None:
        self.registry = registry
        self.oob = None

    def nested(self, value) -> ExtType:
        registration, result = self.registry._serialize_nested(value)
        self.oob.extend(result.out_of_band_buffers)
        in_band = result.in_band_buffer
        # bytes + any in-band gives bytes, so ExtType's own argument checks (run in
        # Python, once per nested value) are skipped through the namedtuple's _make.
        return _make_ext((NESTED_EXT_TYPE, registration.class_hash + in_band if in_band else registration.class_hash))


_make_ext = ExtType._make

# A Packer whose output grew past this is dropped after use instead of kept for the
# next call, so a thread does not hold on to the buffer of one large value.
_KEEP_PACKER_MAX_OUTPUT = 1 << 20
# Idle Packers kept for reuse (each holds a 256 KiB buffer); deep nesting makes more, briefly.
_MAX_IDLE_PACKERS = 8


class MsgpackCodec:
    """Packs and unpacks value trees for one registry.

    Thread safety: pack() takes an idle msgpack Packer from a shared pool and
    puts it back when done (creating a Packer allocates a 256 KiB buffer, which
    cost more than packing a small value); a pack() that finds none idle, such
    as one nested inside another, makes a new one.
    """

    def __init__(self, registry) -> None:
        self._registry = registry
        self._idle: list = []  # (Packer, _PackState) pairs not in use by any thread

    def _new_packer(self) -> tuple:
        state = _PackState(self._registry)
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
            rewrite = self._registry._rewritten_types
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

    def ext_hook_without_buffers(self, code, payload):
        """The ext hook for in-band data known to have no out-of-band buffers (an in-process
        result without any): one bound method instead of a closure per call."""
        if code != NESTED_EXT_TYPE or len(payload) < CLASS_ID_HASH_SIZE:
            raise DeserializationError("not a nested value")  # the caller retries on the full path
        return self._registry._decode(payload[:CLASS_ID_HASH_SIZE], memoryview(payload)[CLASS_ID_HASH_SIZE:], NO_BUFFERS, None)

    def unpack(self, data, oob):
        """Unpack one msgpack value; nested values are decoded by their serializers.

        msgpack never accepts a declared length larger than the bytes it reads
        from. In untrusted mode a longer document is first walked without
        building anything, so containers that declare more items than follow
        are rejected before any list is allocated for them.
        """
        registry = self._registry
        state = DECODE_STATE.get()
        untrusted = state is not None and state.allowed is not None
        if untrusted and len(data) > STRUCTURE_CHECK_THRESHOLD:
            _check_structure(data)

        def ext_hook(code, payload):
            if code != NESTED_EXT_TYPE:
                raise DeserializationError(f"msgpack ext type {code} is not used by serreg (only ext type 0, nested value)")
            if len(payload) < CLASS_ID_HASH_SIZE:
                raise DeserializationError(
                    f"nested value of {len(payload)} bytes is too short to hold a ClassIDHash"
                )
            return registry._decode(payload[:CLASS_ID_HASH_SIZE], memoryview(payload)[CLASS_ID_HASH_SIZE:], oob, None)

        try:
            # raw=False and use_list=True are msgpack's defaults (>= 1.0); not passing them saves a little per call.
            if untrusted:
                return unpackb(data, ext_hook=ext_hook, strict_map_key=False, object_pairs_hook=dict_from_pairs)
            return unpackb(data, ext_hook=ext_hook, strict_map_key=False)
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


def is_untrusted() -> bool:
    """True inside an untrusted deserialize call."""
    state = DECODE_STATE.get()
    return state is not None and state.allowed is not None


def check_hash_spread(keys: list, what: str) -> None:
    """Refuse ``keys`` if more than MAX_KEYS_PER_HASH of them repeat a hash another key has.

    The work of building a dict grows with the square of its keys' repeated
    hashes, so bounding the repeats bounds the work; ordinary keys repeat none.
    """
    try:
        repeats = len(keys) - len(set(map(hash, keys)))
    except TypeError as error:
        raise DeserializationError(f"a {what} key or member is not hashable: {error}") from error
    if repeats > MAX_KEYS_PER_HASH:
        value, count = Counter(map(hash, keys)).most_common(1)[0]
        raise LimitExceededError(
            f"{count} keys of a {what} of {len(keys)} have the same hash ({value}); building it would take "
            f"quadratic time (hash flooding), so in untrusted data at most {MAX_KEYS_PER_HASH} keys may "
            "repeat another's hash"
        )


def dict_from_pairs(pairs: list) -> dict:
    """msgpack's object_pairs_hook in untrusted mode: a dict, once its keys are known not to flood."""
    if len(pairs) > MAX_KEYS_PER_HASH:
        check_hash_spread([key for key, _ in pairs], "map")
    return dict(pairs)


def unpack_plain(data):
    """``msgpack.unpackb`` for a serializer's own header (no nested values), with the
    structure check of untrusted mode: use it instead of unpackb in serializers."""
    if len(data) > STRUCTURE_CHECK_THRESHOLD:
        state = DECODE_STATE.get()
        if state is not None and state.allowed is not None:
            _check_structure(data)
    try:
        return unpackb(data)
    except StackError as error:
        raise LimitExceededError(
            f"msgpack containers are nested more than {MSGPACK_MAX_NESTING} deep (msgpack's own limit)"
        ) from error
    except (ValueError, TypeError, UnicodeDecodeError) as error:
        raise DeserializationError(f"invalid msgpack in-band data: {type(error).__name__}: {error}") from error


def _check_structure(data) -> None:
    unpacker = Unpacker(max_buffer_size=len(data))
    unpacker.feed(data)
    try:
        unpacker.skip()
    except StackError as error:
        raise LimitExceededError(
            f"msgpack containers are nested more than {MSGPACK_MAX_NESTING} deep (msgpack's own limit)"
        ) from error
    except Exception as error:
        raise DeserializationError(
            f"invalid msgpack in-band data: {type(error).__name__}: the document is truncated or declares "
            "more items than it holds"
        ) from error


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


# msgpack container headers, for serializers that join pre-packed members themselves.


def array_header(count: int) -> bytes:
    if count < 16:
        return bytes([0x90 | count])
    if count < 2**16:
        return b"\xdc" + count.to_bytes(2, "big")
    return b"\xdd" + count.to_bytes(4, "big")


def map_header(count: int) -> bytes:
    if count < 16:
        return bytes([0x80 | count])
    if count < 2**16:
        return b"\xde" + count.to_bytes(2, "big")
    return b"\xdf" + count.to_bytes(4, "big")
