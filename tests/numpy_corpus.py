"""The numpy corpus: arrays drawn by hypothesis.extra.numpy, and the checks run over them.

Every dtype family (bool, signed and unsigned ints, floats of 16 to 64 bits, complex, long
doubles, datetime64 and timedelta64 of every unit, ``S`` bytes, ``U`` str, void, structured
dtypes with nesting, offsets and titles) in both byte orders, in every layout (C, F, sliced,
reversed, stride-0 broadcast, 0-d, zero-size, read-only, masked, numpy scalars). The draw is
derandomized, so the corpus is the same on every run.

Each case is checked in four steps: in-process (the SerializationResult decoded), through
bytes (the frame copied into a bytearray), through Java (the ``cross_language=True`` frame
echoed by the Java fixture) and through the digests (Python's ``serreg.digest`` equals
Java's ``Serreg.digest`` of the value Java read). ``python tests/numpy_corpus.py`` prints the
exact share of each step by dtype family.
"""

from __future__ import annotations

import string
import sys
from dataclasses import dataclass, field

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as npst

import serreg

UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]
LONG_DOUBLE_SIZE = np.dtype(np.longdouble).itemsize


def _units(letter: str):
    generic = st.sampled_from(["<", ">"]).map(lambda o: np.dtype(f"{o}{letter}8"))
    with_unit = st.tuples(st.sampled_from(["<", ">"]), st.sampled_from(["", "2", "25"]), st.sampled_from(UNITS))
    return st.one_of(generic, with_unit.map(lambda t: np.dtype(f"{t[0]}{letter}8[{t[1]}{t[2]}]")))


_names = st.text(string.ascii_letters + "_é", min_size=1, max_size=6)
_leaf = st.one_of(
    npst.boolean_dtypes(), npst.integer_dtypes(endianness="?"), npst.unsigned_integer_dtypes(endianness="?"),
    npst.floating_dtypes(endianness="?", sizes=(16, 32, 64)), npst.complex_number_dtypes(endianness="?"),
    npst.datetime64_dtypes(endianness="?"), npst.byte_string_dtypes(max_len=4),
    npst.unicode_string_dtypes(endianness="?", max_len=3),
)


@st.composite
def structured_dtypes(draw, depth: int = 2):
    """A structured dtype with explicit offsets (gaps between fields), titles, sub-array fields
    and nested structs."""
    count = draw(st.integers(1, 4))
    names = draw(st.lists(_names, min_size=count, max_size=count, unique=True))
    titles = draw(st.lists(st.one_of(st.none(), st.text("ABCxyz", min_size=1, max_size=4)), min_size=count, max_size=count))
    titles = [None if t is None or t in names or titles.index(t) != i else "T" + t for i, t in enumerate(titles)]
    formats, offsets, at = [], [], 0
    for _ in range(count):
        inner = structured_dtypes(depth - 1) if depth > 0 else _leaf
        base = draw(st.one_of(_leaf, inner) if depth > 0 else _leaf)
        shape = draw(st.sampled_from([(), (), (2,), (2, 1)]))
        item = np.dtype((base, shape)) if shape else base
        at += draw(st.sampled_from([0, 0, 1, 3]))
        formats.append(item)
        offsets.append(at)
        at += item.itemsize
    itemsize = at + draw(st.sampled_from([0, 0, 2]))
    spec = {"names": names, "formats": formats, "offsets": offsets, "itemsize": itemsize}
    if any(titles):
        spec["titles"] = titles
    return np.dtype(spec)


FAMILIES = {
    "bool": npst.boolean_dtypes(),
    "int": npst.integer_dtypes(endianness="?"),
    "uint": npst.unsigned_integer_dtypes(endianness="?"),
    "float": npst.floating_dtypes(endianness="?", sizes=(16, 32, 64)),
    "complex": npst.complex_number_dtypes(endianness="?", sizes=(64, 128)),
    "longdouble": st.sampled_from([np.dtype(np.longdouble), np.dtype(np.clongdouble),
                                   np.dtype(np.longdouble).newbyteorder(">")]),
    "datetime64": _units("M"),
    "timedelta64": _units("m"),
    "bytes": npst.byte_string_dtypes(max_len=6),
    "str": npst.unicode_string_dtypes(endianness="?", max_len=4),
    "void": st.integers(1, 12).map(lambda n: np.dtype(f"V{n}")),
    "structured": structured_dtypes(),
}

LAYOUTS = ["C", "F", "sliced", "reversed", "broadcast", "0-d", "zero-size", "read-only", "masked", "scalar"]


@dataclass
class Case:
    family: str
    layout: str
    value: object
    results: dict = field(default_factory=dict)


def _raw_array(draw, dtype: np.dtype, shape) -> np.ndarray:
    """Elements for any dtype: hypothesis's own for the plain kinds, random bytes for void and structured
    (str fields get valid code points)."""
    if dtype.kind != "V":
        return draw(npst.arrays(dtype, shape))
    count = int(np.prod(shape))
    raw = draw(st.binary(min_size=count * dtype.itemsize, max_size=count * dtype.itemsize))
    array = np.frombuffer(bytearray(raw), dtype=dtype).reshape(shape)
    _fix_str_fields(array)
    return array


def _fix_str_fields(array: np.ndarray) -> None:
    """Make the code points of every str element (or field) valid: random bytes rarely are."""
    dtype = array.dtype.base if array.dtype.subdtype else array.dtype
    if dtype.kind == "U":
        codes = array.view(np.dtype((np.dtype("u4").newbyteorder(dtype.byteorder), (dtype.itemsize // 4,))))
        codes %= 0xD000
    for name in dtype.names or ():
        _fix_str_fields(array[name])


def _layout(draw, array: np.ndarray, layout: str):
    if layout == "F":
        return np.asfortranarray(array)
    if layout == "sliced":
        return array[tuple(slice(None, None, 2) for _ in array.shape)]
    if layout == "reversed":
        return array[::-1] if array.ndim else array
    if layout == "broadcast":  # a row of up to 4 elements repeated 3 times: strides (0, itemsize)
        row = array.reshape(-1)[:4]
        return np.broadcast_to(row, (3, row.size))
    if layout == "read-only":
        array = array.copy()
        array.flags.writeable = False
        return array
    if layout == "masked":
        mask = draw(npst.arrays(np.bool_, array.shape))
        return np.ma.masked_array(array, mask=mask)
    if layout == "scalar":  # the shapes drawn for this layout are never empty
        return array.reshape(-1)[0]
    return array


@st.composite
def cases(draw, family: str):
    dtype = draw(FAMILIES[family])
    layout = draw(st.sampled_from(LAYOUTS))
    if layout == "0-d":
        shape = ()
    elif layout == "zero-size":
        shape = draw(st.sampled_from([(0,), (2, 0), (0, 3)]))
    elif layout in ("sliced", "F", "broadcast"):
        shape = draw(npst.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=4))
    else:
        shape = draw(npst.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4))
    array = _raw_array(draw, dtype, shape)
    return Case(family, layout, _layout(draw, array, layout))


def corpus(per_family: int = 40) -> list[Case]:
    """The corpus: ``per_family`` cases of each family, the same on every run."""
    out: list[Case] = []
    for family in FAMILIES:
        @settings(derandomize=True, max_examples=per_family, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck), deadline=None)
        @given(cases(family))
        def collect(case):
            out.append(case)

        collect()
    return out


def same(a, b) -> bool:
    """Exactly equal: type, dtype (byte order, units, fields, offsets, titles), shape, element bytes,
    memory order, stride-0 axes, read-only flag; masks and fill values of masked arrays."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ma.MaskedArray):
        return (same(a.data, b.data) and same(np.ma.getmaskarray(a), np.ma.getmaskarray(b))
                and _fill(a) == _fill(b) and a.hardmask == b.hardmask)
    if isinstance(a, np.generic):
        return a.dtype == b.dtype and a.dtype.str == b.dtype.str and a.tobytes() == b.tobytes()
    if not isinstance(a, np.ndarray):
        return False
    if a.dtype != b.dtype or a.dtype.str != b.dtype.str or a.dtype.descr != b.dtype.descr or a.shape != b.shape:
        return False
    if not _same_items(a, b):
        return False
    if a.flags.f_contiguous and not a.flags.c_contiguous and not b.flags.f_contiguous:
        return False
    if a.size and any(s == 0 and n > 1 for s, n in zip(a.strides, a.shape)):
        # The broadcast axes come back (the stride of an axis of length 1 means nothing).
        if [s for s, n in zip(a.strides, a.shape) if n > 1] != [s for s, n in zip(b.strides, b.shape) if n > 1]:
            return False
    return a.flags.writeable or not b.flags.writeable


def _fill(masked) -> object:
    """A masked array's fill value as one item's bytes (numpy hands out float64 1e20 for a float32
    array until one is set); numpy's own error where it cannot make its default."""
    try:
        return np.array(masked.fill_value, dtype=masked.dtype).tobytes()
    except (ValueError, TypeError) as error:
        return str(error)


def _same_items(a: np.ndarray, b: np.ndarray) -> bool:
    """Same element bytes; for structured items, field by field (numpy does not keep the padding
    bytes between fields when it copies, so they are no part of the value)."""
    if a.dtype.names is None:
        return a.tobytes() == b.tobytes()
    return all(_same_items(a[name], b[name]) for name in a.dtype.names)


def _ok(step):
    try:
        return bool(step())
    except (serreg.SerregError, ValueError, TypeError) as error:
        return error


def check(case: Case, registry, java_echo=None, java_digest=None) -> dict:
    """Run ``case`` through every step; ``case.results[step]`` is True, False or the error raised."""
    value = case.value
    results = case.results
    results["in-process"] = _ok(lambda: same(value, registry.deserialize(registry.serialize(value))))
    results["bytes"] = _ok(lambda: same(value, registry.deserialize(bytearray(registry.serialize(value).to_bytes()))))
    try:
        frame = registry.serialize(value, cross_language=True).to_bytes()
    except serreg.SerregError as error:
        frame = None
        results["native"] = error
    else:
        results["native"] = True
    if java_echo is not None:
        results["java"] = results["native"] if frame is None else _ok(
            lambda: same(value, registry.deserialize(java_echo.round_trip(frame))))
    try:
        digest = registry.digest(value)
    except serreg.SerregError as error:
        results["digest"] = error
    else:
        if java_digest is not None and frame is not None:
            results["digest"] = _ok(lambda: registry.deserialize(java_digest.round_trip(frame)) == digest)
        else:
            results["digest"] = frame is not None
    return results


STEPS = ["in-process", "bytes", "native", "java", "digest"]


def table(checked: list[Case]) -> str:
    """Markdown table: per family, the share of cases exact in each step."""
    rows = ["| family | cases | " + " | ".join(STEPS) + " |", "|---|---|" + "---|" * len(STEPS)]
    families = list(dict.fromkeys(c.family for c in checked)) + ["all"]
    for family in families:
        group = [c for c in checked if family in ("all", c.family)]
        cells = []
        for step in STEPS:
            done = [c for c in group if step in c.results]
            exact = sum(c.results[step] is True for c in done)
            cells.append(f"{100 * exact / len(done):.0f}%" if done else "-")
        rows.append(f"| {family} | {len(group)} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: list[str]) -> None:
    from java_fixture import JavaProcess, build_jar

    per_family = int(argv[1]) if len(argv) > 1 else 40
    build_jar()
    echo, digest = JavaProcess("echo"), JavaProcess("digest")
    registry = serreg.Registry()
    checked = corpus(per_family)
    for case in checked:
        check(case, registry, echo, digest)
    echo.close()
    digest.close()
    print(table(checked))
    if "-v" in argv:
        for case in checked:
            bad = {k: v for k, v in case.results.items() if v is not True}
            if bad:
                print(case.family, case.layout, getattr(case.value, "dtype", type(case.value)), bad)


if __name__ == "__main__":
    main(sys.argv)
