"""Qlik Replicate column bitmasks (``changeMask`` / ``columnMask``) decoded to column ordinals.

The seed document (shared/seeds/003_55339dca819d6816.txt, "changeMask" and "columnMask") says a
mask is "a string of hexadecimal digits representing a bitmask of the data columns in
little-endian order", bit positions following the column ordinals of the table's metadata
message: with 10 data columns they take bits 0–9, and ``0B`` (binary 1011) means ordinals 1, 2
and 4. So the hex text is read as little-endian *bytes*: hex pairs from the left, the first
pair is byte 0 and carries ordinals 1–8 (bit 0 = ordinal 1), the second pair ordinals 9–16, and
so on: ``FF01`` is ordinals 1–9. Upper and lower case are both accepted.

- ``None`` (JSON null, the Avro null branch) means "no mask": :func:`decode_hex_mask` returns
  None. So does the empty string, which is what full-load (``REFRESH``) rows carry.
- A mask of all zero bits is an empty list, not None: "no column".
- Documented exception: a mask of a *single* hex digit (``"1"``, ``"B"``) is read as one byte
  (``"01"``, ``"0B"``), because the published examples
  (shared/conformance/qlik/extracted/michelin_readme_examples.jsonl) write masks that way. Any
  other odd length is invalid.
- Invalid: anything but hex digits (whitespace included: ``bytes.fromhex`` would skip it, the
  document's format has none), an odd length of 3 or more, a value that is not text, and, when
  ``column_count`` is given, a set bit whose ordinal is greater than it. A mask shorter than the
  column count is fine (the missing high bytes are zero).
"""

from __future__ import annotations

import json
import re
from typing import Any

from python_udfs.parsing import Reject, json_type

REASON = "invalid_column_mask"
_HEX = re.compile(r"[0-9A-Fa-f]*", re.ASCII)


class MaskError(Reject):
    """A mask that cannot be decoded; ``reason`` is always ``invalid_column_mask``."""


def decode_hex_mask(mask: str | None, column_count: int | None = None) -> list[int] | None:
    """Sorted 1-based column ordinals whose bit is set in ``mask``; None for a null or empty mask.

    Raises :class:`MaskError` for non-hex text, an odd length (other than one digit), or a set
    bit beyond ``column_count`` (when given).
    """
    if mask is None:
        return None
    if not isinstance(mask, str):
        raise MaskError(REASON, f"the mask is a JSON {json_type(mask)}, not hex text")
    if mask == "":
        return None
    if not _HEX.fullmatch(mask):
        raise MaskError(REASON, f"mask {mask[:80]!r} has characters that are not hex digits")
    if len(mask) == 1:
        mask = "0" + mask  # the published examples' one-digit masks: one byte
    elif len(mask) % 2:
        raise MaskError(REASON, f"mask {mask[:80]!r} has an odd number ({len(mask)}) of hex digits")
    value = int.from_bytes(bytes.fromhex(mask), "little")
    if column_count is not None and value.bit_length() > column_count:
        raise MaskError(
            REASON,
            f"mask {mask[:80]!r} sets the bit of ordinal {value.bit_length()}, "
            f"but there are only {column_count} columns",
        )
    ordinals = []
    while value:
        lowest = value & -value
        ordinals.append(lowest.bit_length())
        value ^= lowest
    return ordinals


def encode_hex_mask(ordinals: Any, width_bytes: int | None = None) -> str:
    """The inverse (upper-case hex, little-endian bytes): for tests and workload generators."""
    value = 0
    for ordinal in ordinals:
        if ordinal < 1:
            raise ValueError(f"ordinals start at 1, not {ordinal}")
        value |= 1 << (ordinal - 1)
    width = max(1, (value.bit_length() + 7) // 8) if width_bytes is None else width_bytes
    return value.to_bytes(width, "little").hex().upper()


def decode_mask_json(mask_json: str | None, column_count: int | None = None) -> tuple[list[int] | None, str | None]:
    """The mask field of a data message's headers, as the JSON text of its value (null when the
    field is missing), decoded: (ordinals, None), or (None, what is wrong) for a mask that
    decode_hex_mask refuses. Used by the Spark function cdc_decode_mask."""
    if mask_json is None:
        return None, None
    try:
        mask = json.loads(mask_json)
    except ValueError:
        return None, f"the mask is not JSON: {mask_json[:80]!r}"
    try:
        return decode_hex_mask(mask, column_count), None
    except MaskError as error:
        return None, error.detail
