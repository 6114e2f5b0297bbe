"""The shape every vendor parser returns, and the canonical value encoding.

A vendor parser is a pure function ``parse_<vendor>(raw: str | None) -> list[dict]``: one raw
landing record in, one or more *parsed records* out. Each parsed record is a dict with exactly
the keys of ``PARSED_FIELDS`` (use :func:`change`, :func:`control` or :func:`quarantine` to
build one, so nothing is forgotten). The parsers are the specification, and the oracle of the
differential test, of the SQL flattenings (models/staging/<vendor>/base_<vendor>__parsed.sql),
whose rows have these fields (macros/cdc/staging_columns.sql).

Column values inside ``before`` / ``after`` / ``key`` are *JSON-encoded text* (see
:func:`encode_value`): ``"null"``, ``"true"``, ``"42"``, ``"3.5"``, ``"\\"text\\""``, or a
canonical nested JSON document. That keeps the type of each value without a schema, and lets
SQL build the canonical ``row`` / ``pk`` documents by concatenation.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from decimal import Decimal
from typing import Any

# name -> Spark SQL type, in struct order.
PARSED_FIELDS: dict[str, str] = {
    # what this record is: 'change', 'control' or 'quarantine'
    "kind": "string",
    # quarantine: a short reason code (snake_case) and a human-readable detail
    "reason": "string",
    "detail": "string",
    # control: what kind of control record ('tombstone', 'heartbeat', 'ddl', ...) and its content
    "control_type": "string",
    "control_json": "string",
    # change: the vendor's own operation code, mapped to the contract op by seeds/cdc_op_codes.csv
    "vendor_op": "string",
    "source_engine": "string",
    # qualified name: non-empty parts of database, schema, table joined with '.'
    "source_table": "string",
    # key columns -> encoded values, when the message itself carries the key (e.g. a Kafka key)
    "key": "map<string,string>",
    "before": "map<string,string>",
    "after": "map<string,string>",
    # columns the source says changed, where it says so
    "changed_columns": "array<string>",
    # the vendor's raw ordering fields as text (e.g. {'scn': '2122185', 'ssn': '1'}); null if none
    "position": "map<string,string>",
    # Kafka coordinates when the record came in a Kafka record wrapper
    "kafka_topic": "string",
    "kafka_partition": "bigint",
    "kafka_offset": "bigint",
    # epoch microseconds (UTC)
    "committed_at_us": "bigint",
    "read_at_us": "bigint",
    "transaction_id": "string",
    "transaction_seq": "bigint",
    "transaction_last": "boolean",
    "schema_version": "string",
    # identity of the message content when the vendor gives no position (hash input for event_id)
    "content_hash": "string",
    # a schema / table-version record the vendor sends separately (Qlik messageSchemaId)
    "schema_ref": "string",
    # the image's column names in the order the message lists them (Qlik: column ordinal order)
    "column_order": "array<string>",
    # column bitmasks decoded to 1-based column ordinals (Qlik columnMask / changeMask); null: no mask
    "captured_ordinals": "array<int>",
    "changed_ordinals": "array<int>",
}



def _record(kind: str, **fields: Any) -> dict:
    unknown = set(fields) - set(PARSED_FIELDS)
    if unknown:
        raise TypeError(f"unknown parsed-record fields: {sorted(unknown)}")
    record = dict.fromkeys(PARSED_FIELDS)
    record.update(fields)
    record["kind"] = kind
    return record


def change(**fields: Any) -> dict:
    return _record("change", **fields)


def control(control_type: str, control_json: str | None = None, **fields: Any) -> dict:
    return _record("control", control_type=control_type, control_json=control_json, **fields)


def quarantine(reason: str, detail: str) -> dict:
    return _record("quarantine", reason=reason, detail=detail[:2000])


def canonical_json(value: Any) -> str:
    """Canonical JSON text: keys sorted, no whitespace, UTF-8 kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_default)


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return iso_format(value)
    if isinstance(value, (bytes, bytearray)):
        import base64

        return base64.b64encode(bytes(value)).decode("ascii")
    raise TypeError(f"cannot encode {type(value).__name__}")


def encode_value(value: Any) -> str:
    """One column value as JSON text. Non-finite floats become strings ('NaN', 'Infinity')."""
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(str(value).replace("inf", "Infinity").replace("nan", "NaN"))
    return canonical_json(value)


def encode_row(row: dict[str, Any]) -> dict[str, str]:
    return {str(k): encode_value(v) for k, v in row.items()}


def iso_format(value: dt.datetime | dt.date | dt.time) -> str:
    """ISO-8601; datetimes in UTC with a 'Z', fraction trimmed of trailing zeros."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
        text = value.strftime("%Y-%m-%dT%H:%M:%S")
        if value.microsecond:
            text += ("." + f"{value.microsecond:06d}").rstrip("0")
        return text + "Z"
    if isinstance(value, dt.time):
        text = value.strftime("%H:%M:%S")
        if value.microsecond:
            text += ("." + f"{value.microsecond:06d}").rstrip("0")
        return text
    return value.isoformat()


def iso_from_epoch(amount: int, unit: str) -> str:
    """ISO-8601 UTC text from an epoch count in 's', 'ms', 'us' or 'ns' (nanoseconds kept)."""
    per_second = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}[unit]
    seconds, fraction = divmod(int(amount), per_second)
    base = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=seconds)
    text = base.strftime("%Y-%m-%dT%H:%M:%S")
    if fraction:
        digits = len(str(per_second)) - 1
        text += ("." + f"{fraction:0{digits}d}").rstrip("0")
    return text + "Z"
