"""multiprocessing and concurrent.futures: send a value to another process through shared memory.

Wrap an argument or a return value in :class:`Shared`; when the framework
pickles it (a ``ProcessPoolExecutor`` call, a ``multiprocessing.Queue``, a
``Pool.map``), the value goes into a ``serreg.shm`` region and only the
region's handle travels in the pickle. Unpickling in the other process maps the
region and gives back the value itself (not a ``Shared``), its arrays and Arrow
columns read-only views of the shared memory, and releases the region's name
(each pickling makes a region for exactly one reader)::

    from concurrent.futures import ProcessPoolExecutor
    from serreg.integrations.processes import Shared

    def column_means(array):              # a read-only view of the shared memory
        return Shared(array.mean(axis=0))  # the result comes back the same way

    with ProcessPoolExecutor() as pool:
        means = pool.submit(column_means, Shared(array)).result()

Uses no framework import; works with the fork, spawn and forkserver start
methods. Decoding is untrusted (as ``serreg.shm.get``) unless ``trusted=True``:
the shared memory is writable by other processes of the user.
"""

from __future__ import annotations

from typing import Any

from ..shm import Handle, get, put

__all__ = ["Shared", "receive"]


class Shared:
    """A value that pickles as a handle to a shared-memory copy of its frame."""

    __slots__ = ("value", "trusted")

    def __init__(self, value: Any, *, trusted: bool = False) -> None:
        """``trusted``: let the receiver decode pickled values (the fallback) in the frame."""
        self.value = value
        self.trusted = trusted

    def __reduce__(self) -> Any:
        return (receive, (put(self.value), self.trusted))

    def __repr__(self) -> str:
        return f"Shared({self.value!r:.60})"


def receive(handle: Handle, trusted: bool = False) -> Any:
    """Unpickling a :class:`Shared`: the value in ``handle``'s region, whose name is then released."""
    return get(handle, trusted=trusted, release=True)
