"""The in-band every Arrow class ID shares: [schema, batches] with the buffers out-of-band.

``write_batches`` writes it (docs/FORMAT.md, section 6.4): the schema as an IPC
Schema message, per batch the field nodes (``arrow_nodes.py``); ``read_batches``
reads it back, checking the schema message before pyarrow reads it
(``arrow_ipc_check.py``) and charging fields, nodes and batches against the
call's memory budget before anything is built.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from msgpack import Unpacker, packb
from msgpack.exceptions import StackError

from .._registry.dispatch import CROSS_LANGUAGE
from ..codec import check_untrusted_structure, is_untrusted
from ..errors import DeserializationError, LimitExceededError
from ..limits import MSGPACK_MAX_NESTING, charge
from ..result import SerializationResult

from .arrow_extension import read_schema
from .arrow_ipc_check import check_schema_message
from .arrow_nodes import NodeReader, write_batch
from .arrow_schema import FIELD_COST, METADATA_COST, schema_from_description
from .arrow_plans import ReadPlan, read_plan, remember_read_plan, write_plan
from .arrow_types import check_valid

__all__ = ["BATCH_COST", "NODE_COST", "read_batches", "write_batches"]

# What one item of a frame becomes in memory (pyarrow 26, CPython 3.11: a column of one field
# and one array measured 350 to 610 bytes), charged against the deserialize call's memory
# budget before it is built, so a frame of empty batches or of fields without data is bounded.
# (Fields: FIELD_COST and METADATA_COST, in arrow_schema.)
NODE_COST = 512  # one Array and its Python wrapper, per field node
BATCH_COST = 320  # one RecordBatch


def write_batches(schema: pa.Schema, batches: Any) -> SerializationResult:
    """The ArrowTable in-band [schema, batches] and buffers of ``batches`` (what every Arrow class ID writes)."""
    batches = list(batches)
    plan = write_plan(schema, cross_language=CROSS_LANGUAGE.get(), several_batches=len(batches) > 1)
    buffers: list[Any] = []
    if plan.value_rule_columns:
        for batch in batches:
            check_valid(batch, plan.value_rule_columns)
    written = [write_batch(batch, buffers, plan.flat) for batch in batches]
    return SerializationResult(packb([plan.message, written]), buffers)


def read_batches(in_band: Any, oob: Any) -> tuple[Any, ...]:
    """(schema, batches) of an ArrowTable in-band, checked; the reader of every Arrow class ID."""
    # Read [schema, batches] one batch at a time: each batch's nodes are charged before any
    # array is built from them, and the msgpack lists of one batch are dropped before the next.
    check_untrusted_structure(in_band)
    unpacker = Unpacker(max_buffer_size=max(len(in_band), 1))
    unpacker.feed(in_band)
    try:
        if unpacker.read_array_header() != 2:
            raise ValueError("not a pair")
        schema_at = unpacker.tell()
        schema_part = unpacker.unpack()
        count = unpacker.read_array_header()
    except StackError as error:
        raise LimitExceededError(f"msgpack containers are nested more than {MSGPACK_MAX_NESTING} deep") from error
    except (ValueError, TypeError, UnicodeDecodeError) as error:
        raise DeserializationError(f"Arrow in-band must be [schema, batches] ({error})") from error
    except Exception as error:  # msgpack reports truncated data with its own exception types
        raise DeserializationError(f"Arrow in-band must be [schema, batches] ({type(error).__name__})") from error
    try:
        plan = _read_schema(schema_part)
    except DeserializationError as error:
        if error.offset is None and error.in_band_offset is None:
            error.in_band_offset = schema_at  # where the schema message starts (its msgpack header)
        raise
    schema = plan.schema
    batches = []
    for index in range(count):
        batch_at = unpacker.tell()
        batch_meta = _next_item(unpacker, index)
        if type(batch_meta) is not list or len(batch_meta) != 2 or type(batch_meta[1]) is not list:
            raise DeserializationError(f"invalid Arrow batch header {batch_meta!r:.200}", in_band_offset=batch_at)
        num_rows, nodes = batch_meta
        charge(BATCH_COST + NODE_COST * len(nodes), "Arrow batches and arrays")
        reader = NodeReader(nodes, oob)
        arrays = [reader.read(field.type, None, flat) for field, flat in zip(schema, plan.flat)]
        reader.finish()
        if any(len(a) != num_rows for a in arrays):
            raise DeserializationError(f"Arrow batch columns do not all have {num_rows} rows")
        if arrays:
            batches.append(pa.RecordBatch.from_arrays(arrays, schema=schema))
        else:
            batches.append(pa.RecordBatch.from_pydict({}, schema=schema))
    if unpacker.tell() != len(in_band):
        raise DeserializationError(f"Arrow in-band has {len(in_band) - unpacker.tell()} bytes after its batches")
    return schema, batches


def _next_item(unpacker: Unpacker, index: int) -> Any:
    try:
        return unpacker.unpack()
    except StackError as error:
        raise LimitExceededError(f"msgpack containers are nested more than {MSGPACK_MAX_NESTING} deep") from error
    except (ValueError, TypeError, UnicodeDecodeError) as error:
        raise DeserializationError(f"Arrow batch {index} is not valid msgpack: {error}") from error
    except Exception as error:  # msgpack reports truncated data with its own exception types
        raise DeserializationError(f"Arrow in-band ends inside batch {index} ({type(error).__name__})") from error


def _read_schema(schema_part: Any) -> ReadPlan:
    """The schema of an Arrow in-band: an IPC Schema message (checked here before pyarrow reads
    it) or, in the canonical form, a schema description (docs/FORMAT.md, section 9.5); as a plan
    (arrow_plans.py), the one kept from an earlier read of the same message if there is one."""
    if type(schema_part) is list:
        # Read the description, then go the way of a schema message, so extension names meet
        # the same rules (arrow_extension.py).
        schema_part = schema_from_description(schema_part).serialize().to_pybytes()
    if type(schema_part) is not bytes:
        raise DeserializationError("Arrow in-band must be [schema, batches]")
    untrusted = is_untrusted()
    plan = read_plan(schema_part, untrusted)
    if plan is not None:
        charge(plan.charge, "Arrow schema fields")
        return plan
    shape = check_schema_message(schema_part, untrusted=untrusted)
    cost = FIELD_COST * shape.fields + METADATA_COST * shape.metadata_entries + 2 * shape.string_bytes
    charge(cost, "Arrow schema fields")
    schema = read_schema(schema_part, shape, trusted=not untrusted)
    for i in range(len(schema)):
        try:
            schema.field(i).name
        except UnicodeDecodeError as error:
            raise DeserializationError(f"Arrow schema: the name of column {i} is not UTF-8 ({error.reason})") from error
    plan = ReadPlan(schema, cost)
    remember_read_plan(schema_part, untrusted, bool(shape.extensions), plan)
    return plan
