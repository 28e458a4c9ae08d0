"""Hostile Arrow frames: what they cost is bounded by their size, and untrusted frames run no one's code.

Issue 11, sections 1 and 2. The IPC schema flatbuffer is checked by
serializers/arrow_ipc_check.py before pyarrow reads it; fields, arrays and
batches are charged against the deserialize call's memory budget
(``Limits.memory_per_byte`` and ``memory_allowance``) before they are built;
the canonical form pushes nulls down without a bool per child slot. Memory is
measured as fuzz/amplification.py measures it (the growth of the resident set,
which sees Arrow's C++ allocations too).
"""

import sys
from pathlib import Path

import msgpack
import numpy as np
import pyarrow as pa
import pytest

import serreg
from serreg import DeserializationError, LimitExceededError, Limits
from serreg.wire.class_id import class_id_hash

from flatbuffer_craft import String, Table, Vector, field, int_type, schema_message

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuzz"))

from amplification import Oracle, measure  # noqa: E402

ORACLE = Oracle(factor=16, allowance_mib=32)


def arrow_frame(schema_part, batches=(), buffers=(), class_id="ArrowTable") -> bytes:
    in_band = class_id_hash(class_id) + msgpack.packb([schema_part, list(batches)])
    return serreg.SerializationResult(in_band, [memoryview(b) for b in buffers]).to_bytes()


def decode(frame, **kwargs):
    try:
        return serreg.deserialize(frame, **kwargs)
    except DeserializationError as error:
        return error


@pytest.fixture(scope="module", autouse=True)
def arrow_paths_loaded():
    """Read a small table trusted and untrusted once before anything is measured: the first
    Arrow frame a process reads loads pyarrow's IPC modules and memory pool (about 50 MiB of
    resident set, once per process), which is no hostile frame's cost."""
    frame = serreg.serialize(pa.table({"a": [1]})).to_bytes()
    for trusted in (True, False):
        serreg.deserialize(frame, trusted=trusted)


def within_bound(frame_size: int, call):
    """Run ``call``; fail if it took more memory than 16 x size + 32 MiB; return its outcome."""
    cost = measure(call)
    assert cost.peak_bytes <= ORACLE.memory_bound(frame_size), (
        f"{cost.peak_bytes / 2**20:.1f} MiB for {frame_size:,} bytes ({cost.method})")
    return cost.outcome


# ---------------------------------------------------------------------- the schema flatbuffer


@pytest.mark.parametrize("trusted", [False, True])
def test_a_schema_whose_fields_share_one_name_is_refused_before_pyarrow_reads_it(trusted):
    # 3,000 fields pointing at one 60 KB name: pyarrow copies it into every field (172 MiB
    # for this 216 KB frame on c2967a7; the growth is quadratic in the frame's size).
    name = String("n" * 60_000)
    frame = arrow_frame(schema_message([field(name) for _ in range(3000)]))
    error = within_bound(len(frame), lambda: decode(frame, trusted=trusted))
    assert isinstance(error, DeserializationError) and "reached a second time" in str(error), error
    assert error.class_id == "ArrowTable"


def test_a_schema_whose_children_form_a_dag_is_refused():
    # Each struct's children vector holds its child twice: 2^18 fields from a few hundred bytes.
    inner = field("leaf")
    for level in range(18):
        inner = field(f"s{level}", "Struct_", children=[inner, inner])
    frame = arrow_frame(schema_message([inner]))
    error = within_bound(len(frame), lambda: decode(frame, trusted=False))
    assert isinstance(error, DeserializationError) and "reached a second time" in str(error), error


def test_type_tables_and_metadata_strings_may_not_be_shared_either():
    shared_type = int_type(32)
    frame = arrow_frame(schema_message([field("a", "Int", shared_type), field("b", "Int", shared_type)]))
    assert "reached a second time" in str(decode(frame, trusted=False))
    value = String("v" * 100)
    frame = arrow_frame(schema_message([field("a", metadata=[("k1", value), ("k2", value)])]))
    assert "reached a second time" in str(decode(frame, trusted=False))


def test_every_truncation_and_byte_flip_of_a_schema_message_is_a_value_or_an_error():
    schema = pa.schema([pa.field("a", pa.int32()), pa.field("b", pa.list_(pa.string()), metadata={b"k": b"v"}),
                        pa.field("m", pa.map_(pa.string(), pa.struct([("x", pa.decimal128(10, 2))])))],
                       metadata={b"x": b"y"})
    message = schema.serialize().to_pybytes()
    table = pa.Table.from_batches([], schema=schema)
    assert serreg.deserialize(arrow_frame(message), trusted=False).equals(table)
    outcomes = set()
    for cut in range(len(message)):
        outcomes.add(type(decode(arrow_frame(message[:cut]), trusted=False)))
    for position in range(8, len(message)):
        for mask in (0x01, 0x80):
            mutated = bytearray(message)
            mutated[position] ^= mask
            outcomes.add(type(decode(arrow_frame(bytes(mutated)), trusted=False)))
    assert outcomes <= {DeserializationError, pa.Table}, outcomes
    assert DeserializationError in outcomes


def test_fields_nested_more_than_64_deep_are_refused():
    def nested(depth):
        inner = field("leaf")
        for level in range(depth - 1):
            inner = field(f"l{level}", "List", children=[inner])
        return arrow_frame(schema_message([inner]))

    assert isinstance(decode(nested(64), trusted=False), pa.Table)
    error = decode(nested(65), trusted=False)
    assert isinstance(error, DeserializationError) and "64 deep" in str(error)
    # The canonical schema description has the same limit.
    description = ["leaf", ["Null"], True, None, []]
    for _ in range(64):
        description = ["l", ["List"], True, None, [description]]
    assert "64 deep" in str(decode(arrow_frame([[description], None]), trusted=False))


def test_intervals_pyarrow_cannot_hold_and_unknown_type_tags_are_refused_by_name_before_pyarrow_reads_them():
    error = decode(arrow_frame(schema_message([field("x", "Interval")])), trusted=False)  # unit 0: YEAR_MONTH
    assert isinstance(error, DeserializationError) and "Interval(YEAR_MONTH)" in str(error), error
    unknown = field("x", "Null")
    unknown.fields[2] = ("u8", 27)
    error = decode(arrow_frame(schema_message([unknown])), trusted=False)
    assert isinstance(error, DeserializationError) and "type tag 27" in str(error), error


@pytest.mark.parametrize("type_name", ["Union", "Utf8View"])
def test_union_and_view_schemas_are_read(type_name):
    assert isinstance(decode(arrow_frame(schema_message([field("x", type_name)])), trusted=False), pa.Table)


def test_dictionary_encodings_with_a_bad_index_type_and_big_endian_schemas_are_refused():
    dictionary = field("d", "Int", int_type())
    dictionary.fields[4] = ("ref", Table({0: ("i64", 0), 1: ("ref", int_type(12))}))
    error = decode(arrow_frame(schema_message([dictionary])), trusted=False)
    assert isinstance(error, DeserializationError) and "index type" in str(error), error
    dictionary.fields[4] = ("ref", Table({0: ("i64", 0), 1: ("ref", int_type(16, signed=False))}))
    table = decode(arrow_frame(schema_message([dictionary])), trusted=False)
    assert table.schema.field("d").type == pa.dictionary(pa.uint16(), pa.int64())
    assert isinstance(decode(arrow_frame(schema_message([field("a")])), trusted=False), pa.Table)
    error = decode(arrow_frame(schema_message([field("a")], big_endian=True)), trusted=False)
    assert isinstance(error, DeserializationError) and "big-endian" in str(error)


# ---------------------------------------------------------------------- extension types


class RecordingExtension(pa.ExtensionType):
    """An extension type whose deserializer records its calls (Ray's can run cloudpickle.loads)."""

    calls: list = []

    def __init__(self):
        super().__init__(pa.int64(), "serreg.test.recording")

    def __arrow_ext_serialize__(self):
        return b""

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type, serialized):
        cls.calls.append(bytes(serialized))
        return cls()


@pytest.fixture
def recording_extension():
    pa.register_extension_type(RecordingExtension())
    RecordingExtension.calls.clear()
    try:
        yield RecordingExtension.calls
    finally:
        pa.unregister_extension_type("serreg.test.recording")


EXTENSION_METADATA = {b"ARROW:extension:name": b"serreg.test.recording", b"ARROW:extension:metadata": b"RUN ME"}


@pytest.mark.parametrize("nested", [False, True])
def test_an_untrusted_frame_never_reaches_a_registered_extension_types_deserializer(recording_extension, nested):
    storage = pa.field("c", pa.int64(), metadata=EXTENSION_METADATA)
    schema = pa.schema([pa.field("s", pa.struct([storage]))] if nested else [storage])
    frame = arrow_frame(schema.serialize().to_pybytes())
    # Untrusted: the column is its storage with the extension keys on its field; no code ran.
    untrusted = decode(frame, trusted=False)
    assert recording_extension == []
    assert untrusted.schema == schema and untrusted.schema.equals(schema, check_metadata=True), untrusted.schema
    # The same frame from a trusted writer: pyarrow makes the registered extension type.
    trusted = decode(frame, trusted=True)
    assert recording_extension[0] == b"RUN ME"
    column = trusted.schema.field(0).type
    assert isinstance(column.field(0).type if nested else column, RecordingExtension)


def test_the_hidden_extension_key_is_reserved():
    storage = pa.field("c", pa.int64(), metadata={b"\x00RROW:extension:name": b"x"})
    error = decode(arrow_frame(pa.schema([storage]).serialize().to_pybytes()), trusted=True)
    assert isinstance(error, DeserializationError) and "reserved" in str(error), error


def test_other_metadata_is_kept_in_untrusted_mode():
    table = pa.table({"a": pa.array([1, 2])}).replace_schema_metadata({b"pandas": b"{}"})
    table = table.cast(pa.schema([pa.field("a", pa.int64(), metadata={b"unit": b"m"})], metadata={b"pandas": b"{}"}))
    back = serreg.deserialize(serreg.serialize(table).to_bytes(), trusted=False)
    assert back.schema.metadata == {b"pandas": b"{}"} and back.schema.field("a").metadata == {b"unit": b"m"}


# ---------------------------------------------------------------------- nodes and batches are charged


@pytest.mark.parametrize("trusted", [False, True])
def test_300000_empty_batches_are_refused_within_the_bound(trusted):
    # 3 bytes per batch ([0, []] of a table without columns): on c2967a7 one RecordBatch
    # each, 117 MiB and 2 s for 0.9 MiB.
    frame = arrow_frame(pa.schema([]).serialize().to_pybytes(), [[0, []]] * 300_000)
    assert len(frame) < 2**20
    error = within_bound(len(frame), lambda: decode(frame, trusted=trusted))
    assert isinstance(error, LimitExceededError) and "memory_per_byte" in str(error), error


def test_empty_batches_of_columns_are_charged_per_node():
    schema = pa.schema([pa.field("a", pa.null()), pa.field("b", pa.struct([]))]).serialize().to_pybytes()
    frame = arrow_frame(schema, [[0, [[0, 0, 0], [0, 0, 1]]]] * 200_000, [b""] * 200_000)
    error = within_bound(len(frame), lambda: decode(frame, trusted=False))
    assert isinstance(error, LimitExceededError), error
    # A modest number of them is fine, and the budget can be raised.
    few = arrow_frame(schema, [[0, [[0, 0, 0], [0, 0, 1]]]] * 1000, [b""] * 1000)
    assert decode(few, trusted=False).num_rows == 0
    assert decode(frame, limits=Limits(memory_per_byte=None, max_buffers=None)).num_rows == 0


def test_schema_fields_are_charged_before_pyarrow_builds_them():
    message = pa.schema([pa.field(f"c{i}", pa.null()) for i in range(1000)]).serialize().to_pybytes()
    frame = arrow_frame(message)
    assert decode(frame, trusted=False).num_columns == 1000
    tight = Limits(memory_allowance=0, memory_per_byte=2)
    error = decode(frame, limits=tight, trusted=False)
    assert isinstance(error, LimitExceededError) and "Arrow schema fields" in str(error)
    description = serreg.serialize(pa.table({f"c{i}": pa.nulls(0) for i in range(1000)}), canonical=True)
    error = decode(description.to_bytes(), limits=tight, trusted=False)
    assert isinstance(error, LimitExceededError) and "Arrow schema fields" in str(error)


def test_ordinary_tables_stay_far_inside_the_budget():
    table = pa.table({"i": np.arange(100_000), "s": pa.array([str(i) for i in range(100_000)]),
                      "l": pa.array([[i, i] for i in range(100_000)])})
    many_batches = pa.Table.from_batches(table.to_batches(max_chunksize=100))
    for value in (table, many_batches):
        frame = serreg.serialize(value).to_bytes()
        tight = Limits(memory_allowance=0)
        assert serreg.deserialize(frame, trusted=False, limits=tight).equals(value)


# ---------------------------------------------------------------------- canonical form: nulls pushed down


def _fixed_size_list_of(child: pa.Array, size: int, rows: int, null_rows=(0,)) -> bytes:
    """A frame of a fixed-size list column of ``rows`` rows of ``size`` slots of ``child``'s
    type, with nodes written by hand so the child is as long as that needs, for free."""
    schema = pa.schema([pa.field("c", pa.list_(child.type, size))]).serialize().to_pybytes()
    bitmap = np.ones(rows, dtype=bool)
    bitmap[list(null_rows)] = False
    validity = np.packbits(bitmap, bitorder="little").tobytes()
    child_nodes = [[rows * size, rows * size, 0]] if pa.types.is_null(child.type) else [[rows * size, 0, 1]]
    buffers = [validity] + ([] if pa.types.is_null(child.type) else [b""])
    return arrow_frame(schema, [[rows, [[rows, len(null_rows), 1]] + child_nodes]], buffers)


def test_digest_pushes_nulls_into_a_null_child_without_a_bool_per_slot():
    # 256 rows of 2^20 null slots each, one row null: 288 bytes. c2967a7's digest made a
    # bool per child slot (256 MiB).
    frame = _fixed_size_list_of(pa.nulls(1), 2**20, 256)
    table = serreg.deserialize(frame, trusted=False)
    digest = within_bound(len(frame), lambda: serreg.digest(table))
    assert isinstance(digest, bytes) and len(digest) == 32
    # The canonical frame reads back to an equal table with the same digest.
    again = serreg.deserialize(serreg.serialize(table, canonical=True).to_bytes(), trusted=False)
    assert serreg.digest(again) == digest


def test_pushed_down_bitmaps_of_children_without_data_are_right_and_bounded():
    # A fixed-size list of 3 empty structs per row, rows 1 and 4 null: the child's bitmap is
    # written a chunk at a time from one bool per row, and equals the slot-by-slot rule.
    frame = _fixed_size_list_of(pa.array([{}], pa.struct([])), 3, 6, null_rows=(1, 4))
    table = serreg.deserialize(frame, trusted=False)
    result = serreg.serialize(table, canonical=True)
    child_bitmap = bytes(result.out_of_band_buffers[1])
    expected = np.packbits(np.repeat([True, False, True, True, False, True], 3), bitorder="little").tobytes()
    assert child_bitmap == expected
    # 2^24 slots per row: a 4 MiB bitmap per row of data-less slots is more than 16 x the
    # value's buffers + 32 MiB for 64 rows: refused, without building it.
    huge = serreg.deserialize(_fixed_size_list_of(pa.array([{}], pa.struct([])), 2**24, 64), trusted=False)
    error = within_bound(300, lambda: serreg.digest(huge))
    assert isinstance(error, serreg.CanonicalFormError) and "validity" in str(error), error
    # Within the budget the bitmap is written, and agrees with the naive rule.
    medium = serreg.deserialize(_fixed_size_list_of(pa.array([{}], pa.struct([])), 2**20, 8, null_rows=(3,)),
                                trusted=False)
    bitmap = np.frombuffer(serreg.serialize(medium, canonical=True).out_of_band_buffers[1], dtype=np.uint8)
    assert bitmap.size == 2**20 and not bitmap[3 * 2**17: 4 * 2**17].any() and bitmap[: 3 * 2**17].all()


def test_list_slots_under_nulls_over_data_less_children_are_dropped_without_a_bool_per_child_slot():
    # A list<null> whose null first slot spans 2^40 child slots: the canonical child keeps
    # only the slots under valid lists, and finding them costs nothing per child slot.
    offsets = np.array([0, 2**30, 2**30 + 3], dtype=np.int32).tobytes()
    schema = pa.schema([pa.field("l", pa.list_(pa.null()))]).serialize().to_pybytes()
    validity = np.packbits([False, True], bitorder="little").tobytes()
    frame = arrow_frame(schema, [[2, [[2, 1, 2], [2**30 + 3, 2**30 + 3, 0]]]], [validity, offsets])
    table = serreg.deserialize(frame, trusted=False)
    canonical = within_bound(len(frame), lambda: serreg.serialize(table, canonical=True))
    _, batches = msgpack.unpackb(bytes(canonical.in_band_buffer)[8:])
    assert batches[0][1] == [[2, 1, 2], [3, 3, 0]]
    assert np.frombuffer(canonical.out_of_band_buffers[1], dtype=np.int32).tolist() == [0, 0, 3]
