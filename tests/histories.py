"""Rebuild a value with another history: equal under the canonical rules, different in memory.

``rehistory(value, rnd)`` returns a value that docs/FORMAT.md section 9 says
is equal to ``value``, built differently: dicts and sets filled in another
order, arrays in F order, strided or big-endian, -0.0 for 0.0, other NaN
payloads, decimals with trailing zeros, fixed offsets with names, naive
datetimes with fold=1, Arrow tables sliced out of bigger ones and re-chunked.
"""

import datetime
import decimal
import random
import struct

import numpy as np
import pyarrow as pa


def other_nan(rnd: random.Random) -> float:
    """A NaN with a random sign and payload (quiet or signaling)."""
    mantissa = rnd.randrange(1, 1 << 52)
    sign = rnd.randrange(2) << 63
    return struct.unpack("<d", struct.pack("<Q", sign | (0x7FF << 52) | mantissa))[0]


def _float(value: float, rnd: random.Random) -> float:
    if value != value:
        return other_nan(rnd)
    if value == 0.0:
        return rnd.choice([0.0, -0.0])
    return value


def _decimal(value: decimal.Decimal, rnd: random.Random) -> decimal.Decimal:
    if value.is_nan():
        payload = rnd.choice(["", "1", "42"])
        sign = rnd.choice(["", "-"])
        return decimal.Decimal(f"{sign}{'sNaN' if value.is_snan() else 'NaN'}{payload}")
    if value.is_infinite():
        return value
    if value.is_zero():
        return decimal.Decimal((rnd.randrange(2), (0,), rnd.randrange(-5, 5)))
    sign, digits, exponent = value.as_tuple()
    extra = rnd.randrange(0, 3)
    return decimal.Decimal((sign, digits + (0,) * extra, exponent - extra))


def _timezone(tzinfo, rnd: random.Random):
    if type(tzinfo) is datetime.timezone and rnd.randrange(2):
        return datetime.timezone(tzinfo.utcoffset(None), rnd.choice(["A", "zone name"]))
    return tzinfo


def _array(array: np.ndarray, rnd: random.Random) -> np.ndarray:
    if array.dtype.kind in "fc" and array.size:
        array = array.copy()
        flat = array.reshape(-1).view(f"<f{array.dtype.itemsize // (2 if array.dtype.kind == 'c' else 1)}") \
            if array.dtype.byteorder != ">" else None
        if flat is not None:
            for i in range(flat.size):
                flat[i] = _float(float(flat[i]), rnd)
    choice = rnd.randrange(4)
    if choice == 1 and array.ndim >= 1:
        return np.asfortranarray(array)
    if choice == 2 and array.dtype.itemsize > 1:
        swapped = array.dtype.newbyteorder(">" if array.dtype.byteorder in "<=" else "<")
        return array.astype(swapped)
    if choice == 3 and array.ndim >= 1:
        wide = np.zeros((array.shape[0] * 2,) + array.shape[1:], dtype=array.dtype)
        wide[::2] = array
        return wide[::2]
    return array


def _numpy_scalar(value, rnd: random.Random):
    kind = type(value)
    if kind in (np.float16, np.float32, np.float64):
        if value != value:
            bits = np.asarray(value).view(f"<u{value.itemsize}")
            exponent_ones = {2: 0x7C00, 4: 0x7F800000, 8: 0x7FF0000000000000}[value.itemsize]
            mantissa = rnd.randrange(1, {2: 1 << 10, 4: 1 << 23, 8: 1 << 52}[value.itemsize])
            sign = rnd.randrange(2) << (8 * value.itemsize - 1)
            return np.asarray(sign | exponent_ones | mantissa, dtype=bits.dtype).view(kind)[()]
        if value == 0:
            return kind(rnd.choice([0.0, -0.0]))
    return value


def rehistory(value, rnd: random.Random):
    kind = type(value)
    if kind is float:
        return _float(value, rnd)
    if kind is complex:
        return complex(_float(value.real, rnd), _float(value.imag, rnd))
    if kind is decimal.Decimal:
        return _decimal(value, rnd)
    if kind is datetime.datetime:
        fold = rnd.randrange(2) if value.tzinfo is None or type(value.tzinfo) is datetime.timezone else value.fold
        return value.replace(tzinfo=_timezone(value.tzinfo, rnd), fold=fold)
    if kind is datetime.time:
        return value.replace(tzinfo=_timezone(value.tzinfo, rnd), fold=rnd.randrange(2))
    if kind is list:
        return [rehistory(item, rnd) for item in value]
    if kind is tuple:
        return tuple(rehistory(item, rnd) for item in value)
    if kind is dict:
        items = [(rehistory(k, rnd), rehistory(v, rnd)) for k, v in value.items()]
        rnd.shuffle(items)
        return dict(items)
    if kind in (set, frozenset):
        members = [rehistory(m, rnd) for m in value]
        rnd.shuffle(members)
        # Filling a set in another order (and after removals) changes its iteration order.
        filler = {object() for _ in range(50)}  # equal to nothing else
        filled = set(filler)
        filled.update(members)
        filled.difference_update(filler)
        return kind(filled)
    if kind is np.ndarray:
        return _array(value, rnd)
    if kind in (np.float16, np.float32, np.float64):
        return _numpy_scalar(value, rnd)
    if kind in (pa.Table,):
        return rechunk(value, rnd)
    return value


def rechunk(table: pa.Table, rnd: random.Random) -> pa.Table:
    """``table`` cut out of a bigger table and split into random chunks."""
    padded = pa.concat_tables([table.slice(0, min(2, table.num_rows)), table, table.slice(0, 1)])
    sliced = padded.slice(min(2, table.num_rows), table.num_rows)
    cuts = sorted(rnd.randrange(0, table.num_rows + 1) for _ in range(rnd.randrange(0, 3)))
    pieces = [sliced.slice(start, stop - start) for start, stop in zip([0] + cuts, cuts + [table.num_rows])]
    return pa.concat_tables(pieces) if pieces else sliced
