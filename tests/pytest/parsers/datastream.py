"""Datastream parser: one landing record (one Datastream event) in, one change out.

A record is one event as JSON text: a line of a JSONL file, an element of a JSON array file, or
an Avro datum rendered by :mod:`python_udfs.avro`. An event is the generic metadata
(``read_method``, ``object``, ``schema_key``, ``uuid``, ``source_timestamp``,
``read_timestamp``, ``sort_keys``), the source-specific ``source_metadata`` and the whole row in
``payload``. Sources: MySQL, Oracle, PostgreSQL, SQL Server, Salesforce and MongoDB.

- ``vendor_op``: ``source_metadata.change_type`` as written (upper-cased); ``INSERT`` when it is
  absent (backfill files); ``DELETE`` when ``is_deleted`` is true and the type is not a delete;
  ``BACKFILL`` for every event whose ``read_method`` says backfill or dump, whatever its change
  type (backfill rows have no order among themselves and lose to any CDC change).
- ``before`` / ``after``: the payload is the whole row; for ``DELETE`` / ``UPDATE-DELETE`` it is
  the deleted row (``before``), otherwise the new row (``after``).
- ``position``: the source's ordering fields as text (MySQL log file and position; Oracle scn,
  rs_id, ssn; PostgreSQL and SQL Server source timestamp and lsn; Salesforce source timestamp;
  MongoDB oplog / cluster time seconds and increment), plus ``change_type_rank`` (``0`` for the
  delete half of a key change, which sorts first at one position). Never the event's uuid: a
  re-delivered event with a new uuid is the same change.

Output records are built with :mod:`python_udfs.contract`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
from collections.abc import Callable
from typing import Any

from python_udfs.contract import canonical_json, change, encode_row, encode_value
from python_udfs.parsing import Reject, json_type, load_json, never_raise

_DELETES = frozenset({"DELETE", "UPDATE-DELETE"})
_BACKFILL_MARKS = ("backfill", "dump")
# read_method prefixes (mysql-cdc-binlog, oracle_dump, postgresql-cdc, postgres-cdc-wal, ...)
_ENGINE_PREFIXES = (
    ("mysql", "mysql"),
    ("oracle", "oracle"),
    ("postgres", "postgresql"),
    ("sqlserver", "sqlserver"),
    ("salesforce", "salesforce"),
    ("mongo", "mongodb"),
)
# source_metadata fields only one source writes, for events without a known read_method.
_ENGINE_HINTS = (
    (("scn", "rs_id", "ssn", "row_id"), "oracle"),
    (("log_file", "log_position"), "mysql"),
    (("physical_location", "replication_index"), "sqlserver"),
    (("collection",), "mongodb"),
    (("object_name", "domain"), "salesforce"),
)
# Where the table name is, by source; database and schema qualify it when present.
_TABLE_FIELDS = ("table", "collection", "object_name")
_QUALIFIERS = ("database", "schema")
# MongoDB: the oplog `ts` / change-stream `clusterTime`, else a change-stream resume token.
_MONGO_TIME_FIELDS = ("ts", "clusterTime", "cluster_time")
_MONGO_TOKEN_FIELDS = ("resume_token", "resumeToken", "_id")
_MONGO_TIME_PAIRS = (("t", "i"), ("seconds", "increment"), ("time", "inc"))
_MONGO_TIME_TEXT = re.compile(
    r"Timestamp\s*\(\s*\{?\s*(?:t\s*:\s*)?(?P<t>\d+)\s*,\s*(?:i\s*:\s*)?(?P<i>\d+)\s*\}?\s*\)", re.ASCII
)
# (longer than the 24 hex digits of an ObjectId, which could start with 82 too)
_RESUME_TOKEN = re.compile(r"82(?P<t>[0-9a-fA-F]{8})(?P<i>[0-9a-fA-F]{8})[0-9a-fA-F]{7,}")
_UINT32 = 0xFFFFFFFF
_ORACLE_FIELDS = ("scn", "rs_id", "ssn")
_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
_ISO = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})[Tt ](?P<time>\d{2}:\d{2}(?::\d{2})?)(?:\.(?P<frac>\d+))?"
    r"\s*(?P<zone>[Zz]|UTC|[+-]\d{2}(?::?\d{2})?)?",
    re.ASCII,
)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
# committed_at_us / read_at_us are Spark bigints and timestamps: years 1 to 9999 only
_MIN_US = (dt.datetime(1, 1, 1, tzinfo=dt.UTC) - _EPOCH) // dt.timedelta(microseconds=1)
_MAX_US = (dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=dt.UTC) - _EPOCH) // dt.timedelta(microseconds=1)
_BOOLEAN_TEXT = {"true": True, "false": False}


def parse_datastream(raw: str | None) -> list[dict]:
    """Parse one raw landing record; never raises (errors become one quarantine record)."""
    return never_raise(lambda record: [_parse_record(record)], raw)


# ---------------------------------------------------------------------------------------------
# Record level: text -> event object -> one change


def _parse_record(raw: Any) -> dict:
    event = load_json(raw, "record")
    if not isinstance(event, dict):
        raise Reject("not_an_object", f"the record is a JSON {json_type(event)}, not an object")
    payload = _object_field(event, "payload", "missing_payload")
    meta = _object_field(event, "source_metadata", "missing_source")
    read_method = _optional_str(event, "read_method")
    engine = _engine(read_method, meta)
    table = _source_table(event, meta)
    vendor_op = _vendor_op(read_method, meta)
    deleted = vendor_op in _DELETES
    committed_at_us = _epoch_us(event.get("source_timestamp"), "source_timestamp")
    builder = _POSITIONS.get(engine)
    position = builder(event, meta, committed_at_us) if builder and vendor_op != "BACKFILL" else None
    if position is not None:
        position["change_type_rank"] = "0" if deleted else "1"
    return change(
        vendor_op=vendor_op,
        source_engine=engine,
        source_table=table,
        key=_key(meta, payload, engine),
        before=encode_row(payload) if deleted else None,
        after=None if deleted else encode_row(payload),
        position=position,
        committed_at_us=committed_at_us,
        read_at_us=_epoch_us(event.get("read_timestamp"), "read_timestamp"),
        transaction_id=_text(meta.get("tx_id"), "source_metadata.tx_id"),
        schema_version=_schema_version(event, meta),
        # identity only where event_id reads it: a change without a position (D10, D34)
        content_hash=None if position else _content_hash(table, vendor_op, payload),
    )


def _object_field(event: dict, name: str, missing: str) -> dict:
    """`payload` / `source_metadata`: an object, or JSON text of one (some writers stringify it)."""
    value = event.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise Reject(missing, f"the event has no '{name}' object (keys: {sorted(event)[:20]})")
    if isinstance(value, str):
        value = load_json(value, name)
    if not isinstance(value, dict):
        raise Reject("wrong_type", f"{name} is a JSON {json_type(value)}, not an object")
    return value


def _optional_str(obj: dict, name: str, where: str = "") -> str | None:
    value = obj.get(name)
    if value is None or isinstance(value, str):
        return value
    raise Reject("wrong_type", f"{where}{name} is a JSON {json_type(value)}, not a string")


# ---------------------------------------------------------------------------------------------
# What the event is: engine, table, operation, key


def _engine(read_method: str | None, meta: dict) -> str:
    method = (read_method or "").strip().lower()
    for prefix, engine in _ENGINE_PREFIXES:
        if method.startswith(prefix):
            return engine
    for fields, engine in _ENGINE_HINTS:
        if any(meta.get(field) is not None for field in fields):
            return engine
    lsn = meta.get("lsn")
    if lsn is not None:
        # PostgreSQL writes 'X/Y'; SQL Server writes its LSN as hex digits with ':' or '0x'
        return "postgresql" if "/" in str(lsn) else "sqlserver"
    word = re.match(r"[a-z0-9]+", method)
    return word.group(0) if word else "unknown"


def _source_table(event: dict, meta: dict) -> str:
    table = next((_name_part(meta, field) for field in _TABLE_FIELDS if _name_part(meta, field)), None)
    if table:
        parts = [_name_part(meta, field) for field in _QUALIFIERS]
        return ".".join(part for part in [*parts, table] if part)
    for field in ("source_table", "object"):
        name = _optional_str(event, field)
        if name and name.strip():
            return name
    raise Reject(
        "missing_source_table",
        "no table: source_metadata has no table, collection or object_name and the event no object",
    )


def _name_part(meta: dict, field: str) -> str | None:
    """One part of the qualified name. The document types SQL Server's database as a number and
    its schema as an array of strings: those are taken as text, joined with '.'."""
    value = meta.get(field)
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return ".".join(item for item in value if item) or None
    raise Reject("wrong_type", f"source_metadata.{field} is a JSON {json_type(value)}, not a string")


def _vendor_op(read_method: str | None, meta: dict) -> str:
    change_type = _optional_str(meta, "change_type", "source_metadata.")
    deleted = _flag(meta.get("is_deleted"))
    if _is_backfill(read_method):
        return "BACKFILL"
    op = change_type.strip().upper() if change_type and change_type.strip() else "INSERT"
    return "DELETE" if deleted and op not in _DELETES else op


def _is_backfill(read_method: str | None) -> bool:
    method = (read_method or "").lower()
    return any(mark in method for mark in _BACKFILL_MARKS)


def _flag(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _BOOLEAN_TEXT:
        return _BOOLEAN_TEXT[value.strip().lower()]
    raise Reject("wrong_type", f"source_metadata.is_deleted is a JSON {json_type(value)}, not a boolean")


def _key(meta: dict, payload: dict, engine: str) -> dict[str, str] | None:
    """The key columns' values from the row; a column the row lacks is JSON null, which the SQL
    reports as a missing key value. None when the event names no key columns."""
    columns = _column_list(meta, "primary_keys")
    if not columns and engine == "sqlserver":
        columns = _column_list(meta, "replication_index")  # the unique index Datastream reads by
    if not columns and engine == "mongodb":
        columns = ["_id"]
    if not columns:
        return None
    return {column: encode_value(payload.get(column)) for column in columns}


def _column_list(meta: dict, name: str) -> list[str]:
    value = meta.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise Reject("wrong_type", f"source_metadata.{name} is not an array of column names: {value!r}"[:300])
    return list(dict.fromkeys(value))


# ---------------------------------------------------------------------------------------------
# Position per source engine: the raw ordering fields as text, or None when there is none


def _mysql_position(_event: dict, meta: dict, _committed: int | None) -> dict | None:
    # Backfill events carry log_file '' (or null) and position 0: not a binlog position.
    log_file = _text(meta.get("log_file"), "source_metadata.log_file")
    if not log_file or not log_file.strip():
        return None
    return _present({"log_file": log_file,
                     "log_position": _text(meta.get("log_position"), "source_metadata.log_position")})


def _oracle_position(_event: dict, meta: dict, _committed: int | None) -> dict | None:
    # rs_id is kept with its spaces (' 0x0000d4.000091be.0010 '): the SQL trims it.
    position = _present({name: _text(meta.get(name), f"source_metadata.{name}") for name in _ORACLE_FIELDS})
    return position if position.keys() & {"scn", "rs_id"} else None


def _timestamp_lsn_position(_event: dict, meta: dict, committed: int | None) -> dict | None:
    """PostgreSQL and SQL Server: (source_timestamp, lsn), the lsn as written ('16/CB002DB0')."""
    lsn = _text(meta.get("lsn"), "source_metadata.lsn")
    if not lsn or not lsn.strip():
        return None
    return _present({"source_timestamp_us": None if committed is None else str(committed), "lsn": lsn})


def _salesforce_position(_event: dict, _meta: dict, committed: int | None) -> dict | None:
    return None if committed is None else {"source_timestamp_us": str(committed)}


def _mongodb_position(event: dict, meta: dict, _committed: int | None) -> dict | None:
    found = _mongo_time(event, meta)
    return None if found is None else {"ts_seconds": str(found[0]), "ts_increment": str(found[1])}


_POSITIONS: dict[str, Callable[[dict, dict, int | None], dict | None]] = {
    "mysql": _mysql_position,
    "oracle": _oracle_position,
    "postgresql": _timestamp_lsn_position,
    "sqlserver": _timestamp_lsn_position,
    "salesforce": _salesforce_position,
    "mongodb": _mongodb_position,
}


def _present(position: dict[str, str | None]) -> dict[str, str]:
    return {name: value for name, value in position.items() if value is not None and value.strip()}


def _mongo_time(event: dict, meta: dict) -> tuple[int, int] | None:
    """(seconds, increment) of the oplog `ts` / `clusterTime`, else of the resume token."""
    for block in (meta, event):
        for field in _MONGO_TIME_FIELDS:
            found = _bson_timestamp(block.get(field))
            if found is not None:
                return found
    for field in _MONGO_TOKEN_FIELDS:
        found = _resume_token_time(meta.get(field))
        if found is not None:
            return found
    return None


def _bson_timestamp(value: Any) -> tuple[int, int] | None:
    """A BSON timestamp: {"$timestamp": {"t", "i"}}, {t, i}, 'Timestamp(t, i)' or the 64-bit value.

    A plain number is split as the 64-bit value (seconds in the high 32 bits): for any number
    that keeps its order, whether it really is a packed timestamp or not.
    """
    if isinstance(value, dict):
        if "$timestamp" in value:
            return _bson_timestamp(value["$timestamp"])
        for seconds, increment in _MONGO_TIME_PAIRS:
            pair = (_whole(value.get(seconds)), _whole(value.get(increment)))
            if pair[0] is not None and pair[1] is not None:
                return pair[0], pair[1]
        return None
    if isinstance(value, str):
        match = _MONGO_TIME_TEXT.fullmatch(value.strip())
        if match:
            return int(match["t"]), int(match["i"])
    number = _whole(value)
    return None if number is None else (number >> 32, number & _UINT32)


def _resume_token_time(value: Any) -> tuple[int, int] | None:
    """A change-stream resume token's `_data` hex starts with 0x82 and the 8-byte cluster time."""
    if isinstance(value, dict):
        value = value.get("_data")
    match = _RESUME_TOKEN.fullmatch(value.strip()) if isinstance(value, str) else None
    return None if match is None else (int(match["t"], 16), int(match["i"], 16))


def _whole(value: Any) -> int | None:
    """A non-negative whole number from a JSON number or digit text, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return None


# ---------------------------------------------------------------------------------------------
# Times, schema version, identity


def _epoch_us(value: Any, name: str) -> int | None:
    """Datastream times are epoch milliseconds (Avro long and JSON number) or ISO-8601 text
    (the Avro rendering, and JSON writers); text without a zone is UTC. Numbers too large to be
    milliseconds (after the year 5000) are taken as microseconds or nanoseconds."""
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise Reject("wrong_type", f"{name} is a JSON {json_type(value)}, not a time")
    if isinstance(value, float):
        micros = value * 1000
        us = round(micros) if math.isfinite(micros) else None
    elif isinstance(value, str) and not _INTEGER.fullmatch(value.strip()):
        us = _iso_us(value, name)
    else:
        us = _epoch_number_us(int(value))
    if us is None or not _MIN_US <= us <= _MAX_US:
        raise Reject("invalid_timestamp", f"{name} {value!r} is not a time between the years 1 and 9999")
    return us


def _epoch_number_us(number: int) -> int:
    if abs(number) >= 10**17:
        return number // 1000  # nanoseconds
    if abs(number) >= 10**14:
        return number  # microseconds
    return number * 1000  # milliseconds, what Datastream writes


def _iso_us(text: str, name: str) -> int:
    match = _ISO.fullmatch(text.strip())
    if match is None:
        raise Reject("invalid_timestamp", f"{name} {text!r} is neither epoch milliseconds nor ISO-8601")
    zone = match["zone"] or "Z"
    if zone.upper() in ("Z", "UTC"):
        zone = "+00:00"
    elif len(zone) == 3:
        zone += ":00"
    elif ":" not in zone:
        zone = zone[:3] + ":" + zone[3:]
    clock = match["time"] if match["time"].count(":") == 2 else match["time"] + ":00"
    fraction = (match["frac"] or "")[:6].ljust(6, "0")
    try:
        moment = dt.datetime.fromisoformat(f"{match['date']}T{clock}.{fraction}{zone}")
    except ValueError as exc:
        raise Reject("invalid_timestamp", f"{name} {text!r} is not a valid time ({exc})") from None
    return (moment - _EPOCH) // dt.timedelta(microseconds=1)


def _schema_version(event: dict, meta: dict) -> str | None:
    for value in (event.get("schema_key"), meta.get("schema_key"), meta.get("schema_hash")):
        if isinstance(value, str) and value:
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
    return None


def _content_hash(table: str, vendor_op: str, payload: dict) -> str:
    # Neither uuid nor read time: a re-delivered copy of one change has the same content.
    content = {"source_table": table, "change_type": vendor_op, "payload": payload}
    return hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------------
# Small helpers


def _text(value: Any, name: str) -> str | None:
    """A scalar as text: strings as given (spaces kept), whole numbers in decimal."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    raise Reject("wrong_type", f"{name} is a JSON {json_type(value)}, expected a string or a whole number")
