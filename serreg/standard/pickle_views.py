"""Flat byte views of pickle buffers that hold no buffer export of a memoryview.

``pickle.PickleBuffer(view).raw()`` over a memoryview ``view`` (and the
PickleBuffer itself) holds a buffer export of ``view``. When such an export and
``view`` end up in the same garbage cycle (a traceback kept alive, say), the
garbage collector of CPython 3.11 (and of 3.12 before its fix) may clear
``view`` first: with an export live, the clear fails, yet drops the view's
managed buffer, and the release of the export afterwards crashes the process.
A view made with ``cast`` or a slice shares the managed buffer instead and
exports nothing, so the views handed out here are made that way, and the
PickleBuffers handed to another framework's pickler (:func:`pickle_buffer`)
wrap the memory's own exporter, never a memoryview.
"""

from __future__ import annotations

import pickle
from types import ModuleType
from typing import Any, Iterable, Optional

from ..owned_views import shared_view

__all__ = ["flat_view", "flat_views", "pickle_buffer", "release_all", "view_of"]

_NUMPY: list[Optional[ModuleType]] = []  # numpy once looked for: [module] or [None]


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
    instead of exporting it (:func:`serreg.owned_views.shared_view`)."""
    return shared_view(buffer)


def pickle_buffer(buffer: Any) -> pickle.PickleBuffer:
    """A PickleBuffer of ``buffer``'s bytes that holds no export of a memoryview, for a pickler that keeps it.

    Zero-copy in two ways: the PickleBuffer wraps the object the view's memory
    belongs to (a bytes, an ndarray, an Arrow buffer ...) when the view is the
    whole of it, laid out the same way (the usual case); otherwise, for a view
    in C order, a 1-D uint8 ndarray over it (numpy holds no export of the view).
    Only a part of an exporter that is not in C order, or any view it cannot
    take without numpy installed, is copied (once, as bytes, or as a bytearray
    when the view is writable, so the reader's writability is kept).
    """
    view = view_of(buffer)
    exporter = view.obj
    if exporter is not None and not isinstance(exporter, memoryview) and _whole_of(view, exporter):
        return pickle.PickleBuffer(exporter)
    numpy = _numpy()
    if numpy is not None and view.c_contiguous:
        return pickle.PickleBuffer(numpy.frombuffer(view, dtype=numpy.uint8))  # numpy keeps the view, not an export of it
    if not view.contiguous:
        pickle.PickleBuffer(view).raw()  # raises the BufferError raw() raises for a buffer that is not contiguous
    copy = view.tobytes("A")
    return pickle.PickleBuffer(copy if view.readonly else bytearray(copy))


def _whole_of(view: memoryview, exporter: Any) -> bool:
    # True when ``view`` is the exporter's whole buffer with the same layout: a contiguous view of
    # the same size inside the exporter's buffer is all of it, and the same shape, strides, format
    # and writability mean a PickleBuffer of the exporter reads exactly as one of the view.
    try:
        whole = memoryview(exporter)
    except (TypeError, ValueError, BufferError):
        return False
    with whole:
        return (view.contiguous and whole.contiguous and whole.nbytes == view.nbytes and whole.format == view.format
                and whole.shape == view.shape and whole.strides == view.strides and whole.readonly == view.readonly)


def _numpy() -> Optional[ModuleType]:
    if not _NUMPY:
        try:
            import numpy  # an optional heavy library: looked for only when a view needs it
        except ImportError:
            _NUMPY.append(None)
        else:
            _NUMPY.append(numpy)
    return _NUMPY[0]


def flat_views(buffers: Iterable[Any]) -> list[memoryview]:
    """:func:`flat_view` of each buffer, in order."""
    return [flat_view(buffer) for buffer in buffers]


def release_all(buffers: list[pickle.PickleBuffer]) -> None:
    """Release and forget PickleBuffers made for one pickle, so none outlives it holding an export."""
    for buffer in buffers:
        buffer.release()
    buffers.clear()
