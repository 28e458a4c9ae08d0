"""The first wrong byte of an in-band section, by the msgpack rules every serreg reader applies.

A reader that refuses an in-band section names the byte offset of the first byte that is wrong
(docs/FORMAT.md, section 4.4). Python's decoders (the compiled codec, the msgpack library under the
pure one) find a fault without always knowing where it lies; on the error path only,
:func:`first_fault` walks the section again, header by header, and says where its first fault is
and what it is, in the words the Java reader uses for the same fault: a header cut short, a str,
bin or ext payload or an array or map count running past the end, a str that is not strict UTF-8,
byte 0xc1, an ext type serreg does not use, a nested value too short for its ClassIDHash, bytes
left after the value, or a section that ends inside it.

Nested values (ext 0) are walked as sections of their own (ClassIDHash, then one msgpack value
filling the payload), struct instances (ext 1) as one msgpack value filling the payload; a list of
struct instances (ext 2) has a layout of its own and is skipped. The walk is a loop over an
explicit stack, so no input can exhaust the C stack.
"""

from __future__ import annotations

from typing import Optional

from .class_id import CLASS_ID_HASH_SIZE

__all__ = ["Fault", "first_fault"]

# (offset of the first wrong byte, what is wrong, start of the section it lies in, that section's end)
Fault = tuple[int, str, int, int]

_NESTED, _STRUCT, _STRUCT_LIST = 0, 1, 2
_PAYLOAD_NAMES = {_NESTED: "nested value", _STRUCT: "struct instance", _STRUCT_LIST: "list of struct instances"}

# Header byte -> (bytes after it holding a length or count, kind) for the variable-size kinds.
_SIZED = {
    0xC4: (1, "bin"), 0xC5: (2, "bin"), 0xC6: (4, "bin"),
    0xD9: (1, "str"), 0xDA: (2, "str"), 0xDB: (4, "str"),
    0xDC: (2, "array"), 0xDD: (4, "array"),
    0xDE: (2, "map"), 0xDF: (4, "map"),
    0xC7: (1, "ext"), 0xC8: (2, "ext"), 0xC9: (4, "ext"),
}
# Header byte -> bytes after it, for the fixed-size kinds (numbers; fixext adds its type byte).
_FIXED = {0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}


class _Section:
    """One stretch being walked: ``pending`` msgpack values still to read before ``end``; with
    ``then_section``, the bytes after them are a section of their own (a struct table's value)."""

    __slots__ = ("start", "end", "pending", "then_section")

    def __init__(self, start: int, end: int, then_section: bool = False) -> None:
        self.start = start
        self.end = end
        self.pending = 1
        self.then_section = then_section


def first_fault(
    data: memoryview, start: int, end: int, table: bool = False, sections: Optional[dict[int, int]] = None
) -> Optional[Fault]:
    """The first fault of the section ``data[start:end]`` (a ClassIDHash, then one msgpack value;
    with ``table``, the value is a struct table followed by the section of the frame's value,
    docs/FORMAT.md 10.1), offsets counted from the start of ``data``; None when the walk finds
    none. ``sections``, when given, gets the start and end of every section the walk entered."""
    if sections is not None:
        sections[start] = end
    if end - start < CLASS_ID_HASH_SIZE:
        return (start, f"an in-band section starts with an 8-byte ClassIDHash but only {end - start} bytes are there",
                start, end)
    stack = [_Section(start, end, table)]
    pos = start + CLASS_ID_HASH_SIZE
    while stack:
        section = stack[-1]
        limit = section.end
        if section.pending == 0:
            if section.then_section:
                if limit - pos < CLASS_ID_HASH_SIZE:
                    return (pos, "an in-band section starts with an 8-byte ClassIDHash but only "
                            f"{limit - pos} bytes are there", section.start, limit)
                stack[-1] = _Section(pos, limit)
                if sections is not None:
                    sections[pos] = limit
                pos += CLASS_ID_HASH_SIZE
                continue
            if pos != limit:
                return (pos, f"{limit - pos} unexpected bytes after the msgpack value", section.start, limit)
            stack.pop()
            continue
        if pos >= limit:
            return (pos, "the in-band ends before the value is complete", section.start, limit)
        section.pending -= 1
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
            section.pending += items
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
            if ext_type == _STRUCT_LIST:
                pos += n
                continue
            if ext_type == _NESTED and n < CLASS_ID_HASH_SIZE:
                return (pos, "an in-band section starts with an 8-byte ClassIDHash but only "
                        f"{n} bytes are there", section.start, limit)
            stack.append(_Section(pos, pos + n))
            if ext_type == _NESTED:
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
