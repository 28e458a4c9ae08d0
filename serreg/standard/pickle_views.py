"""Flat byte views of pickle buffers that hold no buffer export of a memoryview.

``pickle.PickleBuffer(view).raw()`` over a memoryview ``view`` (and the
PickleBuffer itself) holds a buffer export of ``view``. When such an export and
``view`` end up in the same garbage cycle (a traceback kept alive, say), the
garbage collector of CPython 3.11 (and of 3.12 before its fix) may clear
``view`` first: with an export live, the clear fails, yet drops the view's
managed buffer, and the release of the export afterwards crashes the process.
A view made with ``cast`` or a slice shares the managed buffer instead and
exports nothing, so the views handed out here are made that way.
"""

from __future__ import annotations

import pickle
from typing import Any, Iterable

__all__ = ["flat_view", "flat_views", "release_all", "view_of"]


def _flat_of_memoryview(view: memoryview) -> memoryview:
    # A contiguous view as 1-D unsigned bytes, zero-copy when cast allows it (C order and a native
    # format); else (Fortran order, a format with a byte-order prefix) a copy in the same order as raw().
    if view.ndim == 1 and view.format == "B":
        return view[:]
    if view.c_contiguous:
        try:
            return view.cast("B")
        except (TypeError, ValueError):
            pass
    return memoryview(view.tobytes("A"))


def flat_view(buffer: Any) -> memoryview:
    """A 1-D unsigned-byte view of a contiguous buffer (C or Fortran order) holding no export of a memoryview.

    Raises what ``pickle.PickleBuffer.raw()`` raises for a buffer that is not contiguous."""
    if isinstance(buffer, memoryview):
        if not buffer.contiguous:
            pickle.PickleBuffer(buffer).raw()  # raises the BufferError raw() raises
        return _flat_of_memoryview(buffer)
    source = buffer if isinstance(buffer, pickle.PickleBuffer) else pickle.PickleBuffer(buffer)
    raw = source.raw()
    exporter = raw.obj
    if not isinstance(exporter, memoryview):
        return raw  # an export of a bytes, bytearray, array ...: none of them is cleared while exported
    view = memoryview(exporter)  # shares the exporter's managed buffer: no export of it
    raw.release()
    if source is not buffer:
        source.release()
    return _flat_of_memoryview(view)


def view_of(buffer: Any) -> memoryview:
    """``memoryview(buffer)`` (same shape and format), but sharing the view of a PickleBuffer over a memoryview
    instead of exporting it."""
    if isinstance(buffer, memoryview):
        return buffer
    view = memoryview(buffer)
    exporter = view.obj
    if isinstance(buffer, pickle.PickleBuffer) and isinstance(exporter, memoryview):
        shared = memoryview(exporter)  # what the PickleBuffer forwards to: the same shape and format
        view.release()
        return shared
    return view


def flat_views(buffers: Iterable[Any]) -> list[memoryview]:
    """:func:`flat_view` of each buffer, in order."""
    return [flat_view(buffer) for buffer in buffers]


def release_all(buffers: list[pickle.PickleBuffer]) -> None:
    """Release and forget PickleBuffers made for one pickle, so none outlives it holding an export."""
    for buffer in buffers:
        buffer.release()
    buffers.clear()
