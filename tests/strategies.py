"""Hypothesis strategies for serreg's built-in types, kept in one place."""

import datetime
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

values = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(hashables, children, max_size=5),
        st.sets(hashables, max_size=5),
        st.frozensets(hashables, max_size=4),
    ),
    max_leaves=25,
)
