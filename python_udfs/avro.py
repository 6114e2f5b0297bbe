"""Avro object container files: each datum rendered as canonical JSON text.

The schema comes from the file header. fastavro decodes each datum and turns logical types
into Python values (timestamp-millis/micros -> datetime, decimal -> Decimal, date -> date,
uuid -> UUID), rendered here as ISO-8601 UTC text, plain decimal strings (never exponent
notation), UUID text and base64 for bytes. Datastream's own logical types (varchar, number,
json, time-interval-micros) keep their base value.

A damaged file keeps what can be read. :func:`read_avro` walks the container itself (header,
then blocks of ``count, size, data, sync marker``) and decodes datum by datum, so a file cut in
the middle of a block still gives the data before the cut: Datastream writes one block per
file, so block-level recovery alone would keep nothing. It returns those records together with
an error text. A file cut exactly after a sync marker is a valid shorter file and cannot be
told apart from one that was written that way.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import re
import uuid
import zlib
from decimal import Decimal
from typing import Any, NamedTuple

import fastavro

from python_udfs.contract import canonical_json, iso_format

_MAGIC = b"Obj\x01"
_SYNC_SIZE = 16
# Codecs whose blocks are walked here datum by datum; others go through fastavro.reader whole.
_OWN_CODECS = ("null", "deflate")
# A block claiming more records than bytes only makes sense for zero-byte records: cap those.
_MAX_EMPTY_RECORDS = 100_000
_ADDRESS = re.compile(r" from <[^>]* at 0x[0-9a-fA-F]+>| at 0x[0-9a-fA-F]+")


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
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return AvroRead([], f"{type(exc).__name__}: {exc}")
    return read_avro_bytes(data)


def read_avro_bytes(data: bytes | None) -> AvroRead:
    """The same for a file's content (what Spark's binaryFile source hands the UDF)."""
    records: list[str] = []
    try:
        data = bytes(data or b"")
        if not data:
            return AvroRead(records, "empty file (0 bytes): no Avro header")
        _decode_container(data, records)
    except Exception as exc:  # noqa: BLE001 - any failure is reported, with the records decoded so far
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


# ---------------------------------------------------------------------------------------------
# The container: header, blocks, sync markers


def _decode_container(data: bytes, out: list[str]) -> None:
    stream = io.BytesIO(data)
    if stream.read(len(_MAGIC)) != _MAGIC:
        raise ValueError("not an Avro object container file (it does not start with 'Obj\\x01')")
    metadata = _read_metadata(stream)
    sync = _read_exact(stream, _SYNC_SIZE, "the header's sync marker")
    if "avro.schema" not in metadata:
        raise ValueError("the header has no avro.schema")
    schema = fastavro.parse_schema(json.loads(metadata["avro.schema"].decode("utf-8")))
    codec = metadata.get("avro.codec", b"null").decode("utf-8") or "null"
    if codec not in _OWN_CODECS:
        _decode_with_fastavro(data, sync, out)
        return
    while stream.tell() < len(data):
        count = _read_long(stream, "a block's record count")
        size = _read_long(stream, "a block's size")
        if count < 0 or size < 0:
            raise ValueError(f"corrupt block header: {count} records in {size} bytes")
        body = stream.read(size)
        cut = len(body) < size
        content = body if codec == "null" else zlib.decompressobj(-15).decompress(body)
        if count > len(content) and count > _MAX_EMPTY_RECORDS:
            raise ValueError(f"corrupt block header: {count} records in {len(content)} bytes")
        block = io.BytesIO(content)
        for _ in range(count):
            try:
                datum = fastavro.schemaless_reader(block, schema)
            except Exception as exc:  # noqa: BLE001 - fastavro raises EOFError, IndexError, ValueError...
                if cut:
                    break  # the record the cut went through: reported below
                raise ValueError(f"a record cannot be decoded ({_describe(exc)})") from None
            out.append(render(datum))
        if cut:
            raise EOFError(f"the last block is cut after {len(body)} of its {size} bytes")
        marker = stream.read(_SYNC_SIZE)
        if len(marker) < _SYNC_SIZE:
            raise EOFError("the file is cut inside a block's sync marker")
        if marker != sync:
            raise ValueError("a block does not end with the file's sync marker")


def _decode_with_fastavro(data: bytes, sync: bytes, out: list[str]) -> None:
    """Other codecs: fastavro reads whole blocks; it takes a cut between blocks for the end."""
    for datum in fastavro.reader(io.BytesIO(data)):
        out.append(render(datum))
    if not data.endswith(sync):
        raise EOFError("the file does not end with its sync marker: its last block is cut")


def _read_metadata(stream: io.BytesIO) -> dict[str, bytes]:
    """The header's map<bytes>: blocks of entries, a negative count followed by a byte size."""
    metadata: dict[str, bytes] = {}
    while True:
        count = _read_long(stream, "the header's metadata")
        if count == 0:
            return metadata
        if count < 0:
            count = -count
            _read_long(stream, "the header's metadata")  # the block's size in bytes, not needed
        for _ in range(count):
            key = _read_bytes(stream, "a metadata key").decode("utf-8")
            metadata[key] = _read_bytes(stream, f"metadata {key}")


def _read_long(stream: io.BytesIO, what: str) -> int:
    """A zig-zag variable-length long."""
    value = shift = 0
    while True:
        byte = stream.read(1)
        if not byte:
            raise EOFError(f"the file is cut inside {what}")
        value |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            return (value >> 1) ^ -(value & 1)
        shift += 7
        if shift > 63:
            raise ValueError(f"{what} is not a valid Avro long")


def _read_bytes(stream: io.BytesIO, what: str) -> bytes:
    size = _read_long(stream, what)
    if size < 0:
        raise ValueError(f"{what} has a negative length")
    return _read_exact(stream, size, what)


def _read_exact(stream: io.BytesIO, size: int, what: str) -> bytes:
    data = stream.read(size)
    if len(data) < size:
        raise EOFError(f"the file is cut inside {what}")
    return data


def _damage(exc: Exception, decoded: int) -> str:
    where = f"after {decoded} record{'' if decoded == 1 else 's'}" if decoded else "before any record"
    return f"damaged or truncated Avro file ({where}): {_describe(exc)}"


def _describe(exc: Exception) -> str:
    # fastavro names the stream object with its address: drop it, so a detail is the same every run
    text = _ADDRESS.sub("", str(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# ---------------------------------------------------------------------------------------------
# Rendering


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
