"""Evolution between dataclass and msgspec versions of a cross-language struct (docs/FORMAT.md,
section 10): a msgspec version 2 reads a dataclass version 1 frame (widened, skipped, defaulted;
a required new field and a narrowing refused), a dataclass reads a msgspec frame. Skipped
without msgspec.
"""

from __future__ import annotations

from typing import Annotated, Optional

import pytest

msgspec = pytest.importorskip("msgspec", reason="msgspec is not installed (pip install msgspec)")

import serreg  # noqa: E402
from struct_round_trips import frame  # noqa: E402


class ItemV2(msgspec.Struct):
    """evolve.Item, version 2 (a msgspec Struct) of the dataclass version 1 below."""

    id: int  # int32 -> int64: widening
    weight: float  # float32 -> float64: widening
    tags: list[str] = msgspec.field(default_factory=list)  # new, with a default factory
    note: Optional[str] = None  # new, with a default


def _item_registry(cls: type) -> serreg.Registry:
    registry = serreg.Registry()
    registry.register_struct(cls, "evolve.Item")
    return registry


def test_msgspec_v2_reads_a_dataclass_v1_frame():
    import dataclasses

    @dataclasses.dataclass
    class ItemV1:
        id: Annotated[int, serreg.int32]
        name: str  # gone in v2: skipped
        weight: Annotated[float, serreg.float32]

    data = frame(_item_registry(ItemV1), [ItemV1(7, "seven", 0.5), ItemV1(-1, "", 0.25)])
    assert _item_registry(ItemV2).deserialize(data, trusted=False) == [ItemV2(7, 0.5), ItemV2(-1, 0.25)]

    class ItemV2Required(msgspec.Struct):
        id: int
        weight: float
        required: str

    with pytest.raises(serreg.DeserializationError, match="no field 'required'.*no default"):
        _item_registry(ItemV2Required).deserialize(data)

    class ItemNarrow(msgspec.Struct):
        id: Annotated[int, serreg.int8]

    with pytest.raises(serreg.DeserializationError, match="'id'.*int32.*int8"):
        _item_registry(ItemNarrow).deserialize(data)


def test_dataclass_reads_a_msgspec_frame():
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class ItemV1Wide:
        id: int
        weight: float
        name: str = "?"

    data = frame(_item_registry(ItemV2), ItemV2(7, 0.5, ["t"], "n"))
    assert _item_registry(ItemV1Wide).deserialize(data) == ItemV1Wide(7, 0.5)
