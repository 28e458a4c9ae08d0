"""What the Arrow serializers decide once per schema, kept for the next value of the same schema.

Writing a table checks its columns (arrow_types.py), finds those holding
date64 or decimal values and serializes the schema message; reading one
walks the schema message (arrow_ipc_check.py) and has pyarrow read it. For
a stream of values of one schema that is most of the work of a small table
(two thirds of the instructions of an in-process round trip of three
columns), so each outcome is kept in a small table:

- a write plan per (schema message, cross_language, several batches), used
  only for a schema pyarrow finds equal (an extension type and its storage
  with the extension keys in the field metadata have the same message);
- a read plan per (schema message, untrusted), only for messages with no
  extension name (which extension types a trusted reader resolves depends on
  what is registered at the time of the call), holding the schema, what
  reading it is charged against the call's memory budget (charged again at
  every use), and per column whether it is flat.

Only outcomes that passed are kept, at most ``PLAN_ENTRIES`` of each kind and
of messages up to ``PLAN_MESSAGE_BYTES``; when full, a table starts over.
"""

from __future__ import annotations

from typing import Any, Optional

import pyarrow as pa

from .arrow_types import check_columns, value_rule_columns

__all__ = ["PLAN_ENTRIES", "PLAN_MESSAGE_BYTES", "ReadPlan", "WritePlan", "flat_buffers", "read_plan",
           "remember_read_plan", "write_plan"]

PLAN_ENTRIES = 64
PLAN_MESSAGE_BYTES = 16 * 1024


def flat_buffers(arrow_type: pa.DataType) -> Optional[int]:
    """The buffer count of a column type without children whose buffers are all the array's
    ``buffers()`` (bool, numbers, temporal, binary and strings, fixed-size binary), else None."""
    t = pa.types
    if (arrow_type.num_fields or isinstance(arrow_type, pa.BaseExtensionType) or t.is_null(arrow_type)
            or t.is_dictionary(arrow_type) or t.is_union(arrow_type) or t.is_run_end_encoded(arrow_type)
            or t.is_binary_view(arrow_type) or t.is_string_view(arrow_type)):
        return None
    return int(arrow_type.num_buffers)


class WritePlan:
    """A schema that passed the column checks: its message, the columns with value rules, and
    per column its buffer count if flat."""

    __slots__ = ("schema", "message", "value_rule_columns", "flat")

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        self.message: bytes = schema.serialize().to_pybytes()
        self.value_rule_columns: tuple[int, ...] = value_rule_columns(schema)
        self.flat: tuple[Optional[int], ...] = tuple(flat_buffers(field.type) for field in schema)


_WRITE_PLANS: dict[tuple[bytes, bool, bool], WritePlan] = {}


def write_plan(schema: pa.Schema, cross_language: bool, several_batches: bool) -> WritePlan:
    """The plan of ``schema``, its columns checked (SerializationError, CrossLanguageError) when
    it is not known yet."""
    message = schema.serialize().to_pybytes()
    key = (message, cross_language, several_batches)
    plan = _WRITE_PLANS.get(key)
    if plan is not None and plan.schema.equals(schema):
        return plan
    check_columns(schema, cross_language=cross_language, several_batches=several_batches)
    plan = WritePlan(schema)
    if len(message) <= PLAN_MESSAGE_BYTES:
        _remember(_WRITE_PLANS, key, plan)
    return plan


class ReadPlan:
    """A schema message that passed the reader's checks: the schema, its memory charge, and per
    column its buffer count if flat."""

    __slots__ = ("schema", "charge", "flat")

    def __init__(self, schema: pa.Schema, charge: int) -> None:
        self.schema = schema
        self.charge = charge
        self.flat: tuple[Optional[int], ...] = tuple(flat_buffers(field.type) for field in schema)


_READ_PLANS: dict[tuple[bytes, bool], ReadPlan] = {}


def read_plan(message: bytes, untrusted: bool) -> Optional[ReadPlan]:
    """The kept plan of a schema message read in this mode, or None."""
    return _READ_PLANS.get((message, untrusted))


def remember_read_plan(message: bytes, untrusted: bool, has_extension_names: bool, plan: ReadPlan) -> None:
    """Keep ``plan`` for the next read of ``message`` in this mode (unless it names extension types)."""
    if not has_extension_names and len(message) <= PLAN_MESSAGE_BYTES:
        _remember(_READ_PLANS, (message, untrusted), plan)


def _remember(table: dict[Any, Any], key: Any, plan: Any) -> None:
    if len(table) >= PLAN_ENTRIES:
        table.clear()
    table[key] = plan
