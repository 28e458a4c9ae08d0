"""Subclasses of the built-in containers and scalars: one byte form, whichever codec writes it.

docs/FORMAT.md 6.1: a subclass instance (a ``dict`` subclass, ``OrderedDict``,
``defaultdict``, a named tuple, an ``IntEnum``, a ``str`` subclass ...) is not
the standard type it derives from; it goes to the fallback and comes back as
itself, its instance attributes and ``default_factory`` with it. The compiled
codec and the pure-Python one must agree on that and write the same bytes, at
the top, nested in containers, in implicit structs and in a declared struct's
``any`` field, under every fallback setting.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

import serreg
import serreg.registry
from serreg.codec import COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec

import subclass_values
from subclass_values import Holder, Plain, Record, all_values

TESTS = Path(__file__).resolve().parent
VALUES = all_values()
NAMES = [name for name, _ in VALUES]
SETTINGS = {
    "default": {},
    "value by value": {"whole_values": False},
    "no implicit structs": {"implicit_structs": False},
}

compiled_only = pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built or not chosen")


def registry(pure: bool, setting: str) -> serreg.Registry:
    if pure:
        with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
            made = serreg.Registry()
    else:
        made = serreg.Registry()
    made.register_struct(Holder, "subclass.Holder")
    made.configure_fallback(**SETTINGS[setting])
    return made


def written(reg: serreg.Registry, value: object, **options: object) -> tuple[str, ...]:
    """The frame ``value`` gives, or the error's type and message."""
    try:
        return ("frame", reg.serialize(value, **options).to_bytes().hex())
    except serreg.SerregError as error:
        return ("error", type(error).__name__, str(error))


def assert_kept(back: object, value: object, path: str) -> None:
    """Of exactly the same type all the way down, with the same instance attributes."""
    assert type(back) is type(value), f"{path}: {type(back).__name__} is not {type(value).__name__}"
    if isinstance(value, (Plain, Record, Holder)):
        assert_kept(back.value, value.value, f"{path}.value")
        return
    assert getattr(back, "__dict__", None) == getattr(value, "__dict__", None), f"{path}: instance attributes"
    if isinstance(value, collections.defaultdict):
        assert back.default_factory is value.default_factory, f"{path}: default_factory"
    if isinstance(value, subclass_values.SlotDict):
        assert back.note == value.note, f"{path}: slot"
    if isinstance(value, dict):
        assert list(back) == list(value), f"{path}: keys"
        for key in value:
            assert_kept(back[key], value[key], f"{path}[{key!r}]")
    elif isinstance(value, (list, tuple, collections.deque)):
        assert len(back) == len(value), f"{path}: length"
        for i, (got, want) in enumerate(zip(back, value)):
            assert_kept(got, want, f"{path}[{i}]")
    elif isinstance(value, collections.ChainMap):
        assert back.maps == value.maps, path
    else:
        assert back == value, path
        if isinstance(value, float):
            assert repr(back) == repr(value), path


@compiled_only
@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_the_compiled_and_the_pure_codec_write_the_same_bytes(setting):
    compiled, pure = registry(False, setting), registry(True, setting)
    assert type(pure.codec) is PureMsgpackCodec and type(compiled.codec) is not PureMsgpackCodec
    differ = [name for name, value in VALUES if written(compiled, value) != written(pure, value)]
    assert differ == []


@compiled_only
@pytest.mark.parametrize("option", ["cross_language", "canonical"])
def test_both_codecs_refuse_subclasses_alike_where_the_fallback_is_not_allowed(option):
    compiled, pure = registry(False, "default"), registry(True, "default")
    refused = {name: written(compiled, value, **{option: True}) for name, value in VALUES}
    assert [name for name, value in VALUES if refused[name] != written(pure, value, **{option: True})] == []
    # Each one at the top is refused, naming its class.
    for name, value in subclass_values.alone():
        if type(value).__module__ == "subclass_values":
            assert refused[name][0] == "error" and type(value).__name__ in refused[name][2], name


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_a_subclass_comes_back_as_itself_with_its_attributes(pure, setting):
    if not pure and not COMPILED:
        pytest.skip("the compiled codec is not built or not chosen")
    reg = registry(pure, setting)
    for name, value in VALUES:
        frame = reg.serialize(value).to_bytes()
        assert_kept(reg.deserialize(frame), value, name)


def pure_process_frames() -> dict[str, list[str]]:
    """Every value's frame written by a process that runs serreg on pure Python only
    (``SERREG_PURE_PYTHON=1``: codec, scans, implicit-struct walk and frame joins)."""
    script = (
        "import json, sys, serreg, serreg.codec\n"
        "assert serreg.codec.BACKEND == 'pure Python'\n"
        "from subclass_values import Holder, all_values\n"
        "out = {}\n"
        "for setting, options in json.loads(sys.argv[1]).items():\n"
        "    r = serreg.Registry(); r.register_struct(Holder, 'subclass.Holder'); r.configure_fallback(**options)\n"
        "    for name, value in all_values():\n"
        "        try: out[setting + ' ' + name] = ['frame', r.serialize(value).to_bytes().hex()]\n"
        "        except serreg.SerregError as e: out[setting + ' ' + name] = ['error', type(e).__name__, str(e)]\n"
        "print(json.dumps(out))\n"
    )
    env = {**os.environ, "SERREG_PURE_PYTHON": "1"}
    done = subprocess.run([sys.executable, "-c", script, json.dumps(SETTINGS)], cwd=TESTS, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    frames: dict[str, list[str]] = json.loads(done.stdout)
    return frames


@compiled_only
def test_a_pure_python_process_writes_the_same_bytes_as_the_compiled_codec():
    pure = pure_process_frames()
    differ = []
    for setting in SETTINGS:
        compiled = registry(False, setting)
        differ += [f"{setting} {name}" for name, value in VALUES
                   if list(written(compiled, value)) != pure[f"{setting} {name}"]]
    assert differ == []


@dataclasses.dataclass
class Typed:
    """Typed fields: each refuses a subclass of its type rather than write it as the base type."""

    mapping: dict[str, int]
    items: list[int]
    pair: tuple[int, int]
    members: set[int]
    frozen: frozenset[int]
    text: str
    number: int
    real: float
    data: bytes


TYPED_SUBCLASSES = {
    "mapping": subclass_values.Dict(a=1),
    "items": subclass_values.List([1]),
    "pair": subclass_values.Tuple((1, 2)),
    "members": subclass_values.Set({1}),
    "frozen": subclass_values.FrozenSet({1}),
    "text": subclass_values.Str("s"),
    "number": subclass_values.Int(1),
    "real": subclass_values.Float(1.0),
    "data": subclass_values.Bytes(b"b"),
}


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
@pytest.mark.parametrize("field", sorted(TYPED_SUBCLASSES))
def test_a_typed_struct_field_refuses_a_subclass_of_its_type(pure, field):
    if not pure and not COMPILED:
        pytest.skip("the compiled codec is not built or not chosen")
    reg = registry(pure, "default")
    reg.register_struct(Typed, "subclass.Typed")
    value = Typed({"a": 1}, [1], (1, 2), {1}, frozenset({1}), "s", 1, 1.0, b"b")
    assert reg.deserialize(reg.serialize(value).to_bytes()) == value
    setattr(value, field, TYPED_SUBCLASSES[field])
    for options in ({}, {"canonical": True}):
        with pytest.raises(serreg.SerializationError, match=f"subclass.Typed.{field}: .* does not fit the field's type"):
            reg.serialize(value, **options)
