"""The checks of untrusted mode that the msgpack reader cannot make itself.

msgpack never accepts a declared length larger than the bytes it reads from,
but it allocates a container for the count a header declares before reading
its items, and Python builds a dict in quadratic time when its keys repeat a
hash. In untrusted mode (a deserialize call with ``trusted=False``) a long
document is first walked without building anything, and maps and sets whose
keys flood one hash value are refused. ``unpack_plain`` is the msgpack reader
for a serializer's own header, with the same checks.
"""

from __future__ import annotations

from collections import Counter

from msgpack import Timestamp, Unpacker, unpackb
from msgpack.exceptions import StackError

from ..errors import DeserializationError, LimitExceededError
from ..limits import DECODE_STATE, MSGPACK_MAX_NESTING
from .scan import holds_any
from typing import Sequence, Any

# Untrusted in-bands longer than this have their structure checked before any object
# is built (see MsgpackCodec.unpack); below it the worst case is a few MiB.
STRUCTURE_CHECK_THRESHOLD = 1024

# What msgpack-python makes of ext type -1 itself (docs/FORMAT.md, section 3, refuses it).
TIMESTAMP = (Timestamp,)

# In untrusted mode a map or set in which more keys than this repeat a hash value is
# refused: Python builds such a dict in quadratic time (hash flooding), and big ints and
# decimals make any number of keys with equal hashes cheap to write.
MAX_KEYS_PER_HASH = 64


def is_untrusted() -> bool:
    """True inside an untrusted deserialize call."""
    state = DECODE_STATE.get()
    return state is not None and state.allowed is not None


def check_hash_spread(keys: list[Any], what: str) -> None:
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


def dict_from_pairs(pairs: list[Any]) -> dict[Any, Any]:
    """msgpack's object_pairs_hook in untrusted mode: a dict, once its keys are known not to flood."""
    if len(pairs) > MAX_KEYS_PER_HASH:
        check_hash_spread([key for key, _ in pairs], "map")
    return dict(pairs)


def refuse_timestamps(value: Any, nested: Sequence[Any] = ()) -> None:
    """Refuse a decoded document that holds msgpack timestamps (ext type -1).

    msgpack-python turns ext -1 into a Timestamp itself, never calling the ext
    hook (no option changes that), so the decoded tree is scanned instead, at C
    speed (serreg.scan). ``nested`` are the values nested values decoded to that
    hold Timestamps of their own (a pickled one, in trusted mode): only then is
    the tree walked in Python, around them.
    """
    if not holds_any(value, TIMESTAMP):
        return
    if nested:
        skip = {id(item) for item in nested}
        stack = [value]
        found = False
        while stack and not found:
            item = stack.pop()
            if id(item) in skip:
                continue
            kind = type(item)
            if kind is Timestamp:
                found = True
            elif kind is list:
                stack.extend(item)
            elif kind is dict:
                stack.extend(item)
                stack.extend(item.values())
        if not found:
            return
    raise DeserializationError(
        "msgpack ext type -1 (timestamp) is not used by serreg and is refused (docs/FORMAT.md, section 3); "
        "serreg writes datetime values as class ID 'datetime'"
    )


def check_untrusted_structure(data: Any) -> None:
    """In untrusted mode, walk a msgpack document longer than 1 KiB once without building
    anything (``check_structure``); for serializers that read their header piece by piece."""
    if len(data) > STRUCTURE_CHECK_THRESHOLD:
        state = DECODE_STATE.get()
        if state is not None and state.allowed is not None:
            check_structure(data)


def unpack_plain(data: Any) -> Any:
    """``msgpack.unpackb`` for a serializer's own header (no nested values), with the
    structure check of untrusted mode: use it instead of unpackb in serializers."""
    if len(data) > STRUCTURE_CHECK_THRESHOLD:  # check_untrusted_structure's test, without its call for short headers
        check_untrusted_structure(data)
    try:
        value = unpackb(data)
    except StackError as error:
        raise LimitExceededError(
            f"msgpack containers are nested more than {MSGPACK_MAX_NESTING} deep (msgpack's own limit)"
        ) from error
    except (ValueError, TypeError, UnicodeDecodeError) as error:
        raise DeserializationError(f"invalid msgpack in-band data: {type(error).__name__}: {error}") from error
    if holds_any(value, TIMESTAMP):  # refuse_timestamps' test, without its call for the usual header
        refuse_timestamps(value)
    return value


def check_structure(data: Any) -> None:
    """Walk one msgpack document without building it: refuse one that is truncated or
    declares more items than it holds, before any container is allocated for them."""
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
