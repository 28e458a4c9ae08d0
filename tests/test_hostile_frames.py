"""Bad input: whatever bytes reach deserialize give a value or a DeserializationError that says where."""

import decimal
import io
import struct
import time
import tracemalloc

import msgpack
import numpy as np
import pyarrow as pa
import pytest

import serreg
from serreg import DeserializationError, LimitExceededError, Limits, UnknownClassIDError
from serreg.wire.class_id import class_id_hash
from serreg.wire.frame import HEADER, iter_frames

from samples import all_values


def frame_of(value, **kwargs) -> bytes:
    return serreg.serialize(value, **kwargs).to_bytes()


def raw_frame(class_id: str, in_band: bytes, buffers=()) -> bytes:
    """A well-formed frame around arbitrary in-band bytes and buffers."""
    result = serreg.SerializationResult(class_id_hash(class_id) + in_band, [memoryview(b) for b in buffers])
    return result.to_bytes()


def decode(data, **kwargs):
    """Deserialize; any exception other than a DeserializationError fails the test."""
    try:
        return serreg.deserialize(data, **kwargs)
    except DeserializationError as error:
        return error


SMALL = {"a": [1, 2.5, "x"], "t": (np.arange(3), b"raw"), "s": {1, 2}}


@pytest.mark.parametrize("untrusted", [False, True])
def test_truncation_at_every_offset_is_rejected_with_an_offset(untrusted):
    frame = frame_of(SMALL)
    for cut in range(len(frame)):
        error = decode(frame[:cut], trusted=not untrusted)
        assert isinstance(error, DeserializationError), cut
        assert error.offset is not None, (cut, str(error))


def test_every_flipped_byte_gives_a_value_or_an_error():
    frame = frame_of(SMALL)
    outcomes = {"value": 0, "error": 0}
    for position in range(len(frame)):
        for mask in (0x01, 0x80, 0xFF):
            mutated = bytearray(frame)
            mutated[position] ^= mask
            outcome = decode(bytes(mutated), trusted=False)
            outcomes["error" if isinstance(outcome, DeserializationError) else "value"] += 1
    # Most flips are caught (header, table, padding, hashes, msgpack types).
    assert outcomes["error"] > outcomes["value"]


def test_unknown_version_and_flags_and_reserved_fields():
    frame = bytearray(frame_of([1]))
    for position, value, where in ((4, 2, 4), (5, 0x04, 5), (5, 0x80, 5), (5, 0x01, 5), (6, 1, 6), (12, 1, 12)):
        mutated = bytearray(frame)
        mutated[position] = value
        error = decode(bytes(mutated))
        assert isinstance(error, DeserializationError) and error.offset == where, str(error)
    assert "version 2" in str(decode(bytes(frame[:4]) + b"\x02" + bytes(frame[5:])))


def test_total_length_and_in_band_length_past_the_end():
    frame = frame_of({"k": np.arange(10)})
    for field, offset in ((7, 24), (6, 16)):  # total length, in-band length
        values = list(HEADER.unpack_from(frame, 0))
        values[field] = 2**63
        error = decode(HEADER.pack(*values) + frame[32:])
        assert isinstance(error, DeserializationError) and error.offset == offset, str(error)


def test_buffer_offsets_past_the_end_overlapping_or_misaligned():
    frame = frame_of((np.arange(4), np.arange(5)))
    table = 32
    first_offset, first_length = struct.unpack_from("<QQ", frame, table)
    cases = {
        "past end": (table + 8, 2**40),  # length of buffer 0
        "overlap": (table + 16, first_offset),  # buffer 1 starts where buffer 0 does
        "misaligned": (table + 16, first_offset + first_length + 1),
        "offset past end": (table + 16, 2**62),
    }
    for name, (position, value) in cases.items():
        mutated = bytearray(frame)
        struct.pack_into("<Q", mutated, position, value)
        error = decode(bytes(mutated))
        assert isinstance(error, DeserializationError), name
        assert error.offset in (position, position - 8), (name, str(error))


def test_non_zero_padding_is_rejected():
    frame = bytearray(frame_of(np.arange(3)))
    offset = struct.unpack_from("<Q", frame, 32)[0]
    frame[offset - 1] = 1
    assert "padding" in str(decode(bytes(frame)))


def test_out_of_band_count_mismatch_both_ways():
    one_buffer = serreg.serialize(np.arange(3))
    extra = serreg.SerializationResult(one_buffer.in_band_buffer, one_buffer.out_of_band_buffers * 2).to_bytes()
    assert "no serializer used" in str(decode(extra))
    missing = serreg.SerializationResult(one_buffer.in_band_buffer, []).to_bytes()
    error = decode(missing)
    assert isinstance(error, DeserializationError) and "more out-of-band buffers" in str(error)
    assert error.class_id == "numpy.ndarray"


def test_unknown_class_id_names_the_hash_and_offset():
    frame = raw_frame("no.such.ClassID", msgpack.packb(1))
    error = decode(frame)
    assert isinstance(error, UnknownClassIDError)
    assert class_id_hash("no.such.ClassID").hex() in str(error) and error.offset == 32


def test_unknown_class_id_inside_a_container_names_the_enclosing_values():
    inner = msgpack.ExtType(0, class_id_hash("no.such.ClassID") + msgpack.packb(1))
    frame = raw_frame("dict", msgpack.packb({"x": [inner]}))
    error = decode(frame)
    assert isinstance(error, UnknownClassIDError) and error.nesting == ["dict"], str(error)


def test_msgpack_nesting_100000_deep():
    frame = raw_frame("list", b"\x91" * 100_000 + b"\xc0")
    error = decode(frame)
    assert isinstance(error, LimitExceededError) and "nested" in str(error)


def test_nested_values_100000_deep_stop_at_max_depth():
    # 100,000 levels of tuple(tuple(...(None))), built outside-in in one join.
    levels = 100_000
    inner = class_id_hash("None") + b"\xc0"
    parts = []
    for k in range(levels, 0, -1):
        inner_length = len(inner) + 15 * (k - 1)
        parts.append(class_id_hash("tuple") + b"\x91\xc9" + inner_length.to_bytes(4, "big") + b"\x00")
    section = b"".join(parts) + inner
    frame = serreg.SerializationResult(section).to_bytes()
    error = decode(frame)
    assert isinstance(error, LimitExceededError) and "max_depth=100" in str(error)
    assert len(error.nesting) == 100
    shallow = serreg.Registry(limits=Limits(max_depth=5))
    with pytest.raises(LimitExceededError):
        shallow.deserialize(frame_of(((((((1,),),),),),)))
    assert shallow.deserialize(frame_of((((1,),),))) == (((1,),),)


@pytest.mark.parametrize("header", [b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff", b"\xdb\xff\xff\xff\xff",
                                    b"\xc6\xff\xff\xff\xff", b"\xc9\xff\xff\xff\xff\x00"])
def test_msgpack_lengths_of_billions_are_rejected_without_allocating(header):
    frame = raw_frame("list", header + b"\x00" * 16)
    tracemalloc.start()
    try:
        error = decode(frame)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(error, DeserializationError)
    assert peak < 1_000_000


def test_untrusted_containers_declaring_more_than_they_hold_allocate_nothing():
    # 1,000 nested arrays, each declaring as many items as the in-band has bytes:
    # msgpack alone would allocate 1,000 lists of that length before noticing.
    size = 1 << 20
    in_band = (b"\xdd" + size.to_bytes(4, "big")) * 1000
    frame = raw_frame("list", in_band.ljust(size, b"\xc0"))
    tracemalloc.start()
    try:
        error = decode(frame, trusted=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(error, DeserializationError)
    assert peak < 4 * len(frame), peak


def test_ndarray_shape_that_does_not_match_its_buffer():
    for shape, buffer in (([3, 4], bytes(8 * 11)), ([2**62, 2**62], bytes(8)), ([0, 2**63], b"x")):
        error = decode(raw_frame("numpy.ndarray", msgpack.packb(["<i8", shape, "C"]), [buffer]))
        assert isinstance(error, DeserializationError) and error.class_id == "numpy.ndarray", str(error)
    error = decode(raw_frame("numpy.ndarray", msgpack.packb(["<i8", [2**63] * 100_000, "C"]), [b""]))
    assert "dimensions" in str(error)
    for dtype in ("O", "|U4", "<U0", "V8", "<M8[1s]", "(3,)i4", "x" * 10_000):
        error = decode(raw_frame("numpy.ndarray", msgpack.packb([dtype, [1], "C"]), [bytes(16)]))
        assert isinstance(error, DeserializationError) and "dtype" in str(error), dtype


def arrow_frame_parts(value):
    result = serreg.serialize(value)
    section = bytes(result.in_band_buffer)
    schema, batches = msgpack.unpackb(section[8:])
    return section[:8], schema, batches, [bytes(memoryview(b).cast("B")) for b in result.out_of_band_buffers]


def test_arrow_nodes_that_do_not_match_the_schema_or_buffers():
    table = pa.table({"s": pa.array(["a", "bb", None]), "i": pa.array([1, 2, 3])})
    head, schema, batches, buffers = arrow_frame_parts(table)
    (rows, nodes), = batches

    def attempt(new_batches, new_buffers=buffers):
        frame = serreg.SerializationResult(head + msgpack.packb([schema, new_batches]),
                                           [memoryview(b) for b in new_buffers]).to_bytes()
        return decode(frame, trusted=False)

    assert isinstance(attempt([[rows, nodes]]), pa.Table)
    cases = {
        "too few nodes": [[rows, nodes[:1]]],
        "too many nodes": [[rows, nodes + [[1, 0, 2]]]],
        "wrong buffer count": [[rows, [[3, 1, 2]] + nodes[1:]]],
        "length beyond buffers": [[rows, [[10**6, 1, 3]] + nodes[1:]]],
        "row count mismatch": [[rows + 1, nodes]],
        "negative": [[rows, [[-1, 0, 3]] + nodes[1:]]],
    }
    for name, new_batches in cases.items():
        assert isinstance(attempt(new_batches), DeserializationError), name
    # A string offset in the middle pointing far past the data buffer: Arrow's cheap
    # validation passes it (reading row 0 would then run off the buffer); the full one does not.
    offsets = np.frombuffer(buffers[1], dtype=np.int32).copy()
    offsets[1] = 10**6
    bad = [buffers[0], offsets.tobytes()] + buffers[2:]
    error = attempt([[rows, nodes]], bad)
    assert isinstance(error, DeserializationError) and error.class_id == "ArrowTable", str(error)
    # The same frame held in Arrow memory (pa.memory_map, Flight, ...) is checked just as fully.
    frame = serreg.SerializationResult(head + msgpack.packb([schema, [[rows, nodes]]]),
                                       [memoryview(b) for b in bad]).to_bytes()
    assert isinstance(decode(pa.py_buffer(frame), trusted=False), DeserializationError)
    assert isinstance(decode(pa.py_buffer(frame)), DeserializationError)


def test_frame_size_and_buffer_count_limits():
    frame = frame_of(list(range(100)))
    small = serreg.Registry(limits=Limits(max_frame_size=len(frame) - 1))
    with pytest.raises(LimitExceededError, match="max_frame_size"):
        small.deserialize(frame)
    assert serreg.deserialize(frame, limits=Limits(max_frame_size=len(frame))) == list(range(100))
    many = frame_of([bytearray(b"x")] * 10)
    with pytest.raises(LimitExceededError, match="max_buffers=9"):
        serreg.deserialize(many, limits=Limits(max_buffers=9))
    with pytest.raises(ValueError):
        Limits(max_depth=-1)


def test_stream_header_claiming_a_huge_frame_reads_nothing_more():
    values = list(HEADER.unpack_from(frame_of(1), 0))
    values[7] = 2**62
    stream = io.BytesIO(HEADER.pack(*values) + b"\x00" * 100)
    with pytest.raises(LimitExceededError):
        next(iter_frames(stream))
    assert stream.tell() == 32
    values[7] = 1 << 20  # within the limit, but the stream ends early
    tracemalloc.start()
    try:
        with pytest.raises(DeserializationError, match="stream ends"):
            next(iter_frames(io.BytesIO(HEADER.pack(*values) + b"\x00" * 100)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 19


def test_stream_of_frames_round_trips():
    frames = [frame_of(v) for v in ([1], "x", np.arange(3))]
    read = list(iter_frames(io.BytesIO(b"".join(frames))))
    assert [f.total_length for f in read] == [len(f) for f in frames]


def test_every_sample_decodes_in_untrusted_mode():
    for value in all_values():
        frame = frame_of(value)
        back = serreg.deserialize(frame, trusted=False)
        assert type(back) is type(value)


def test_arrow_columns_with_no_per_row_bytes_and_huge_lengths_cost_nothing():
    # A null column (or a struct of nulls, or zero-width binary) has no buffers to check a
    # length against; building it must not take time or memory in proportion to that length.
    rows = 2**40
    for column in (pa.nulls(2), pa.array([{"a": None}] * 2, pa.struct([("a", pa.null())])),
                   pa.array([b"", b""], pa.binary(0))):
        head, schema, batches, buffers = arrow_frame_parts(pa.table({"c": column}))
        (_, nodes), = batches
        nodes = [[rows, rows if null_count else 0, count] for _, null_count, count in nodes]
        frame = serreg.SerializationResult(head + msgpack.packb([schema, [[rows, nodes]]]),
                                           [memoryview(b) for b in buffers]).to_bytes()
        tracemalloc.start()
        try:
            table = serreg.deserialize(frame, trusted=False)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert table.num_rows == rows and peak < 1_000_000, column.type


def test_untrusted_maps_and_sets_with_flooded_hashes_are_refused_fast():
    # Every multiple of 2**61 - 1 hashes to 0: a dict of such keys is built in quadratic time.
    mersenne = 2**61 - 1
    keys = [mersenne * (2**64 + i) for i in range(4000)]
    frames = {
        "map": frame_of(dict.fromkeys(keys, 0)),
        "set": frame_of(set(keys)),
        "decimal keys": frame_of({decimal.Decimal(mersenne) * 10**i: 1 for i in range(2000)}),
        "nested": frame_of([{"ok": 1}, (frozenset(keys),)]),
    }
    for name, frame in frames.items():
        started = time.perf_counter()
        with pytest.raises(LimitExceededError, match="same hash"):
            serreg.deserialize(frame, trusted=False)
        assert time.perf_counter() - started < 1.0, name
    # Ordinary keys, many of them, are fine; and trusted mode does not look.
    ordinary = {i: str(i) for i in range(20_000)}
    assert serreg.deserialize(frame_of(ordinary), trusted=False) == ordinary
    assert len(serreg.deserialize(frame_of({k: 0 for k in keys[:100]}))) == 100


def test_frames_given_as_other_buffers():
    frame = frame_of([1, 2])
    assert serreg.deserialize(np.frombuffer(frame, dtype=np.uint8)) == [1, 2]
    assert serreg.deserialize(memoryview(bytearray(frame))) == [1, 2]
    with pytest.raises(DeserializationError, match="contiguous"):
        serreg.deserialize(np.zeros((64, 8), dtype=np.uint8)[:, ::2])
