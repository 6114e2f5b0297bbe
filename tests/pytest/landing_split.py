"""The landing split in Python: what macros/cdc/landing_records.sql does in SQL (DECISIONLOG D8),
the oracle of the landing parity test (parser_parity.py) and the reader of the vendor tests
(DECISIONLOG D62). The product no longer runs it.

A landing file is split into *records*, each the text one vendor parser receives:
- `*.avro`: one record per Avro datum, rendered as JSON (see python_udfs/avro.py);
- anything else: one leading `/* ... */` licence block is skipped; if the rest is one JSON
  document, an array gives one record per element, an object of named messages (all values
  objects, none of them an envelope field) one per value, any other object one record;
  otherwise every line is one record (an empty line in the middle is a record too, which the
  parser quarantines: nothing is silently dropped).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

VENDORS = ("datastream", "spanner", "debezium", "qlik", "datahub")
# Keys that mark an object as one message (of any vendor), not a map of named messages.
_ENVELOPE_KEYS = {"payload", "op", "before", "after", "source", "schema", "value", "topic", "data",
                  "headers", "magic", "type", "uuid", "data_change_record", "mods", "sequenceId"}
_LICENCE_BLOCK = re.compile(r"\A\s*/\*.*?\*/\s*", re.DOTALL)


def split_records(text: str) -> list[str]:
    """The records of one text landing file (see the module docstring)."""
    body = _LICENCE_BLOCK.sub("", text, count=1) if text.lstrip().startswith("/*") else text
    if not body.strip():
        return []
    document = _whole_document(body)
    if document is not None:
        return document
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last record, it does not start an empty one
    return [line.rstrip("\r") for line in lines]


def _whole_document(body: str) -> list[str] | None:
    try:
        value = json.loads(body)
    except ValueError:
        return None
    if isinstance(value, list):
        return [json.dumps(item, ensure_ascii=False) for item in value]
    if isinstance(value, dict) and _is_named_messages(value):
        return [json.dumps(item, ensure_ascii=False) for item in value.values()]
    return [body.strip()]


def _is_named_messages(value: dict) -> bool:
    return (len(value) > 0 and not (_ENVELOPE_KEYS & value.keys())
            and all(isinstance(item, dict) for item in value.values())
            and all(_ENVELOPE_KEYS & item.keys() for item in value.values()))


def read_landing_file(path: str) -> Iterator[tuple[int, str | None, str | None]]:
    """(record number from 1, record text, file-level error) for every record of one file.

    A file that cannot be read (or, for a truncated Avro file, its damaged rest) yields one
    record with text None and the error, so it is quarantined with a reason instead of failing
    the run; records before the damage are kept.
    """
    number = 0
    try:
        if path.endswith(".avro"):
            from python_udfs.avro import read_avro

            # the records before any damage are kept; the damage itself becomes one more record
            records, error = read_avro(path)
        else:
            with open(path, encoding="utf-8", errors="replace") as handle:
                records, error = split_records(handle.read()), None
        for number, text in enumerate(records, start=1):
            yield number, text, None
        if error is not None:
            yield number + 1, None, error
    except Exception as exc:  # noqa: BLE001 - any unreadable file is quarantined, never fatal
        yield number + 1, None, f"{type(exc).__name__}: {exc}"
