"""Hypothesis strategies for serreg's built-in types, kept in one place."""

import datetime
import struct
import decimal
import uuid

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as npst

hashable_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**130), max_value=2**130),
    st.floats(allow_nan=False),
    st.complex_numbers(allow_nan=False),
    st.text(max_size=20),
    st.binary(max_size=20),
    st.datetimes(timezones=st.none() | st.just(datetime.timezone.utc)),
    st.dates(),
    st.times(),
    st.timedeltas(),
    st.decimals(allow_nan=False),
    st.uuids(),
)

numpy_scalars = st.sampled_from(
    ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
     "float16", "float32", "float64", "complex64", "complex128"]
).flatmap(lambda name: npst.from_dtype(np.dtype(name), allow_nan=False).map(np.dtype(name).type))

arrays = npst.arrays(
    dtype=st.sampled_from(["?", "i1", "<i4", ">i8", "u2", "<f4", ">f8", "<c16", "f2"]),
    shape=npst.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
    elements={"allow_nan": False},
)

leaves = st.one_of(hashable_leaves, numpy_scalars, st.binary(max_size=10).map(bytearray), arrays)

hashables = st.recursive(
    hashable_leaves,
    lambda children: st.one_of(st.tuples(children, children), st.frozensets(children, max_size=4)),
    max_leaves=8,
)

def nested(leaf_strategy):
    """Lists, tuples, dicts, sets and frozensets of ``leaf_strategy``, nested."""
    return st.recursive(
        leaf_strategy,
        lambda children: st.one_of(
            st.lists(children, max_size=5),
            st.lists(children, max_size=4).map(tuple),
            st.dictionaries(hashables, children, max_size=5),
            st.sets(hashables, max_size=5),
            st.frozensets(hashables, max_size=4),
        ),
        max_leaves=25,
    )


values = nested(leaves)


# --- canonical form -------------------------------------------------------------
# Like `values`, but with the floats the canonical form has to unify (-0.0, NaN)
# outside of dict keys and set members (two NaN keys cannot share one dict).

canonical_leaves = st.one_of(
    hashable_leaves,
    st.floats(allow_nan=True),
    st.complex_numbers(allow_nan=True),
    st.decimals(allow_nan=True),
    numpy_scalars,
    st.binary(max_size=10).map(bytearray),
    npst.arrays(
        dtype=st.sampled_from(["?", "i1", "<i4", ">i8", "u2", "<f4", ">f8", "<c16", "f2", ">c8"]),
        shape=npst.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
    ),
)

canonical_values = nested(canonical_leaves)

# Values whose equality is plain `==` with exact types: the model for "different
# values have different digests".
plain_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False), st.text(max_size=8), st.binary(max_size=8),
)
plain_values = st.recursive(
    plain_leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=4), children, max_size=4),
    ),
    max_leaves=12,
)


@st.composite
def mutations(draw, frames):
    """One of ``frames`` with 1 to 4 mutations: flipped or set bytes, truncation, insertions,
    deletions, header and table fields overwritten with edge values, bytes spliced from another frame."""
    frame = bytearray(draw(st.sampled_from(frames)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "set", "truncate", "insert", "delete", "u64", "u32", "splice"]))
        position = draw(st.integers(0, max(len(frame) - 1, 0)))
        if kind == "flip" and frame:
            frame[position] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set" and frame:
            frame[position] = draw(st.integers(0, 255))
        elif kind == "truncate":
            del frame[position:]
        elif kind == "insert":
            frame[position:position] = draw(st.binary(min_size=1, max_size=16))
        elif kind == "delete":
            del frame[position:position + draw(st.integers(1, 16))]
        elif kind in ("u64", "u32") and len(frame) >= 32:
            # Header and table fields: counts, lengths and offsets.
            size = 8 if kind == "u64" else 4
            field = draw(st.sampled_from([8, 16, 24, 32, 40, 48, 56]))
            if field + size <= len(frame):
                value = draw(st.sampled_from([0, 1, 7, 63, 64, 2**31, 2**32 - 1, len(frame), len(frame) + 1]))
                struct.pack_into("<Q" if size == 8 else "<I", frame, field, value % (1 << (8 * size)))
        elif kind == "splice":
            other = draw(st.sampled_from(frames))
            start = draw(st.integers(0, len(other)))
            frame[position:position + 8] = other[start:start + 8]
    return bytes(frame)
