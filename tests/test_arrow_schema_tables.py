"""Python's walk of an Arrow IPC Schema message checks every table an Arrow library reads.

serreg/serializers/arrow_ipc_check.py walks the flatbuffer before pyarrow (or, in Java, Arrow
Java) reads it. Each table it reaches (Message, Schema, Field, each type table, DictionaryEncoding
and its index's Int, KeyValue) is broken here in each way a reader must notice
(tests/arrow_table_faults.py): the refusal names what and the byte of the message, in serreg's
words, not pyarrow's. The parts Arrow C++ requires (a schema's fields, a dictionary's index type,
a metadata entry's key and value) and offsets that point at themselves are refused by the walk too,
so the Java reader, which follows the same walk, refuses them with the same words.
"""

from __future__ import annotations

import re

import msgpack
import pyarrow as pa
import pytest

import flatbuffer_craft as fb
import serreg
from arrow_table_faults import faults, schema_message, tables
from serreg.serializers.arrow_ipc_check import check_schema_message
from serreg.wire.class_id import class_id_hash

WHERE = re.compile(r"^invalid Arrow schema message: .+ \(in .+, at byte \d+ of the message\)$")


def frame(message: bytes) -> bytes:
    return serreg.SerializationResult(class_id_hash("ArrowTable") + msgpack.packb([message, []]), []).to_bytes()


def refusal(message: bytes) -> str:
    with pytest.raises(serreg.DeserializationError) as error:
        check_schema_message(message, untrusted=True)
    return str(error.value)


def test_the_message_holds_every_kind_of_table():
    kinds = {t.what for t in tables(schema_message())}
    for kind in ("Message", "Schema", "Field", "KeyValue", "DictionaryEncoding", "Int", "FloatingPoint", "Decimal",
                 "Date", "Time", "Timestamp", "Interval", "List", "Struct_", "Union", "FixedSizeBinary",
                 "FixedSizeList", "Map", "Duration", "LargeBinary", "LargeUtf8", "LargeList", "Utf8", "Bool", "Binary"):
        assert kind in kinds, kind


def test_every_broken_table_is_refused_by_the_walk_with_the_byte_it_lies_at():
    broken = faults(schema_message())
    assert len(broken) > 200
    refused = 0
    for name, message in broken.items():
        try:
            check_schema_message(message, untrusted=True)
        except serreg.DeserializationError as error:
            assert WHERE.match(str(error)), (name, str(error))
            refused += 1
            continue
        # Only a field of one byte moved by one stays aligned and may stay inside its table.
        assert name.endswith("misaligned"), name
    assert refused > len(broken) * 0.9


def test_an_offset_of_zero_is_refused_by_the_walk_not_left_to_pyarrow():
    # The children vector of a field pointed at itself: the walk read it as an empty vector and
    # pyarrow's verifier refused it ("Invalid flatbuffers message."); Arrow Java read a value.
    field_table = fb.field("a")
    field_table.fields[5] = ("ref", fb.Vector(refs=[]))
    message = bytearray(fb.schema_message([field_table]))
    field = tables(bytes(message))[2]
    assert field.what == "Field"
    slot = int.from_bytes(message[8 + field.vtable + 4 + 2 * 5: 8 + field.vtable + 6 + 2 * 5], "little")
    message[8 + field.position + slot: 8 + field.position + slot + 4] = b"\x00\x00\x00\x00"
    words = refusal(bytes(message))
    assert "an offset of 0 points at itself (in column 0 ('a'), at byte" in words, words


@pytest.mark.parametrize("missing", ["key", "value"])
def test_a_metadata_entry_without_a_key_or_a_value_is_refused_by_the_walk(missing):
    # pyarrow refused it with its own words ("Unexpected null field custom_metadata.key"), without a byte.
    entry = fb.Table({1: ("ref", fb.String("v"))} if missing == "key" else {0: ("ref", fb.String("k"))})
    field = fb.field("a")
    field.fields[6] = ("ref", fb.Vector(refs=[entry]))
    words = refusal(fb.schema_message([field]))
    assert f"a metadata entry has no {missing} (in column 0 ('a'), at byte" in words, words


def test_a_schema_without_fields_and_a_dictionary_without_an_index_type_are_refused_by_the_walk():
    message = fb.build(fb.Table({0: ("i16", 4), 1: ("u8", 1), 2: ("ref", fb.Table({0: ("i16", 0)})), 3: ("i64", 0)}))
    words = refusal(b"\xff\xff\xff\xff" + len(message).to_bytes(4, "little") + message)
    assert "the schema has no fields vector (in the message, at byte" in words, words
    field = fb.field("a", "Utf8")
    field.fields[4] = ("ref", fb.Table({0: ("i64", 0)}))
    words = refusal(fb.schema_message([field]))
    assert "a dictionary has no index type (in column 0 ('a'), at byte" in words, words


def test_a_dictionary_index_whose_signedness_lies_outside_its_table_is_refused():
    # Arrow Java reads the index Int's is_signed; the walk did not look at it.
    index = fb.int_type(16)
    field = fb.field("a", "Utf8")
    field.fields[4] = ("ref", fb.Table({0: ("i64", 0), 1: ("ref", index)}))
    message = bytearray(fb.schema_message([field]))
    table = next(t for t in tables(bytes(message)) if t.what == "Int")
    message[8 + table.vtable + 6: 8 + table.vtable + 8] = table.table_size.to_bytes(2, "little")
    words = refusal(bytes(message))
    assert "field 1 of a Int table is misaligned or outside the table (in column 0 ('a'), at byte" in words, words


def test_a_plain_schema_still_reads():
    schema = pa.schema([pa.field("d", pa.dictionary(pa.int16(), pa.utf8()), metadata={"k": "v"})], metadata={"a": "b"})
    table = serreg.deserialize(frame(schema.serialize().to_pybytes()), trusted=False)
    assert isinstance(table, pa.Table) and table.schema == schema


@pytest.mark.parametrize("union", [pa.sparse_union, pa.dense_union])
def test_a_table_of_no_batches_with_a_union_column_has_a_canonical_form(union):
    # The canonical form made an empty array with pa.array([], type), which has no builder for unions
    # (ArrowNotImplementedError, the fuzz target's finding on a regression frame of the Java run).
    schema = pa.schema([pa.field("u", union([pa.field("x", pa.int16()), pa.field("y", pa.binary())]))])
    table = pa.Table.from_batches([], schema)
    digest = serreg.digest(table)
    assert digest == serreg.digest(pa.Table.from_batches([], schema))
    canonical = serreg.deserialize(serreg.serialize(table, canonical=True).to_bytes())
    assert canonical.schema == schema and canonical.num_rows == 0
