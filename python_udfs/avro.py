"""Avro object container files: each datum rendered as canonical JSON text.

The schema comes from the file header. fastavro turns logical types into Python values
(timestamp-millis/micros -> datetime, decimal -> Decimal, date -> date), which
`canonical_json` renders as ISO-8601 UTC text, decimal strings and base64 for bytes.
"""

from __future__ import annotations

import fastavro

from python_udfs.contract import canonical_json


def avro_records(path: str) -> list[str]:
    with open(path, "rb") as handle:
        return [canonical_json(datum) for datum in fastavro.reader(handle)]
