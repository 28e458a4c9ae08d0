"""Implicit structs: plain objects the fallback would pickle whole, written as struct instances (docs/FORMAT.md 10.9).

Both backends (the compiled codec and the pure-Python one) write the same bytes and read them
back as pickle rebuilds them (state past descriptors, classes defined in a function or in
``__main__`` travel by value, arrays out of band), as the format document's worked example
shows, and ``serreg inspect`` shows them without unpickling. What is pickled whole instead:
test_implicit_structs_pickled.py; the options and limits around them:
test_implicit_structs_options.py; hostile frames: test_implicit_structs_hostile.py.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from implicit_shapes import COMPILED, INITS, PURE, PYOBJECTS, REGISTRIES, VALUES, Frozen, Record, class_hash, frame_of


@pytest.mark.parametrize("name", VALUES)
def test_plain_objects_travel_as_implicit_structs_both_backends_alike(name):
    value = VALUES[name]
    frames = [frame_of(registry, value) for registry in REGISTRIES]
    assert frames[0] == frames[1]
    assert class_hash(frames[0]) == PYOBJECTS
    for registry in REGISTRIES:
        for data in (frames[0], registry.serialize(value)):
            back = registry.deserialize(data)
            assert back == value and type(back) is type(value)


def test_instances_are_rebuilt_as_pickle_rebuilds_them():
    INITS.clear()
    back = COMPILED.deserialize(frame_of(COMPILED, [Frozen(1, ()), Frozen(2, ())]))
    assert INITS == [1, 2]  # only the two made here: decoding calls neither __init__ nor __post_init__
    assert back == [Frozen(1, ()), Frozen(2, ())]
    with pytest.raises(dataclasses.FrozenInstanceError):
        back[0].x = 5
    extra = COMPILED.deserialize(frame_of(COMPILED, VALUES["extra attributes"]))
    assert [vars(r) for r in extra] == [vars(r) for r in VALUES["extra attributes"]]


class Guarded:
    """``x`` is a property whose setter refuses: pickle puts the state into ``__dict__`` past it."""

    def __init__(self, x: int) -> None:
        self.__dict__["x"] = x
        self.y = [x]

    @property
    def x(self) -> int:
        return self.__dict__["x"]  # type: ignore[no-any-return]

    @x.setter
    def x(self, value: int) -> None:
        raise AttributeError("read only")


def test_the_state_goes_into_dict_past_descriptors_as_pickle_puts_it():
    value = [Guarded(1), Guarded(2)]
    frame = frame_of(COMPILED, value)
    assert class_hash(frame) == PYOBJECTS and frame == frame_of(PURE, value)
    for registry in REGISTRIES:
        for data in (frame, frame_of(COMPILED, Guarded(3))):
            back = registry.deserialize(data)
            back = back if type(back) is list else [back]
            assert all(type(b) is Guarded and vars(b)["x"] == b.x and b.y == [b.x] for b in back)


def test_a_class_defined_in_a_function_travels_by_value():
    @dataclasses.dataclass
    class Local:
        a: int

    frame = frame_of(COMPILED, [Local(1), Local(2)])
    assert class_hash(frame) == PYOBJECTS and frame == frame_of(PURE, [Local(1), Local(2)])
    assert COMPILED.deserialize(frame) == [Local(1), Local(2)]


_MAIN_SCRIPT = """
import dataclasses, sys
import serreg

@dataclasses.dataclass
class Reading:
    sensor: int
    unit: str

import cloudpickle
print(cloudpickle.dumps((Reading,), protocol=5).count(b"sensor"))
print(serreg.serialize([Reading(i, "degC") for i in range(100)]).to_bytes().hex())
"""


def test_a_class_of_main_travels_by_value_once_and_is_rebuilt_elsewhere():
    out = subprocess.run([sys.executable, "-c", _MAIN_SCRIPT], check=True, capture_output=True, text=True).stdout
    in_class_pickle, written = out.split()
    frame = bytes.fromhex(written)
    assert class_hash(frame) == PYOBJECTS
    assert frame.count(b"sensor") == int(in_class_pickle) + 1  # the class pickle, and the definition once
    back = COMPILED.deserialize(frame)
    assert [(r.sensor, r.unit) for r in back] == [(i, "degC") for i in range(100)]
    assert type(back[0]).__name__ == "Reading" and type(back[0]) is type(back[99])


def test_arrays_inside_travel_out_of_band():
    value = [Record(i, "a", np.arange(10) * i) for i in range(3)]
    result = COMPILED.serialize(value)
    assert len(result.out_of_band_buffers) == 3
    frame = result.to_bytes()
    assert class_hash(frame) == PYOBJECTS
    assert frame == frame_of(PURE, value)
    for registry in REGISTRIES:
        back = registry.deserialize(bytearray(frame))
        assert all(np.array_equal(b.tags, v.tags) for b, v in zip(back, value))


def test_the_worked_example_of_the_format_document():
    import types

    module = types.ModuleType("shop")
    point = type("Point", (), {"__module__": "shop"})
    module.Point = point  # type: ignore[attr-defined]
    sys.modules["shop"] = module
    try:
        obj = point()
        obj.x, obj.y = 1, 2
        expected = bytes.fromhex(
            "353e9ef6194f852e" "c41f" "80059514000000000000008c0473686f70948c05506f696e749493948594" "2e"
            "989b856529bd77a0" "91" "92ba" + b"serreg.pyobject:shop:Point".hex()
            + "9292a178a3616e7992a179a3616e79" "472fe6d27f654761" "93000102"
        )
        for registry in REGISTRIES:
            assert bytes(registry.serialize(obj).in_band_buffer) == expected
            back = registry.deserialize(registry.serialize(obj).to_bytes())
            assert type(back) is point and vars(back) == {"x": 1, "y": 2}
    finally:
        del sys.modules["shop"]


def test_serreg_inspect_shows_the_section_without_unpickling(tmp_path):
    path = tmp_path / "plain.srg"
    path.write_bytes(frame_of(COMPILED, VALUES["list"]))
    out = subprocess.run([sys.executable, "-m", "serreg", "inspect", str(path)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "serreg.pyobjects" in out.stdout and "not unpickled" in out.stdout
