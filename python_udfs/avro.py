"""Avro object container files: each datum rendered as canonical JSON text.

The schema comes from the file header. fastavro turns logical types into Python values
(timestamp-millis/micros -> datetime, decimal -> Decimal, date -> date, uuid -> UUID), which are
rendered as ISO-8601 UTC text, plain decimal strings (never exponent notation), UUID text and
base64 for bytes; Datastream's own logical types (varchar, number, json, time-interval-micros)
keep their base value.

A damaged file keeps what can be read: :func:`read_avro` returns the records decoded before the
damage together with an error text. An Avro container always ends with the header's sync marker
(after the header itself, or after the last block), so a file cut exactly between two blocks,
which fastavro takes for a clean end, is reported as truncated too.
"""

from __future__ import annotations

import datetime as dt
import os
import uuid
from decimal import Decimal
from typing import Any, NamedTuple

import fastavro

from python_udfs.contract import canonical_json, iso_format

_SYNC_SIZE = 16


class AvroRead(NamedTuple):
    """What one container file gave: the rendered records, and what stopped the read (or None)."""

    records: list[str]
    error: str | None


class AvroFileDamaged(ValueError):
    """The file is empty, truncated or corrupt; ``records`` holds the data decoded before that."""

    def __init__(self, message: str, records: list[str]) -> None:
        super().__init__(message)
        self.records = records


def read_avro(path: str) -> AvroRead:
    """Every datum of the file as canonical JSON text; never raises for a damaged file."""
    records: list[str] = []
    try:
        size = os.path.getsize(path)
        if size == 0:
            return AvroRead(records, "empty file (0 bytes): no Avro header")
        with open(path, "rb") as handle:
            reader = fastavro.reader(handle)
            for datum in reader:
                records.append(render(datum))
            sync = getattr(reader, "_header", {}).get("sync")  # fastavro keeps the header private
            handle.seek(max(size - _SYNC_SIZE, 0))
            if isinstance(sync, bytes) and handle.read(_SYNC_SIZE) != sync:
                raise EOFError("the file does not end with its sync marker: its last block is cut")
    except Exception as exc:  # noqa: BLE001 - any decoding failure is reported, with the records so far
        return AvroRead(records, _damage(exc, len(records)))
    return AvroRead(records, None)


def avro_records(path: str) -> list[str]:
    """Every datum of the file as canonical JSON text.

    Raises :class:`AvroFileDamaged` (carrying the records decoded before the damage) for an
    empty, truncated or corrupt file.
    """
    records, error = read_avro(path)
    if error is not None:
        raise AvroFileDamaged(error, records)
    return records


def render(datum: Any) -> str:
    """One decoded datum as canonical JSON text."""
    return canonical_json(_plain(datum))


def _plain(value: Any) -> Any:
    """Values canonical_json would not write as wanted: UUIDs, and decimals in exponent form."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, Decimal):
        return format(value, "f") if value.is_finite() else str(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return iso_format(value)
    return value


def _damage(exc: Exception, decoded: int) -> str:
    where = f"after {decoded} record{'' if decoded == 1 else 's'}" if decoded else "before any record"
    return f"damaged or truncated Avro file ({where}): {type(exc).__name__}: {exc}"
