"""The round trip the struct tests share: a registry of the struct shapes, a value's frame, and a
round trip that checks the value read back writes the same frame again."""

from __future__ import annotations

from typing import Any

import pytest

import serreg
from struct_shapes import register

__all__ = ["frame", "registry", "round_trip"]


@pytest.fixture
def registry() -> serreg.Registry:
    """A registry with the struct shapes of ``struct_shapes``."""
    return register(serreg.Registry())


def frame(registry: serreg.Registry, value: Any) -> bytes:
    return registry.serialize(value).to_bytes()


def round_trip(registry: serreg.Registry, value: Any) -> Any:
    data = frame(registry, value)
    back = registry.deserialize(data)
    assert frame(registry, back) == data
    return back
