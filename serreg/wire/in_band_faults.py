"""The first wrong byte of an in-band section, by the msgpack rules every serreg reader applies.

A reader that refuses an in-band section names the byte offset of the first byte that is wrong
(docs/FORMAT.md, section 4.1). Python's decoders (the compiled codec, the msgpack library under the
pure one) find a fault without always knowing where it lies; on the error path only,
:func:`first_fault` walks the section again, header by header, and says where its first fault is
and what it is, in the words the Java reader uses for the same fault: a header cut short, a str,
bin or ext payload or an array or map count running past the end, a str that is not strict UTF-8,
byte 0xc1, an ext type serreg does not use, a struct instance (ext 1 or 2) in a frame without a
struct table, a nested value too short for its ClassIDHash, more than 1,024 arrays and maps open
at once in one in-band (docs/FORMAT.md 4.3), bytes left after the value, or a section that ends
inside it.

Nested values (ext 0) are walked as sections of their own (ClassIDHash, then one msgpack value
filling the payload), struct instances (ext 1) as one msgpack value filling the payload; a list of
struct instances (ext 2) has a layout of its own and is skipped. The walk is a loop over an
explicit stack, so no input can exhaust the C stack.
"""

from __future__ import annotations

from typing import Optional

from .class_id import CLASS_ID_HASH_SIZE

__all__ = ["Fault", "MAX_NESTING", "first_fault"]

# (offset of the first wrong byte, what is wrong, start of the section it lies in, that section's end)
Fault = tuple[int, str, int, int]

_NESTED, _STRUCT, _STRUCT_LIST = 0, 1, 2
_PAYLOAD_NAMES = {_NESTED: "nested value", _STRUCT: "struct instance", _STRUCT_LIST: "list of struct instances"}
_OUTSIDE_TABLE = {
    _STRUCT: "a struct instance (msgpack ext 1) outside any struct table (serreg.structs)",
    _STRUCT_LIST: "a list of struct instances (msgpack ext 2) outside any struct table (serreg.structs)",
}
MAX_NESTING = 1024  # arrays and maps open at once in one in-band, an empty one counted too (4.3)

# Header byte -> (bytes after it holding a length or count, kind) for the variable-size kinds.
_SIZED = {
    0xC4: (1, "bin"), 0xC5: (2, "bin"), 0xC6: (4, "bin"),
    0xD9: (1, "str"), 0xDA: (2, "str"), 0xDB: (4, "str"),
    0xDC: (2, "array"), 0xDD: (4, "array"),
    0xDE: (2, "map"), 0xDF: (4, "map"),
    0xC7: (1, "ext"), 0xC8: (2, "ext"), 0xC9: (4, "ext"),
}
# Header byte -> bytes after it, for the fixed-size kinds (numbers).
_FIXED = {0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}


class _Open:
    """A stretch being walked, ``pending`` msgpack values still to read in it: a section (``end``
    set: its value must end there; with ``then_section`` the bytes after its value are a section
    of their own, a struct table's value) or an array or map (``end`` None) inside the section
    ``section``, ``depth`` arrays and maps deep in it."""

    __slots__ = ("start", "end", "pending", "then_section", "section", "depth")

    def __init__(self, start: int, end: Optional[int], pending: int, section: Optional[_Open], depth: int) -> None:
        self.start = start
        self.end = end
        self.pending = pending
        self.then_section = False
        self.section = self if section is None else section
        self.depth = depth


def _short_hash(at: int, size: int, section: _Open) -> Fault:
    return (at, f"an in-band section starts with an 8-byte ClassIDHash but only {size} bytes are there",
            section.start, section.end or 0)


def first_fault(
    data: memoryview, start: int, end: int, table: bool = False, sections: Optional[dict[int, int]] = None
) -> Optional[Fault]:
    """The first fault of the section ``data[start:end]`` (a ClassIDHash, then one msgpack value;
    with ``table``, the value is a struct table followed by the section of the frame's value,
    docs/FORMAT.md 10.1), offsets counted from the start of ``data``; None when the walk finds
    none. ``sections``, when given, gets the start and end of every section the walk entered."""
    top = _Open(start, end, 1, None, 0)
    top.then_section = table
    if sections is not None:
        sections[start] = end
    if end - start < CLASS_ID_HASH_SIZE:
        return _short_hash(start, end - start, top)
    stack = [top]
    pos = start + CLASS_ID_HASH_SIZE
    while stack:
        current = stack[-1]
        section = current.section
        limit: int = section.end  # type: ignore[assignment]  # a section's end is set
        if current.pending == 0:
            stack.pop()
            if current.end is None:
                continue  # an array or map read whole
            if current.then_section:
                if limit - pos < CLASS_ID_HASH_SIZE:
                    return _short_hash(pos, limit - pos, current)
                stack.append(_Open(pos, limit, 1, None, 0))
                if sections is not None:
                    sections[pos] = limit
                pos += CLASS_ID_HASH_SIZE
            elif pos != limit:
                return (pos, f"{limit - pos} unexpected bytes after the msgpack value", section.start, limit)
            continue
        if pos >= limit:
            return (pos, "the in-band ends before the value is complete", section.start, limit)
        current.pending -= 1
        at = pos
        b = data[pos]
        if b <= 0x7F or b >= 0xE0 or b in (0xC0, 0xC2, 0xC3):
            pos += 1
            continue
        if b == 0xC1:
            return (at, "byte 0xc1 is not a msgpack value (msgpack never uses it)", section.start, limit)
        if b in _FIXED:
            if _FIXED[b] > limit - pos - 1:
                return (at, "malformed msgpack number: the in-band ends inside it", section.start, limit)
            pos += 1 + _FIXED[b]
            continue
        if 0x80 <= b <= 0x9F:
            kind, n, pos = ("map" if b <= 0x8F else "array"), b & 0x0F, pos + 1
        elif 0xA0 <= b <= 0xBF:
            kind, n, pos = "str", b & 0x1F, pos + 1
        elif 0xD4 <= b <= 0xD8:
            kind, n, pos = "ext", 1 << (b - 0xD4), pos + 1
            if pos >= limit:
                return (at, "malformed msgpack ext: the in-band ends inside its header", section.start, limit)
        else:
            width, kind = _SIZED[b]
            if width + (kind == "ext") > limit - pos - 1:
                return (at, f"malformed msgpack {kind}: the in-band ends inside its header", section.start, limit)
            n = int.from_bytes(data[pos + 1 : pos + 1 + width], "big")
            pos += 1 + width
        if kind in ("array", "map"):
            items = n if kind == "array" else 2 * n
            if items > limit - pos:
                what = "items" if kind == "array" else "entries"
                return (at, f"msgpack {kind} declares {n} {what} but only {limit - pos} bytes follow in the in-band",
                        section.start, limit)
            depth = (current.depth if current.end is None else 0) + 1
            if depth > MAX_NESTING:
                return (at, f"msgpack containers are nested more than {MAX_NESTING} deep", section.start, limit)
            stack.append(_Open(at, None, items, section, depth))
            continue
        if kind == "ext":
            ext_type = data[pos] - 256 if data[pos] >= 0x80 else data[pos]
            pos += 1
            if ext_type not in _PAYLOAD_NAMES:
                return (at, f"msgpack ext type {ext_type} is reserved; serreg uses only ext 0, ext 1 (struct) "
                        "and ext 2 (struct columns)", section.start, limit)
            if n > limit - pos:
                return (at, f"{_PAYLOAD_NAMES[ext_type]} payload of {n} bytes runs past the end of the in-band",
                        section.start, limit)
            if ext_type != _NESTED and not table:
                return (pos, _OUTSIDE_TABLE[ext_type], section.start, limit)
            if ext_type == _STRUCT_LIST:
                pos += n  # its columns have a layout of their own (10.3)
                continue
            inner = _Open(pos, pos + n, 1, None, 0)
            stack.append(inner)
            if ext_type == _NESTED:
                if n < CLASS_ID_HASH_SIZE:
                    return _short_hash(pos, n, section)
                if sections is not None:
                    sections[pos] = pos + n
                pos += CLASS_ID_HASH_SIZE
            continue
        if n > limit - pos:
            return (at, f"{kind} payload of {n} bytes runs past the end of the in-band", section.start, limit)
        if kind == "str":
            try:
                bytes(data[pos : pos + n]).decode("utf-8")
            except UnicodeDecodeError:
                return (at, "str is not valid UTF-8", section.start, limit)
        pos += n
    return None
