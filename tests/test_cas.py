"""serreg.cas.Store: deduplication, Merkle links to shared buffers, integrity on get."""

import os

import numpy as np
import pyarrow as pa
import pytest

import serreg
from serreg.cas import IntegrityError, MissingValueError, Store


def files_under(path):
    return sorted(
        os.path.join(root, name) for root, _, names in os.walk(path) for name in names if not name.startswith(".tmp")
    )


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "store")


def big_array(seed=0):
    return np.random.default_rng(seed).standard_normal(50_000)  # 400 kB: a blob


def test_put_returns_the_digest_and_get_returns_the_value(store):
    value = {"weights": big_array(), "table": pa.table({"a": [1, 2, None]}), "name": "run-7"}
    digest = store.put(value)
    assert digest == serreg.digest(value)
    assert digest in store and digest.hex() in store
    back = store.get(digest)
    assert np.array_equal(back["weights"], value["weights"])
    assert back["table"].equals(value["table"]) and back["name"] == "run-7"
    assert not back["weights"].flags.writeable  # a view of the blob file, read-only
    assert store.get(digest.hex())["name"] == "run-7"


def test_equal_values_are_stored_once(store):
    array = big_array()
    first = store.put({"a": 1, "b": array, "c": [0.0]})
    second = store.put({"c": [-0.0], "b": np.asfortranarray(array.copy()), "a": 1})
    assert first == second
    assert len(files_under(store._values)) == 1
    assert len(files_under(store._blobs)) == 1


def test_values_sharing_an_array_share_its_blob(store):
    array = big_array()
    one = store.put({"x": array, "tag": 1})
    two = store.put(["another value", array, big_array(seed=1)])
    assert one != two
    assert len(files_under(store._values)) == 2
    blobs = files_under(store._blobs)
    assert len(blobs) == 2  # the shared array once, the other array once
    assert sum(os.path.getsize(b) for b in blobs) == 2 * array.nbytes


def test_small_buffers_stay_in_the_record(store):
    store.put(np.arange(10))
    assert files_under(store._blobs) == []


def test_a_corrupted_blob_is_detected_on_get(store):
    digest = store.put({"x": big_array()})
    (blob,) = files_under(store._blobs)
    with open(blob, "r+b") as f:
        f.seek(1000)
        byte = f.read(1)
        f.seek(1000)
        f.write(bytes([byte[0] ^ 1]))
    with pytest.raises(IntegrityError, match="blob .* is damaged") as caught:
        store.get(digest)
    assert os.path.basename(blob) in str(caught.value)


def test_a_truncated_or_missing_blob_is_detected(store):
    digest = store.put({"x": big_array()})
    (blob,) = files_under(store._blobs)
    with open(blob, "r+b") as f:
        f.truncate(100)
    with pytest.raises(IntegrityError, match="holds 100 bytes"):
        store.get(digest)
    os.remove(blob)
    with pytest.raises(IntegrityError, match="is missing"):
        store.get(digest)


def test_a_corrupted_record_is_detected(store):
    digest = store.put({"numbers": [1, 2, 3]})
    (record,) = files_under(store._values)
    data = bytearray(open(record, "rb").read())
    data[data.index(b"\x93\x01\x02\x03") + 3] = 4  # [1, 2, 3] becomes [1, 2, 4]
    with open(record, "wb") as f:
        f.write(data)
    with pytest.raises(IntegrityError, match="does not hash to"):
        store.get(digest)
    with open(record, "wb") as f:
        f.write(b"\xc1 not msgpack")
    with pytest.raises(IntegrityError, match="not a msgpack record"):
        store.get(digest)


def test_missing_values_and_bad_digests(store):
    with pytest.raises(MissingValueError) as caught:
        store.get(bytes(32))
    assert isinstance(caught.value, KeyError) and "0000" in str(caught.value)
    with pytest.raises(ValueError, match="32 bytes"):
        store.get(b"short")


def test_values_without_a_canonical_form_are_refused(store):
    with pytest.raises(serreg.CanonicalFormError):
        store.put({"f": lambda: 1})
    assert files_under(store._values) == []


def test_a_second_store_object_on_the_same_directory_sees_the_values(store):
    digest = store.put(("shared", big_array()))
    again = Store(store.directory)
    assert np.array_equal(again.get(digest)[1], big_array())
