"""The standard types of docs/FORMAT.md, section 6: THE table of standard class IDs, and their install.

The table below is the only place serreg lists the standard class IDs: the
trust rules, ``serreg inspect``, the registry and the plug-ins read them from
here. The core types (section 6.1) are served by the modules of this package
(``base``, ``scalars``, ``binary``, ``containers``, ``datetimes``,
``dataclass``, ``pickle5``); numpy (6.2, 6.3) and Arrow (6.4) are served by
the plug-ins in ``serreg.serializers``, which register only where their
library is installed. The Java twins are the registrars of the Java
implementation (its standard, numpy and Arrow serializers).
"""

from __future__ import annotations

from typing import Any

import datetime
import decimal
import uuid

from ..errors import RemoteError, SerregError
from .base import MsgpackValueSerializer
from .binary import ByteArraySerializer, BytesSerializer, MemoryViewSerializer
from .containers import SetSerializer, TupleSerializer
from .dataclass import DataclassSerializer
from .datetimes import DateSerializer, DateTimeSerializer, TimeDeltaSerializer, TimeSerializer
from .scalars import ComplexSerializer, DecimalSerializer, FloatSerializer, IntSerializer, RemoteErrorSerializer, UUIDSerializer

__all__ = [
    "ARROW_CHUNKED_ARRAY_CLASS_ID",
    "ARROW_RECORD_BATCH_CLASS_ID",
    "ARROW_SCHEMA_CLASS_ID",
    "ARROW_TENSOR_CLASS_ID",
    "PANDAS_DATAFRAME_CLASS_ID",
    "PANDAS_SERIES_CLASS_ID",
    "ARROW_TABLE_CLASS_ID",
    "CODE_LOADING_CLASS_IDS",
    "CORE_CLASS_IDS",
    "DATACLASS_CLASS_ID",
    "DATA_CLASS_IDS",
    "ERROR_CLASS_ID",
    "EXTRA_OF_CLASS_ID",
    "FALLBACK_CLASS_ID",
    "MASKED_ARRAY_CLASS_ID",
    "NDARRAY_CLASS_ID",
    "NUMPY_GENERIC_CLASS_IDS",
    "NUMPY_SCALAR_CLASS_IDS",
    "PYOBJECTS_CLASS_ID",
    "STANDARD_CLASS_IDS",
    "STRUCTS_CLASS_ID",
    "STRUCT_CARRIER_CLASS_ID",
    "check_plugin_class_id",
    "install",
]

# ---------------------------------------------------------------- the table of standard class IDs

FALLBACK_CLASS_ID = "serreg.pickle5"  # the pickle protocol 5 fallback (Python only)
DATACLASS_CLASS_ID = "serreg.dataclass"  # dataclass instances, when switched on (Python only)
ERROR_CLASS_ID = "serreg.error"  # the error frame (section 4)
STRUCTS_CLASS_ID = "serreg.structs"  # a frame's struct table, in front of its value (section 10.1)
STRUCT_CARRIER_CLASS_ID = "serreg.struct"  # the data carrier of unregistered struct class IDs (section 10.4)
PYOBJECTS_CLASS_ID = "serreg.pyobjects"  # pickled classes + a struct section of implicit structs (10.9, Python only)

# Section 6.1: plain data every implementation reads.
CORE_CLASS_IDS = (
    "None", "bool", "int", "float", "str", "bytes", "list", "dict", "tuple", "set", "frozenset",
    "bytearray", "memoryview", "complex", "datetime", "date", "time", "timedelta", "decimal", "uuid",
    ERROR_CLASS_ID, STRUCTS_CLASS_ID, STRUCT_CARRIER_CLASS_ID,
)

# Sections 6.2 and 6.3 (the numpy plug-in): numpy scalar type name -> class ID.
NDARRAY_CLASS_ID = "numpy.ndarray"
NUMPY_SCALAR_CLASS_IDS = {
    name: f"numpy.{name}"
    for name in (
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64", "complex64", "complex128",
    )
}

# Sections 6.2.2 and 6.3: numpy scalars served as 0-d arrays (type name -> class ID), masked arrays.
NUMPY_GENERIC_CLASS_IDS = {name: f"numpy.{name}" for name in ("datetime64", "timedelta64", "bytes_", "str_", "void")}
MASKED_ARRAY_CLASS_ID = "numpy.ma.MaskedArray"

# Section 6.4 (the Arrow plug-in).
ARROW_TABLE_CLASS_ID = "ArrowTable"
ARROW_RECORD_BATCH_CLASS_ID = "ArrowRecordBatch"
ARROW_CHUNKED_ARRAY_CLASS_ID = "ArrowChunkedArray"
ARROW_SCHEMA_CLASS_ID = "ArrowSchema"
ARROW_TENSOR_CLASS_ID = "ArrowTensor"
# Section 6.5 (the pandas plug-in, through Arrow).
PANDAS_DATAFRAME_CLASS_ID = "pandas.DataFrame"
PANDAS_SERIES_CLASS_ID = "pandas.Series"

# Standard class IDs served by a plug-in -> the extra that installs its library (pip install "serreg[extra]").
EXTRA_OF_CLASS_ID = {
    NDARRAY_CLASS_ID: "numpy",
    **{class_id: "numpy" for class_id in NUMPY_SCALAR_CLASS_IDS.values()},
    **{class_id: "numpy" for class_id in NUMPY_GENERIC_CLASS_IDS.values()},
    MASKED_ARRAY_CLASS_ID: "numpy",
    ARROW_TABLE_CLASS_ID: "arrow",
    ARROW_RECORD_BATCH_CLASS_ID: "arrow",
    ARROW_CHUNKED_ARRAY_CLASS_ID: "arrow",
    ARROW_SCHEMA_CLASS_ID: "arrow",
    ARROW_TENSOR_CLASS_ID: "arrow",
    PANDAS_DATAFRAME_CLASS_ID: "pandas",
    PANDAS_SERIES_CLASS_ID: "pandas",
}

# The library whose values each plug-in's standard class IDs stand for (extra -> top-level module).
_LIBRARY_OF_EXTRA = {"numpy": "numpy", "arrow": "pyarrow", "pandas": "pandas"}


def check_plugin_class_id(class_id: str, cls: type) -> None:
    """Refuse a plug-in's standard class ID (``"ArrowTable"``, ``"numpy.ndarray"`` ...) for a type outside
    its library: every reader would take the user's values for the library's, and the plug-in could no
    longer register (a SerregError naming both, before anything is registered)."""
    extra = EXTRA_OF_CLASS_ID.get(class_id)
    if extra is None:
        return
    library = _LIBRARY_OF_EXTRA[extra]
    if cls.__module__.partition(".")[0] != library:
        raise SerregError(
            f"class ID {class_id!r} is a standard class ID (docs/FORMAT.md, section 6) for {library} values, served by "
            f"the {extra} plug-in; choose a class ID of your own for {cls.__module__}.{cls.__qualname__}, "
            f"such as 'myapp.{cls.__name__}'"
        )


# Decoding these runs code the writer chooses (unpickling, or importing the module a frame names).
CODE_LOADING_CLASS_IDS = frozenset({FALLBACK_CLASS_ID, DATACLASS_CLASS_ID, PYOBJECTS_CLASS_ID})
# Plain data, safe to decode from untrusted bytes: the default allow-list of untrusted mode.
DATA_CLASS_IDS = frozenset(CORE_CLASS_IDS) | frozenset(EXTRA_OF_CLASS_ID)
STANDARD_CLASS_IDS = DATA_CLASS_IDS | CODE_LOADING_CLASS_IDS

# ---------------------------------------------------------------- install


def install(table: Any, codec: Any) -> None:
    """Register every standard serializer, and the dataclass reader, in a registry's ``table``.

    The serializers of None, bool, str, list and dict write exactly the
    codec's msgpack of the value (``plain_msgpack``), so the registry may call
    the codec for them itself.
    """
    register = table.register

    def register_plain(class_id: str, cls: type) -> None:
        register(class_id, cls, MsgpackValueSerializer(codec, cls), plain_msgpack=True)

    register_plain("None", type(None))
    register_plain("bool", bool)
    register("int", int, IntSerializer(codec))
    register("float", float, FloatSerializer(codec))
    register_plain("str", str)
    register("bytes", bytes, BytesSerializer(codec))
    register_plain("list", list)
    register_plain("dict", dict)
    register("tuple", tuple, TupleSerializer(codec))
    register("set", set, SetSerializer(codec, set))
    register("frozenset", frozenset, SetSerializer(codec, frozenset))
    register("bytearray", bytearray, ByteArraySerializer(codec))
    register("memoryview", memoryview, MemoryViewSerializer(codec))
    register("complex", complex, ComplexSerializer(codec))
    register("datetime", datetime.datetime, DateTimeSerializer(codec))
    register("date", datetime.date, DateSerializer(codec))
    register("time", datetime.time, TimeSerializer(codec))
    register("timedelta", datetime.timedelta, TimeDeltaSerializer(codec))
    register("decimal", decimal.Decimal, DecimalSerializer(codec))
    register("uuid", uuid.UUID, UUIDSerializer(codec))
    register(ERROR_CLASS_ID, RemoteError, RemoteErrorSerializer(codec))
    table.install_dataclass(DATACLASS_CLASS_ID, DataclassSerializer(codec))
