"""Per-schema plans (serreg/serializers/arrow_plans.py) change nothing a call decides, only what it costs.

A kept plan is used only where the same checks would pass again: the memory
charge of a schema is made at every read, extension names are resolved at
every trusted read, and a schema pyarrow finds different (an extension type
against its storage with the extension keys) gets its own checks.
"""

from __future__ import annotations

import msgpack
import pyarrow as pa
import pytest

import serreg
from serreg import CrossLanguageError, LimitExceededError, Limits
from serreg.serializers.arrow_plans import PLAN_MESSAGE_BYTES
from serreg.wire.class_id import class_id_hash


def arrow_frame(message: bytes) -> bytes:
    in_band = class_id_hash("ArrowTable") + msgpack.packb([message, []])
    return serreg.SerializationResult(in_band, []).to_bytes()


@pytest.mark.parametrize("trusted", [False, True])
def test_a_kept_schema_is_charged_at_every_read(trusted):
    message = pa.schema([pa.field(f"c{i}", pa.null()) for i in range(200)]).serialize().to_pybytes()
    assert len(message) <= PLAN_MESSAGE_BYTES  # so its plan is kept
    frame = arrow_frame(message)
    tight = Limits(memory_allowance=0, memory_per_byte=2)
    for _ in range(2):
        assert serreg.deserialize(frame, trusted=trusted).num_columns == 200
        with pytest.raises(LimitExceededError, match="Arrow schema fields"):
            serreg.deserialize(frame, trusted=trusted, limits=tight)


class Meters(pa.ExtensionType):
    def __init__(self):
        super().__init__(pa.decimal32(5, 2), "serreg.test.meters")

    def __arrow_ext_serialize__(self):
        return b""

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type, serialized):
        return cls()


def test_an_extension_type_and_its_storage_with_the_extension_keys_are_checked_apart():
    storage = pa.array([1, 2], pa.decimal32(5, 2))
    extension = pa.table({"m": pa.ExtensionArray.from_storage(Meters(), storage)})
    keys = {b"ARROW:extension:metadata": b"", b"ARROW:extension:name": b"serreg.test.meters"}  # pyarrow's order
    plain = pa.table({"m": storage}).cast(pa.schema([pa.field("m", pa.decimal32(5, 2), metadata=keys)]))
    assert extension.schema.serialize().to_pybytes() == plain.schema.serialize().to_pybytes()
    # Java reads an extension column as its storage plus metadata, but no 32-bit decimal column.
    for _ in range(2):
        serreg.serialize(extension, cross_language=True)
        with pytest.raises(CrossLanguageError, match="column 'm': decimal32"):
            serreg.serialize(plain, cross_language=True)


def test_fixed_size_binary_wider_than_java_reads_is_refused_cross_language():
    # Java's reader refuses widths whose bits overflow an int (Arrow Java's layout); cross_language says so first.
    for width, refused in ((2**28 - 1, False), (2**28, True), (0, True)):
        table = pa.table({"b": pa.array([], pa.binary(width))})
        serreg.serialize(table)
        if refused:
            with pytest.raises(CrossLanguageError, match="column 'b': fixed_size_binary.*width 1 to 268,435,455 bytes"):
                serreg.serialize(table, cross_language=True)
        else:
            serreg.serialize(table, cross_language=True)


def test_extension_names_are_resolved_at_every_trusted_read():
    keys = {b"ARROW:extension:name": b"serreg.test.meters", b"ARROW:extension:metadata": b""}
    frame = arrow_frame(pa.schema([pa.field("m", pa.decimal32(5, 2), metadata=keys)]).serialize().to_pybytes())
    assert serreg.deserialize(frame, trusted=True).schema.field(0).type == pa.decimal32(5, 2)
    pa.register_extension_type(Meters())
    try:
        assert isinstance(serreg.deserialize(frame, trusted=True).schema.field(0).type, Meters)
        assert serreg.deserialize(frame, trusted=False).schema.field(0).type == pa.decimal32(5, 2)
    finally:
        pa.unregister_extension_type("serreg.test.meters")
    assert serreg.deserialize(frame, trusted=True).schema.field(0).type == pa.decimal32(5, 2)


def test_tables_of_one_schema_round_trip_through_the_kept_plans():
    schema = pa.schema([pa.field("i", pa.int32()), pa.field("s", pa.string()), pa.field("b", pa.bool_()),
                        pa.field("l", pa.list_(pa.int8())), pa.field("d", pa.dictionary(pa.int8(), pa.string()))])
    for rows in range(4):
        table = pa.table({"i": list(range(rows)), "s": [str(i) if i % 2 else None for i in range(rows)],
                          "b": [i % 3 == 0 for i in range(rows)], "l": [[i] * i for i in range(rows)],
                          "d": pa.array([str(i % 2) for i in range(rows)]).dictionary_encode()}, schema=schema)
        sliced = table.slice(1) if rows else table
        for value in (table, sliced):
            assert serreg.deserialize(serreg.serialize(value)).equals(value)
            assert serreg.deserialize(serreg.serialize(value).to_bytes(), trusted=False).equals(value)
