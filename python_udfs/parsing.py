"""Helpers every vendor parser shares: rejecting a record with a reason, loading JSON text,
and the never-raise wrapper around a parser's record function."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from python_udfs.contract import quarantine


class Reject(Exception):
    """A record that cannot be used: `reason` is the quarantine code, `detail` says what is wrong."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def never_raise(parse_record: Callable[[Any], list[dict]], raw: Any) -> list[dict]:
    """Run a parser's record function; a Reject or any other error becomes one quarantine record,
    so a landing record is never part applied and part quarantined."""
    try:
        return parse_record(raw)
    except Reject as rejected:
        return [quarantine(rejected.reason, rejected.detail)]
    except Exception as exc:  # noqa: BLE001 - the contract is: never raise, quarantine instead
        return [quarantine("parse_error", repr(exc))]


def load_json(text: Any, what: str) -> Any:
    """JSON text -> value; empty, non-text or invalid input is rejected with its reason."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    if text is None:
        raise Reject("empty_record", f"the {what} is null")
    if not isinstance(text, str):
        raise Reject("wrong_type", f"the {what} is a {type(text).__name__}, not text")
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise Reject("empty_record", f"the {what} is empty or whitespace only")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise Reject("invalid_json", f"the {what} is not valid JSON ({exc})") from None


def json_type(value: Any) -> str:
    """The JSON name of a value's type, for error details."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object"}.get(type(value), type(value).__name__)
