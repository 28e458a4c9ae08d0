"""How much C stack the calling thread has: whether nested values may use msgpack's unpackb, and
how many nested values the pure codec may write inside each other.

msgpack's ``unpackb`` keeps its parse stack (1,024 open containers, about
40 KiB) in C locals, and serreg calls it once per nested level (each ext 0
payload is unpacked from the ext hook of the level above): 10 nested values
overflow a 256 KiB thread stack. A heap-allocated ``msgpack.Unpacker`` costs a
level only a few call frames, but about 4 us more per nested value. So a level
uses ``unpackb`` only while the thread's stack has room for it at that depth
(:func:`roomy`), read once per thread with ``pthread_getattr_np`` (Linux); where
that is not available every nested level uses the Unpacker.

Writing, the pure codec calls msgpack's Packer once per nested level (a value's serializer packs
the values inside it), and the Packer walks the plain lists and dicts of a level by recursion in C:
C stack that CPython 3.11's recursion limit does not count (130 levels of a list holding a dict
holding a tuple, or 600 lists in one another, crashed a 256 KiB thread). :data:`WRITE_DEPTH` keeps
an estimate of the bytes the calling thread's writing uses, ``WRITE_PER_LEVEL`` a nested level and
``PLAIN_PER_LEVEL`` a plain list or dict level of a Packer's walk (counted, on a thread whose stack
could not hold the Packer's deepest walk, before each pack), and refuses what would go past its
stack less ``WRITE_RESERVE``. Reading, :data:`READ_DEPTH` does the same per nested level
(``READ_PER_LEVEL`` on top of the levels ``unpackb`` reads). The compiled codec measures its stack
instead (``_core_stack.h``). The figures are measured by benchmarks/stack_per_level.py
(docs/BOUNDS.md, "The pure codec's C stack per level").
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from typing import Any, Optional

from .backend import COMPILED

# Measured on CPython 3.11 x86_64: one nested level through unpackb takes 40-45 KiB of C stack;
# the rest of a level (the serializer, the registry, the ext hook) a few KiB. The reserve covers
# what the thread used before it called deserialize and what runs after the deepest level.
PER_LEVEL = 48 * 1024
RESERVE = 512 * 1024

# Measured with benchmarks/stack_per_level.py (CPython 3.11, x86_64, guards off), the C stack the
# deepest value that did not crash used per level, on threads of 256 KiB to 1 MiB. Writing with the
# pure codec: a nested value with the array or map its serializer packs (a tuple, an instance, a
# dataclass) 1,106-1,139 bytes, a further list or dict in that pack 444 (a list holding a dict
# holding a tuple: 1,978-2,016). Writing with the compiled codec, whose writer calls the pure
# codec's Packer for the instances it writes as implicit structs (10.9): 1,560-1,608 a level.
# Reading with the pure codec, a nested value read with a heap Unpacker: 1,165-1,440. Each figure
# below is the largest measured plus about a third; the reserves cover what the thread used before
# it called serialize (under 10 KiB) or deserialize (about 50 KiB), and the error's way back.
WRITE_PER_LEVEL = 2176 if COMPILED else 1536
PLAIN_PER_LEVEL = 640
WRITE_RESERVE = 48 * 1024
# Lists and dicts are counted (a walk of them before each pack, about 0.6 us per list or dict) only
# on threads with less stack than this: on the 8 MiB of a main thread the plain levels of a pack are
# not counted, as before (4,000 nested levels would be needed, past Python's default recursion limit).
PLAIN_COUNTED_BELOW = 2 * 1024 * 1024
READ_PER_LEVEL = 1920
READ_RESERVE = 64 * 1024
__all__ = [
    "PER_LEVEL", "PLAIN_COUNTED_BELOW", "PLAIN_PER_LEVEL", "READ_DEPTH", "READ_PER_LEVEL", "READ_RESERVE", "RESERVE", "WRITE_DEPTH",
    "WRITE_PER_LEVEL", "WRITE_RESERVE", "ReadDepth", "WriteDepth", "plain_depth", "roomy", "thread_stack_size",
]

_local = threading.local()


def _load_pthread() -> Optional[tuple[Any, Any, Any, Any]]:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
        getattr_np = libc.pthread_getattr_np
        getstack = libc.pthread_attr_getstack
        destroy = libc.pthread_attr_destroy
        self_ = libc.pthread_self
    except (OSError, AttributeError):
        return None
    self_.restype = ctypes.c_ulong
    getattr_np.argtypes = [ctypes.c_ulong, ctypes.c_void_p]
    getstack.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]
    return self_, getattr_np, getstack, destroy


_PTHREAD = _load_pthread()


def thread_stack_size() -> int:
    """The calling thread's stack size in bytes, or 0 when it cannot be known."""
    if _PTHREAD is None:
        return 0
    self_, getattr_np, getstack, destroy = _PTHREAD
    attr = ctypes.create_string_buffer(256)  # pthread_attr_t is 56 bytes on x86_64 glibc
    if getattr_np(self_(), attr) != 0:
        return 0
    try:
        address, size = ctypes.c_void_p(), ctypes.c_size_t()
        if getstack(attr, ctypes.byref(address), ctypes.byref(size)) != 0:
            return 0
        return size.value
    finally:
        destroy(attr)


def roomy(depth: int) -> bool:
    """Whether a value ``depth`` levels deep may be unpacked with unpackb on this thread."""
    try:
        size = _local.size
    except AttributeError:
        size = _local.size = thread_stack_size()
    return bool(depth * PER_LEVEL + RESERVE <= size)


class WriteDepth(threading.local):
    """The C stack the pure codec's writing is estimated to use on the calling thread: ``enter`` /
    ``leave`` a nested level, ``enter_plain`` / ``leave_plain`` the plain containers of a pack."""

    def __init__(self) -> None:
        size = thread_stack_size()
        self.used = 0
        self.room = size - WRITE_RESERVE if size else 1 << 62

    def enter(self) -> None:
        """One nested level more; RecursionError when the thread's stack has no room for it."""
        if self.used + WRITE_PER_LEVEL > self.room:
            raise RecursionError(
                f"the thread's C stack ({(self.room + WRITE_RESERVE) // 1024} KiB) has no room for another nested value"
            )
        self.used += WRITE_PER_LEVEL

    def leave(self) -> None:
        self.used -= WRITE_PER_LEVEL

    def enter_plain(self, value: Any) -> int:
        """Count the lists and dicts msgpack's Packer will walk into one another in ``value`` below
        the first (the nested level that packs ``value`` counts that one); the bytes to give back
        with ``leave_plain``. RecursionError when the thread's stack has no room for them."""
        if self.room >= PLAIN_COUNTED_BELOW:
            return 0  # a large stack (or one of unknown size): not counted
        left = self.room - self.used
        levels = max(plain_depth(value, left // PLAIN_PER_LEVEL + 2) - 1, 0)
        cost = levels * PLAIN_PER_LEVEL
        if cost > left:
            raise RecursionError(
                f"the thread's C stack ({(self.room + WRITE_RESERVE) // 1024} KiB) has no room for "
                f"{levels + 1}{'+' if levels > left // PLAIN_PER_LEVEL else ''} lists and dicts in one another"
            )
        self.used += cost
        return cost

    def leave_plain(self, cost: int) -> None:
        self.used -= cost


def plain_depth(value: Any, cap: int) -> int:
    """How many lists and dicts lie in one another in ``value`` (``value`` itself counted), at most
    ``cap`` (the walk stops there); what msgpack's Packer walks by recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if type(node) is dict:
            children: Any = node.values()
        elif type(node) is list:
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        if deepest >= cap:
            return cap
        if not {list, dict}.isdisjoint(map(type, children)):
            stack.extend((child, depth + 1) for child in children if type(child) is list or type(child) is dict)
    return deepest


class ReadDepth(threading.local):
    """How many nested values the pure codec may read in one another on the calling thread: those
    ``unpackb`` reads while :func:`roomy`, then ``READ_PER_LEVEL`` each, up to its stack less
    ``READ_RESERVE``."""

    def __init__(self) -> None:
        size = self.size = thread_stack_size()
        roomy_levels = max(0, (size - RESERVE) // PER_LEVEL)
        self.most = roomy_levels + max(0, size - roomy_levels * PER_LEVEL - READ_RESERVE) // READ_PER_LEVEL if size else 1 << 62


WRITE_DEPTH = WriteDepth()
READ_DEPTH = ReadDepth()
