"""A class-data-sharing archive of the project session's JVM classes, so that Spark starts faster.

Every `cdc-dbt` run starts a new JVM, which loads and verifies some ten thousand classes before
its first query and more on each new kind of query. Java 17 can write the classes a JVM loaded
into an archive when it exits (`-XX:ArchiveClassesAtExit`) and map them at the next start
(`-XX:SharedArchiveFile`): measured on 2 CPUs, the session started in 3.9 s instead of 8.4 s and
the first table query took 2.6 s instead of 4.6 s (DECISIONLOG D32).

`make setup` runs this module once (`python -m python_udfs.class_archive`): it starts the
session as `cdc-dbt` does, runs one query of each kind the models run (files, parquet, Delta,
JSON, windows, a Python UDF), and keeps the archive in `.spark-cds/`. The archive holds only this
JVM's and this class path's classes, so its name is a hash of both: a new JDK, pyspark or Delta
jars get a new archive from the next `make setup`, which removes the old one; until then the
session starts without one. The JVM checks an archive itself and ignores one that does not fit,
saying so on standard error.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

ARCHIVE_DIR = Path(__file__).resolve().parents[1] / ".spark-cds"


def archive_path() -> Path | None:
    """Where the archive of this JDK and class path is (whether it exists or not); None without
    a `java` on PATH / JAVA_HOME."""
    import pyspark

    from python_udfs.runner import delta_jars, java_binary

    java = java_binary()
    if not java:
        return None
    java = os.path.realpath(java)
    stat = os.stat(java)
    key = "\n".join([java, str(stat.st_size), str(stat.st_mtime_ns), pyspark.__version__,
                     *(Path(jar).name for jar in delta_jars())])
    return ARCHIVE_DIR / f"spark-{hashlib.sha256(key.encode()).hexdigest()[:16]}.jsa"


def java_options() -> str:
    """The driver JVM options that map the archive, or '' when there is none (or
    CDC_CLASS_ARCHIVE=off). JVM warnings go to standard error, so that an archive the JVM refuses
    cannot print into what `cdc-dbt show --output json` writes on standard output."""
    if os.environ.get("CDC_CLASS_ARCHIVE", "on") == "off":
        return ""
    path = archive_path()
    if path is None or not path.is_file():
        return ""
    return f"-XX:SharedArchiveFile={path} -Xshare:auto -Xlog:disable -Xlog:all=warning:stderr"


_WARM_UP = (
    ("create table warm_up_parquet using parquet as select id, cast(id as string) as text, "
     "map('k', cast(id as string)) as image, current_timestamp() as at from range(100)"),
    "select text, row_number() over (partition by id % 7 order by at) as n, to_json(image) from warm_up_parquet",
    ("select variant_get(parse_json('{\"a\": [1, 2]}'), '$.a[0]', 'int'), "
     "from_json('{\"a\": 1}', 'map<string,string>'), transform(array(1, 2), x -> x + 1)"),
    "select count(*) from binaryFile.`{folder}`",
)

_WARM_UP_DELTA = (
    "create table warm_up_delta using delta as select id, cast(id as string) as text from range(100)",
    ("merge into warm_up_delta as target using (select id, 'new' as text from range(50, 150)) as source "
     "on target.id = source.id when matched then update set * when not matched then insert *"),
)


def create() -> Path | None:
    """Write the archive for this JDK and class path unless it exists; returns its path."""
    from python_udfs.runner import build_spark_session, configure_environment, delta_jars, java_problem

    path = archive_path()
    if path is None or java_problem():
        print("class archive: no usable Java 17+, nothing written (Spark starts without it)")
        return None
    if path.is_file():
        return path
    ARCHIVE_DIR.mkdir(exist_ok=True)
    for stale in ARCHIVE_DIR.glob("spark-*.jsa*"):  # another JDK's or class path's
        stale.unlink()
    partial = path.with_suffix(".jsa.partial")
    print(f"class archive: writing {path} (once; about half a minute)...", flush=True)
    with tempfile.TemporaryDirectory(prefix="cdc-class-archive-") as scratch:
        os.environ["CDC_SPARK_DIR"] = scratch
        configure_environment()
        spark = build_spark_session(app_name="cdc-class-archive",
                                    java_options=f"-XX:ArchiveClassesAtExit={partial} -Xlog:disable -Xlog:all=error:stderr")
        from python_udfs.registration import register_all

        register_all(spark)
        (Path(scratch) / "files").mkdir()
        (Path(scratch) / "files" / "a.jsonl").write_text('{"a": 1}\n')
        for statement in _WARM_UP + (_WARM_UP_DELTA if delta_jars() else ()):
            spark.sql(statement.replace("{folder}", str(Path(scratch) / "files"))).collect()
        # the JVM writes the archive when it exits: stop it and wait for that
        jvm = spark.sparkContext._gateway.proc
        spark.stop()
        jvm.stdin.close()
        jvm.wait(timeout=600)
    if not partial.is_file():
        print("class archive: the JVM wrote no archive; Spark starts without it", file=sys.stderr)
        return None
    partial.rename(path)
    print(f"class archive: {path} ({path.stat().st_size // 2**20} MB)")
    return path


if __name__ == "__main__":
    create()
