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

Writing, the pure codec calls msgpack's Packer once per nested level (a value's
serializer packs the values inside it), a few KiB of C stack a level that
CPython 3.11's recursion limit does not count: 130 levels of a list holding a
dict holding a tuple crashed a 256 KiB thread. :class:`WriteDepth` counts the
levels of the calling thread and refuses one past what its stack holds at
``WRITE_PER_LEVEL`` (the compiled codec measures its stack instead,
``_core_stack.h``). Plain lists and dicts inside one level are written by the
Packer's own recursion, which stops at 511 levels.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from typing import Any, Optional

# Measured on CPython 3.11 x86_64: one nested level through unpackb takes 40-45 KiB of C stack;
# the rest of a level (the serializer, the registry, the ext hook) a few KiB. The reserve covers
# what the thread used before it called deserialize and what runs after the deepest level.
PER_LEVEL = 48 * 1024
RESERVE = 512 * 1024

# One nested level written by the pure codec (the Packer, the serializer, the registry): about 2 KiB
# measured; the reserve is what a thread used before it called serialize and the error's way back.
WRITE_PER_LEVEL = 2 * 1024
WRITE_RESERVE = 64 * 1024

__all__ = ["PER_LEVEL", "RESERVE", "WRITE_PER_LEVEL", "WRITE_RESERVE", "WriteDepth", "roomy", "thread_stack_size"]

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
    """The nested levels the pure codec is writing on the calling thread (``enter`` / ``leave``)."""

    def __init__(self) -> None:
        size = thread_stack_size()
        self.depth = 0
        self.most = (size - WRITE_RESERVE) // WRITE_PER_LEVEL if size else 1 << 62

    def enter(self) -> None:
        """One level more; RecursionError when the thread's stack has no room for it."""
        if self.depth >= self.most:
            raise RecursionError(f"the thread's C stack has room for {self.most} nested values, not more")
        self.depth += 1

    def leave(self) -> None:
        self.depth -= 1
