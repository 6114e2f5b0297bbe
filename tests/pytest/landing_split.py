"""The landing split in Python: what macros/cdc/landing_records.sql does in SQL (DECISIONLOG D8),
the oracle of the landing parity test (parser_parity.py) and the reader of the vendor tests
(DECISIONLOG D62). The product no longer runs it.

A landing file is split into *records*, each the text one vendor parser receives. How a file
is read depends on its name and size (DECISIONLOG D63; `whole_file_bytes` is the var
cdc_landing_whole_file_bytes):
- `*.avro` up to `whole_file_bytes`: one record per Avro datum, rendered as JSON (see
  python_udfs/avro.py);
- `*.jsonl|ndjson|json|txt` up to `whole_file_bytes`, or compressed (`.gz`, `.bz2`) up to a
  sixteenth of it: one leading `/* ... */` licence block is skipped; if the rest is one JSON
  document, an array gives one record per element, an object of named messages (all values
  objects, none of them an envelope field) one per value, any other object one record;
  otherwise every line is one record (an empty line in the middle is a record too, which the
  parser quarantines: nothing is silently dropped);
- a larger text file, plain or compressed: every line is one record, when its first non-blank
  line is a whole JSON value; else the file is one error record (too large to read whole);
- anything else (another format, a larger Avro file): one error record.
"""

from __future__ import annotations

import bz2
import gzip
import json
import os
import re
from collections.abc import Iterator

VENDORS = ("datastream", "spanner", "debezium", "qlik", "datahub")
# Keys that mark an object as one message (of any vendor), not a map of named messages.
_ENVELOPE_KEYS = {"payload", "op", "before", "after", "source", "schema", "value", "topic", "data",
                  "headers", "magic", "type", "uuid", "data_change_record", "mods", "sequenceId"}
_LICENCE_BLOCK = re.compile(r"\A\s*/\*.*?\*/\s*", re.DOTALL)
WHOLE_FILE_BYTES = 134_217_728  # the var cdc_landing_whole_file_bytes' default
_TEXT = re.compile(r"\.(jsonl|ndjson|json|txt)$")
_COMPRESSED_TEXT = re.compile(r"\.(jsonl|ndjson|json|txt)\.(gz|bz2)$")


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


def read_landing_file(path: str, whole_file_bytes: int = WHOLE_FILE_BYTES) -> Iterator[tuple[int, str | None, str | None]]:
    """(record number from 1, record text, file-level error) for every record of one file.

    A file that cannot be read (or, for a truncated Avro file, its damaged rest) yields one
    record with text None and the error, so it is quarantined with a reason instead of failing
    the run; records before the damage are kept.
    """
    number = 0
    name, size = os.path.basename(path).lower(), os.path.getsize(path)
    try:
        if name.endswith(".avro") and size <= whole_file_bytes:
            from python_udfs.avro import read_avro

            # the records before any damage are kept; the damage itself becomes one more record
            records, error = read_avro(path)
        elif (_TEXT.search(name) and size <= whole_file_bytes) or (
                _COMPRESSED_TEXT.search(name) and size <= whole_file_bytes // 16):
            records, error = split_records(_read_text(path)), None
        elif _TEXT.search(name) or _COMPRESSED_TEXT.search(name):
            records, error = _split_lines(_read_text(path))
        else:
            records, error = [], "not a landing file" if not name.endswith(".avro") else "file_too_large"
        for number, text in enumerate(records, start=1):
            yield number, text, None
        if error is not None:
            yield number + 1, None, error
    except Exception as exc:  # noqa: BLE001 - any unreadable file is quarantined, never fatal
        yield number + 1, None, f"{type(exc).__name__}: {exc}"


def _read_text(path: str) -> str:
    opener = gzip.open if path.endswith(".gz") else bz2.open if path.endswith(".bz2") else open
    with opener(path, "rt", encoding="utf-8", errors="replace", newline="") as handle:
        return handle.read()


def _split_lines(text: str) -> tuple[list[str], str | None]:
    """A file too large to read whole: its lines, when the first non-blank one is a whole JSON
    value; else no record and the error."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line.rstrip("\r") for line in lines]
    first = next((line for line in lines if line.strip()), None)
    if first is None:
        return [], "file_too_large"
    try:
        json.loads(first)
    except ValueError:
        return [], "file_too_large"
    return lines, None
