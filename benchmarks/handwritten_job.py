"""The hand-written PySpark job the benchmark holds the project against (see benchmarks/README.md).

    .venv/bin/python benchmarks/handwritten_job.py LANDING_FOLDER OUTPUT_FOLDER

Reads Debezium MySQL messages (bare payload, one JSON a line), keeps the latest event per
(db, table, id) by binlog position (file number, pos, row), drops deleted keys and writes the
live rows as parquet (db, table, id, after). Same session settings as cdc-dbt: local[*], the
project's shuffle partitions and driver memory, UTC. No history, no partial rows, no truncates.
"""

from __future__ import annotations

import os
import sys

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

EVENT_SCHEMA = (
    "before map<string, string>, after map<string, string>, op string, "
    "source struct<db: string, `table`: string, file: string, pos: bigint, `row`: int>"
)


def main(landing: str, output: str) -> None:
    spark = (
        SparkSession.builder.appName("cdc-handwritten")
        .master(os.environ.get("CDC_SPARK_MASTER", "local[*]"))
        .config("spark.driver.memory", os.environ.get("CDC_SPARK_DRIVER_MEMORY", "6g"))
        .config("spark.sql.shuffle.partitions", os.environ.get("CDC_SHUFFLE_PARTITIONS", "4"))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")

    events = spark.read.text(landing).select(F.from_json("value", EVENT_SCHEMA).alias("e")).selectExpr(
        "e.source.db as db",
        "e.source.table as table",
        "coalesce(e.after['id'], e.before['id']) as id",
        "cast(regexp_extract(e.source.file, '([0-9]+)$', 1) as bigint) as binlog_file",
        "e.source.pos as pos",
        "e.source.row as row",
        "e.op as op",
        "e.after as after",
    )
    latest_first = Window.partitionBy("db", "table", "id").orderBy(
        F.desc("binlog_file"), F.desc("pos"), F.desc("row"))
    (
        events.withColumn("rank", F.row_number().over(latest_first))
        .where("rank = 1 and op != 'd'")
        .select("db", "table", "id", "after")
        .write.mode("overwrite").parquet(output)
    )
    spark.stop()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: handwritten_job.py LANDING_FOLDER OUTPUT_FOLDER")
    main(sys.argv[1], sys.argv[2])
