"""Hostile frames of the Arrow layouts beyond the plain ones, read in untrusted mode.

Dictionaries, sparse and dense unions, run-end encoded arrays, string/binary
views, list views, month_day_nano intervals and extension types are built by
pyarrow from buffers a frame chooses; a wrong type id, dense offset, run end,
view or dictionary index must be an error naming the column, never a crash of
the process (Arrow C++ aborts on some broken arrays) and never a value that
fails Arrow's full validation. Each case's frame is mutated many times (node
lengths, null and buffer counts, bytes of every buffer) and read in a child
process, so a crash fails the test instead of ending the run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import msgpack
import pyarrow as pa
import pytest

import serreg
from serreg import DeserializationError, LimitExceededError
from serreg.wire.class_id import class_id_hash

HERE = Path(__file__).resolve().parent

CHILD = textwrap.dedent('''
    import random, sys
    import msgpack, pyarrow as pa, serreg
    from serreg.wire.class_id import class_id_hash
    sys.path.insert(0, sys.argv[1])
    import arrow_corpus

    FAMILIES = set(sys.argv[2].split(","))
    ROUNDS = int(sys.argv[3])
    outcomes = {"value": 0, "error": 0}

    def frame(schema, batches, buffers):
        in_band = class_id_hash("ArrowTable") + msgpack.packb([schema, batches])
        return serreg.SerializationResult(in_band, [memoryview(b) for b in buffers]).to_bytes()

    for family, name, table in arrow_corpus.cases():
        if family not in FAMILIES:
            continue
        result = serreg.serialize(table)
        schema, batches = msgpack.unpackb(bytes(result.in_band_buffer)[8:])
        buffers = [bytes(b) for b in result.out_of_band_buffers]
        rng = random.Random(name)
        for _ in range(ROUNDS):
            nodes = [[list(n) for n in b[1]] for b in batches]
            mutated = [bytearray(b) for b in buffers]
            for _ in range(rng.randint(1, 3)):
                if rng.random() < 0.35 and any(nodes):
                    batch = rng.choice([b for b in nodes if b])
                    node = rng.choice(batch)
                    node[rng.randrange(3)] = rng.choice([0, 1, 2, 3, 7, 255, 2**31 - 1, node[0] + 1])
                elif any(mutated):
                    buf = rng.choice([b for b in mutated if b])
                    at = rng.randrange(len(buf))
                    buf[at] = rng.choice([0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)])
            data = frame(schema, [[b[0], n] for b, n in zip(batches, nodes)], mutated)
            try:
                value = serreg.deserialize(data, trusted=False)
            except (serreg.DeserializationError, serreg.LimitExceededError) as error:
                outcomes["error"] += 1
                continue
            value.validate(full=True)  # anything handed out passes Arrow's full validation
            outcomes["value"] += 1
    print("OK", outcomes["value"], outcomes["error"])
''')


@pytest.mark.parametrize("families", [
    "dictionary", "union", "run_end", "view,list_view", "interval,extension", "nested3",
])
def test_mutated_frames_of_the_new_layouts_are_values_or_errors_never_crashes(families):
    rounds = "40" if families == "nested3" else "150"
    proc = subprocess.run([sys.executable, "-c", CHILD, str(HERE), families, rounds],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    assert proc.stdout.startswith("OK"), proc.stdout
    _, values, errors = proc.stdout.split()
    assert int(errors) > 0


def arrow_frame(schema_part, batches, buffers) -> bytes:
    in_band = class_id_hash("ArrowTable") + msgpack.packb([schema_part, batches])
    return serreg.SerializationResult(in_band, [memoryview(b) for b in buffers]).to_bytes()


def decode(frame):
    try:
        return serreg.deserialize(frame, trusted=False)
    except (DeserializationError, LimitExceededError) as error:
        return error


def schema_of(arrow_type) -> bytes:
    return pa.schema([pa.field("f3", arrow_type)]).serialize().to_pybytes()


def test_a_dictionary_index_past_its_dictionary_is_an_error_naming_the_type():
    indices = (b"\x00\x00\x00\x00" b"\x05\x00\x00\x00")  # int32 0 and 5; the dictionary has 2 values
    frame = arrow_frame(schema_of(pa.dictionary(pa.int32(), pa.string())), [[2, [[2, 0, 2], [2, 0, 3]]]],
                        [b"", indices, b"", b"\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00", b"ab"])
    error = decode(frame)
    assert isinstance(error, DeserializationError) and "dictionary<values=string, indices=int32" in str(error), error


def test_a_union_type_id_it_does_not_have_is_an_error():
    frame = arrow_frame(schema_of(pa.sparse_union([pa.field("a", pa.int8())])), [[1, [[1, 0, 1], [1, 0, 2]]]],
                        [b"\x07", b"", b"\x01"])
    error = decode(frame)
    assert isinstance(error, DeserializationError) and "sparse_union" in str(error), error


def test_a_dense_union_offset_past_its_child_is_an_error():
    frame = arrow_frame(schema_of(pa.dense_union([pa.field("a", pa.int8())])), [[1, [[1, 0, 2], [1, 0, 2]]]],
                        [b"\x00", b"\x09\x00\x00\x00", b"", b"\x01"])
    error = decode(frame)
    assert isinstance(error, DeserializationError) and "dense_union" in str(error), error


def test_run_ends_that_do_not_grow_or_fall_short_are_errors():
    for ends in (b"\x03\x00\x00\x00\x01\x00\x00\x00", b"\x01\x00\x00\x00\x02\x00\x00\x00"):
        frame = arrow_frame(schema_of(pa.run_end_encoded(pa.int32(), pa.int8())),
                            [[4, [[4, 0, 0], [2, 0, 2], [2, 0, 2]]]], [b"", ends, b"", b"\x01\x02"])
        error = decode(frame)
        assert isinstance(error, DeserializationError) and "run_end_encoded" in str(error), error


def test_a_view_past_its_data_buffer_is_an_error():
    view = (20).to_bytes(4, "little") + b"abcd" + (0).to_bytes(4, "little") + (10).to_bytes(4, "little")
    frame = arrow_frame(schema_of(pa.string_view()), [[1, [[1, 0, 3]]]], [b"", view, b"abcdefghijklmnopqrst"])
    error = decode(frame)
    assert isinstance(error, DeserializationError) and "string_view" in str(error), error


def test_a_view_node_with_a_million_data_buffers_is_bounded_by_the_frame():
    frame = arrow_frame(schema_of(pa.binary_view()), [[0, [[0, 0, 1_000_000]]]], [b"", b""])
    error = decode(frame)
    assert isinstance(error, (DeserializationError, LimitExceededError)), error


def test_a_list_view_reaching_past_its_child_is_an_error():
    frame = arrow_frame(schema_of(pa.list_view(pa.int8())), [[1, [[1, 0, 3], [2, 0, 2]]]],
                        [b"", b"\x01\x00\x00\x00", b"\x05\x00\x00\x00", b"", b"\x01\x02"])
    error = decode(frame)
    assert isinstance(error, DeserializationError) and "list_view" in str(error), error


def test_mutated_frames_of_the_new_layouts_get_a_value_or_an_error_frame_from_java(java_echo):
    """Java checks the nodes of the new layouts before Arrow Java loads them: every mutated frame is
    answered (a value or an error frame), and the fixture keeps serving."""
    import random

    sys.path.insert(0, str(HERE))
    import arrow_corpus

    rng = random.Random(11)
    answered = {"value": 0, "error": 0}
    for family, name, table in arrow_corpus.cases():
        if family not in ("dictionary", "union", "run_end", "view", "list_view"):
            continue
        table = pa.Table.from_batches([table.to_batches()[-1]])  # Java reads these as one batch
        result = serreg.serialize(table)
        schema, batches = msgpack.unpackb(bytes(result.in_band_buffer)[8:])
        buffers = [bytes(b) for b in result.out_of_band_buffers]
        for _ in range(12):
            nodes = [[list(n) for n in b[1]] for b in batches]
            mutated = [bytearray(b) for b in buffers]
            if rng.random() < 0.4:
                node = rng.choice(nodes[0])
                node[rng.randrange(3)] = rng.choice([0, 1, 3, 255, 2**31 - 1, node[0] + 1])
            else:
                buf = rng.choice([b for b in mutated if b])
                buf[rng.randrange(len(buf))] = rng.choice([0, 0x7F, 0x80, 0xFF])
            frame = arrow_frame(schema, [[b[0], n] for b, n in zip(batches, nodes)], mutated)
            try:
                serreg.deserialize(java_echo.round_trip(frame))
                answered["value"] += 1
            except serreg.DeserializationError:
                answered["error"] += 1
    assert answered["error"] > 0 and answered["value"] > 0, answered
    assert serreg.deserialize(java_echo.round_trip(serreg.serialize(1).to_bytes())) == 1  # still serving
