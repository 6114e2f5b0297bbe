"""Alibaba DataHub parser: one landing record (one DataHub message) in, one parsed record out.

Two message shapes (seed 004, "附錄:DataHub消息格式"; real Blob samples in
``shared/conformance/datahub``):

- **Blob**: the JSON document ``{"schema": {"dataColumn": [{name, type}], "primaryKey": [...],
  "source": {dbType, dbVersion, dbName, schemaName, tableName}}, "payload": {"before":
  {"dataColumn": {...}}, "after": {"dataColumn": {...}}, "sequenceId": "...", "op": "...",
  "timestamp": {eventTime, systemTime, checkpointTime}, "ddl": {text, ddlMeta}}, "version": ...}``.
  Values are typed by ``schema.dataColumn``: BOOLEAN, DOUBLE (real files write it as text,
  ``"1.100000"``), LONG (a number or integer text), STRING, DATE (13-digit epoch milliseconds,
  written as ISO-8601 UTC text), BYTES (base64 text, kept as base64 text); other types are kept
  as given. A value that does not fit its type is rejected (``wrong_type``).
- **Tuple**: a flat object with the metadata columns ``_sequence_id_``, ``_operation_type_``
  (``I`` / ``U`` / ``D``), ``_excute_time_`` (epoch milliseconds), ``_source_table_``,
  ``_before_image_`` / ``_after_image_`` (``Y`` / ``N``) and the data columns, untyped and
  without a key (the seed ``cdc_primary_keys`` names it).

Output (``vendor_op`` is what ``seeds/cdc_op_codes.csv`` maps):

- ``INSERT`` (after), ``DELETE`` (before), ``UPDATE_AFTER`` (after, and before when the same
  message carries it, as real files do), ``UPDATE`` (after and before, for writers that do not
  split), ``TRUNCATE`` (no images), ``FULL_LOAD`` (an ``INSERT`` with a negative sequence id:
  a row of the initial load, no position); any other data op is passed on as written.
- ``UPDATE_BEFOR`` (the before half of an update, same sequence id as its ``UPDATE_AFTER``)
  is the control ``update_before_image`` with ``before``, ``key``, ``position``,
  ``source_table`` and times filled: SQL pairs it with its ``UPDATE_AFTER`` by
  ``(source_table, position.sequence_id)`` to see a key change.
- ``MHEARTBEAT`` -> control ``heartbeat``; ``TRANSACTION_BEGIN`` / ``TRANSACTION_END`` /
  ``GTID`` / ``XACOMMIT`` / ``XAROLLBACK`` -> control ``transaction``; ``CREATE`` / ``ALTER`` /
  ``RENAME`` / ``ERASE`` / ``CINDEX`` / ``DINDEX`` / ``QUERY`` -> control ``ddl`` with the
  ``ddl.text`` and what :func:`python_udfs.java_serialization.decode_ddl_meta` reads back
  from ``ddl.ddlMeta``.
- ``position`` = ``{"sequence_id": <integer text>, "image_rank": "0" for a before half, else "1"}``.
- Times: Blob ``eventTime`` -> ``committed_at_us``, ``systemTime`` -> ``read_at_us`` (epoch
  milliseconds; ``-1``, as full-load rows write, means unknown); Tuple ``_excute_time_`` ->
  ``committed_at_us``.

Output records are built with :mod:`python_udfs.contract`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import re
from typing import Any

from python_udfs.contract import canonical_json, change, control, encode_row, encode_value, iso_from_epoch
from python_udfs.java_serialization import ddl_summary
from python_udfs.parsing import Reject, json_type, load_json, never_raise

TUPLE_FIELDS = ("_sequence_id_", "_operation_type_", "_excute_time_", "_source_table_",
                "_before_image_", "_after_image_")
# metadata columns a Tuple topic may carry besides the seed's (a correctly spelt execute time)
_TUPLE_META = frozenset({*TUPLE_FIELDS, "_execute_time_"})
_TUPLE_OPS = {"I": "I", "INSERT": "I", "U": "U", "UPDATE": "U", "D": "D", "DELETE": "D"}
_FLAGS = {"Y": True, "N": False, "TRUE": True, "FALSE": False, "1": True, "0": False}

UPDATE_BEFORE_OPS = frozenset({"UPDATE_BEFOR", "UPDATE_BEFORE"})  # the document's spelling first
TRANSACTION_OPS = frozenset({"TRANSACTION_BEGIN", "TRANSACTION_END", "GTID", "XACOMMIT", "XAROLLBACK"})
DDL_OPS = frozenset({"CREATE", "ALTER", "RENAME", "ERASE", "CINDEX", "DINDEX", "QUERY"})
HEARTBEAT_OP = "MHEARTBEAT"
# which image a data op must carry
_NEEDS_AFTER = frozenset({"INSERT", "UPDATE_AFTER", "UPDATE"})
_NEEDS_BEFORE = frozenset({"DELETE"})
# the data ops the document lists: they must have a sequence id; other ops are passed on as written
_DATA_OPS = _NEEDS_AFTER | _NEEDS_BEFORE | UPDATE_BEFORE_OPS | {"TRUNCATE"}

_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "+Infinity": math.inf}
# epoch milliseconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z (Spark's range)
_MIN_MS, _MAX_MS = -62_135_596_800_000, 253_402_300_799_999
_ENGINES = {"postgres": "postgresql", "pg": "postgresql", "mssql": "sqlserver", "sql server": "sqlserver"}


def parse_datahub(raw: str | None) -> list[dict]:
    """Parse one raw landing record; never raises (errors become one quarantine record)."""
    return never_raise(lambda record: [_parse_record(record)], raw)


# ---------------------------------------------------------------------------------------------
# Record level: which shape


def _parse_record(raw: Any) -> dict:
    message = load_json(raw, "record")
    if not isinstance(message, dict):
        raise Reject("not_an_object", f"the record is a JSON {json_type(message)}, not an object")
    if any(name in message for name in TUPLE_FIELDS):
        return _tuple_record(message)
    if "payload" in message:
        return _blob_record(message)
    raise Reject(
        "not_a_datahub_record",
        "the object is neither a Blob record (no 'payload') nor a Tuple record (none of "
        f"{', '.join(TUPLE_FIELDS)}); keys: {sorted(message)[:20]}",
    )


# ---------------------------------------------------------------------------------------------
# Blob


def _blob_record(message: dict) -> dict:
    payload = _object(message.get("payload"), "payload", required=True)
    schema = _object(message.get("schema"), "schema") or {}
    op = payload.get("op")
    if not isinstance(op, str) or not op.strip():
        raise Reject("missing_op", f"payload.op is {json_type(op) if op is not None else 'missing'}")
    op = op.strip()
    timestamp = _object(payload.get("timestamp"), "payload.timestamp") or {}
    committed = _epoch_ms_us(timestamp.get("eventTime"), "payload.timestamp.eventTime")
    read_at = _epoch_ms_us(timestamp.get("systemTime"), "payload.timestamp.systemTime")
    source = _object(schema.get("source"), "schema.source") or {}

    if op == HEARTBEAT_OP:
        content = {"event_time": _iso_ms(timestamp.get("eventTime")),
                   "checkpoint_time": _iso_ms(timestamp.get("checkpointTime")),
                   "system_time": _iso_ms(timestamp.get("systemTime"))}
        return control("heartbeat", canonical_json(content), vendor_op=op, committed_at_us=committed,
                       read_at_us=read_at)

    table = _blob_table(source)
    engine = _engine(source.get("dbType"))
    sequence = _sequence(payload.get("sequenceId"), "payload.sequenceId", required=op in _DATA_OPS)
    common = {"vendor_op": op, "source_engine": engine, "source_table": table, "committed_at_us": committed,
              "read_at_us": read_at}

    if op in TRANSACTION_OPS:
        content = {"op": op, "sequence_id": None if sequence is None else str(sequence), "source_table": table}
        return control("transaction", canonical_json(content), position=_position(sequence, 1), **common)
    if op in DDL_OPS:
        return control("ddl", canonical_json(_ddl_content(op, payload)), position=_position(sequence, 1),
                       **common)

    if table is None:
        raise Reject("missing_source_table", f"{op} record: schema.source has no tableName")
    types = _column_types(schema)
    raw_before = _image(payload, "before")
    raw_after = _image(payload, "after")
    before = None if raw_before is None else _typed_row(raw_before, types, "before")
    after = None if raw_after is None else _typed_row(raw_after, types, "after")
    primary_key = _primary_key(schema)
    # identity only where event_id reads it: a message without a position (D10, D34)
    content_hash = None if _position(sequence, 1) else _content_hash(table, op, sequence, raw_before, raw_after)

    if op in UPDATE_BEFORE_OPS:
        if before is None:
            raise Reject("missing_image", f"{op} record has no payload.before.dataColumn")
        content = {"op": op, "sequence_id": str(sequence), "source_table": table, "format": "blob"}
        return control("update_before_image", canonical_json(content), key=_key(primary_key, before),
                       before=encode_row(before), position=_position(sequence, 0),
                       schema_version=_schema_version(schema), content_hash=content_hash, **common)
    if op in _NEEDS_AFTER and after is None:
        raise Reject("missing_image", f"{op} record has no payload.after.dataColumn")
    if op in _NEEDS_BEFORE and before is None:
        raise Reject("missing_image", f"{op} record has no payload.before.dataColumn")
    if op == "TRUNCATE":
        before = after = None
    if sequence is not None and sequence < 0 and op in _DATA_OPS:
        if op != "INSERT":
            raise Reject("invalid_position", f"{op} record has the full-load sequence id {sequence}; "
                                             "only full-load inserts have negative sequence ids")
        common["vendor_op"] = "FULL_LOAD"
    image = before if op in _NEEDS_BEFORE else after
    return change(
        key=None if image is None else _key(primary_key, image),
        before=None if before is None else encode_row(before),
        after=None if after is None else encode_row(after),
        position=_position(sequence, 1),
        schema_version=_schema_version(schema),
        content_hash=content_hash,
        **common,
    )


def _object(value: Any, name: str, required: bool = False) -> dict | None:
    """An object field, or JSON text of one (some writers stringify it); null when absent."""
    if isinstance(value, str) and value.strip():
        value = load_json(value, name)
    if value is None or value == "":
        if required:
            raise Reject("missing_field", f"the record has no {name}")
        return None
    if not isinstance(value, dict):
        raise Reject("wrong_type", f"{name} is a JSON {json_type(value)}, not an object")
    return value


def _blob_table(source: dict) -> str | None:
    parts = []
    for name in ("dbName", "schemaName", "tableName"):
        value = source.get(name)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise Reject("wrong_type", f"schema.source.{name} is a JSON {json_type(value)}, not a string")
        parts.append(value)
    table = source.get("tableName")
    return ".".join(parts) if isinstance(table, str) and table else None


def _engine(db_type: Any) -> str | None:
    if not isinstance(db_type, str) or not db_type.strip():
        return None
    engine = db_type.strip().lower()
    return _ENGINES.get(engine, engine)


def _column_types(schema: dict) -> dict[str, str]:
    columns = schema.get("dataColumn")
    if columns is None:
        return {}
    if not isinstance(columns, list):
        raise Reject("wrong_type", f"schema.dataColumn is a JSON {json_type(columns)}, not an array")
    types = {}
    for column in columns:
        if not isinstance(column, dict) or not isinstance(column.get("name"), str):
            raise Reject("wrong_type", f"schema.dataColumn holds {column!r}, not a {{name, type}} object"[:300])
        kind = column.get("type")
        types[column["name"]] = kind.strip().upper() if isinstance(kind, str) else None
    return types


def _primary_key(schema: dict) -> list[str]:
    columns = schema.get("primaryKey")
    if columns is None:
        return []
    if not isinstance(columns, list) or not all(isinstance(c, str) and c for c in columns):
        raise Reject("wrong_type", f"schema.primaryKey is not an array of column names: {columns!r}"[:300])
    return list(dict.fromkeys(columns))


def _image(payload: dict, name: str) -> dict | None:
    """``payload.before`` / ``payload.after``: ``{"dataColumn": {...}}`` (null when absent)."""
    block = _object(payload.get(name), f"payload.{name}")
    if block is None:
        return None
    columns = _object(block.get("dataColumn"), f"payload.{name}.dataColumn")
    return columns


def _key(columns: list[str], image: dict) -> dict[str, str] | None:
    """The primary-key columns' values; a column the image lacks is JSON null (SQL reports it)."""
    if not columns:
        return None
    return {column: encode_value(image.get(column)) for column in columns}


def _schema_version(schema: dict) -> str | None:
    """The columns the record was written with (names and types), as a short fingerprint."""
    columns = schema.get("dataColumn")
    if not columns:
        return None
    return "columns:" + hashlib.sha256(canonical_json(columns).encode("utf-8")).hexdigest()[:16]


def _ddl_content(op: str, payload: dict) -> dict:
    ddl = _object(payload.get("ddl"), "payload.ddl") or {}
    text = ddl.get("text")
    text = text if isinstance(text, str) else None
    return {"op": op, "ddl_text": text, **ddl_summary(ddl.get("ddlMeta"), text)}


# ---------------------------------------------------------------------------------------------
# Tuple


def _tuple_record(message: dict) -> dict:
    raw_op = message.get("_operation_type_")
    if not isinstance(raw_op, str) or raw_op.strip().upper() not in _TUPLE_OPS:
        if raw_op is None:
            raise Reject("missing_op", "the Tuple record has no _operation_type_")
        return _tuple_unknown(message, raw_op)
    op = _TUPLE_OPS[raw_op.strip().upper()]
    table = message.get("_source_table_")
    if not isinstance(table, str) or not table.strip():
        raise Reject("missing_source_table", "the Tuple record has no _source_table_")
    sequence = _sequence(message.get("_sequence_id_"), "_sequence_id_", required=True)
    committed = _epoch_ms_us(_first(message, "_excute_time_", "_execute_time_"), "_excute_time_")
    before_flag = _flag(message.get("_before_image_"), "_before_image_")
    after_flag = _flag(message.get("_after_image_"), "_after_image_")
    row = {name: value for name, value in message.items() if name not in _TUPLE_META}
    if op == "U" and before_flag and not after_flag:
        vendor_op, image = "UPDATE_BEFOR", "before"
    elif op == "U" and after_flag and not before_flag:
        vendor_op, image = "UPDATE_AFTER", "after"
    elif op == "I" and after_flag is not False and not before_flag:
        vendor_op, image = "INSERT", "after"
    elif op == "D" and before_flag is not False and not after_flag:
        vendor_op, image = "DELETE", "before"
    else:
        raise Reject("missing_image", f"Tuple {raw_op!r} record with _before_image_="
                                      f"{message.get('_before_image_')!r} and _after_image_="
                                      f"{message.get('_after_image_')!r}: no image it can carry")
    if sequence < 0 and vendor_op != "INSERT":
        raise Reject("invalid_position", f"{vendor_op} record has the full-load sequence id {sequence}")
    common = {"source_table": table, "committed_at_us": committed,
              "content_hash": None if _position(sequence, 1) else _content_hash(
                  table, vendor_op, sequence, row if image == "before" else None, row if image == "after" else None)}
    if vendor_op == "UPDATE_BEFOR":
        content = {"op": raw_op, "sequence_id": str(sequence), "source_table": table, "format": "tuple"}
        return control("update_before_image", canonical_json(content), vendor_op=vendor_op,
                       before=encode_row(row), position=_position(sequence, 0), **common)
    if sequence < 0:
        vendor_op = "FULL_LOAD"
    return change(vendor_op=vendor_op, **{image: encode_row(row)}, position=_position(sequence, 1), **common)


def _tuple_unknown(message: dict, raw_op: Any) -> dict:
    """An operation type the seed does not list: a change with that vendor_op (SQL quarantines
    it by the op-code seed), so it is visible rather than guessed at."""
    table = message.get("_source_table_")
    row = {name: value for name, value in message.items() if name not in _TUPLE_META}
    vendor_op = raw_op if isinstance(raw_op, str) else canonical_json(raw_op)
    return change(vendor_op=vendor_op, source_table=table if isinstance(table, str) else None,
                  after=encode_row(row), content_hash=_content_hash(table, vendor_op, None, row, None))


def _flag(value: Any, name: str) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().upper() in _FLAGS:
        return _FLAGS[value.strip().upper()]
    raise Reject("wrong_type", f"{name} is {value!r}, not Y or N")


def _first(message: dict, *names: str) -> Any:
    for name in names:
        if message.get(name) is not None:
            return message[name]
    return None


# ---------------------------------------------------------------------------------------------
# Shared: sequence, position, times, values, identity


def _sequence(value: Any, name: str, required: bool) -> int | None:
    if value is None or value == "":
        if required:
            raise Reject("invalid_position", f"{name} is missing: the record cannot be ordered")
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        return int(value.strip())
    raise Reject("invalid_position", f"{name} {value!r} is not an integer")


def _position(sequence: int | None, image_rank: int) -> dict[str, str] | None:
    """None for no sequence and for full-load rows (negative ids have no order among themselves)."""
    if sequence is None or sequence < 0:
        return None
    return {"sequence_id": str(sequence), "image_rank": str(image_rank)}


def _epoch_ms(value: Any, name: str) -> int | None:
    """Epoch milliseconds from a number or digit text; negative (DataHub's -1) means unknown."""
    if value is None or value == "":
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        raise Reject("invalid_timestamp", f"{name} {value!r} is not epoch milliseconds")
    if value < 0:
        return None
    if value > _MAX_MS:
        raise Reject("invalid_timestamp", f"{name} {value!r} is after the year 9999")
    return value


def _epoch_ms_us(value: Any, name: str) -> int | None:
    ms = _epoch_ms(value, name)
    return None if ms is None else ms * 1000


def _iso_ms(value: Any) -> str | None:
    try:
        ms = _epoch_ms(value, "time")
    except Reject:
        return None
    return None if ms is None else iso_from_epoch(ms, "ms")


def _typed_row(row: dict, types: dict[str, str], image: str) -> dict:
    return {name: _typed(value, types.get(name), f"{image}.{name}") for name, value in row.items()}


def _typed(value: Any, kind: str | None, column: str) -> Any:
    if value is None or kind is None:
        return value
    converter = _CONVERTERS.get(kind)
    if converter is None:
        return value  # a type outside the six the document defines: kept as given
    try:
        return converter(value)
    except (TypeError, ValueError, ArithmeticError, binascii.Error) as exc:
        raise Reject("wrong_type", f"column {column}: {value!r} is not a {kind} value ({exc})"[:500]) from None


def _long(value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError("a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        return int(value.strip())
    raise TypeError("not an integer or integer text")


def _double(value: Any) -> float:
    if isinstance(value, bool):
        raise TypeError("a boolean")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text in _NON_FINITE:
            return _NON_FINITE[text]
        if _DECIMAL.fullmatch(text):
            number = float(text)
            if math.isinf(number):
                raise ValueError("out of the DOUBLE range")
            return number
    raise TypeError("not a number or number text")


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise TypeError("not true or false")


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"a JSON {json_type(value)}")
    return value


def _date(value: Any) -> str:
    ms = _long(value)
    if not _MIN_MS <= ms <= _MAX_MS:
        raise ValueError("outside the years 1 to 9999")
    return iso_from_epoch(ms, "ms")


def _bytes(value: Any) -> str:
    text = _string(value)
    base64.b64decode(text, validate=True)  # only checks: the base64 text is kept
    return text


_CONVERTERS = {
    "BOOLEAN": _boolean,
    "DOUBLE": _double,
    "LONG": _long,
    "STRING": _string,
    "DATE": _date,
    "BYTES": _bytes,
}


def _content_hash(table: Any, op: Any, sequence: int | None, before: Any, after: Any) -> str:
    """The message's images, op, table and sequence id: not its times (a re-sent copy has a new
    systemTime)."""
    content = {"source_table": table, "op": op, "sequence_id": None if sequence is None else str(sequence),
               "before": before, "after": after}
    return hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()
