"""The summary `make run` prints after a build: what came in, what was set aside, what came out."""

from __future__ import annotations

from pyspark.sql import SparkSession


def _count_rows(spark: SparkSession, sql: str) -> list:
    try:
        return spark.sql(sql).collect()
    except Exception:  # noqa: BLE001 - a table that was never built just counts as empty
        return []


def print_summary(spark: SparkSession, schema: str) -> None:
    events = _count_rows(spark, f"select source_vendor, count(*) as n, count(distinct event_id) as unique_n "
                                f"from {schema}_intermediate.int_cdc__change_events group by 1 order by 1")
    quarantined = _count_rows(spark, f"select source_vendor, reason, count(*) as n "
                                     f"from {schema}_intermediate.int_cdc__quarantine group by 1, 2 order by 1, 2")
    control = _count_rows(spark, f"select count(*) as n from {schema}_intermediate.int_cdc__control_events")
    current = _count_rows(spark, f"select count(*) as n from {schema}_marts.cdc_current")
    history = _count_rows(spark, f"select count(*) as n from {schema}_marts.cdc_history")

    print("\n== CDC summary ==")
    print("change events per vendor (received / unique):")
    for row in events or []:
        print(f"  {row.source_vendor:<11} {row.n:>10} / {row.unique_n}")
    if not events:
        print("  (none: is CDC_LANDING_DIR pointing at a folder with vendor sub-folders?)")
    total_quarantined = sum(row.n for row in quarantined)
    print(f"quarantined records: {total_quarantined}")
    for row in quarantined:
        print(f"  {row.source_vendor:<11} {row.reason:<22} {row.n}")
    print(f"control records: {control[0].n if control else 0}")
    print(f"rows in cdc_current: {current[0].n if current else 0}")
    print(f"rows in cdc_history: {history[0].n if history else 0}")
    if total_quarantined:
        print(f"see why: select * from {schema}_intermediate.int_cdc__quarantine")
