"""Registers the project's Python functions on a SparkSession.

Everything here is a thin wrapper: the logic lives in pure modules (avro.py, qlik.py,
...) that pytest calls with plain values. Models that call these functions must be tables or
incremental models, because Spark refuses views over temporary functions.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.functions import pandas_udf, udf

from python_udfs import avro, qlik_masks
from python_udfs.contract import PARSED_RECORD_DDL, quarantine

# vendor -> "module:function" of its parser UDF, for the vendors still parsed in Python.
VENDOR_PARSERS = {
    "datahub": "python_udfs.datahub:parse_datahub",
}
# Vendors whose envelopes are flattened in Spark SQL (models/staging/<vendor>/base_<vendor>__parsed.sql):
# they need no Python function. Their old Python parsers remain only as the oracle of the
# differential test (tests/pytest/test_sql_parity.py).
FLATTENED_IN_SQL = ("debezium", "spanner", "qlik", "datastream")

# The function whose presence tells a model that it runs inside cdc-dbt (see macros/cdc/_require_udfs.sql).
MARKER_FUNCTION = "cdc_avro_records"
AVRO_RECORDS_DDL = "struct<records: array<string>, error: string>"
# Functions the SQL flattenings call for what Python reads best (one value in, one value out).
MASK_FUNCTION = "cdc_decode_mask"
MASK_DDL = "struct<ordinals: array<int>, problem: string>"
VALUE_FUNCTIONS = (MASK_FUNCTION,)


def avro_records(content: bytes | None) -> dict:
    """cdc_avro_records(content): the data of one Avro container file, each datum as JSON text,
    and what stopped the read (null for a whole file). The landing SQL numbers them."""
    records, error = avro.read_avro_bytes(content)
    return {"records": records, "error": error}


def decode_masks(masks: pd.Series, column_counts: pd.Series) -> pd.DataFrame:
    """cdc_decode_mask(mask_json, column_count), vectorised: a Qlik columnMask / changeMask (the
    JSON text of the header field, null when missing) as column ordinals, or the problem that
    quarantines its message (python_udfs/qlik_masks.py holds the rules)."""
    decoded = [
        qlik_masks.decode_mask_json(mask, None if pd.isna(count) or count < 0 else int(count))
        for mask, count in zip(masks, column_counts, strict=True)
    ]
    return pd.DataFrame({"ordinals": [ordinals for ordinals, _ in decoded], "problem": [problem for _, problem in decoded]})


def safe_parser(parse: Callable[[str | None], list[dict]]) -> Callable[[str | None, str | None], list[dict]]:
    """Never raise and never return nothing: a record always becomes at least one parsed record.

    The wrapped function takes (raw, read_error): a record the landing reader could not read
    is quarantined as `unreadable_file` without calling the parser.
    """

    def run(raw: str | None, read_error: str | None = None) -> list[dict]:
        if read_error is not None:
            return [quarantine("unreadable_file", read_error)]
        try:
            parsed = parse(raw)
        except Exception as exc:  # noqa: BLE001 - a parser bug must quarantine, not kill the run
            return [quarantine("parse_error", f"{type(exc).__name__}: {exc}")]
        return parsed or [quarantine("no_output", "the parser returned nothing for this record")]

    return run


def load_parser(vendor: str) -> Callable[[str | None], list[dict]]:
    module_name, function_name = VENDOR_PARSERS[vendor].split(":")
    return getattr(importlib.import_module(module_name), function_name)


def register_all(spark: SparkSession) -> list[str]:
    """Register every project function; returns their SQL names."""
    spark.udf.register(MARKER_FUNCTION, udf(avro_records, AVRO_RECORDS_DDL))
    names = [MARKER_FUNCTION]
    spark.udf.register(MASK_FUNCTION, pandas_udf(decode_masks, MASK_DDL))
    names.append(MASK_FUNCTION)
    for vendor in VENDOR_PARSERS:
        name = f"cdc_parse_{vendor}"
        parser = udf(safe_parser(load_parser(vendor)), PARSED_RECORD_DDL, useArrow=True)
        spark.udf.register(name, parser)
        names.append(name)
    return names
