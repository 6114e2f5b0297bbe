"""`cdc-dbt`: dbt with the project's Python UDFs registered on an in-process Spark session.

dbt-spark's `session` method reuses the process's SparkSession (`builder.getOrCreate()`), so we
build the session first (local master, UTC, small shuffles, metastore and warehouse under
CDC_SPARK_DIR), register the UDFs on it, then hand every argument to dbt unchanged.

`cdc-run` (used by `make run`) does `dbt seed` + `dbt run` in one Spark session and prints a
summary: events per vendor, quarantined records, rows in cdc_current and cdc_history.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
# a landing folder given as a URI (s3a://bucket/landing, file:/data/landing) is passed to Spark as is
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/")
LOG4J_CONFIG = Path(__file__).resolve().with_name("log4j2.properties")


def _fail(message: str) -> None:
    print(f"cdc-dbt: {message}", file=sys.stderr)
    raise SystemExit(2)


def check_java() -> None:
    """Spark 4 needs Java 17 or newer; say so plainly instead of a JVM stack trace."""
    java_home = os.environ.get("JAVA_HOME", "")
    java = shutil.which("java", path=(f"{java_home}/bin:" if java_home else "") + os.environ.get("PATH", ""))
    if not java:
        _fail("Java 17+ is required (Spark runs on the JVM) and no `java` was found. "
              "Install it, e.g. `apt-get install openjdk-17-jre-headless`, or set JAVA_HOME.")
    out = subprocess.run([java, "-version"], capture_output=True, text=True, check=False).stderr
    first = out.splitlines()[0] if out else ""
    try:
        version = first.split('"')[1]
        major = int(version.split(".")[0]) if not version.startswith("1.") else int(version.split(".")[1])
    except (IndexError, ValueError):
        return  # an unusual version string: let Spark decide
    if major < 17:
        _fail(f"Java 17+ is required, found {version} at {java}. Install a newer JDK or set JAVA_HOME.")


def configure_environment() -> None:
    """Absolute defaults for the env vars that dbt_project.yml and profiles.yml read."""
    os.environ.setdefault("CDC_SPARK_DIR", str(PROJECT_DIR / ".spark"))
    os.environ.setdefault("CDC_LANDING_DIR", str(PROJECT_DIR / "data" / "landing"))
    os.environ.setdefault("DBT_PROFILES_DIR", str(PROJECT_DIR / "profiles"))
    os.environ.setdefault("DBT_PROJECT_DIR", str(PROJECT_DIR))
    # Spark's Python workers must use this interpreter (the venv's), not whatever `python3` is.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ["CDC_SPARK_DIR"] = str(Path(os.environ["CDC_SPARK_DIR"]).resolve())
    if not _URI.match(os.environ["CDC_LANDING_DIR"]):  # s3a://, gs://, hdfs://... are Spark's to resolve
        os.environ["CDC_LANDING_DIR"] = str(Path(os.environ["CDC_LANDING_DIR"]).resolve())


def check_landing_dir(command: str) -> None:
    """A local landing folder that does not exist is a typo, not an empty feed: say so before Spark
    starts (Spark's own error would be PATH_NOT_FOUND from deep inside a model)."""
    landing = os.environ["CDC_LANDING_DIR"]
    if command in ("run", "build") and not _URI.match(landing) and not Path(landing).is_dir():
        _fail(f"CDC_LANDING_DIR={landing} is not a folder. Point it at the folder that holds one sub-folder "
              f"per vendor (debezium/, qlik/, ...; README 'Your own feeds'), or unset it to read the bundled "
              f"samples in {PROJECT_DIR / 'data' / 'landing'}.")


def build_spark_session(master: str | None = None, *, app_name: str = "cdc-dbt",
                        warehouse_dir: str | None = None, metastore_url: str | None = None,
                        extra_conf: dict[str, str] | None = None):
    """The local session, configured once: dbt threads share it, so no model sets options.

    `cdc-spark-server` passes its own app name, warehouse / metastore overrides and `--conf`
    pairs (applied last, so they win over the defaults below).
    """
    from pyspark.sql import SparkSession

    spark_dir = Path(os.environ["CDC_SPARK_DIR"])
    spark_dir.mkdir(parents=True, exist_ok=True)
    builder = (
        SparkSession.builder.appName(app_name)
        .master(master or os.environ.get("CDC_SPARK_MASTER", "local[*]"))
        .config("spark.driver.memory", os.environ.get("CDC_SPARK_DRIVER_MEMORY", "6g"))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", os.environ.get("CDC_SHUFFLE_PARTITIONS", "4"))
        .config("spark.sql.sources.partitionOverwriteMode", "dynamic")
        # the SQL flattening of a vendor envelope is deep: Spark's analyzer needs 90-odd passes
        # over base_spanner__parsed, close to its default limit of 100
        .config("spark.sql.analyzer.maxIterations", "500")
        .config("spark.sql.warehouse.dir", warehouse_dir or str(spark_dir / "warehouse"))
        .config("spark.hadoop.javax.jdo.option.ConnectionURL",
                metastore_url or f"jdbc:derby:;databaseName={spark_dir / 'metastore_db'};create=true")
        .config("spark.driver.extraJavaOptions",
                f"-Dderby.system.home={spark_dir} -Duser.timezone=UTC -Dlog4j.configurationFile={LOG4J_CONFIG}")
        .config("spark.executor.extraJavaOptions", "-Duser.timezone=UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .enableHiveSupport()
    )
    for key, value in (extra_conf or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def start(master: str | None = None):
    check_java()
    configure_environment()
    from python_udfs.registration import register_all

    # importing dbt takes about 2 s of Python; let it overlap the JVM's start-up
    dbt_import = threading.Thread(target=importlib.import_module, args=("dbt.cli.main",), daemon=True)
    dbt_import.start()
    spark = build_spark_session(master)
    register_all(spark)
    dbt_import.join()
    return spark


def invoke_dbt(args: list[str]) -> int:
    """Run one dbt command in this process; returns dbt's exit code convention (0, 1, 2)."""
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke(list(args))
    if result.exception is not None:
        print(f"cdc-dbt: dbt raised {type(result.exception).__name__}: {result.exception}", file=sys.stderr)
        return 2
    return 0 if result.success else 1


# Seeds the models read (op codes, primary keys): `cdc-dbt run` loads them when they are missing.
REFERENCE_SEEDS = ("cdc_op_codes", "cdc_primary_keys")


def ensure_reference_seeds(spark, args: list[str]) -> int:
    """Load the seeds first when a fresh CDC_SPARK_DIR has none, so `cdc-dbt run` works alone, and
    so does a `cdc-dbt build --select` that leaves them out (one vendor alone, say).

    After editing a seed, run `cdc-dbt seed` (see DECISIONLOG D11).
    """
    if not args or args[0] not in ("run", "build"):
        return 0
    schema = os.environ.get("CDC_SCHEMA", "cdc") + "_reference"
    missing = [seed for seed in REFERENCE_SEEDS if not spark.catalog.tableExists(f"{schema}.{seed}")]
    if not missing:
        return 0
    print(f"cdc-dbt: loading reference seeds first ({', '.join(missing)} not built yet)", file=sys.stderr)
    return invoke_dbt(["seed", "--quiet"])


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print("usage: cdc-dbt <dbt command> [dbt flags]   e.g. cdc-dbt run --full-refresh\n"
              "Runs dbt with the project's Python UDFs registered on a local Spark session.\n"
              "Env: CDC_LANDING_DIR (input, default data/landing), CDC_SPARK_DIR (state, default .spark).")
        raise SystemExit(0)
    check_java()
    configure_environment()
    check_landing_dir(args[0])
    spark = start()
    os.chdir(PROJECT_DIR)
    if ensure_reference_seeds(spark, args) != 0:
        raise SystemExit(1)
    raise SystemExit(invoke_dbt(args))


def run_and_summarise(argv: list[str] | None = None) -> None:
    """`cdc-run`: dbt seed + dbt run on the bundled or given landing folder, then a summary."""
    extra = list(sys.argv[1:] if argv is None else argv)
    spark = start()
    os.chdir(PROJECT_DIR)
    for command in (["seed"], ["run", *extra]):
        code = invoke_dbt(command)
        if code != 0:
            raise SystemExit(code)
    from python_udfs.summary import print_summary

    print_summary(spark, os.environ.get("CDC_SCHEMA", "cdc"))
    raise SystemExit(0)


if __name__ == "__main__":
    main()
