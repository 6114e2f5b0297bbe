"""Registers the project's Python functions on a SparkSession.

Everything here is a thin wrapper: the logic lives in pure modules (avro.py, qlik.py,
...) that pytest calls with plain values. Models that call these functions must be tables or
incremental models, because Spark refuses views over temporary functions.
"""

from __future__ import annotations

import json

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.functions import pandas_udf, udf

from python_udfs import avro, java_serialization, qlik_masks

# Every vendor's envelope is flattened in Spark SQL (models/staging/<vendor>/base_<vendor>__parsed.sql).
# Their old Python parsers remain only as the oracle of the differential test
# (tests/pytest/test_sql_parity.py).
FLATTENED_IN_SQL = ("debezium", "spanner", "qlik", "datastream", "datahub")

# The Python functions on the session, one per job only Python does here: Avro container files
# (the landing), Qlik's hex masks, DataHub's base64 DDL. MARKER_FUNCTION's presence tells a model
# that it runs inside cdc-dbt (see macros/cdc/_require_udfs.sql).
MARKER_FUNCTION = "cdc_avro_records"
AVRO_RECORDS_DDL = "struct<records: array<string>, error: string>"
MASK_FUNCTION = "cdc_decode_mask"
MASK_DDL = "struct<ordinals: array<int>, problem: string>"
DDL_FUNCTION = "cdc_decode_ddl"
DDL_DDL = (
    "struct<decoded_text: string, decode_error: string, matches_text: boolean, operation: string, table: string, "
    "added_columns: array<struct<name: string, type: string>>, dropped_columns: array<string>, renamed_to: string, "
    "meta_class: string>"
)
VALUE_FUNCTIONS = (MASK_FUNCTION, DDL_FUNCTION)


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


def decode_ddls(ddl_metas: pd.Series, ddl_texts: pd.Series) -> pd.DataFrame:
    """cdc_decode_ddl(ddl_meta_json, ddl_text), vectorised: a DataHub DDL record's ddl.ddlMeta (the
    JSON text of the field, null when missing) read back, with what it and ddl.text say
    (python_udfs/java_serialization.py ddl_summary). Null in, the summary of nothing out."""
    summaries = [
        java_serialization.ddl_summary(None if pd.isna(meta) else json.loads(meta), None if pd.isna(text) else text)
        for meta, text in zip(ddl_metas, ddl_texts, strict=True)
    ]
    return pd.DataFrame(summaries, columns=list(java_serialization.DDL_SUMMARY_FIELDS))


def register_all(spark: SparkSession) -> list[str]:
    """Register every project function; returns their SQL names."""
    # useArrow=False: the plain Python UDF it would be anyway, said outright, so pyspark does not try
    # (and fail, with a warning on every start) to infer a UDF kind from `bytes | None`
    spark.udf.register(MARKER_FUNCTION, udf(avro_records, AVRO_RECORDS_DDL, useArrow=False))
    spark.udf.register(MASK_FUNCTION, pandas_udf(decode_masks, MASK_DDL))
    spark.udf.register(DDL_FUNCTION, pandas_udf(decode_ddls, DDL_DDL))
    return [MARKER_FUNCTION, *VALUE_FUNCTIONS]
