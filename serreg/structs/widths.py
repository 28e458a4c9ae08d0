"""Exact widths for struct fields: ``Annotated[int, serreg.int32]`` and friends (docs/FORMAT.md, 10.2).

A marker names the wire type of a field whose Python type is wider than the
other language's (Python ``int`` is any size, Java ``int`` is 32 bits). Plain
``int`` is ``int64`` and plain ``float`` is ``float64``.
"""

from __future__ import annotations

__all__ = ["Width", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


class Width:
    """One exact wire type: its name in a definition, and for integers the range it holds."""

    __slots__ = ("name", "low", "high")

    def __init__(self, name: str, low: int | None = None, high: int | None = None) -> None:
        self.name = name
        self.low = low
        self.high = high

    def __repr__(self) -> str:
        return f"serreg.{self.name}"


def _signed(bits: int) -> Width:
    return Width(f"int{bits}", -(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def _unsigned(bits: int) -> Width:
    return Width(f"uint{bits}", 0, (1 << bits) - 1)


int8, int16, int32, int64 = (_signed(b) for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (_unsigned(b) for b in (8, 16, 32, 64))
float32 = Width("float32")
float64 = Width("float64")

INTEGER_WIDTHS = {w.name: w for w in (int8, int16, int32, int64, uint8, uint16, uint32, uint64)}
