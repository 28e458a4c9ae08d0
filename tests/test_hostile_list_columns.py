"""Faults in the ``any`` columns of a list of struct instances (ext 2), after a nested value: refused
with the pure codec's words by both codecs, trusted and untrusted.

The pure codec's ext 2 reader (serreg/structs/lists.py) words what its msgpack reader raises in the
columns (a map key that is not hashable, a timestamp msgpack cannot read) naming the class and
where the count starts; a timestamp it reads is refused by the field's reader once the columns are
read. The compiled codec reads such columns in C and once said "malformed ..., after nested values"
or the document's timestamp refusal; the same faults in a struct instance outside an ext 2 are
refused alike too. Frames: tests/struct_list_faults.py. Runs over the default
codec (compiled, or pure with SERREG_PURE_PYTHON=1) and over a registry on the pure codec.
"""

from __future__ import annotations

import decimal
from unittest import mock

import pytest

import serreg
import serreg.registry
from serreg import DeserializationError
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec

from struct_list_faults import FAULTS, GOOD, INSTANCE_FAULTS, AnyTwo, register_any_two

with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
    _PURE = register_any_two(serreg.Registry())
REGISTRIES = {"default": register_any_two(serreg.Registry()), "pure": _PURE}


@pytest.mark.parametrize("registry", sorted(REGISTRIES))
@pytest.mark.parametrize("trusted", [True, False])
@pytest.mark.parametrize("name", sorted(FAULTS))
def test_a_fault_in_an_ext2_column_after_a_nested_value_is_refused_with_the_pure_codecs_words(registry, trusted, name):
    blob, words_trusted, words_untrusted, cause = FAULTS[name]
    with pytest.raises(DeserializationError) as caught:
        REGISTRIES[registry].deserialize(blob, trusted=trusted)
    assert str(caught.value) == (words_trusted if trusted else words_untrusted)
    if cause is not None:
        assert type(caught.value.__cause__) is cause


@pytest.mark.parametrize("registry", sorted(REGISTRIES))
@pytest.mark.parametrize("trusted", [True, False])
@pytest.mark.parametrize("name", sorted(INSTANCE_FAULTS))
def test_the_same_faults_in_an_instance_after_a_nested_value_are_refused_alike(registry, trusted, name):
    blob, words, cause = INSTANCE_FAULTS[name]
    with pytest.raises(DeserializationError) as caught:
        REGISTRIES[registry].deserialize(blob, trusted=trusted)
    assert str(caught.value) == words
    if cause is not None:
        assert type(caught.value.__cause__) is cause


@pytest.mark.parametrize("registry", sorted(REGISTRIES))
@pytest.mark.parametrize("trusted", [True, False])
def test_the_same_columns_without_a_fault_are_read(registry, trusted):
    back = REGISTRIES[registry].deserialize(GOOD, trusted=trusted)
    assert back == [[AnyTwo(decimal.Decimal("1.5"), 1), AnyTwo({"k": 1}, 1)]]
    assert type(back[0][0].a) is decimal.Decimal
