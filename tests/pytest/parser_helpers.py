"""Helpers the vendor parser tests share: call a parser on a record given as text or as a
JSON value, and check that every output has exactly the contract's fields."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from python_udfs.contract import PARSED_FIELDS

Parser = Callable[[str | None], list[dict]]


def parse_with(parser: Parser, raw: Any) -> list[dict]:
    """All parsed records of one raw record (a dict or list is sent as its JSON text)."""
    records = parser(raw if raw is None or isinstance(raw, str) else json.dumps(raw))
    for record in records:
        assert set(record) == set(PARSED_FIELDS)
    return records


def one_with(parser: Parser, raw: Any) -> dict:
    """The single parsed record of one raw record."""
    records = parse_with(parser, raw)
    assert len(records) == 1, records
    return records[0]


def reason_with(parser: Parser, raw: Any) -> str:
    """The quarantine reason of one raw record that must be quarantined."""
    record = one_with(parser, raw)
    assert record["kind"] == "quarantine", record
    return record["reason"]
