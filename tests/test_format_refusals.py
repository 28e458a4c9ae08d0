"""What docs/FORMAT.md does not allow, Python neither reads nor writes (issue 11, section 5).

msgpack timestamps (ext type -1) and raw ext values; x86 long doubles in an
ndarray (not in section 6.2: Java refuses them); buffers of Python object
pointers (a memoryview of a numpy object array: addresses, not data).
"""

import msgpack
import numpy as np
import pytest

import serreg
from serreg import CanonicalFormError, CrossLanguageError, DeserializationError, SerializationError
from serreg.wire.class_id import class_id_hash

TIMESTAMP = msgpack.packb(msgpack.Timestamp(1, 2))  # d7 ff ...: fixext 8 of type -1


def frame(class_id: str, in_band: bytes, buffers=()) -> bytes:
    return serreg.SerializationResult(class_id_hash(class_id) + in_band, [memoryview(b) for b in buffers]).to_bytes()


@pytest.mark.parametrize("trusted", [True, False])
@pytest.mark.parametrize("where", ["list item", "dict key", "dict value", "ndarray header", "deep"])
def test_msgpack_timestamps_are_refused_by_the_reader(trusted, where):
    # msgpack-python decodes ext -1 itself (the ext hook never sees it); c2967a7 returned Timestamps.
    cases = {
        "list item": frame("list", b"\x92\x01" + TIMESTAMP),
        "dict key": frame("dict", b"\x81" + TIMESTAMP + b"\x01"),
        "dict value": frame("dict", b"\x81\xa1k" + TIMESTAMP),
        "ndarray header": frame("numpy.ndarray", b"\x93\xa3<i8" + b"\x91" + TIMESTAMP + b"\xa1C", [b""]),
        "deep": frame("list", b"\x91" * 50 + TIMESTAMP),
    }
    with pytest.raises(DeserializationError, match="ext type -1"):
        serreg.deserialize(cases[where], trusted=trusted)


def test_a_timestamp_a_trusted_pickle_made_is_not_mistaken_for_ext_minus_one():
    nested = msgpack.ExtType(0, bytes(serreg.serialize(msgpack.Timestamp(1, 2)).in_band_buffer))
    assert serreg.deserialize(frame("list", msgpack.packb([nested, 1]))) == [msgpack.Timestamp(1, 2), 1]
    with pytest.raises(DeserializationError, match="ext type -1"):
        serreg.deserialize(frame("list", msgpack.packb([nested, msgpack.Timestamp(1, 2)])))


@pytest.mark.parametrize("value", [
    [msgpack.Timestamp(1, 2)],
    {"t": msgpack.Timestamp(3, 4), "e": msgpack.ExtType(5, b"x"), "forged": msgpack.ExtType(0, b"12345678")},
    msgpack.Timestamp(5, 6),
])
def test_msgpack_timestamps_and_ext_values_are_never_written_as_raw_ext(value):
    # c2967a7 wrote them as msgpack ext -1 / ext 5 / a forged nested value.
    result = serreg.serialize(value)
    section = bytes(result.in_band_buffer)
    assert b"\xd7\xff" not in section and b"\xd5\x05" not in section
    assert serreg.deserialize(result.to_bytes()) == value  # through the pickle fallback, in Python
    with pytest.raises(CrossLanguageError):
        serreg.serialize(value, cross_language=True)


@pytest.mark.parametrize("dtype", ["<f16", ">f16", "<c32", "<i16", "|f1"])
def test_ndarray_dtypes_outside_the_format_are_refused(dtype):
    # The pattern of c2967a7 admitted "<f16" and "<c32" (x86 long doubles).
    error = None
    try:
        serreg.deserialize(frame("numpy.ndarray", msgpack.packb([dtype, [1], "C"]), [bytes(32)]), trusted=False)
    except DeserializationError as caught:
        error = caught
    assert error is not None and "standard dtype" in str(error), error


def test_long_double_arrays_are_not_written_as_standard_ndarrays():
    array = np.arange(3, dtype=np.longdouble)
    if array.dtype.itemsize not in (12, 16) or array.dtype == np.float64:
        pytest.skip("long double is double on this platform")
    result = serreg.serialize(array)
    assert bytes(result.in_band_buffer)[:8] == class_id_hash("serreg.pickle5")
    assert np.array_equal(serreg.deserialize(result.to_bytes()), array)
    with pytest.raises(CrossLanguageError, match="dtype float128 .* long double"):
        serreg.serialize(array, cross_language=True)
    with pytest.raises(CanonicalFormError, match="dtype float128 .* long double"):  # c2967a7: an internal error
        serreg.digest(array)
    with pytest.raises(CanonicalFormError, match="dtype complex256"):
        serreg.digest(array.astype(np.clongdouble))
    with pytest.raises(CrossLanguageError, match="field 'x': dtype float128"):
        serreg.serialize(np.zeros(2, [("x", np.longdouble)]), cross_language=True)


def test_buffers_of_object_pointers_are_never_shipped():
    objects = np.array([object(), "text", 3], dtype=object)
    # c2967a7 sent the three addresses as the memoryview's bytes.
    for value in (memoryview(objects), [1, memoryview(objects)], {"m": memoryview(objects)}):
        with pytest.raises(SerializationError, match="addresses of Python objects"):
            serreg.serialize(value).to_bytes()
    # A serializer of someone else's that hands such a buffer out-of-band is refused when framed.
    result = serreg.SerializationResult(b"header", [memoryview(objects)])
    with pytest.raises(SerializationError, match="addresses of Python objects"):
        result.to_bytes()
    # The array itself is pickled with its objects (in Python), as before.
    back = serreg.deserialize(serreg.serialize(objects).to_bytes())
    assert back[1] == "text" and back[2] == 3
