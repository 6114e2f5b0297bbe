"""Debezium parser: one landing record (message value, Kafka record wrapper or bare key) in.

Handles the JSON converter's ``{"schema", "payload"}`` envelope and bare payloads, Kafka record
wrappers (value as object, JSON string or null), heartbeats, transaction metadata, schema-change
and logical-message events, Connect/Debezium logical types, the PostgreSQL "unavailable value"
placeholder and MongoDB extended JSON. Output records are built with :mod:`python_udfs.contract`.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Context, Decimal
from typing import Any

from python_udfs.contract import (
    canonical_json,
    change,
    control,
    encode_row,
    iso_from_epoch,
)
from python_udfs.parsing import Reject, json_type, load_json, never_raise

_OPS = ("c", "u", "d", "r", "t")
_ENVELOPE_KEYS = frozenset({"op", "payload", "before", "after", "source", "schema", "value"})
_WRAPPER_KEYS = frozenset({"topic", "partition", "offset", "key", "timestamp"})
_PROCESSING_TIMES = ("ts_ms", "ts_us", "ts_ns")
_HEARTBEAT_SCHEMA = "io.debezium.connector.common.Heartbeat"
_UNAVAILABLE = "__debezium_unavailable_value"
_UNAVAILABLE_B64 = base64.b64encode(_UNAVAILABLE.encode("ascii")).decode("ascii")
_ENGINE_ALIASES = {"postgres": "postgresql"}
# Source fields that only one connector writes, for sources without a 'connector' field.
_ENGINE_HINTS = (
    ("scn", "oracle"),
    ("lsn", "postgresql"),
    ("change_lsn", "sqlserver"),
    ("commit_lsn", "sqlserver"),
    ("file", "mysql"),
    ("pos", "mysql"),
    ("ord", "mongodb"),
    ("collection", "mongodb"),
)
# Decimal contexts round to 28 digits by default; wide columns (DECIMAL(65,30)) need more.
_WIDE = Context(prec=1000)
_MAX_SCALE = 20_000  # PostgreSQL numeric allows 16383 digits after the point
_UNITS_PER_SECOND = {"ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
_ZONED = re.compile(
    r"^(?P<date>[+-]?\d{4,}-\d{2}-\d{2})[T ](?P<time>\d{2}:\d{2}(?::\d{2})?)"
    r"(?:\.(?P<frac>\d+))?\s*(?P<zone>[Zz]|[+-]\d{2}(?::?\d{2})?)$"
)


@dataclass
class _Kafka:
    """What the Kafka record wrapper told us; all None for a bare message."""

    topic: str | None = None
    partition: int | None = None
    offset: int | None = None
    key: dict | None = None
    wrapped: bool = False

    def coords(self) -> dict:
        return {"kafka_topic": self.topic, "kafka_partition": self.partition, "kafka_offset": self.offset}


def parse_debezium(raw: str | None) -> list[dict]:
    """Parse one raw landing record; never raises (errors become quarantine records)."""
    return never_raise(lambda record: [_parse_record(record)], raw)


# ---------------------------------------------------------------------------------------------
# Record level: text -> object -> wrapper or message


def _parse_record(raw: Any) -> dict:
    obj = load_json(raw, "record")
    if not isinstance(obj, dict):
        raise Reject("not_an_object", f"the record is a JSON {json_type(obj)}, not an object")
    if _is_wrapper(obj):
        return _parse_wrapper(obj)
    return _parse_message(obj, _Kafka())


def _is_wrapper(obj: dict) -> bool:
    # A Kafka record has 'value' next to its coordinates and none of the Debezium payload fields.
    return "value" in obj and bool(obj.keys() & _WRAPPER_KEYS) and not obj.keys() & {
        "payload", "op", "before", "after", "source"}


def _parse_wrapper(obj: dict) -> dict:
    kafka = _Kafka(
        topic=obj["topic"] if isinstance(obj.get("topic"), str) else None,
        partition=_as_int(obj.get("partition")),
        offset=_as_int(obj.get("offset")),
        key=_decode_key(obj.get("key")),
        wrapped=True,
    )
    value = obj.get("value")
    if value is None:
        return _tombstone(kafka)
    if isinstance(value, str):
        value = load_json(value, "Kafka record value")
    if not isinstance(value, dict):
        raise Reject("not_an_object", f"the Kafka record value is a JSON {json_type(value)}, not an object")
    return _parse_message(value, kafka)


def _decode_key(key: Any) -> dict | None:
    """Key columns from a Kafka key: {schema, payload}, a plain object, or JSON text of either."""
    if isinstance(key, str):
        try:
            key = json.loads(key)
        except ValueError:
            return None  # a non-JSON key names no columns
    if not isinstance(key, dict):
        return None
    schema, payload = _unwrap(key)
    if not isinstance(payload, dict):
        return None
    return _convert_row(payload, _field_map(schema))


def _tombstone(kafka: _Kafka) -> dict:
    return control("tombstone", canonical_json({"topic": kafka.topic, "key": kafka.key}), **kafka.coords())


def _unwrap(obj: dict) -> tuple[dict | None, Any]:
    """Split the JSON converter's {schema, payload}; a bare payload has no schema."""
    if "payload" in obj and ("schema" in obj or len(obj) == 1):
        schema = obj.get("schema")
        return (schema if isinstance(schema, dict) else None), obj["payload"]
    return None, obj


def _parse_message(obj: dict, kafka: _Kafka) -> dict:
    schema, payload = _unwrap(obj)
    if schema is not None and str(schema.get("name") or "").endswith(".Key"):
        return control("message_key", canonical_json(payload), **kafka.coords())
    if payload is None:
        return _tombstone(kafka)  # {"schema": ..., "payload": null} is the converter's null value
    if not isinstance(payload, dict):
        raise Reject("wrong_type", f"payload is a JSON {json_type(payload)}, not an object")
    found = _control_event(payload, schema, kafka)
    if found is not None:
        return found
    if not kafka.wrapped and _looks_like_key(payload):
        return control("message_key", canonical_json(payload))
    return _change_event(payload, schema, kafka)


def _control_event(payload: dict, schema: dict | None, kafka: _Kafka) -> dict | None:
    """Heartbeats, transaction boundaries, schema changes and logical messages carry no row."""
    kind = _control_type(payload, schema)
    if kind is None:
        return None
    extra = {"transaction_id": str(payload["id"])} if kind == "transaction" else {}
    return control(kind, canonical_json(payload), **extra, **kafka.coords())


def _control_type(payload: dict, schema: dict | None) -> str | None:
    if (schema or {}).get("name") == _HEARTBEAT_SCHEMA or set(payload) == {"ts_ms"}:
        return "heartbeat"
    if payload.get("status") in ("BEGIN", "END") and payload.get("id") is not None:
        return "transaction"
    if "ddl" in payload or "tableChanges" in payload:
        return "ddl"
    return "message" if payload.get("op") == "m" else None


def _looks_like_key(obj: dict) -> bool:
    # A bare Kafka key printed on its own line: flat key columns, no envelope fields.
    scalars = (str, int, float, bool, type(None))
    return bool(obj) and not obj.keys() & _ENVELOPE_KEYS and all(isinstance(v, scalars) for v in obj.values())


# ---------------------------------------------------------------------------------------------
# Change events


def _change_event(payload: dict, schema: dict | None, kafka: _Kafka) -> dict:
    op = _check_op(payload)
    source = payload.get("source")
    if source is None:
        raise Reject("missing_source", f"change event (op '{op}') has no 'source' block")
    if not isinstance(source, dict):
        raise Reject("wrong_type", f"source is a JSON {json_type(source)}, not an object")
    engine = _engine(source, schema)
    before = _image(payload, "before", engine)
    after = _image(payload, "after", engine)
    key = _key_columns(kafka.key, engine)
    _check_images(op, before, after, key)
    if op == "t":
        before = after = key = None  # a truncate is table-level: it names no row
    table = _table_name(source, schema, kafka.topic)
    position = _position(source, engine)
    return change(
        vendor_op=op,
        source_engine=engine,
        source_table=table,
        key=encode_row(key) if key is not None else None,
        before=_encode_image(before, schema, "before", engine),
        after=_encode_image(after, schema, "after", engine),
        changed_columns=_changed_columns(payload, engine),
        position=position,
        committed_at_us=_epoch_us(source),
        read_at_us=_epoch_us(payload),
        transaction_id=_transaction_id(payload, source),
        transaction_seq=_as_int(_transaction(payload).get("total_order")),
        schema_version=_schema_version(schema),
        # the identity of a change without a position only (D10, D34)
        content_hash=_content_hash(payload) if position is None else None,
        **kafka.coords(),
    )


def _check_op(payload: dict) -> str:
    op = payload.get("op")
    if op is None:
        raise Reject("unknown_op", "the message has no 'op' field and is not a known control event")
    if not isinstance(op, str):
        raise Reject("wrong_type", f"op is a JSON {json_type(op)}, expected a one-letter string")
    if op not in _OPS:
        raise Reject("unknown_op", f"op {op!r} is not one of c, u, d, r, t")
    return op


def _image(payload: dict, side: str, engine: str) -> dict | None:
    value = payload.get(side)
    if value is None:
        return None
    if engine == "mongodb" and isinstance(value, (str, dict)):
        return _mongo_document(value, side)
    if isinstance(value, dict):
        return value
    raise Reject("wrong_type", f"{side} is a JSON {json_type(value)}, expected an object or null")


def _check_images(op: str, before: dict | None, after: dict | None, key: dict | None) -> None:
    if op in ("c", "u", "r") and after is None:
        raise Reject("missing_image", f"op '{op}' has no 'after' image")
    if op == "d" and before is None and not key:
        raise Reject("missing_image", "delete has neither a 'before' image nor a Kafka key")


def _key_columns(key: dict | None, engine: str) -> dict | None:
    # The MongoDB connector keys by {"id": "<extended JSON of _id>"}; the column is really _id.
    if key is not None and engine == "mongodb" and set(key) == {"id"} and isinstance(key["id"], str):
        try:
            return {"_id": _decode_extended(json.loads(key["id"]))}
        except ValueError:
            return {"_id": key["id"]}
    return key


def _encode_image(image: dict | None, schema: dict | None, side: str, engine: str) -> dict | None:
    if image is None:
        return None
    # MongoDB images were decoded from extended JSON; their Connect schema is just 'string'.
    fields = {} if engine == "mongodb" else _image_fields(schema, side)
    return encode_row(_convert_row(image, fields))


def _convert_row(row: dict, fields: dict[str, dict]) -> dict:
    """Apply logical types; drop columns whose value the connector could not read."""
    return {name: _convert(value, fields.get(name)) for name, value in row.items() if not _unavailable(value)}


def _unavailable(value: Any) -> bool:
    # PostgreSQL TOAST columns not in the WAL; arrays carry the placeholder as their only element.
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    return value in (_UNAVAILABLE, _UNAVAILABLE_B64) if isinstance(value, str) else False


# ---------------------------------------------------------------------------------------------
# Naming: engine, table, schema version


def _engine(source: dict, schema: dict | None) -> str:
    connector = source.get("connector")
    if isinstance(connector, str) and connector.strip():
        return _normal_engine(connector)
    for field, engine in _ENGINE_HINTS:
        if field in source:
            return engine
    name = str(_field_map(schema).get("source", {}).get("name") or "")
    match = re.fullmatch(r"io\.debezium\.connector\.(\w+)\.Source", name)
    return _normal_engine(match.group(1)) if match else "unknown"


def _normal_engine(name: str) -> str:
    name = name.strip().lower()
    return _ENGINE_ALIASES.get(name, name)


def _table_name(source: dict, schema: dict | None, topic: str | None) -> str:
    table = _text_part(source.get("table")) or _text_part(source.get("collection"))
    if table:
        parts = [_text_part(source.get("db")), _text_part(source.get("schema")), table]
        return ".".join(p for p in parts if p)
    for name in (_schema_version(schema), str((schema or {}).get("name") or "")):
        found = _strip_logical_name(name, (".Value", ".Envelope"))
        if found:
            return found
    found = _strip_logical_name(topic or "", ("",))
    if not found:
        raise Reject("missing_source_table", "no table: source has no table, the schema and topic name none")
    return found


def _text_part(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _strip_logical_name(name: str | None, suffixes: tuple[str, ...]) -> str | None:
    """'<logical server>.<schema>.<table>.Value' -> '<schema>.<table>'."""
    for suffix in suffixes:
        if name and name.endswith(suffix):
            parts = name[: len(name) - len(suffix)].split(".")
            if len(parts) >= 2 and all(parts):
                return ".".join(parts[1:])
    return None


def _schema_version(schema: dict | None) -> str | None:
    fields = _field_map(schema)
    for side in ("after", "before"):
        name = fields.get(side, {}).get("name")
        if isinstance(name, str) and name:
            return name
    return None



def _field_map(struct: Any) -> dict[str, dict]:
    """A Connect struct schema's fields by name."""
    fields = struct.get("fields") if isinstance(struct, dict) else None
    if not isinstance(fields, list):
        return {}
    return {f["field"]: f for f in fields if isinstance(f, dict) and isinstance(f.get("field"), str)}


def _image_fields(schema: dict | None, side: str) -> dict[str, dict]:
    top = _field_map(schema)
    if top and not top.keys() & {"before", "after", "op", "source"}:
        return top  # some producers put the column fields straight into the envelope schema
    return _field_map(top.get(side)) or _field_map(top.get("after" if side == "before" else "before"))


# ---------------------------------------------------------------------------------------------
# Position, times, transaction, identity


def _position(source: dict, engine: str) -> dict | None:
    builder = _POSITIONS.get(engine)
    return builder(source) if builder else None


def _texts(source: dict, names: tuple[str, ...]) -> dict[str, str]:
    return {n: _as_text(source[n]) for n in names if source.get(n) is not None}


def _mysql_position(source: dict) -> dict | None:
    # Snapshot and Flink-made events carry file '' and pos 0: not a binlog position.
    return _texts(source, ("file", "pos", "row")) if _text_part(source.get("file")) else None


def _postgres_position(source: dict) -> dict | None:
    return _texts(source, ("lsn", "sequence")) if source.get("lsn") is not None else None


def _oracle_position(source: dict) -> dict | None:
    return _texts(source, ("scn", "commit_scn", "rs_id", "ssn")) if source.get("scn") is not None else None


def _sqlserver_position(source: dict) -> dict | None:
    position = _texts(source, ("change_lsn", "commit_lsn", "event_serial_no"))
    return position if position.keys() & {"change_lsn", "commit_lsn"} else None


def _mongo_position(source: dict) -> dict | None:
    return _texts(source, ("ts_ms", "ord")) if source.get("ord") is not None else None


_POSITIONS: dict[str, Callable[[dict], dict | None]] = {
    "mysql": _mysql_position,
    "postgresql": _postgres_position,
    "oracle": _oracle_position,
    "sqlserver": _sqlserver_position,
    "db2": _sqlserver_position,  # Db2 writes the same change_lsn / commit_lsn fields
    "mongodb": _mongo_position,
}


def _epoch_us(block: dict) -> int | None:
    """Microseconds from the most precise of ts_us / ts_ns / ts_ms; 0 means 'not known'."""
    for name, to_us in (("ts_us", lambda v: v), ("ts_ns", lambda v: v // 1000), ("ts_ms", lambda v: v * 1000)):
        value = _as_int(block.get(name))
        if value:
            return to_us(value)
    return None


def _transaction(payload: dict) -> dict:
    block = payload.get("transaction")
    return block if isinstance(block, dict) else {}


def _transaction_id(payload: dict, source: dict) -> str | None:
    value = _transaction(payload).get("id")
    if value is None:
        value = source.get("txId")
    return None if value is None else _as_text(value)


def _changed_columns(payload: dict, engine: str) -> list[str] | None:
    """MongoDB update descriptions name changed fields; a dotted path changes its top-level column."""
    description = payload.get("updateDescription")
    if engine != "mongodb" or not isinstance(description, dict):
        return None
    updated = description.get("updatedFields")
    if isinstance(updated, str):
        try:
            updated = json.loads(updated)
        except ValueError:
            updated = None
    names = list(updated) if isinstance(updated, dict) else []
    removed = description.get("removedFields")
    names += [n for n in removed if isinstance(n, str)] if isinstance(removed, list) else []
    columns = list(dict.fromkeys(n.split(".")[0] for n in names))
    return columns or None


def _content_hash(payload: dict) -> str:
    # Processing times differ between re-deliveries of one change; leave them out of its identity.
    content = {k: v for k, v in payload.items() if k not in _PROCESSING_TIMES}
    return hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------------
# Logical types (Kafka Connect / Debezium)


def _convert(value: Any, field: dict | None) -> Any:
    converter = _LOGICAL_TYPES.get(str(field.get("name"))) if field else None
    if value is None or converter is None:
        return value
    try:
        return converter(value, field)
    except (ValueError, TypeError, LookupError, OverflowError, ArithmeticError):
        return value  # keep what the producer wrote rather than lose the row


def _need_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {type(value).__name__}")
    return value


def _decimal(value: Any, field: dict) -> Any:
    scale = _need_scale(int((field.get("parameters") or {}).get("scale", 0)))
    if isinstance(value, str):
        if field.get("type", "bytes") != "bytes":
            return value  # decimal.handling.mode=string already wrote the number as text
        return _decimal_text(_unscaled(value), scale)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("decimal value is neither base64 text nor a number")
    # Some producers write the number itself; give it the column's scale like the bytes form.
    number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    return format(number.quantize(Decimal(1).scaleb(-scale), context=_WIDE), "f")


def _variable_decimal(value: Any, field: dict) -> Any:
    if not isinstance(value, dict):
        raise TypeError("VariableScaleDecimal is not a {scale, value} struct")
    return _decimal_text(_unscaled(value["value"]), _need_scale(_need_int(value["scale"])))


def _need_scale(scale: int) -> int:
    # A corrupt scale of, say, 10**9 would make a gigabyte of zeros when written out.
    if abs(scale) > _MAX_SCALE:
        raise ValueError(f"decimal scale {scale} is out of range")
    return scale


def _unscaled(text: str) -> int:
    # Connect decimals are big-endian two's-complement bytes, base64 in JSON.
    return int.from_bytes(base64.b64decode(text, validate=True), "big", signed=True)


def _decimal_text(unscaled: int, scale: int) -> str:
    return format(Decimal(f"{unscaled}E{-scale}"), "f")


def _date(value: Any, _field: dict) -> str:
    return (dt.date(1970, 1, 1) + dt.timedelta(days=_need_int(value))).isoformat()


def _timestamp(unit: str) -> Callable[[Any, dict], str]:
    return lambda value, _field: iso_from_epoch(_need_int(value), unit)


def _time_of_day(unit: str) -> Callable[[Any, dict], str]:
    return lambda value, _field: _time_text(_need_int(value), unit)


def _time_text(amount: int, unit: str) -> str:
    """'HH:MM:SS[.fff]'; MySQL TIME can be negative or past 24h, so hours are not wrapped."""
    per_second = _UNITS_PER_SECOND[unit]
    seconds, fraction = divmod(abs(amount), per_second)
    hours, rest = divmod(seconds, 3600)
    text = f"{'-' if amount < 0 else ''}{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"
    return text + _fraction(f"{fraction:0{len(str(per_second)) - 1}d}") if fraction else text


def _fraction(digits: str | None) -> str:
    digits = (digits or "").rstrip("0")
    return "." + digits if digits else ""


def _zoned(value: Any, _field: dict | None = None) -> str:
    """An ISO-8601 time with an offset -> the same instant in UTC with 'Z' (sub-us digits kept)."""
    match = _ZONED.match(value) if isinstance(value, str) else None
    if match is None:
        raise ValueError(f"not an ISO-8601 time with an offset: {value!r}")
    zone = match["zone"].upper()
    zone = "+00:00" if zone == "Z" else zone[:3] + ":" + (zone[3:].lstrip(":") or "00")
    moment = dt.datetime.fromisoformat(f"{match['date']}T{match['time']}{zone}")
    utc = moment.astimezone(dt.UTC).replace(tzinfo=None)
    return utc.isoformat(timespec="seconds") + _fraction(match["frac"]) + "Z"


_LOGICAL_TYPES: dict[str, Callable[[Any, dict], Any]] = {
    "org.apache.kafka.connect.data.Decimal": _decimal,
    "io.debezium.data.VariableScaleDecimal": _variable_decimal,
    "io.debezium.time.Date": _date,
    "org.apache.kafka.connect.data.Date": _date,
    "io.debezium.time.Timestamp": _timestamp("ms"),
    "org.apache.kafka.connect.data.Timestamp": _timestamp("ms"),
    "io.debezium.time.MicroTimestamp": _timestamp("us"),
    "io.debezium.time.NanoTimestamp": _timestamp("ns"),
    "io.debezium.time.ZonedTimestamp": _zoned,
    "io.debezium.time.Time": _time_of_day("ms"),
    "org.apache.kafka.connect.data.Time": _time_of_day("ms"),
    "io.debezium.time.MicroTime": _time_of_day("us"),
    "io.debezium.time.NanoTime": _time_of_day("ns"),
}


# ---------------------------------------------------------------------------------------------
# MongoDB extended JSON


def _mongo_document(value: str | dict, side: str) -> dict:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise Reject("invalid_json", f"MongoDB {side} is not valid extended JSON ({exc})") from None
    if not isinstance(value, dict):
        raise Reject("wrong_type", f"MongoDB {side} is a JSON {json_type(value)}, not a document")
    return {name: _decode_extended(v) for name, v in value.items()}


def _decode_extended(value: Any) -> Any:
    """Relaxed/canonical extended JSON -> plain values; unknown wrappers stay as documents."""
    if isinstance(value, list):
        return [_decode_extended(v) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((tag, inner),) = value.items()
        decoder = _EXTENDED.get(tag)
        if decoder is not None:
            try:
                return decoder(inner)
            except (ValueError, TypeError, OverflowError):
                pass
    return {k: _decode_extended(v) for k, v in value.items()}


def _need_text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__}")
    return value


def _mongo_date(inner: Any) -> str:
    if isinstance(inner, dict) and set(inner) == {"$numberLong"}:
        return iso_from_epoch(int(_need_text(inner["$numberLong"])), "ms")
    if isinstance(inner, str):
        return _zoned(inner)
    return iso_from_epoch(_need_int(inner), "ms")


_EXTENDED: dict[str, Callable[[Any], Any]] = {
    "$oid": _need_text,
    "$numberLong": lambda v: int(_need_text(v)),
    "$numberInt": lambda v: int(_need_text(v)),
    "$numberDouble": lambda v: float(_need_text(v)),
    "$numberDecimal": _need_text,
    "$date": _mongo_date,
}


# ---------------------------------------------------------------------------------------------
# Small helpers


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        return int(value)
    return None


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else canonical_json(value)
