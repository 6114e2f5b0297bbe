"""Qlik Replicate (Attunity) Kafka parser: one landing record (one Kafka message) in, one out.

The fields and their meaning come from the seed document (shared/seeds/003_55339dca819d6816.txt,
"metadata and data messages") and the published samples (shared/conformance/qlik/). A record is:

- the ``{"magic": "atMSG", "type": "MD" | "DT", "messageSchemaId", "messageSchema", "message"}``
  wrapper Replicate writes in JSON mode (published/Metadata.json, published/Data.json);
- a bare data message ``{"data", "beforeData", "headers"}``
  (extracted/michelin_readme_examples.jsonl);
- either of them as the ``value`` of a Kafka record wrapper
  ``{"topic", "partition", "offset", "timestamp", "key", "value"}`` (value an object, JSON text,
  or null: a tombstone, which is a control record).

Output (built with :mod:`python_udfs.contract`):

- A metadata message (``MD``) is a ``table_version`` control record: its ``control_json`` holds
  schema_id, server, task, schema, table, source_table, table_version, timestamp and the columns
  (name, ordinal, type, length, precision, scale, primary_key_position, nullable) by ordinal;
  ``schema_ref`` is the schema id, ``schema_version`` the table version, ``column_order`` the
  column names by ordinal. SQL keeps these as the table-version registry: key columns
  (``primaryKeyPosition > 0``) and the ordinal -> name map of the masks come from it.
- A data message is one change. ``vendor_op`` is ``headers.operation`` upper-cased (INSERT,
  UPDATE, DELETE, REFRESH; anything else passes through for the op-code seed to judge).
  ``source_table`` is the message's own schema/table names when it has them, else None (SQL
  resolves it from ``schema_ref`` = ``messageSchemaId`` or ``headers.externalSchemaId`` through
  the registry, else from the Kafka topic). ``after`` is ``data``, ``before`` is ``beforeData``;
  a DELETE's row (in ``beforeData``, or in ``data`` when ``beforeData`` is null: the published
  examples have both) goes to ``before``. ``column_order`` is the image's column names in message
  order; ``captured_ordinals`` / ``changed_ordinals`` are ``columnMask`` / ``changeMask`` decoded
  (:mod:`python_udfs.qlik_masks`). Images are not filtered here: a column whose columnMask bit is
  0 carries a null that means "not captured", and SQL maps ordinals to names.
- ``position``: ``changeSequence`` (decimal digits, wider than 64 bits) split numerically into
  ``change_sequence_high`` (all but the last 18 digits) and ``change_sequence_low`` (the last 18
  digits), each as integer text without leading zeros, plus ``transaction_event_counter``
  ('0' when absent). None for REFRESH (full-load rows have no order among themselves and lose to
  any CDC change) and when ``changeSequence`` is empty.
- ``content_hash`` (only for a change without a position) is the sha256 of the canonical JSON of
  ``{operation, data, beforeData}``, so re-delivered full-load rows count once.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
from dataclasses import dataclass
from typing import Any

from python_udfs.contract import canonical_json, change, control, encode_row
from python_udfs.parsing import Reject, json_type, load_json, never_raise
from python_udfs.qlik_masks import MaskError, decode_hex_mask

_WRAPPER_KEYS = frozenset({"topic", "partition", "offset", "key", "timestamp"})
# Fields of a Qlik message; a Kafka record may have 'headers' of its own, so that one does not count.
_MESSAGE_KEYS = frozenset({"magic", "type", "message", "messageSchemaId", "data", "beforeData"})
_DATA_KEYS = ("data", "beforeData", "headers")
_MAGIC = "atMSG"
_DELETE = "DELETE"
_FULL_LOAD = "REFRESH"
# The low part of a split changeSequence: 18 digits always fit a signed 64-bit integer.
_LOW_DIGITS = 18
# SQL orders by array<decimal(38,0)>: the high part must fit 38 digits.
_MAX_SEQUENCE_DIGITS = 38 + _LOW_DIGITS
_DIGITS = re.compile(r"\d+", re.ASCII)
_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
_ISO = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})[Tt ](?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})"
    r"(?:[.,](?P<frac>\d{1,9}))?)?\s*(?P<zone>[Zz]|UTC|[+-]\d{2}(?::?\d{2})?)?",
    re.ASCII,
)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
# committed_at_us is a Spark bigint and timestamp: years 1 to 9999 only
_MIN_US = (dt.datetime(1, 1, 1, tzinfo=dt.UTC) - _EPOCH) // dt.timedelta(microseconds=1)
_MAX_US = (dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=dt.UTC) - _EPOCH) // dt.timedelta(microseconds=1)
_MS_LIMIT = 10**14  # an epoch number below this is milliseconds (until the year 5138), else microseconds
_BOOLEAN_TEXT = {"true": True, "false": False}


@dataclass
class _Kafka:
    """What the Kafka record wrapper told us; all None for a record without one."""

    topic: str | None = None
    partition: int | None = None
    offset: int | None = None
    timestamp_us: int | None = None

    def coords(self) -> dict:
        return {"kafka_topic": self.topic, "kafka_partition": self.partition, "kafka_offset": self.offset}


def parse_qlik(raw: str | None) -> list[dict]:
    """Parse one raw landing record; never raises (errors become one quarantine record)."""
    return never_raise(lambda record: [_parse_record(record)], raw)


# ---------------------------------------------------------------------------------------------
# Record level: text -> object -> Kafka wrapper -> message


def _parse_record(raw: Any) -> dict:
    obj = load_json(raw, "record")
    if not isinstance(obj, dict):
        raise Reject("not_an_object", f"the record is a JSON {json_type(obj)}, not an object")
    if not _is_wrapper(obj):
        return _parse_message(obj, _Kafka())
    kafka = _Kafka(
        topic=obj["topic"] if isinstance(obj.get("topic"), str) and obj["topic"] else None,
        partition=_as_int(obj.get("partition")),
        offset=_as_int(obj.get("offset")),
        timestamp_us=_kafka_time(obj.get("timestamp")),
    )
    value = obj.get("value")
    if isinstance(value, (str, bytes, bytearray)):
        value = load_json(value, "Kafka record value")
    if value is None:
        key = obj.get("key")
        return control("tombstone", canonical_json({"topic": kafka.topic, "key": key}), **kafka.coords())
    if not isinstance(value, dict):
        raise Reject("not_an_object", f"the Kafka record value is a JSON {json_type(value)}, not an object")
    return _parse_message(value, kafka)


def _is_wrapper(obj: dict) -> bool:
    # A Kafka record has 'value' next to its coordinates and none of the Qlik message fields.
    return "value" in obj and bool(obj.keys() & _WRAPPER_KEYS) and not obj.keys() & _MESSAGE_KEYS


def _parse_message(obj: dict, kafka: _Kafka) -> dict:
    if "magic" in obj or "type" in obj or "message" in obj:
        return _wrapped_message(obj, kafka)
    if any(name in obj for name in _DATA_KEYS):
        return _data_message(obj, None, kafka)
    raise Reject(
        "unknown_message",
        f"the object is neither an atMSG message (magic/type/message) nor a data message "
        f"(data/beforeData/headers); keys: {sorted(obj)[:20]}",
    )


def _wrapped_message(obj: dict, kafka: _Kafka) -> dict:
    """The ``atMSG`` wrapper: ``type`` says metadata (MD) or data (DT)."""
    magic = obj.get("magic")
    if magic is not None and magic != _MAGIC:
        raise Reject("unknown_message", f"magic is {_show(magic)}, not '{_MAGIC}'")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind.strip().upper() not in ("MD", "DT"):
        raise Reject("unknown_message_type", f"message type is {_show(kind)}, expected 'MD' or 'DT'")
    message = obj.get("message")
    if isinstance(message, (str, bytes, bytearray)):
        message = load_json(message, "message")
    if not isinstance(message, dict):
        raise Reject("missing_message", f"the {kind} message's 'message' is a JSON {json_type(message)}, "
                                        "not an object")
    top_schema_id = _text_or_none(obj.get("messageSchemaId"), "messageSchemaId")
    if kind.strip().upper() == "MD":
        return _metadata_message(message, top_schema_id, kafka)
    return _data_message(message, top_schema_id, kafka)


# ---------------------------------------------------------------------------------------------
# Metadata messages: one table version


def _metadata_message(message: dict, top_schema_id: str | None, kafka: _Kafka) -> dict:
    lineage = message.get("lineage")
    if not isinstance(lineage, dict):
        raise Reject("invalid_metadata", f"metadata message has no 'lineage' object (keys: {sorted(message)[:20]})")
    table = _text_or_none(lineage.get("table"), "lineage.table", "invalid_metadata")
    if not table:
        raise Reject("invalid_metadata", "metadata message has no lineage.table")
    schema = _text_or_none(lineage.get("schema"), "lineage.schema", "invalid_metadata")
    structure = message.get("tableStructure")
    columns_obj = structure.get("tableColumns") if isinstance(structure, dict) else None
    if not isinstance(columns_obj, dict) or not columns_obj:
        raise Reject("invalid_metadata", "metadata message has no tableStructure.tableColumns object")
    columns = sorted((_column(name, spec) for name, spec in columns_obj.items()), key=lambda c: c["ordinal"])
    ordinals = [column["ordinal"] for column in columns]
    if len(set(ordinals)) != len(ordinals):
        raise Reject("invalid_metadata", f"tableColumns repeat an ordinal: {ordinals}")
    schema_id = _text_or_none(message.get("schemaId"), "schemaId", "invalid_metadata") or top_schema_id
    version = lineage.get("tableVersion")
    if version is not None and (isinstance(version, bool) or not isinstance(version, (int, str))):
        raise Reject("invalid_metadata", f"lineage.tableVersion is a JSON {json_type(version)}")
    source_table = _qualified(schema, table)
    document = {
        "schema_id": schema_id,
        "server": lineage.get("server"),
        "task": lineage.get("task"),
        "schema": schema,
        "table": table,
        "source_table": source_table,
        "table_version": version,
        "timestamp": lineage.get("timestamp"),
        "columns": columns,
    }
    return control(
        "table_version",
        canonical_json(document),
        schema_ref=schema_id,
        source_table=source_table,
        schema_version=None if version is None else str(version),
        column_order=[column["name"] for column in columns],
        **kafka.coords(),
    )


def _column(name: str, spec: Any) -> dict:
    if not isinstance(spec, dict):
        raise Reject("invalid_metadata", f"column {name!r} is a JSON {json_type(spec)}, not an object")
    ordinal = _as_int(spec.get("ordinal"))
    if ordinal is None or ordinal < 1:
        raise Reject("invalid_metadata", f"column {name!r} has no ordinal of 1 or more ({_show(spec.get('ordinal'))})")
    position = _as_int(spec.get("primaryKeyPosition"))
    nullable = spec.get("nullable")
    return {
        "name": name,
        "ordinal": ordinal,
        "type": spec.get("type") if isinstance(spec.get("type"), str) else None,
        "length": _as_int(spec.get("length")),
        "precision": _as_int(spec.get("precision")),
        "scale": _as_int(spec.get("scale")),
        "primary_key_position": 0 if position is None else position,
        "nullable": nullable if isinstance(nullable, bool) else None,
    }


# ---------------------------------------------------------------------------------------------
# Data messages: one change


def _data_message(message: dict, top_schema_id: str | None, kafka: _Kafka) -> dict:
    headers = message.get("headers")
    if not isinstance(headers, dict):
        raise Reject("missing_headers", f"the data message's headers are a JSON {json_type(headers)}, not an object")
    operation = headers.get("operation")
    if not isinstance(operation, str) or not operation.strip():
        raise Reject("unknown_op", f"headers.operation is {_show(operation)}, not an operation name")
    vendor_op = operation.strip().upper()
    data = _image(message, "data")
    before_data = _image(message, "beforeData")
    if vendor_op == _DELETE:
        # the deleted row: in beforeData, or in data when beforeData is null (both are published)
        main = before_data if before_data else data
        before, after = main, None
        if not main:
            raise Reject("missing_image", "DELETE has neither 'beforeData' nor 'data'")
    else:
        main, before, after = data, before_data, data
        if not main and vendor_op in ("INSERT", "UPDATE", _FULL_LOAD):
            raise Reject("missing_image", f"{vendor_op} has no 'data' image")
        if not main and not before_data:
            raise Reject("missing_image", f"operation {vendor_op!r} has neither 'data' nor 'beforeData'")
        main = main or before_data
    column_order = list(main)
    source_table = _own_table(message, headers)
    schema_ref = top_schema_id or _text_or_none(headers.get("externalSchemaId"), "headers.externalSchemaId")
    if source_table is None and schema_ref is None and kafka.topic is None:
        raise Reject("unknown_table", "the data message names no table, has no messageSchemaId or "
                                      "externalSchemaId, and came without a Kafka topic")
    # the position is read first: its checks come before the other headers' (quarantine order)
    position = None if vendor_op == _FULL_LOAD else _position(headers)
    return change(
        vendor_op=vendor_op,
        source_engine=None,  # Qlik does not say which database it reads
        source_table=source_table,
        before=None if before is None else encode_row(before),
        after=None if after is None else encode_row(after),
        position=position,
        committed_at_us=_committed_at_us(headers.get("timestamp")),
        read_at_us=kafka.timestamp_us,
        transaction_id=_text_or_none(headers.get("transactionId"), "headers.transactionId", stringify=True),
        transaction_seq=_event_counter(headers.get("transactionEventCounter")),
        transaction_last=_boolean(headers.get("transactionLastEvent")),
        # identity only where event_id reads it: a change without a position (D10, D34)
        content_hash=None if position else _content_hash(operation, message.get("data"), message.get("beforeData")),
        schema_ref=schema_ref,
        column_order=column_order,
        captured_ordinals=_mask(headers, "columnMask", len(column_order)),
        changed_ordinals=_mask(headers, "changeMask", len(column_order)),
        **kafka.coords(),
    )


def _image(message: dict, name: str) -> dict | None:
    value = message.get(name)
    if isinstance(value, str) and value.strip().startswith("{"):
        value = load_json(value, name)
    if value is None or isinstance(value, dict):
        return value
    raise Reject("wrong_type", f"{name} is a JSON {json_type(value)}, expected an object or null")


def _own_table(message: dict, headers: dict) -> str | None:
    """The message's own schema and table names (message level first, then headers)."""
    for block in (message, headers):
        for schema_field, table_field in (("schemaName", "tableName"), ("schema", "table")):
            table = block.get(table_field)
            if isinstance(table, str) and table:
                schema = block.get(schema_field)
                return _qualified(schema if isinstance(schema, str) else None, table)
    return None


def _qualified(*parts: str | None) -> str:
    return ".".join(part for part in parts if part)


def _mask(headers: dict, name: str, column_count: int) -> list[int] | None:
    value = headers.get(name)
    try:
        return decode_hex_mask(value, column_count)
    except MaskError as error:
        raise Reject(error.reason, f"headers.{name} {_show(value)}: {error.detail}") from None


# ---------------------------------------------------------------------------------------------
# Position, times, transaction, identity


def _position(headers: dict) -> dict | None:
    value = headers.get("changeSequence")
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        text = str(value)
    elif isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        text = value.strip()
    else:
        raise Reject("invalid_position", f"headers.changeSequence {_show(value)} is not a string of decimal digits")
    digits = text.lstrip("0") or "0"
    if len(digits) > _MAX_SEQUENCE_DIGITS:
        raise Reject("invalid_position", f"headers.changeSequence has {len(digits)} digits; "
                                         f"at most {_MAX_SEQUENCE_DIGITS} can be ordered")
    counter = _event_counter(headers.get("transactionEventCounter"))
    return {
        "change_sequence_high": digits[:-_LOW_DIGITS] or "0",
        "change_sequence_low": digits[-_LOW_DIGITS:].lstrip("0") or "0",
        "transaction_event_counter": "0" if counter is None else str(counter),
    }


def _event_counter(value: Any) -> int | None:
    if value is None or value == "":
        return None
    number = _as_int(value)
    if number is None or number < 0 or number >= 2**63:
        raise Reject("invalid_position", f"headers.transactionEventCounter {_show(value)} is not a count")
    return number


def _committed_at_us(value: Any) -> int | None:
    """``headers.timestamp``: ISO-8601 text in UTC (a zone or offset, if any, is applied), or an
    epoch number: milliseconds below 10**14, microseconds above."""
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise Reject("invalid_timestamp", f"headers.timestamp is a JSON {json_type(value)}, not a time")
    if isinstance(value, str) and not _INTEGER.fullmatch(value.strip()):
        us = _iso_us(value.strip())
    elif isinstance(value, float):
        us = round(value * 1000) if math.isfinite(value) and abs(value) < _MS_LIMIT else None
    else:
        number = _as_int(value)
        us = None if number is None else number * 1000 if abs(number) < _MS_LIMIT else number
    if us is None or not _MIN_US <= us <= _MAX_US:
        raise Reject("invalid_timestamp", f"headers.timestamp {_show(value)} is not a time between the years 1 and 9999")
    return us


def _iso_us(text: str) -> int | None:
    match = _ISO.fullmatch(text)
    if match is None:
        return None
    try:
        moment = dt.datetime.fromisoformat(
            f"{match['date']}T{match['hour']}:{match['minute']}:{match['second'] or '00'}+00:00")
    except ValueError:
        return None
    us = (moment - _EPOCH) // dt.timedelta(microseconds=1) + int((match["frac"] or "").ljust(6, "0")[:6])
    zone = (match["zone"] or "Z").upper()
    if zone not in ("Z", "UTC"):
        sign = -1 if zone[0] == "-" else 1
        hours, minutes = int(zone[1:3]), int(zone[3:].lstrip(":") or 0)
        if hours > 23 or minutes > 59:
            return None
        us -= sign * (hours * 60 + minutes) * 60_000_000
    return us


def _kafka_time(value: Any) -> int | None:
    """The Kafka record timestamp (epoch milliseconds) as microseconds; anything else: unknown."""
    number = _as_int(value)
    if number is None or number <= 0 or number >= _MS_LIMIT:
        return None
    return number * 1000


def _boolean(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _BOOLEAN_TEXT.get(value.strip().lower())
    return None


def _content_hash(operation: str, data: Any, before_data: Any) -> str:
    content = {"operation": operation, "data": data, "beforeData": before_data}
    return hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------------
# Small helpers


def _text_or_none(value: Any, name: str, reason: str = "wrong_type", stringify: bool = False) -> str | None:
    """A non-empty string field, None when null or empty."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    if stringify and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise Reject(reason, f"{name} is a JSON {json_type(value)}, not a string")


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and len(value) <= 40 and _INTEGER.fullmatch(value.strip()):
        return int(value)
    return None


def _show(value: Any) -> str:
    text = canonical_json(value) if value is None or isinstance(value, (bool, int, float, list, dict)) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
