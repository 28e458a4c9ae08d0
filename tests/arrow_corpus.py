"""The Arrow type corpus: tables built from pyarrow's own type constructors.

Every ``pa.*`` type constructor pyarrow 26 has (primitive, temporal, interval,
binary and string with their large and view variants, lists, list views,
fixed-size lists, structs, maps, sparse and dense unions, run-end encoded,
dictionaries with every index width, extension types) is turned into tables
with nulls, slices and several batches, and the nested ones are also nested
three deep inside each other. Each case is ``(family, name, table)``; the
family is what the corpus report groups by (tests/test_arrow_corpus.py).

Arrays are built bottom-up from random lengths and values (a fixed seed per
case), never from pyarrow's own random generator, so the corpus is the same
on every run.
"""

from __future__ import annotations

import random
import zlib

import numpy as np
import pyarrow as pa

__all__ = ["FAMILIES", "cases", "family_of", "make_array"]


class UserPoint(pa.ExtensionType):
    """A user extension type (Python code): storage struct<x: double, y: double>, metadata b'v1'."""

    def __init__(self) -> None:
        super().__init__(pa.struct([("x", pa.float64()), ("y", pa.float64())]), "serreg.test.point")

    def __arrow_ext_serialize__(self) -> bytes:
        return b"v1"

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type, serialized):
        return cls()


try:
    pa.register_extension_type(UserPoint())
except pa.ArrowKeyError:  # registered already (the module imported twice)
    pass


def _leaf_types() -> list:
    """(family, type) for every leaf (non-nested) type constructor."""
    t = []
    t.append(("null", pa.null()))
    t.append(("boolean", pa.bool_()))
    for make in (pa.int8, pa.int16, pa.int32, pa.int64, pa.uint8, pa.uint16, pa.uint32, pa.uint64):
        t.append(("integer", make()))
    for make in (pa.float16, pa.float32, pa.float64):
        t.append(("float", make()))
    t += [("decimal", pa.decimal32(7, 2)), ("decimal", pa.decimal64(15, 3)), ("decimal", pa.decimal128(20, 4)),
          ("decimal", pa.decimal256(50, 5)), ("decimal", pa.decimal128(5, -2))]
    t += [("temporal", pa.date32()), ("temporal", pa.date64())]
    t += [("temporal", pa.time32("s")), ("temporal", pa.time32("ms")), ("temporal", pa.time64("us")),
          ("temporal", pa.time64("ns"))]
    for unit in ("s", "ms", "us", "ns"):
        t.append(("temporal", pa.timestamp(unit)))
        t.append(("temporal", pa.duration(unit)))
    t += [("temporal", pa.timestamp("us", "Europe/Paris")), ("temporal", pa.timestamp("ns", "+05:30"))]
    t.append(("interval", pa.month_day_nano_interval()))
    t += [("binary", pa.binary()), ("binary", pa.string()), ("binary", pa.large_binary()),
          ("binary", pa.large_string()), ("binary", pa.binary(5)), ("binary", pa.binary(0))]
    t += [("view", pa.binary_view()), ("view", pa.string_view())]
    for index in (pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()):
        t.append(("dictionary", pa.dictionary(index, pa.string())))
    t += [("dictionary", pa.dictionary(pa.int32(), pa.int64(), ordered=True)),
          ("dictionary", pa.dictionary(pa.int16(), pa.binary_view()))]
    t += [("extension", pa.uuid()), ("extension", pa.json_()), ("extension", pa.bool8()),
          ("extension", pa.opaque(pa.binary(), "geometry", "vendor.example")),
          ("extension", pa.fixed_shape_tensor(pa.float32(), [2, 3])),
          ("extension", pa.fixed_shape_tensor(pa.int64(), [2, 2], dim_names=["r", "c"], permutation=[1, 0])),
          ("extension", UserPoint())]
    return t


def _wrappers() -> list:
    """(family, wrap) for every nested type constructor: wrap(child type) -> nested type."""
    return [
        ("list", lambda c: pa.list_(c)),
        ("list", lambda c: pa.large_list(pa.field("element", c))),
        ("list", lambda c: pa.list_(c, 3)),
        ("list_view", lambda c: pa.list_view(c)),
        ("list_view", lambda c: pa.large_list_view(c)),
        ("struct", lambda c: pa.struct([("a", c), ("b", pa.int32())])),
        ("map", lambda c: pa.map_(pa.string(), c)),
        ("map", lambda c: pa.map_(pa.int32(), c, keys_sorted=True)),
        ("union", lambda c: pa.sparse_union([pa.field("u0", c), pa.field("u1", pa.int32())])),
        ("union", lambda c: pa.dense_union([pa.field("u0", c), pa.field("u1", pa.string())], type_codes=[5, 9])),
        ("run_end", lambda c: pa.run_end_encoded(pa.int32(), c)),
        ("run_end", lambda c: pa.run_end_encoded(pa.int16(), c)),
        ("dictionary", lambda c: pa.dictionary(pa.int8(), c)),
    ]


FAMILIES = sorted({f for f, _ in _leaf_types()} | {f for f, _ in _wrappers()} | {"nested3"})


def family_of(arrow_type: pa.DataType) -> str:
    """The corpus family of a top-level type (for cases outside the corpus)."""
    for family, leaf in _leaf_types():
        if leaf == arrow_type:
            return family
    return "nested3"


# --- array builders ------------------------------------------------------------------------------------

def _mask(rng: random.Random, n: int, p: float = 0.2):
    if n == 0 or rng.random() < 0.25:
        return None
    return pa.array([rng.random() < p for _ in range(n)], pa.bool_())


def _offsets(rng: random.Random, n: int, valid, width=pa.int32(), most: int = 3):
    sizes = [0 if valid is not None and valid[i] else rng.randint(0, most) for i in range(n)]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return pa.array(offsets, width), int(offsets[-1])


def _leaf_values(rng: random.Random, arrow_type: pa.DataType, n: int) -> list:
    t = pa.types
    def pick(f):
        return [None if rng.random() < 0.2 else f() for _ in range(n)]
    if t.is_boolean(arrow_type):
        return pick(lambda: rng.random() < 0.5)
    if t.is_integer(arrow_type):
        info = np.iinfo(arrow_type.to_pandas_dtype())
        return pick(lambda: rng.choice([int(info.min), int(info.max), 0, rng.randint(-100, 100) % int(info.max)]))
    if t.is_floating(arrow_type):
        values = pick(lambda: rng.choice([0.0, -0.0, 1.5, -2.25, float("inf"), rng.uniform(-1e3, 1e3)]))
        if arrow_type == pa.float16():
            return pa.array(np.array([0 if v is None else v for v in values], dtype=np.float16),
                            mask=np.array([v is None for v in values], dtype=bool))
        return values
    if t.is_decimal(arrow_type):
        import decimal
        digits = arrow_type.precision
        scale = arrow_type.scale
        return pick(lambda: decimal.Decimal(rng.randint(-(10 ** digits) + 1, 10 ** digits - 1)).scaleb(-scale))
    if t.is_date32(arrow_type):
        return pick(lambda: rng.randint(-100_000, 100_000))
    if t.is_date64(arrow_type):
        return pick(lambda: rng.randint(-100_000, 100_000) * 86_400_000)
    if t.is_time32(arrow_type):
        limit = 86_400 if arrow_type.unit == "s" else 86_400_000
        return pa.array(pick(lambda: rng.randrange(limit)), pa.int32()).cast(arrow_type)
    if t.is_time64(arrow_type):
        limit = 86_400 * (10 ** 6 if arrow_type.unit == "us" else 10 ** 9)
        return pa.array(pick(lambda: rng.randrange(limit)), pa.int64()).cast(arrow_type)
    if t.is_timestamp(arrow_type) or t.is_duration(arrow_type):
        return pa.array(pick(lambda: rng.randint(-2 ** 40, 2 ** 40)), pa.int64()).cast(arrow_type)
    if t.is_interval(arrow_type):
        return pick(lambda: pa.MonthDayNano([rng.randint(-99, 99), rng.randint(-999, 999), rng.randint(-2 ** 60, 2 ** 60)]))
    if t.is_fixed_size_binary(arrow_type):
        return pick(lambda: bytes(rng.randrange(256) for _ in range(arrow_type.byte_width)))
    if t.is_string(arrow_type) or t.is_large_string(arrow_type) or t.is_string_view(arrow_type):
        return pick(lambda: "".join(rng.choice("abcé漢🙂") for _ in range(rng.choice([0, 3, 13, 40]))))
    if t.is_binary(arrow_type) or t.is_large_binary(arrow_type) or t.is_binary_view(arrow_type):
        return pick(lambda: bytes(rng.randrange(256) for _ in range(rng.choice([0, 2, 12, 30]))))
    raise TypeError(f"no leaf values for {arrow_type}")


def make_array(rng: random.Random, arrow_type: pa.DataType, n: int) -> pa.Array:
    """An array of ``arrow_type`` with ``n`` slots, nulls where the type has them."""
    t = pa.types
    if t.is_null(arrow_type):
        return pa.nulls(n)
    if isinstance(arrow_type, pa.ExtensionType) or isinstance(arrow_type, pa.BaseExtensionType):
        return _extension_array(rng, arrow_type, n)
    if t.is_dictionary(arrow_type):
        size = rng.randint(1, 6)
        dictionary = make_array(rng, arrow_type.value_type, size)
        size = len(dictionary)
        indices = [None if rng.random() < 0.2 or size == 0 else rng.randrange(size) for _ in range(n)]
        return pa.DictionaryArray.from_arrays(pa.array(indices, arrow_type.index_type), dictionary,
                                              ordered=arrow_type.ordered)
    if t.is_struct(arrow_type):
        children = [make_array(rng, arrow_type.field(i).type, n) for i in range(arrow_type.num_fields)]
        return pa.StructArray.from_arrays(children, fields=list(arrow_type), mask=_mask(rng, n))
    if t.is_fixed_size_list(arrow_type):
        child = make_array(rng, arrow_type.value_type, n * arrow_type.list_size)
        return pa.FixedSizeListArray.from_arrays(child, type=arrow_type, mask=_mask(rng, n))
    if t.is_map(arrow_type):
        offsets, total = _offsets(rng, n, None)
        keys = _unique_keys(rng, arrow_type.key_type, total)
        items = make_array(rng, arrow_type.item_type, total)
        return pa.MapArray.from_arrays(offsets, keys, items, type=arrow_type, mask=_mask(rng, n))
    if t.is_list(arrow_type) or t.is_large_list(arrow_type):
        mask = _mask(rng, n)
        width = pa.int64() if t.is_large_list(arrow_type) else pa.int32()
        offsets, total = _offsets(rng, n, None if mask is None else mask.to_pylist(), width)
        child = make_array(rng, arrow_type.value_type, total)
        cls = pa.LargeListArray if t.is_large_list(arrow_type) else pa.ListArray
        return cls.from_arrays(offsets, child, type=arrow_type, mask=mask)
    if t.is_list_view(arrow_type) or t.is_large_list_view(arrow_type):
        width = pa.int64() if t.is_large_list_view(arrow_type) else pa.int32()
        total = rng.randint(0, 3 * n + 1)
        child = make_array(rng, arrow_type.value_type, total)
        offsets, sizes = [], []
        for _ in range(n):  # views may overlap and come in any order
            size = rng.randint(0, min(3, total))
            offsets.append(rng.randint(0, total - size))
            sizes.append(size)
        cls = pa.LargeListViewArray if t.is_large_list_view(arrow_type) else pa.ListViewArray
        return cls.from_arrays(pa.array(offsets, width), pa.array(sizes, width), child, type=arrow_type,
                               mask=_mask(rng, n))
    if t.is_union(arrow_type):
        codes = arrow_type.type_codes
        picks = [rng.randrange(len(codes)) for _ in range(n)]
        type_ids = pa.array([codes[p] for p in picks], pa.int8())
        if arrow_type.mode == "sparse":
            children = [make_array(rng, arrow_type.field(i).type, n) for i in range(len(codes))]
            return pa.UnionArray.from_sparse(type_ids, children, [f.name for f in arrow_type], codes)
        counts = [picks.count(i) for i in range(len(codes))]
        seen = [0] * len(codes)
        value_offsets = []
        for p in picks:
            value_offsets.append(seen[p])
            seen[p] += 1
        children = [make_array(rng, arrow_type.field(i).type, counts[i]) for i in range(len(codes))]
        return pa.UnionArray.from_dense(type_ids, pa.array(value_offsets, pa.int32()), children,
                                        [f.name for f in arrow_type], codes)
    if t.is_run_end_encoded(arrow_type):
        ends, end = [], 0
        while end < n:
            end += rng.randint(1, 4)
            ends.append(min(end, n))
        values = make_array(rng, arrow_type.value_type, len(ends))
        return pa.RunEndEncodedArray.from_arrays(pa.array(ends, arrow_type.run_end_type), values, arrow_type)
    values = _leaf_values(rng, arrow_type, n)
    return values if isinstance(values, pa.Array) else pa.array(values, arrow_type)


def _unique_keys(rng: random.Random, key_type: pa.DataType, n: int) -> pa.Array:
    if pa.types.is_string(key_type):
        return pa.array([f"k{i}" for i in range(n)], key_type)
    return pa.array(range(n), key_type)


def _extension_array(rng: random.Random, ext: pa.DataType, n: int) -> pa.Array:
    name = ext.extension_name
    storage_type = ext.storage_type
    if name == "arrow.json":
        storage = pa.array([None if rng.random() < 0.2 else f'{{"a": {rng.randint(0, 9)}}}' for _ in range(n)],
                           storage_type)
    elif name == "arrow.bool8":
        storage = pa.array([None if rng.random() < 0.2 else rng.choice([0, 1, 7]) for _ in range(n)], storage_type)
    else:
        storage = make_array(rng, storage_type, n)
    return pa.ExtensionArray.from_storage(ext, storage)


# --- cases ------------------------------------------------------------------------------------------------

def _table(rng: random.Random, arrow_type: pa.DataType, name: str) -> pa.Table:
    """Three batches (10, 0 and a slice of 14 of 20 rows), a second plain column, schema metadata."""
    batches = []
    for n, sliced in ((10, False), (0, False), (20, True)):
        column = make_array(rng, arrow_type, n)
        other = pa.array([None if i % 5 == 0 else i for i in range(n)], pa.int64())
        batch = pa.RecordBatch.from_arrays([column, other], schema=_schema(arrow_type))
        batches.append(batch.slice(3, 14) if sliced else batch)
    return pa.Table.from_batches(batches)


def _schema(arrow_type: pa.DataType) -> pa.Schema:
    return pa.schema([pa.field("c", arrow_type, metadata={"note": "corpus"}), pa.field("n", pa.int64())],
                     metadata={"origin": "arrow_corpus"})


def _nested3() -> list:
    """Types nested three deep: wrapper(wrapper(wrapper(leaf))) over a spread of leaves and wrappers."""
    leaves = [pa.int16(), pa.string(), pa.dictionary(pa.uint8(), pa.string()), pa.string_view(),
              pa.month_day_nano_interval(), pa.uuid(), pa.bool_(), pa.decimal128(9, 2), pa.timestamp("ms", "UTC")]
    wrappers = _wrappers()
    out = []
    rng = random.Random(3)
    for i in range(40):
        leaf = leaves[i % len(leaves)]
        chosen = [wrappers[rng.randrange(len(wrappers))] for _ in range(3)]
        arrow_type = leaf
        for _, wrap in chosen:
            wrapped = wrap(arrow_type)
            if pa.types.is_dictionary(wrapped) and pa.types.is_dictionary(arrow_type):
                continue  # a dictionary of dictionaries has no IPC schema: refused, tests/test_arrow_corpus.py
            arrow_type = wrapped
        out.append(arrow_type)
    return out


def cases() -> list:
    """(family, name, table) for every case of the corpus."""
    out = []
    for family, arrow_type in _leaf_types():
        out.append((family, str(arrow_type), arrow_type))
    for family, wrap in _wrappers():
        for leaf in (pa.int32(), pa.string(), pa.float64()):
            out.append((family, str(wrap(leaf)), wrap(leaf)))
    for arrow_type in _nested3():
        out.append(("nested3", str(arrow_type), arrow_type))
    tables = []
    for family, name, arrow_type in out:
        rng = random.Random(zlib.crc32(name.encode()))
        tables.append((family, name, _table(rng, arrow_type, name)))
    return tables
