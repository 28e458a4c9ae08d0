"""Out-of-band buffers kept as views that hold no buffer export of a memoryview.

A ``pickle.PickleBuffer`` over a memoryview (and a memoryview made of such a
PickleBuffer, such as its ``raw()``) holds a buffer export of that memoryview.
When the export and the memoryview end up in one garbage cycle (a result kept
in a list that holds itself, a caught error whose traceback holds the frame
that holds the result), the garbage collector of CPython 3.11 (and of 3.12
before its fix) may clear the memoryview first: with an export live the clear
fails, yet drops the view's managed buffer, and releasing the export afterwards
crashes the process. ``memoryview(view)`` of a memoryview shares its managed
buffer instead and exports nothing, so a result keeps, for each such buffer, a
view made that way: the same memory, shape, format and writability, no copy.
Only a part of such an export that cannot be rebuilt from the memoryview it
exports (a slice or a cast of ``memoryview(PickleBuffer(view))``) is copied; a
part that is not contiguous (``[::-1]``, ``[::2]``) is copied with its rows in
reverse order and kept as a reversed view of the copy, so it still reads the
same items and a frame still refuses it as not contiguous.
"""

from __future__ import annotations

import pickle
from typing import Any, Optional

__all__ = ["RELEASED_PART", "RELEASED_VALUE", "is_released", "own_buffers", "released_part", "shared_view"]


def shared_view(buffer: Any) -> memoryview:
    """``memoryview(buffer)`` (the same memory, shape, format and writability), holding no export of a memoryview."""
    if type(buffer) is memoryview:
        try:
            exporter = buffer.obj
        except ValueError:  # released: memoryview(buffer) raises the same error when it is used
            return buffer
        return _rebuilt(buffer, exporter) if type(exporter) is memoryview else buffer
    view = memoryview(buffer)
    exporter = view.obj
    if type(exporter) is not memoryview:
        return view  # an export of a bytes, bytearray, ndarray, Arrow buffer ...: none is cleared while exported
    shared = _rebuilt(view, exporter)
    if shared is not view:
        view.release()  # the export this call made, given back at once
    return shared


def _rebuilt(view: memoryview, exporter: memoryview) -> memoryview:
    # ``view`` holds an export of ``exporter``: the same bytes through a view sharing exporter's managed buffer.
    shared = memoryview(exporter)
    if _same_layout(view, shared):
        return shared
    if view.ndim == 1 and view.format == "B" and view.c_contiguous and view.nbytes == shared.nbytes and shared.c_contiguous:
        try:
            flat = shared.cast("B")  # a raw() of a C-order exporter: its bytes in order
        except (TypeError, ValueError):
            pass
        else:
            if view.readonly and not flat.readonly:
                flat = flat.toreadonly()
            return flat
    if view.readonly and not shared.readonly and _same_layout(view, shared.toreadonly()):
        return shared.toreadonly()
    if not view.contiguous and view.ndim and view.shape[0] > 1:  # type: ignore[index]
        return _backwards_copy(view)
    copy = view.tobytes()  # a part of the export at an offset no view of the exporter names: C order, as cast reads
    flat = memoryview(copy if view.readonly else bytearray(copy))
    try:
        return flat.cast(view.format, view.shape) if view.format != "B" or view.ndim != 1 else flat  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return flat


def _backwards_copy(view: memoryview) -> memoryview:
    # A part of the export that is not contiguous (a reversed or stepped slice): its bytes copied with its rows
    # (items along the first dimension) in reverse order, read back through a reversed view of the copy. So it
    # stays a view that is not contiguous, refused where a frame is written ("out-of-band buffer i is not
    # contiguous") as it was, and in-process it reads the same items; it holds an export of the copy only.
    rows = view.shape[0]  # type: ignore[index]
    copy = memoryview(view.tobytes()).cast("B", [rows, view.nbytes // rows])[::-1].tobytes()
    flat = memoryview(copy if view.readonly else bytearray(copy))
    shaped: memoryview
    try:
        shaped = flat.cast(view.format, view.shape)  # type: ignore[call-overload]
    except (TypeError, ValueError):  # a format cast cannot name (``<d``, a struct): rows of bytes
        shaped = flat.cast("B", [rows, view.nbytes // rows])
    return shaped[::-1]


def _same_layout(view: memoryview, other: memoryview) -> bool:
    return (view.nbytes == other.nbytes and view.format == other.format and view.shape == other.shape
            and view.strides == other.strides and view.readonly == other.readonly)


def own_buffers(buffers: Any, check: bool = False) -> Any:
    """``buffers`` with each PickleBuffer and each memoryview holding an export of a memoryview replaced by
    :func:`shared_view` of it: a list in place (the same list returned), another sequence (a tuple) as a new
    list when something is replaced. ``check``: a TypeError naming the first item that is not a buffer
    (a serializer's result; a result made by hand is checked where its frame is written)."""
    try:
        for buffer in buffers:  # the usual case first: memoryviews of their exporters' own, nothing to replace
            if type(buffer) is not memoryview or type(buffer.obj) is memoryview:
                break
        else:
            return buffers
    except ValueError:  # a released view: the loop below passes it by
        pass
    except TypeError:  # not iterable
        raise TypeError(f"out-of-band buffers must be a list of buffers, not {type(buffers).__name__}") from None
    if isinstance(buffers, (bytes, bytearray, memoryview, str)):  # iterable, but one buffer, not a list of them
        raise TypeError(f"out-of-band buffers must be a list of buffers, not {type(buffers).__name__}")
    owned = buffers if type(buffers) is list else list(buffers)
    for i, buffer in enumerate(owned):
        if type(buffer) is memoryview:
            try:
                if type(buffer.obj) is not memoryview:
                    continue
            except ValueError:
                continue  # released: refused where it is used, as before
        elif not isinstance(buffer, pickle.PickleBuffer):
            if check and type(buffer) is not bytes and type(buffer) is not bytearray:
                _check_exports(buffer, i)
            continue
        elif is_released(buffer):
            continue  # released: refused where it is used, as a released memoryview
        owned[i] = shared_view(buffer)
    return owned


# What serializing a memoryview or PickleBuffer whose release() was called is refused with.
RELEASED_VALUE = "a memoryview (or PickleBuffer) that was released cannot be serialized: none of its bytes can be read"
# What a result's part that was released is said to be, after "the ... returned a result whose PART is".
RELEASED_PART = ("a memoryview that was released: it must stay unreleased, with the object it views, until the result "
                 "is written or read")


def is_released(buffer: Any) -> bool:
    """Whether ``buffer`` is a memoryview or a PickleBuffer that was released (no byte of it can be read)."""
    try:
        if type(buffer) is memoryview:
            buffer.obj
        elif isinstance(buffer, pickle.PickleBuffer):
            buffer.raw().release()
    except ValueError:
        return True
    return False


def released_part(in_band: Any, buffers: Any) -> Optional[str]:
    """Which part of a result, if any, is a released memoryview or PickleBuffer: ``"in-band buffer"`` or
    ``"out-of-band buffer i"``; None when every part can be read."""
    if is_released(in_band):
        return "in-band buffer"
    if buffers and buffers.__class__ is not bytes:
        for i, buffer in enumerate(buffers):
            if is_released(buffer):
                return f"out-of-band buffer {i}"
    return None


def _check_exports(buffer: Any, index: int) -> None:
    # Refused where a serializer hands it over, with its class ID and path, rather than where a frame is written.
    try:
        memoryview(buffer).release()
    except TypeError:
        raise TypeError(
            f"out-of-band buffer {index} is {type(buffer).__name__}, not a buffer (bytes, bytearray, memoryview, "
            "ndarray, or anything else that exports the buffer interface)"
        ) from None
