"""Datastream Avro files read two ways, side by side in one Spark session (see benchmarks/README.md).

    .venv/bin/python benchmarks/avro_read_benchmark.py --records 1000000 --files 10 --work-dir /tmp/avro-bench

1. the project's path: Spark's `binaryFile` source and the Python function `cdc_avro_records`
   (python_udfs/avro.py), each datum as JSON text, as the landing model reads `.avro` files;
2. Spark's own `avro` source (the spark-avro jar of the installed pyspark, fetched by Maven into
   the work folder), each row written as JSON text with `to_json`.

Both read every file of one folder and end in a no-op write, so only reading and decoding are
timed. The files have one writer schema, Datastream's MySQL shape (generic fields, source_metadata,
payload), null codec like the published samples. A benchmark: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import fastavro

from python_udfs.registration import register_all
from python_udfs.runner import build_spark_session, configure_environment, delta_jars

TIMESTAMP = {"type": "long", "logicalType": "timestamp-millis"}
SCHEMA = {
    "type": "record", "name": "shop_orders",
    "fields": [
        {"name": "uuid", "type": "string"}, {"name": "read_timestamp", "type": TIMESTAMP},
        {"name": "source_timestamp", "type": TIMESTAMP}, {"name": "object", "type": "string"},
        {"name": "read_method", "type": "string"}, {"name": "stream_name", "type": "string"},
        {"name": "schema_key", "type": "string"},
        {"name": "sort_keys", "type": {"type": "array", "items": ["string", "long"]}},
        {"name": "source_metadata", "type": {"type": "record", "name": "source_metadata", "fields": [
            {"name": "table", "type": "string"}, {"name": "database", "type": "string"},
            {"name": "primary_keys", "type": {"type": "array", "items": "string"}},
            {"name": "log_file", "type": ["null", "string"]}, {"name": "log_position", "type": ["null", "long"]},
            {"name": "change_type", "type": ["null", "string"]}, {"name": "is_deleted", "type": ["null", "boolean"]},
        ]}},
        {"name": "payload", "type": {"type": "record", "name": "payload", "fields": [
            {"name": "id", "type": "long"}, {"name": "customer_id", "type": ["null", "long"]},
            {"name": "status", "type": ["null", "string"]}, {"name": "amount", "type": ["null", "double"]},
            {"name": "note", "type": ["null", "string"]}, {"name": "updated_at", "type": ["null", "long"]},
        ]}},
    ],
}
STATUSES = ("new", "paid", "packed", "shipped", "delivered", "returned")


def write_files(folder: Path, records: int, files: int, seed: int) -> None:
    """`files` container files of about records / files Datastream MySQL change events each."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    position = 4
    per_file = -(-records // files)
    for number in range(files):
        data = []
        for _ in range(min(per_file, records - number * per_file)):
            position += rng.randint(100, 400)
            ms = 1_717_200_000_000 + position
            data.append({
                "uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)), "read_timestamp": ms + 5,
                "source_timestamp": ms, "object": "shop_orders", "read_method": "mysql-cdc-binlog",
                "stream_name": "projects/p/locations/l/streams/s", "schema_key": "0" * 40,
                "sort_keys": [ms, "mysql-bin.000012", position],
                "source_metadata": {"table": "orders", "database": "shop", "primary_keys": ["id"],
                                    "log_file": "mysql-bin.000012", "log_position": position,
                                    "change_type": "UPDATE", "is_deleted": False},
                "payload": {"id": rng.randrange(100_000), "customer_id": rng.randrange(50_000),
                            "status": rng.choice(STATUSES), "amount": round(rng.uniform(1, 2000), 2),
                            "note": None, "updated_at": ms},
            })
        with open(folder / f"orders-{number:04d}.avro", "wb") as handle:
            fastavro.writer(handle, fastavro.parse_schema(SCHEMA), data, codec="null")


def avro_jar(folder: Path) -> Path:
    """The spark-avro jar built for the installed pyspark, fetched by Maven into `folder` once."""
    import pyspark

    name = f"spark-avro_2.13-{pyspark.__version__}.jar"
    if not (folder / name).exists():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mvn", "-q", "-B", "dependency:copy", f"-Dartifact=org.apache.spark:spark-avro_2.13:{pyspark.__version__}",
                        f"-DoutputDirectory={folder}"], check=True)
    return folder / name


def timed(label: str, run) -> float:
    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    print(f"  {label:<48} {seconds:8.1f} s", flush=True)
    return seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000, help="Avro records in all")
    parser.add_argument("--files", type=int, default=10, help="container files they are written to")
    parser.add_argument("--repeats", type=int, default=2, help="timed reads of each path (the best is compared)")
    parser.add_argument("--work-dir", type=Path, default=None, help="new or empty folder for the files and Spark state")
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args(argv)
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="cdc-avro-bench-"))
    files = work / "landing" / "datastream"
    print(f"work folder: {work}; {args.records:,} records in {args.files} files", flush=True)
    write_files(files, args.records, args.files, args.seed)

    os.environ["CDC_SPARK_DIR"] = str(work / "spark")
    configure_environment()
    jars = [*delta_jars(), str(avro_jar(work / "jars"))]
    spark = build_spark_session(app_name="cdc-avro-bench", extra_conf={"spark.jars": ",".join(jars)})
    register_all(spark)

    def python_function() -> None:
        (spark.read.format("binaryFile").load(str(files))
         .selectExpr("explode(cdc_avro_records(content).records) as raw")
         .write.format("noop").mode("overwrite").save())

    def spark_avro() -> None:
        (spark.read.format("avro").load(str(files))
         .selectExpr("to_json(struct(*)) as raw")
         .write.format("noop").mode("overwrite").save())

    counts = {
        "binaryFile + cdc_avro_records": spark.read.format("binaryFile").load(str(files))
        .selectExpr("explode(cdc_avro_records(content).records)").count(),
        "Spark avro source + to_json": spark.read.format("avro").load(str(files)).count(),
    }
    best = {}
    for label, run in (("binaryFile + cdc_avro_records", python_function), ("Spark avro source + to_json", spark_avro)):
        best[label] = min(timed(f"{label} (run {repeat + 1})", run) for repeat in range(args.repeats))
    print()
    print(f"  {'path':<32} {'records':>10} {'best s':>8} {'records/s':>10} {'ratio':>6}")
    reference = best["Spark avro source + to_json"]
    for label, seconds in best.items():
        print(f"  {label:<32} {counts[label]:>10,} {seconds:>8.1f} {counts[label] / seconds:>10,.0f} {seconds / reference:>6.2f}")


if __name__ == "__main__":
    main()
