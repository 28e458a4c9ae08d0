"""Struct instances (ext 1) through the compiled codec against its pure-Python twin (docs/FORMAT.md, 10).

The compiled codec writes struct instances from a per-class plan and reads
those of the class's own definition in C; everything else goes through the
Python struct writers and readers. A registry on each codec, with the same
struct classes, must write the same frames for hypothesis values (values that
fit their fields and values that do not: the same error, naming struct, field
and value) and read them back alike, trusted and untrusted. Hostile and mutated
struct in-bands: test_compiled_structs_hostile.py; the struct classes the compiled
codec handles without its twin: test_compiled_struct_classes.py.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serreg.codec import COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec

from strategies import values
from struct_registries import COMPILED_REGISTRY, PURE_REGISTRY, Empty, Frozen, Mixed, Row, Tagged, outcome, written
from struct_shapes import Color, Pair, Point, Widths, everything, tree, widths

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built (or SERREG_PURE_PYTHON=1)")


def test_the_registries_run_different_codecs():
    assert type(COMPILED_REGISTRY.codec) is not PureMsgpackCodec
    assert type(PURE_REGISTRY.codec) is PureMsgpackCodec


# Values for a field of any type: mostly the right kind, sometimes out of range or of another type.
ints = st.one_of(st.integers(-300, 300), st.integers(-(2**70), 2**70), st.sampled_from([2**63, 2**64, -(2**63) - 1]))
floats = st.one_of(st.floats(allow_nan=True), st.sampled_from([3.5e38, 3.4028235e38, 1e-46, -0.0]))
wrong = st.one_of(st.none(), st.booleans(), st.text(max_size=3), st.binary(max_size=3), ints, floats, st.just([1]))
texts = st.text(max_size=12)


def maybe_wrong(right):
    return st.one_of(right, right, right, wrong)


points = st.builds(Point, maybe_wrong(ints), maybe_wrong(ints), maybe_wrong(ints))
rows = st.builds(Row, maybe_wrong(texts), maybe_wrong(ints))
frozens = st.builds(Frozen, maybe_wrong(ints), maybe_wrong(st.one_of(st.none(), floats)), maybe_wrong(texts))
width_values = st.builds(
    Widths, *[maybe_wrong(ints)] * 8, maybe_wrong(st.one_of(floats, ints)), maybe_wrong(st.one_of(floats, ints))
)
mixed = st.builds(
    Mixed,
    f32=maybe_wrong(st.one_of(floats, ints)),
    small=maybe_wrong(ints),
    big=maybe_wrong(ints),
    maybe=maybe_wrong(st.one_of(st.none(), texts)),
    blob=maybe_wrong(st.one_of(st.binary(max_size=5), st.binary(max_size=5).map(bytearray))),
    color=maybe_wrong(st.sampled_from(Color)),
    ids=maybe_wrong(st.sets(ints, max_size=6)),
    names=maybe_wrong(st.frozensets(texts, max_size=6)),
    table=maybe_wrong(st.dictionaries(texts, st.lists(ints, max_size=3), max_size=3)),
    pair=maybe_wrong(st.tuples(ints, st.one_of(st.none(), floats))),
    points=maybe_wrong(st.lists(st.one_of(points, points, wrong), max_size=3)),
    origin=maybe_wrong(st.one_of(st.none(), points)),
    floats=maybe_wrong(st.lists(st.one_of(floats, floats, ints), max_size=3).map(tuple)),
    anything=values,
)
structs = st.one_of(points, rows, frozens, width_values, mixed, st.builds(everything), st.builds(tree))
struct_values = st.one_of(
    structs,
    st.lists(structs, max_size=5),
    st.dictionaries(texts, structs, max_size=3),
    st.lists(points, min_size=20, max_size=40),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(struct_values)
def test_both_codecs_write_struct_values_alike_and_read_them_back_alike(value):
    compiled = written(COMPILED_REGISTRY, value)
    assert compiled == written(PURE_REGISTRY, value)
    if compiled[0] == "frame":
        frame = compiled[1]
        for trusted in (True, False):
            back = outcome(lambda: COMPILED_REGISTRY.deserialize(frame, trusted=trusted))
            assert back == outcome(lambda: PURE_REGISTRY.deserialize(frame, trusted=trusted))
            assert back == ("value", frame)


def test_values_that_do_not_fit_name_struct_field_and_value():
    cases = [
        (Point(2**63, 0, 0), "shapes.Point.x: 9223372036854775808"),
        (Frozen(256, None, "c"), "t.Frozen.a: 256"),
        (Frozen(1, "1.5", "c"), "t.Frozen.b: '1.5'"),
        (Row("k", 40000), "t.Row.value: 40000"),
        (dataclasses.replace(widths(), f32=1e39), "beyond float32's range"),
        ([Point(1, 2, 3), Point(1, True, 3)], "shapes.Point.y: True"),
    ]
    for value, message in cases:
        compiled = written(COMPILED_REGISTRY, value)
        assert compiled == written(PURE_REGISTRY, value)
        assert compiled[:2] == ("error", "SerializationError") and message in compiled[2]


def test_float32_fields_round_to_binary32_and_ints_widen_to_float():
    value = Frozen(7, 3, "c")  # an int in an Optional[float] field is written as a float
    for registry in (COMPILED_REGISTRY, PURE_REGISTRY):
        assert registry.deserialize(registry.serialize(value)) == Frozen(7, 3.0, "c")
    nan = dataclasses.replace(widths(), f32=math.nan, f64=0.1)
    frame = COMPILED_REGISTRY.serialize(nan).to_bytes()
    assert frame == PURE_REGISTRY.serialize(nan).to_bytes()
    back = COMPILED_REGISTRY.deserialize(frame)
    assert math.isnan(back.f32) and back.f64 == 0.1


def test_a_converted_field_is_written_again_with_its_buffers_once():
    # The bytearray travels out of band; the int in the float slot is converted by the field's
    # Python writer, after which the field is written again from its start.
    value = Tagged([(bytearray(b"ab"), 1.5), (bytearray(b"cd"), 2)])
    compiled, pure = COMPILED_REGISTRY.serialize(value), PURE_REGISTRY.serialize(value)
    assert compiled.to_bytes() == pure.to_bytes()
    assert len(compiled.out_of_band_buffers) == len(pure.out_of_band_buffers) == 2
    assert COMPILED_REGISTRY.deserialize(compiled.to_bytes()) == Tagged([(bytearray(b"ab"), 1.5), (bytearray(b"cd"), 2.0)])


@pytest.mark.parametrize("size", [0, 1, 3, 11, 250, 251, 252, 300, 65530, 70000])
def test_every_ext_header_length_is_written_alike(size):
    # Instance payloads of 2 (no field), 4, 5, 8, 16 ... bytes: fixext, ext 8, ext 16 and ext 32 headers.
    values = [Empty(), Row("x" * size, 1), Frozen(1, None, "y" * size), [Empty(), Row("", 2), Frozen(2, 0.5, "z" * size)]]
    for value in values:
        frame = COMPILED_REGISTRY.serialize(value).to_bytes()
        assert frame == PURE_REGISTRY.serialize(value).to_bytes()
        assert COMPILED_REGISTRY.deserialize(frame) == value


def test_instances_are_built_without_init_and_keep_their_kind():
    values = [Point(1, 2, 3), Frozen(1, None, "x"), Row("k", -5), everything(), tree(), Pair("a", 3), widths()]
    back = COMPILED_REGISTRY.deserialize(COMPILED_REGISTRY.serialize(values))
    assert back == values
    assert [type(v) for v in back] == [type(v) for v in values]
    assert not hasattr(back[1], "__dict__")  # slots
