"""pandas DataFrame ("pandas.DataFrame") and Series ("pandas.Series") through Arrow: the pandas plug-in.

Installed with the ``pandas`` extra and found through the ``serreg.serializers``
entry point ``pandas``. A DataFrame is written as the ArrowTable in-band of
``pyarrow.Table.from_pandas(df)`` (docs/FORMAT.md, section 6.5): the columns as
Arrow columns, the index and the pandas dtypes in the schema's ``pandas``
metadata (JSON, which pyarrow reads back without running code). A Series is a
DataFrame of one column plus its name in the schema metadata key
``serreg:series`` (JSON). Reading uses ``Table.to_pandas(split_blocks=True)``,
which hands out numeric columns without nulls as views of the frame.
Values pyarrow cannot convert (object columns of mixed Python objects, names
that are not str, int or None) go to the fallback instead.
"""

from __future__ import annotations

from typing import Any

import json

import pandas as pd
import pyarrow as pa

from ..errors import DeserializationError
from ..result import SerializationResult
from ..serializer import Serializer
from ..standard import PANDAS_DATAFRAME_CLASS_ID, PANDAS_SERIES_CLASS_ID

from .arrow_frames import read_batches, write_batches
from .pyarrow_canonical import write_table

__all__ = ["DataFrameSerializer", "SeriesSerializer", "register"]

_SERIES_KEY = b"serreg:series"
_COLUMN = "__serreg_series__"


def _plain_name(name: Any) -> bool:
    return name is None or type(name) in (str, int)


def _table(frame: pd.DataFrame) -> pa.Table:
    return pa.Table.from_pandas(frame, preserve_index=None)


def _frame_of(in_band: Any, oob: Any) -> tuple[Any, ...]:
    schema, batches = read_batches(in_band, oob)
    table = pa.Table.from_batches(batches, schema=schema)
    try:
        return table, table.to_pandas(split_blocks=True)
    except Exception as error:  # pandas and pyarrow report bad 'pandas' metadata with many exception types
        raise DeserializationError(
            f"pandas could not rebuild the frame from its Arrow table ({type(error).__name__}: {error})"
        ) from error


class DataFrameSerializer(Serializer):
    def accepts(self, frame: pd.DataFrame) -> bool:
        try:
            _table(frame)
        except (pa.ArrowException, TypeError, ValueError):
            return False  # the fallback takes it
        return True

    def serialize(self, frame: pd.DataFrame) -> SerializationResult:
        table = _table(frame)
        return write_batches(table.schema, table.to_batches())

    def serialize_canonical(self, frame: pd.DataFrame) -> SerializationResult:
        return write_table(_table(frame))

    def deserialize(self, in_band: Any, oob: Any) -> pd.DataFrame:
        return _frame_of(in_band, oob)[1]


class SeriesSerializer(Serializer):
    def accepts(self, series: pd.Series) -> bool:
        if not _plain_name(series.name):
            return False
        try:
            self._table(series)
        except (pa.ArrowException, TypeError, ValueError):
            return False
        return True

    @staticmethod
    def _table(series: pd.Series) -> pa.Table:
        table = _table(series.to_frame(name=_COLUMN))
        metadata = {**(table.schema.metadata or {}), _SERIES_KEY: json.dumps({"name": series.name}).encode()}
        return table.replace_schema_metadata(metadata)

    def serialize(self, series: pd.Series) -> SerializationResult:
        table = self._table(series)
        return write_batches(table.schema, table.to_batches())

    def serialize_canonical(self, series: pd.Series) -> SerializationResult:
        return write_table(self._table(series))

    def deserialize(self, in_band: Any, oob: Any) -> pd.Series:
        table, frame = _frame_of(in_band, oob)
        try:
            name = json.loads((table.schema.metadata or {})[_SERIES_KEY])["name"]
        except (KeyError, TypeError, ValueError) as error:
            raise DeserializationError(f"a pandas.Series frame needs its name under {_SERIES_KEY!r}") from error
        if _COLUMN not in frame.columns or not _plain_name(name):
            raise DeserializationError("a pandas.Series frame holds one column and a str, int or null name")
        return frame[_COLUMN].rename(name)


def register(registry: Any) -> None:
    """Register the DataFrame and Series serializers."""
    registry.register_serializer(PANDAS_DATAFRAME_CLASS_ID, pd.DataFrame, DataFrameSerializer())
    registry.register_serializer(PANDAS_SERIES_CLASS_ID, pd.Series, SeriesSerializer())
