"""Spanner change-stream parser: one landing record (one change-stream row) in.

Handles the GoogleSQL ``ChangeRecord`` form (``data_change_record`` / ``heartbeat_record`` /
``child_partitions_record`` arrays, also inside a reader's ``{"partition_token", "change_record"}``
line), the PostgreSQL-dialect JSON form (the same keys holding objects), a bare
``data_change_record`` object, and the Dataflow/Beam ``DataChangeRecord`` JSON (camelCase,
``mods[].keysJson`` as JSON text, ``commitTimestamp`` as RFC 3339 text or ``{seconds, nanos}``,
the templates' single ``mod`` and extras such as ``shard``). Column values are typed from
``column_types`` / ``rowType``. Output records are built with :mod:`python_udfs.contract`.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from python_udfs.contract import canonical_json, change, control, encode_row
from python_udfs.parsing import Reject, json_type, load_json, never_raise

_ENGINE = "spanner"
# The record kinds a ChangeRecord can hold, in output order. The partition_* kinds come from
# change streams in mutable key range mode (newer readers print them next to the classic three).
_RECORD_KINDS = (
    "data_change_record",
    "heartbeat_record",
    "child_partitions_record",
    "partition_start_records",
    "partition_end_records",
    "partition_event_records",
)
# Fields whose presence marks a bare object as a data change record.
_DATA_CHANGE_FIELDS = ("mods", "mod", "mod_type", "table_name", "commit_timestamp", "server_transaction_id")
# A bare heartbeat (Beam HeartbeatRecord) has its timestamp and nothing that is not metadata.
_HEARTBEAT_FIELDS = frozenset({"timestamp", "metadata", "record_timestamp", "partition_token", "record_type"})
# Database / schema qualifiers some producers add next to the table name.
_QUALIFIERS = (("database_name", "database"), ("schema_name", "schema"))
_NS_PER_SECOND = 1_000_000_000
_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()
# Spanner timestamps span 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999999Z.
_MIN_SECONDS = (dt.date(1, 1, 1).toordinal() - _EPOCH_ORDINAL) * 86_400
_MAX_SECONDS = (dt.date(9999, 12, 31).toordinal() - _EPOCH_ORDINAL + 1) * 86_400 - 1
_RFC3339 = re.compile(
    r"(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})[Tt ]"
    r"(?P<hour>\d{2}):(?P<minute>\d{2}):(?P<second>\d{2})(?:\.(?P<frac>\d{1,9}))?"
    r"\s*(?P<zone>[Zz]|[+-]\d{2}:?\d{2})",
    re.ASCII,
)
_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_ARRAY_TEXT = re.compile(r"ARRAY\s*<(?P<element>.*)>", re.IGNORECASE | re.DOTALL)
_NON_FINITE = ("NaN", "Infinity", "-Infinity", "+Infinity")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def parse_spanner(raw: str | None) -> list[dict]:
    """Parse one raw landing record; never raises (errors become one quarantine record).

    Any error quarantines the whole landing record, so a record never has part of its rows
    applied and part quarantined.
    """
    return never_raise(_parse_record, raw)


# ---------------------------------------------------------------------------------------------
# Record level: text -> object -> which form


def _parse_record(raw: Any) -> list[dict]:
    obj = load_json(raw, "record")
    if isinstance(obj, list) and obj and all(isinstance(item, dict) and _is_change_record(item) for item in obj):
        # The GoogleSQL ChangeRecord column is itself an array; some tools print it as one.
        return _change_records(obj, "the record")
    if not isinstance(obj, dict):
        raise Reject("not_an_object", f"the record is a JSON {json_type(obj)}, not an object")
    wrapped = _pick(obj, "change_record")
    if wrapped is None:
        wrapped = obj.get("ChangeRecord")
    if wrapped is not None and not _is_change_record(obj):
        # A reader's line: {"partition_token": ..., "change_record": [ChangeRecord, ...]}
        return _change_records(wrapped if isinstance(wrapped, list) else [wrapped], "change_record")
    if _is_change_record(obj):
        return _change_records([obj], "the record")
    if _has_any(obj, _DATA_CHANGE_FIELDS):
        return _data_change_record(obj)
    if _has_any(obj, ("child_partitions",)):
        return _child_partitions_record(obj)
    if _has_any(obj, ("timestamp",)) and {_snake(k) for k in obj} <= _HEARTBEAT_FIELDS:
        return _heartbeat_record(obj)
    raise Reject(
        "not_a_change_stream_record",
        f"the object has none of data_change_record, heartbeat_record, child_partitions_record, "
        f"mods, table_name, commit_timestamp (keys: {sorted(obj)[:20]})",
    )


def _is_change_record(obj: dict) -> bool:
    return _has_any(obj, _RECORD_KINDS)


def _change_records(items: list, where: str) -> list[dict]:
    """GoogleSQL (arrays) and PostgreSQL (objects) ChangeRecords: one output per record in them."""
    outputs: list[dict] = []
    for item in items:
        if not isinstance(item, dict):
            raise Reject("wrong_type", f"an element of {where} is a JSON {json_type(item)}, not an object")
        for kind in _RECORD_KINDS:
            for record in _elements(_pick(item, kind), kind):
                outputs.extend(_RECORD_PARSERS[kind](record))
    if not outputs:
        raise Reject("empty_record", f"{where} holds no data change, heartbeat or child partitions record")
    return outputs


def _elements(value: Any, kind: str) -> list[dict]:
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    for item in items:
        if not isinstance(item, dict):
            raise Reject("wrong_type", f"{kind} holds a JSON {json_type(item)}, expected objects")
    # The PostgreSQL form may name a kind with an empty object when it is not the one present.
    return [item for item in items if item]


# ---------------------------------------------------------------------------------------------
# Data change records


def _data_change_record(record: dict) -> list[dict]:
    table = _table_name(record)
    commit_ns = _timestamp_ns(_required(record, "commit_timestamp"), "commit_timestamp")
    mods = _mods(record)
    types = _column_types(record)
    mod_type = _pick(record, "mod_type")
    vendor_op = None if mod_type is None else _as_text(mod_type)
    capture = _pick(record, "value_capture_type")
    sequence = _record_sequence(_pick(record, "record_sequence"))
    transaction_id = _optional_text(record, "server_transaction_id")
    base_position = {"commit_timestamp_ns": str(commit_ns), "record_sequence": sequence,
                     "server_transaction_id": transaction_id}
    last = _pick(record, "is_last_record_in_transaction_in_partition")
    outputs = []
    for index, mod in mods:
        keys, new_values, old_values = _mod_parts(mod, index)
        key = _typed_row(keys, types)
        new = {k: v for k, v in _typed_row(new_values, types).items() if k not in key}
        old = {k: v for k, v in _typed_row(old_values, types).items() if k not in key}
        position = {**base_position, "mod_index": str(index)}
        outputs.append(change(
            vendor_op=vendor_op,
            source_engine=_ENGINE,
            source_table=table,
            key=encode_row(key),
            before=encode_row({**key, **old}) if old else None,
            after=None if vendor_op == "DELETE" else encode_row({**key, **new}),
            changed_columns=_changed_columns(vendor_op, capture, new, old),
            position={k: v for k, v in position.items() if v is not None},
            committed_at_us=commit_ns // 1000,
            read_at_us=None,
            transaction_id=transaction_id,
            transaction_seq=int(sequence) if sequence is not None else None,
            transaction_last=last if isinstance(last, bool) else None,
            schema_version=None,
            content_hash=None,
        ))
    return outputs


def _table_name(record: dict) -> str:
    table = _pick(record, "table_name")
    if table is None or table == "":
        raise Reject("missing_field", "data change record has no table_name")
    if not isinstance(table, str):
        raise Reject("wrong_type", f"table_name is a JSON {json_type(table)}, not a string")
    qualifiers = [_first_text(record, names) for names in _QUALIFIERS]
    return ".".join(part for part in [*qualifiers, table] if part)


def _first_text(record: dict, names: tuple[str, ...]) -> str | None:
    for name in names:
        value = _pick(record, name)
        if isinstance(value, str) and value:
            return value
    return None


def _mods(record: dict) -> list[tuple[int, dict]]:
    """(index in the record, mod) pairs; the templates' single ``mod`` is mod 0."""
    mods = _json_field(_pick(record, "mods"), "mods")
    if mods is None:
        single = _json_field(_pick(record, "mod"), "mod")
        if single is None:
            raise Reject("missing_field", "data change record has no mods")
        mods = [single]
    if not isinstance(mods, list):
        raise Reject("wrong_type", f"mods is a JSON {json_type(mods)}, not an array")
    if not mods:
        raise Reject("missing_field", "data change record has an empty mods array")
    for index, mod in enumerate(mods):
        if not isinstance(mod, dict):
            raise Reject("wrong_type", f"mods[{index}] is a JSON {json_type(mod)}, not an object")
    return list(enumerate(mods))


def _mod_parts(mod: dict, index: int) -> tuple[dict, dict, dict]:
    keys = _mod_values(mod, "keys", index)
    if keys is None:
        raise Reject("missing_field", f"mods[{index}] has no keys")
    return keys, _mod_values(mod, "new_values", index) or {}, _mod_values(mod, "old_values", index) or {}


def _mod_values(mod: dict, name: str, index: int) -> dict | None:
    """``keys`` / ``new_values`` / ``old_values``, or Beam's ``keysJson`` ... (JSON text)."""
    value = _pick(mod, name)
    if value is None:
        value = _pick(mod, name + "_json")
    value = _json_field(value, f"mods[{index}].{name}")
    if value is not None and not isinstance(value, dict):
        raise Reject("wrong_type", f"mods[{index}].{name} is a JSON {json_type(value)}, not an object")
    return value


def _changed_columns(vendor_op: str | None, capture: Any, new: dict, old: dict) -> list[str] | None:
    """Columns an UPDATE says it changed, where the value capture type says so.

    OLD_AND_NEW_VALUES / NEW_VALUES (and records without a capture type, whose default is
    OLD_AND_NEW_VALUES) carry exactly the changed columns in new_values; NEW_ROW_AND_OLD_VALUES
    carries old values for the changed columns only; NEW_ROW carries every tracked column and
    does not say which changed.
    """
    if vendor_op != "UPDATE":
        return None
    if capture == "NEW_ROW":
        return None
    if capture == "NEW_ROW_AND_OLD_VALUES":
        return sorted(old)
    return sorted(new)


def _record_sequence(value: Any) -> str | None:
    """The digits as given ('00000001'); ordering compares them as numbers in SQL."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return str(value)
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return value
    raise Reject("invalid_position", f"record_sequence {value!r} is not a string of digits")


def _optional_text(record: dict, name: str) -> str | None:
    value = _pick(record, name)
    return None if value is None else _as_text(value)


# ---------------------------------------------------------------------------------------------
# Heartbeat, child partitions and partition records (control)


def _heartbeat_record(record: dict) -> list[dict]:
    ns = _timestamp_ns(_required(record, "timestamp", "heartbeat_record"), "heartbeat timestamp")
    return [control("heartbeat", canonical_json({"timestamp": _iso_from_ns(ns)}), committed_at_us=ns // 1000)]


def _child_partitions_record(record: dict) -> list[dict]:
    ns = _timestamp_ns(_required(record, "start_timestamp", "child_partitions_record"), "start_timestamp")
    children = _json_field(_pick(record, "child_partitions"), "child_partitions") or []
    if not isinstance(children, list):
        raise Reject("wrong_type", f"child_partitions is a JSON {json_type(children)}, not an array")
    partitions = []
    for child in children:
        if not isinstance(child, dict):
            raise Reject("wrong_type", f"a child partition is a JSON {json_type(child)}, not an object")
        parents = _pick(child, "parent_partition_tokens")
        if parents is None:
            parents = _pick(child, "parent_tokens")  # Beam's ChildPartition
        partitions.append({"token": _pick(child, "token"),
                           "parent_partition_tokens": sorted(parents, key=str) if isinstance(parents, list)
                           else parents})
    content = {"start_timestamp": _iso_from_ns(ns), "record_sequence": _plain_sequence(record),
               "child_partitions": partitions}
    return [control("child_partitions", canonical_json(content), committed_at_us=ns // 1000)]


def _partition_record(kind: str, time_field: str) -> Callable[[dict], list[dict]]:
    """partition_start / partition_end / partition_event records: the record with its time in UTC."""

    def parse(record: dict) -> list[dict]:
        ns = _timestamp_ns(_required(record, time_field, kind), time_field)
        content = {_snake(k): v for k, v in record.items()}
        content[time_field] = _iso_from_ns(ns)
        return [control(kind, canonical_json(content), committed_at_us=ns // 1000)]

    return parse


def _plain_sequence(record: dict) -> str | None:
    value = _pick(record, "record_sequence")
    return None if value is None else _as_text(value)


_RECORD_PARSERS: dict[str, Callable[[dict], list[dict]]] = {
    "data_change_record": _data_change_record,
    "heartbeat_record": _heartbeat_record,
    "child_partitions_record": _child_partitions_record,
    "partition_start_records": _partition_record("partition_start", "start_timestamp"),
    "partition_end_records": _partition_record("partition_end", "end_timestamp"),
    "partition_event_records": _partition_record("partition_event", "commit_timestamp"),
}


# ---------------------------------------------------------------------------------------------
# Timestamps: RFC 3339 text or {seconds, nanos} -> exact nanoseconds since the epoch


def _timestamp_ns(value: Any, what: str) -> int:
    try:
        return _to_ns(value)
    except (ValueError, TypeError, OverflowError) as exc:
        raise Reject("invalid_timestamp", f"{what} {value!r} is not a timestamp ({exc})") from None


def _to_ns(value: Any) -> int:
    if isinstance(value, dict):
        return _seconds_nanos(value)
    if not isinstance(value, str):
        raise TypeError(f"a JSON {json_type(value)} is neither RFC 3339 text nor {{seconds, nanos}}")
    match = _RFC3339.fullmatch(value.strip())
    if match is None:
        raise ValueError("not RFC 3339 with a zone and at most 9 fractional digits")
    day = dt.date(int(match["year"]), int(match["month"]), int(match["day"]))
    clock = dt.time(int(match["hour"]), int(match["minute"]), int(match["second"]))
    seconds = (day.toordinal() - _EPOCH_ORDINAL) * 86_400 + clock.hour * 3600 + clock.minute * 60 + clock.second
    seconds -= _zone_offset_seconds(match["zone"])
    return _checked_ns(seconds, int((match["frac"] or "").ljust(9, "0")))


def _zone_offset_seconds(zone: str) -> int:
    if zone in ("Z", "z"):
        return 0
    digits = zone[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:])
    if hours > 23 or minutes > 59:
        raise ValueError(f"zone offset {zone} is out of range")
    offset = hours * 3600 + minutes * 60
    return -offset if zone[0] == "-" else offset


def _seconds_nanos(value: dict) -> int:
    """Beam / protobuf ``{"seconds": ..., "nanos": ...}`` (seconds may be JSON text)."""
    seconds = _integer(value.get("seconds"), "seconds")
    nanos = _integer(value.get("nanos", 0), "nanos")
    if not 0 <= nanos < _NS_PER_SECOND:
        raise ValueError(f"nanos {nanos} is out of range")
    return _checked_ns(seconds, nanos)


def _integer(value: Any, name: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)
    raise TypeError(f"{name} is not an integer")


def _checked_ns(seconds: int, nanos: int) -> int:
    if not _MIN_SECONDS <= seconds <= _MAX_SECONDS:
        raise ValueError("outside 0001-01-01 .. 9999-12-31")
    return seconds * _NS_PER_SECOND + nanos


def _iso_from_ns(ns: int) -> str:
    """ISO-8601 UTC with 'Z' and the fraction trimmed of trailing zeros (4-digit years always)."""
    seconds, nanos = divmod(ns, _NS_PER_SECOND)
    moment = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=seconds)
    text = (f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
            f"T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}")
    fraction = f"{nanos:09d}".rstrip("0")
    return text + ("." + fraction if fraction else "") + "Z"


# ---------------------------------------------------------------------------------------------
# Column types (column_types / rowType) and typed values


def _column_types(record: dict) -> dict[str, dict]:
    """Column name -> Spanner type ({"code": ..., "array_element_type": ...})."""
    columns = _pick(record, "column_types")
    if columns is None:
        columns = _pick(record, "row_type")  # Beam DataChangeRecord
    columns = _json_field(columns, "column_types")
    if columns is None:
        return {}
    if not isinstance(columns, list):
        raise Reject("wrong_type", f"column_types is a JSON {json_type(columns)}, not an array")
    types = {}
    for column in columns:
        if isinstance(column, dict) and isinstance(column.get("name"), str):
            spec = _type_spec(column.get("type"))
            if spec is not None:
                types[column["name"]] = spec
    return types


def _type_spec(raw: Any, depth: int = 0) -> dict | None:
    """Normalise a type: an object, its JSON text, Beam's {"code": "<JSON text>"}, or 'ARRAY<X>'."""
    if depth > 8:
        return None
    if isinstance(raw, str):
        text = raw.strip()
        if text.startswith("{"):
            try:
                return _type_spec(json.loads(text), depth + 1)
            except ValueError:
                return None
        array = _ARRAY_TEXT.fullmatch(text)
        if array:
            return {"code": "ARRAY", "array_element_type": _type_spec(array["element"], depth + 1)}
        return {"code": text.upper()} if text else None
    if not isinstance(raw, dict):
        return None
    code = raw.get("code")
    if isinstance(code, str) and code.strip().startswith("{"):
        return _type_spec(code, depth + 1)  # Beam keeps the type's JSON text in TypeCode.code
    if not isinstance(code, str):
        return None
    element = raw.get("array_element_type", raw.get("arrayElementType"))
    return {**raw, "code": code.upper(), "array_element_type": _type_spec(element, depth + 1)}


def _typed_row(row: dict, types: dict[str, dict]) -> dict:
    return {name: _typed(value, types.get(name), name) for name, value in row.items()}


def _typed(value: Any, spec: dict | None, column: str) -> Any:
    if value is None or spec is None:
        return value
    code = spec["code"]
    if code == "ARRAY":
        return _typed_array(value, spec.get("array_element_type"), column)
    converter = _CONVERTERS.get(code)
    if converter is None:
        return value  # STRUCT, PROTO, ENUM, INTERVAL, UUID, ... : kept as the stream wrote them
    try:
        return converter(value)
    except (ValueError, TypeError, ArithmeticError, binascii.Error) as exc:
        raise Reject("wrong_type", f"column {column}: {value!r} is not a {code} value ({exc})") from None


def _typed_array(value: Any, element: dict | None, column: str) -> list:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            pass
    if not isinstance(value, list):
        raise Reject("wrong_type", f"column {column}: {value!r} is not an ARRAY value")
    return [_typed(item, element, column) for item in value]


def _int64(value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError("a boolean")
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and _INTEGER.fullmatch(value):
        number = int(value)
    else:
        raise TypeError("not an integer or integer text")
    if not _INT64_MIN <= number <= _INT64_MAX:
        raise ValueError("out of the INT64 range")
    return number


def _float64(value: Any) -> float:
    if isinstance(value, bool):
        raise TypeError("a boolean")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and (value in _NON_FINITE or _DECIMAL.fullmatch(value)):
        return float(value)  # non-finite values come out as 'NaN' / 'Infinity' text (encode_value)
    raise TypeError("not a number or number text")


def _numeric(value: Any) -> str:
    if isinstance(value, bool):
        raise TypeError("a boolean")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format(Decimal(repr(value)), "f")
    if isinstance(value, str) and (value == "NaN" or _DECIMAL.fullmatch(value)):
        return value  # the exact text; PG_NUMERIC also allows 'NaN'
    raise TypeError("not decimal text")


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise TypeError("not a boolean")


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"a JSON {json_type(value)}")
    return value


def _bytes(value: Any) -> str:
    base64.b64decode(_string(value), validate=True)  # only checks: the base64 text is kept
    return value


def _date(value: Any) -> str:
    if not isinstance(value, str) or not _DATE.fullmatch(value):
        raise TypeError("not YYYY-MM-DD")
    dt.date.fromisoformat(value)
    return value


def _timestamp(value: Any) -> str:
    return _iso_from_ns(_to_ns(value))


def _json_value(value: Any) -> Any:
    """A JSON column arrives as JSON text; its parsed value is the canonical nested JSON."""
    if isinstance(value, str):
        try:
            return json.loads(value, parse_constant=_no_constant)
        except ValueError:
            return value  # not JSON text: the value is that string
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "INT64": _int64,
    "FLOAT64": _float64,
    "FLOAT32": _float64,
    "NUMERIC": _numeric,
    "BOOL": _bool,
    "STRING": _string,
    "BYTES": _bytes,
    "DATE": _date,
    "TIMESTAMP": _timestamp,
    "JSON": _json_value,
}


# ---------------------------------------------------------------------------------------------
# Small helpers


def _snake(name: str) -> str:
    """'commitTimestamp' -> 'commit_timestamp' (snake_case names are returned unchanged)."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _pick(obj: dict, name: str) -> Any:
    """A field by its snake_case name, or its camelCase spelling (Beam's JSON)."""
    value = obj.get(name)
    return obj.get(_camel(name)) if value is None else value


def _has_any(obj: dict, names: tuple[str, ...]) -> bool:
    return any(name in obj or _camel(name) in obj for name in names)


def _required(record: dict, name: str, what: str = "data change record") -> Any:
    value = _pick(record, name)
    if value is None or value == "":
        raise Reject("missing_field", f"{what} has no {name}")
    return value


def _json_field(value: Any, name: str) -> Any:
    """A field that tools write either as JSON or as JSON text (Beam's keysJson, NullJSON)."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError as exc:
        raise Reject("invalid_json", f"{name} is not valid JSON text ({exc})") from None


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else canonical_json(value)
