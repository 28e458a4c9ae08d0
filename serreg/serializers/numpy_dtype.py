"""numpy dtypes on the wire (docs/FORMAT.md, section 6.2.1): a dtype's in-band description and back.

A plain dtype is numpy's array-interface string (``<f8``, ``>M8[25s]``, ``|S5``, ``<U3``,
``|V8``); a structured dtype is ``[itemsize, fields, aligned]`` with each field
``[name, offset, dtype, shape, title]``, nested to at most :data:`MAX_NESTING` levels.
Anything else (object arrays, long doubles, numpy's variable-width StringDType,
overlapping fields, non-str titles) has no wire form: its arrays are Python-only.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Optional, Union

import numpy as np

from msgpack import packb

from ..errors import DeserializationError

__all__ = ["MAX_NESTING", "STANDARD_DTYPES", "canonical_spec", "leaves", "packed_plain_spec", "parse_dtype", "wire_dtype"]

# The numeric array-interface strings: no others (an x86 long double, "<f16" or "<c32", is not in
# the format and Java refuses it).
STANDARD_DTYPES = frozenset(
    ["|b1", "|i1", "|u1"]
    + [f"{order}{kind}{size}" for order in "<>" for kind, size in
       [("i", 2), ("i", 4), ("i", 8), ("u", 2), ("u", 4), ("u", 8), ("f", 2), ("f", 4), ("f", 8), ("c", 8), ("c", 16)]]
)
_TIME = re.compile(r"[<>][Mm]8(?:\[(?:[1-9][0-9]{0,8})?(?:Y|M|W|D|h|m|s|ms|us|ns|ps|fs|as)\])?\Z")
_SIZED = re.compile(r"(?:\|S|[<>]U|\|V)[1-9][0-9]{0,8}\Z")
MAX_NESTING = 32
MAX_ITEMSIZE = 2**31 - 1

Spec = Union[str, list[Any]]


def _plain(text: str) -> bool:
    return text in STANDARD_DTYPES or _TIME.match(text) is not None or _SIZED.match(text) is not None


class _NoWireForm(Exception):
    pass


@lru_cache(maxsize=512)
def _plain_cached(text: str) -> tuple[Optional[Spec], Optional[str]]:
    # Keyed by the array-interface string, which says all of a plain dtype without metadata
    # (numpy's == and hash ignore metadata and isalignedstruct, so a dtype is no safe key).
    return _described(np.dtype(text))


def _described(dtype: np.dtype) -> tuple[Optional[Spec], Optional[str]]:
    try:
        return _describe(dtype, 0), None
    except _NoWireForm as why:
        return None, str(why)


# A plain dtype object (no fields, no sub-array, no metadata: nothing of it can change once made) ->
# (that dtype, its wire_dtype answer, its spec as a msgpack str or None). Keyed by id() with the dtype
# held, so an id is never reused while its entry lives; ``is`` tells a hit. Structured dtypes are not
# kept: their field names can be reassigned (``dtype.names = ...``).
_Known = tuple[np.dtype, tuple[Optional[Spec], Optional[str]], Optional[bytes]]
_KNOWN: dict[int, _Known] = {}
_KNOWN_MAX = 256


def _known(dtype: np.dtype) -> Optional[_Known]:
    entry = _KNOWN.get(id(dtype))
    if entry is not None and entry[0] is dtype:
        return entry
    if dtype.names is None and dtype.subdtype is None and not dtype.metadata and dtype.kind in "biufcMmSUV":
        described = _plain_cached(dtype.str)
        entry = (dtype, described, None if described[0] is None else packb(described[0]))
        if len(_KNOWN) >= _KNOWN_MAX:
            _KNOWN.clear()
        _KNOWN[id(dtype)] = entry
        return entry
    return None


def wire_dtype(dtype: np.dtype) -> tuple[Optional[Spec], Optional[str]]:
    """(spec, None) for a dtype the format carries, (None, why not) for one it does not."""
    entry = _KNOWN.get(id(dtype))
    if entry is None or entry[0] is not dtype:  # _known's test first, without its call
        entry = _known(dtype)
    return _described(dtype) if entry is None else entry[1]


def packed_plain_spec(dtype: np.dtype) -> Optional[bytes]:
    """The spec of a plain dtype the format carries as msgpack (a str), or None (structured, or no wire form)."""
    entry = _KNOWN.get(id(dtype))
    if entry is None or entry[0] is not dtype:
        entry = _known(dtype)
    return None if entry is None else entry[2]


def _describe(dtype: np.dtype, depth: int) -> Spec:
    if dtype.metadata:
        raise _NoWireForm(f"dtype {dtype} carries metadata {dict(dtype.metadata)!r:.80}, which the format has no place for")
    if dtype.names is None:
        text = dtype.str
        if dtype.subdtype is None and dtype.itemsize and _plain(text):
            return text
        if dtype.kind == "f" or dtype.kind == "c":
            raise _NoWireForm(f"dtype {dtype.name} ({text!r}, a platform long double) is not in docs/FORMAT.md section 6.2")
        raise _NoWireForm(f"dtype {dtype} ({text!r}) is not in docs/FORMAT.md section 6.2")
    if depth >= MAX_NESTING:
        raise _NoWireForm(f"structured dtype nested more than {MAX_NESTING} levels")
    if not dtype.names or not dtype.itemsize:
        raise _NoWireForm("structured dtype without fields or bytes")
    fields, spans = [], []
    described = dtype.fields
    assert described is not None  # a structured dtype has fields
    for name in dtype.names:
        entry: tuple[Any, ...] = described[name]
        field, offset = entry[0], entry[1]
        title = entry[2] if len(entry) > 2 else None
        if title is not None and (type(title) is not str or not title):
            raise _NoWireForm(f"field {name!r}: title {title!r} is not a non-empty str")
        if offset >= dtype.itemsize or not name:
            raise _NoWireForm(f"field {name!r} at offset {offset} is empty-named or outside the item")
        base, shape = field.subdtype if field.subdtype is not None else (field, ())
        try:
            spec = _describe(base, depth + 1)
        except _NoWireForm as why:
            raise _NoWireForm(f"field {name!r}: {why}") from None
        fields.append([name, offset, spec, list(shape), title])
        if field.itemsize:
            spans.append((offset, offset + field.itemsize, name))
    overlap = _overlap(spans)
    if overlap:
        raise _NoWireForm(overlap)
    return [dtype.itemsize, fields, bool(dtype.isalignedstruct)]


def _overlap(spans: list[tuple[int, int, str]]) -> Optional[str]:
    """Which two fields overlap, given (start, end, name) of the fields that have bytes; None if none do."""
    spans.sort()
    for (_, end, first), (start, _, second) in zip(spans, spans[1:]):
        if start < end:
            return f"fields {first!r} and {second!r} overlap"
    return None


# Plain specs already read -> their dtype (a str says all of a plain dtype; bounded, as specs come
# from untrusted frames). Only specs that passed every check are kept.
_PARSED: dict[str, np.dtype] = {}
_PARSED_MAX = 256


def parse_dtype(spec: object, depth: int = 0, where: str = "ndarray dtype") -> np.dtype:
    """The dtype an in-band description stands for; DeserializationError naming the field if it is not one."""
    if type(spec) is str:
        parsed = _PARSED.get(spec)
        if parsed is not None:
            return parsed
        if not _plain(spec) or spec[1] == "U" and int(spec[2:]) * 4 > MAX_ITEMSIZE:
            raise DeserializationError(f"{where} {spec[:40]!r} is not a standard dtype of docs/FORMAT.md section 6.2")
        try:
            dtype = np.dtype(spec)
        except (TypeError, ValueError, OverflowError) as error:
            raise DeserializationError(f"{where} {spec!r}: {error}") from error
        if dtype.str != spec:
            raise DeserializationError(f"{where} {spec!r} is not written as numpy writes it ({dtype.str!r})")
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[spec] = dtype
        return dtype
    if type(spec) is not list or len(spec) != 3:
        raise DeserializationError(f"{where} must be a string or [itemsize, fields, aligned]")
    if depth >= MAX_NESTING:
        raise DeserializationError(f"{where}: structured dtypes nested more than {MAX_NESTING} levels")
    itemsize, fields, aligned = spec
    if type(itemsize) is not int or not 1 <= itemsize <= MAX_ITEMSIZE or type(aligned) is not bool:
        raise DeserializationError(f"{where}: invalid item size {itemsize!r} or aligned flag {aligned!r}")
    if type(fields) is not list or not fields:
        raise DeserializationError(f"{where}: a structured dtype needs a non-empty array of fields")
    names, formats, offsets, titles, spans = [], [], [], [], []
    seen: set[Any] = set()
    for field in fields:
        if type(field) is not list or len(field) != 5:
            raise DeserializationError(f"{where}: a field must be [name, offset, dtype, shape, title]")
        name, offset, inner, shape, title = field
        if type(name) is not str or not name or name in seen:
            raise DeserializationError(f"{where}: field name {name!r} is empty, not a str or repeated")
        at = f"{where}, field {name!r}"
        if title is not None and (type(title) is not str or not title or title in seen or title == name):
            raise DeserializationError(f"{at}: title {title!r} is empty, not a str or repeated")
        seen.update(x for x in (name, title) if x is not None)
        if type(offset) is not int or not 0 <= offset < itemsize:
            raise DeserializationError(f"{at}: offset {offset!r} is outside the item ({itemsize} bytes)")
        if type(shape) is not list or len(shape) > 32 or any(type(n) is not int or n < 0 for n in shape):
            raise DeserializationError(f"{at}: invalid sub-array shape {shape!r}")
        base = parse_dtype(inner, depth + 1, at)
        size = base.itemsize
        for n in shape:
            size *= n
        if offset + size > itemsize:
            raise DeserializationError(f"{at}: {size} bytes at offset {offset} run past the item ({itemsize} bytes)")
        if size:
            spans.append((offset, offset + size, name))
        names.append(name)
        formats.append((base, tuple(shape)) if shape else base)
        offsets.append(offset)
        titles.append(title)
    overlap = _overlap(spans)
    if overlap:
        raise DeserializationError(f"{where}: {overlap}")
    layout: dict[str, Any] = {"names": names, "formats": formats, "offsets": offsets, "itemsize": itemsize}
    if any(t is not None for t in titles):
        layout["titles"] = titles
    try:
        built: np.dtype[Any] = np.dtype(layout, align=aligned)  # type: ignore[call-overload]  # numpy's stubs lack the dict form
    except (TypeError, ValueError) as error:
        raise DeserializationError(f"{where}: {error}") from error
    if wire_dtype(built)[0] != spec:
        raise DeserializationError(f"{where}: numpy builds a different dtype from {spec!r}")
    return built


def canonical_spec(spec: Spec) -> Spec:
    """The description with every byte order little-endian (section 9.4)."""
    if isinstance(spec, str):
        return "<" + spec[1:] if spec[0] == ">" else spec
    itemsize, fields, aligned = spec
    return [itemsize, [[n, o, canonical_spec(d), s, t] for n, o, d, s, t in fields], aligned]


def leaves(dtype: np.dtype, offset: int = 0) -> list[tuple[int, np.dtype, int]]:
    """The plain parts of one item: (offset, plain dtype, count) for each field, depth first;
    a sub-array field is one part of ``count`` consecutive elements."""
    if dtype.names is None:
        return [(offset, dtype, 1)]
    out = []
    described = dtype.fields
    assert described is not None  # names come with fields
    for name in dtype.names:
        field, at = described[name][:2]
        base, shape = field.subdtype if field.subdtype is not None else (field, ())
        count = int(np.prod(shape)) if shape else 1
        if base.names is None:
            out.append((offset + at, base, count))
        else:
            for k in range(count):
                out.extend(leaves(base, offset + at + k * base.itemsize))
    return out
