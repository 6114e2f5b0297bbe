"""`cdc-dbt`: dbt with the project's Python UDFs registered on an in-process Spark session.

dbt-spark's `session` method reuses the process's SparkSession (`builder.getOrCreate()`), so the
project's session (local master, UTC, small shuffles, metastore and warehouse under CDC_SPARK_DIR)
with the UDFs registered on it must exist before dbt's first statement. It is started at most once
per process, by whichever comes first:

* at once, for the commands that always run SQL (`run`, `build`, `seed`, `test`, ...: see
  SPARK_COMMANDS), overlapping the JVM's start with dbt's import; `run` and `build` then load the
  reference seeds when they are missing;
* lazily, at the moment dbt-spark's session cursor first asks for `SparkSession.builder` (see
  install_lazy_session), for everything else: `ls`, `parse`, `deps` never start Java; `compile`
  does only when dbt runs a statement (its relation cache, unless --no-populate-cache, or a
  model's introspective macro).

With CDC_SPARK_REMOTE=sc://host:port the session is instead a Spark Connect session on a running
`cdc-spark-server --connect-port PORT`: no JVM starts here, and the server's JVM, already warm from
earlier runs, plans and runs the statements (DECISIONLOG D55).

`cdc-dbt --version` and `--help` import neither dbt nor pyspark. Every other argument goes to dbt
unchanged.

`cdc-run` (used by `make run`) does `dbt seed` + `dbt run` in one Spark session and prints a
summary: events per vendor, quarantined records, rows in cdc_current and cdc_history.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
# a landing folder given as a URI (s3a://bucket/landing, file:/data/landing) is passed to Spark as is
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/")
LOG4J_CONFIG = Path(__file__).resolve().with_name("log4j2.properties")
# The driver JVM's garbage collector. The local session runs batch queries on two cores, where the
# parallel collector gives more time to the queries than G1, Java's default (DECISIONLOG D49:
# 10^6 Debezium events, a full build 7-10 % and a 1 % batch about 7 % faster).
DRIVER_GC_OPTION = "-XX:+UseParallelGC"
# a collector chosen in these variables wins: the JVM refuses to start with two
_JAVA_ENV_OPTIONS = ("JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS")
_GC_CHOICE = re.compile(r"-XX:\+Use\w*GC\b")


def _fail(message: str) -> None:
    print(f"cdc-dbt: {message}", file=sys.stderr)
    raise SystemExit(2)


def java_problem() -> str | None:
    """Why Spark cannot start on this machine's Java (None when it can). Runs `java -version`, so it
    is called only when Spark is about to start, once per JAVA_HOME and PATH."""
    return _java_problem(os.environ.get("JAVA_HOME", ""), os.environ.get("PATH", ""))


def java_binary() -> str | None:
    """The `java` Spark starts: JAVA_HOME's, else the first on PATH; None when there is none."""
    return _java_on(os.environ.get("JAVA_HOME", ""), os.environ.get("PATH", ""))


def _java_on(java_home: str, path: str) -> str | None:
    return shutil.which("java", path=(f"{java_home}/bin:" if java_home else "") + path)


@functools.cache
def _java_problem(java_home: str, path: str) -> str | None:
    """Spark 4 needs Java 17 or newer; say so plainly instead of a JVM stack trace."""
    java = _java_on(java_home, path)
    if not java:
        return ("Java 17+ is required (Spark runs on the JVM) and no `java` was found. "
                "Install it, e.g. `apt-get install openjdk-17-jre-headless`, or set JAVA_HOME.")
    out = subprocess.run([java, "-version"], capture_output=True, text=True, check=False).stderr
    first = out.splitlines()[0] if out else ""
    try:
        version = first.split('"')[1]
        major = int(version.split(".")[0]) if not version.startswith("1.") else int(version.split(".")[1])
    except (IndexError, ValueError):
        return None  # an unusual version string: let Spark decide
    if major < 17:
        return f"Java 17+ is required, found {version} at {java}. Install a newer JDK or set JAVA_HOME."
    return None


def check_java() -> None:
    """Exit with java_problem()'s message, if any (for code about to start Spark in the main thread)."""
    problem = java_problem()
    if problem:
        _fail(problem)


def spark_remote() -> str | None:
    """CDC_SPARK_REMOTE: the Spark Connect address (sc://host:port) of a running
    `cdc-spark-server --connect-port PORT`, whose warm JVM then runs the statements; unset or
    empty: Spark runs in this process (DECISIONLOG D55)."""
    return os.environ.get("CDC_SPARK_REMOTE", "").strip() or None


# sc://host:port, optionally /;name=value;... (the form pyspark's client parses)
_REMOTE_ADDRESS = re.compile(r"^sc://(?P<host>\[[^\]]+\]|[^:/;\[\]]+):(?P<port>\d{1,5})(/(;.*)?)?$")


def remote_problem(url: str, timeout: float = 3.0) -> str | None:
    """Why cdc-dbt cannot use the Spark Connect server at `url` (None when it answers): a malformed
    address, or nothing listening there. Spark's client would retry for minutes before failing."""
    match = _REMOTE_ADDRESS.match(url)
    if not match or not 0 < int(match.group("port")) < 65536:
        return (f"CDC_SPARK_REMOTE={url} is not a Spark Connect address; write sc://HOST:PORT, e.g. "
                "sc://127.0.0.1:15002, or unset it to run Spark in this process.")
    host, port = match.group("host").strip("[]"), int(match.group("port"))
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as exc:
        return (f"no Spark Connect server answers at {url} ({exc.strerror or exc}). Start one with "
                f"`cdc-spark-server --connect-port {port}` (README 'A Spark that stays up'), or unset "
                "CDC_SPARK_REMOTE to run Spark in this process.")


def connect_session(url: str):
    """A Spark Connect session on the server at `url`; the client needs pyspark's connect extras
    (grpcio and friends, installed by `make setup`)."""
    try:
        from pyspark.sql.connect.session import SparkSession as RemoteSparkSession  # noqa: F401
    except ImportError as exc:
        raise RuntimeError(f"the Spark Connect client is not installed ({exc}); run `make setup`, "
                           "which installs pyspark[connect]") from exc
    from pyspark.sql import SparkSession

    return SparkSession.builder.remote(url).getOrCreate()


def delta_jars() -> list[str]:
    """The Delta Lake jars `make delta` fetched (CDC_DELTA_JARS, default .delta-jars/): both
    delta-spark and delta-storage, or none."""
    folder = Path(os.environ.get("CDC_DELTA_JARS", PROJECT_DIR / ".delta-jars"))
    jars = sorted(str(jar) for jar in folder.glob("delta-*.jar"))
    found = {Path(jar).name.split("-")[1].split("_")[0] for jar in jars}  # spark, storage
    return jars if {"spark", "storage"} <= found else []


def configure_environment() -> None:
    """Absolute defaults for the env vars that dbt_project.yml and profiles.yml read."""
    # the state tables' format: delta when its jars are there (make delta), else parquet
    os.environ.setdefault("CDC_FILE_FORMAT", "delta" if delta_jars() else "parquet")
    os.environ.setdefault("CDC_SPARK_DIR", str(PROJECT_DIR / ".spark"))
    os.environ.setdefault("CDC_LANDING_DIR", str(PROJECT_DIR / "data" / "landing"))
    os.environ.setdefault("DBT_PROFILES_DIR", str(PROJECT_DIR))  # profiles.yml sits next to dbt_project.yml
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
                        extra_conf: dict[str, str] | None = None, java_options: str | None = None):
    """The local session, configured once: dbt threads share it, so no model sets options.

    `cdc-spark-server` passes its own app name, warehouse / metastore overrides and `--conf`
    pairs (applied last, so they win over the defaults below). `java_options`: more driver JVM
    options; default: those that map the class archive `make setup` wrote (class_archive.py).
    """
    from pyspark.sql import SparkSession

    from python_udfs.class_archive import java_options as class_archive_options

    spark_dir = Path(os.environ["CDC_SPARK_DIR"])
    spark_dir.mkdir(parents=True, exist_ok=True)
    shuffle_partitions = os.environ.get("CDC_SHUFFLE_PARTITIONS", "4")
    builder = (
        SparkSession.builder.appName(app_name)
        .master(master or os.environ.get("CDC_SPARK_MASTER", "local[*]"))
        .config("spark.driver.memory", os.environ.get("CDC_SPARK_DRIVER_MEMORY", "6g"))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", shuffle_partitions)
        .config("spark.sql.sources.partitionOverwriteMode", "dynamic")
        # the SQL flattening of a vendor envelope is deep: Spark's analyzer needs 90-odd passes
        # over base_spanner__parsed, close to its default limit of 100
        .config("spark.sql.analyzer.maxIterations", "500")
        .config("spark.sql.warehouse.dir", warehouse_dir or str(spark_dir / "warehouse"))
        .config("spark.hadoop.javax.jdo.option.ConnectionURL",
                metastore_url or f"jdbc:derby:;databaseName={spark_dir / 'metastore_db'};create=true")
        .config("spark.driver.extraJavaOptions",
                f"-Dderby.system.home={spark_dir} -Duser.timezone=UTC -Dlog4j.configurationFile={LOG4J_CONFIG} "
                + driver_gc_option()
                + (class_archive_options() if java_options is None else java_options))
        .config("spark.executor.extraJavaOptions", "-Duser.timezone=UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .enableHiveSupport()
    )
    jars = delta_jars()
    if jars:
        builder = (
            builder.config("spark.jars", ",".join(jars))
            # also on the JVMs' own class path: the Thrift server runs statements under a class
            # loader that does not see `spark.jars` (ClassNotFoundException in Delta's catalog)
            .config("spark.driver.extraClassPath", os.pathsep.join(jars))
            .config("spark.executor.extraClassPath", os.pathsep.join(jars))
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            # a MERGE marks replaced rows in a deletion vector instead of rewriting their files
            .config("spark.databricks.delta.properties.defaults.enableDeletionVectors", "true")
            # Delta rebuilds a table's file list after each commit in 50 partitions by default: on
            # two cores, for tables of a few hundred files, that cost about a sixth of a small run (D33)
            .config("spark.databricks.delta.snapshotPartitions", shuffle_partitions)
            # `optimize` (cdc_compact_when_fragmented, every tenth run or so) rewrites the files
            # under this size: the small ones each MERGE adds, not a large history's big files
            # (Delta's default, 1 GB, would rewrite up to 16 GB each time; D61). 64 MB is what
            # Delta's own auto compaction takes as small.
            .config("spark.databricks.delta.optimize.minFileSize", str(64 * 1024 * 1024))
        )
    elif os.environ.get("CDC_FILE_FORMAT") == "delta":
        raise RuntimeError("CDC_FILE_FORMAT=delta but the Delta Lake jars are not in "
                           f"{os.environ.get('CDC_DELTA_JARS', PROJECT_DIR / '.delta-jars')}: run `make delta`, "
                           "or set CDC_FILE_FORMAT=parquet")
    for key, value in (extra_conf or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def driver_gc_option() -> str:
    """DRIVER_GC_OPTION and a space, or '' when JDK_JAVA_OPTIONS or JAVA_TOOL_OPTIONS choose a
    collector themselves (their choice is kept)."""
    if any(_GC_CHOICE.search(os.environ.get(name, "")) for name in _JAVA_ENV_OPTIONS):
        return ""
    return DRIVER_GC_OPTION + " "


class SparkStartError(RuntimeError):
    """The project's Spark session could not start (no Java 17+, or the JVM failed)."""


_session_lock = threading.Lock()
_session = None
_session_error: str | None = None


def project_session(master: str | None = None):
    """The process's one project session with the UDFs registered, started on first call.

    Thread-safe: dbt's threads may ask at the same time; one starts Spark (Java check, session,
    register_all) while the others wait for it. A failed start is not retried: every later caller
    gets the same SparkStartError.
    """
    global _session, _session_error
    with _session_lock:
        if _session is None:
            if _session_error is not None:
                raise SparkStartError(_session_error)
            remote = spark_remote()
            problem = remote_problem(remote) if remote else java_problem()
            if problem:
                _session_error = f"cdc-dbt: {problem}"
                raise SparkStartError(_session_error)
            configure_environment()
            try:
                from python_udfs.registration import register_all

                spark = connect_session(remote) if remote else build_spark_session(master)
                register_all(spark)  # on a server, the functions belong to this run's session only
            except Exception as exc:
                where = f"on the Spark Connect server {remote}" if remote else "Spark did not start"
                _session_error = f"cdc-dbt: {where}: {type(exc).__name__}: {exc}"
                raise SparkStartError(_session_error) from exc
            if remote:
                atexit.register(_release_remote_session, spark, remote)
            _session = spark
        return _session


def _release_remote_session(spark, url: str) -> None:
    """End this run's session on the server (its temporary views and functions go with it). A
    server that is gone has nothing to release, and Spark's client would retry for minutes: ask
    only one that answers, and wait for it a few seconds at most."""
    if remote_problem(url, timeout=1) is not None:
        return
    release = threading.Thread(target=_stop_quietly, args=(spark,), daemon=True)
    release.start()
    release.join(timeout=5)


def _stop_quietly(spark) -> None:
    with contextlib.suppress(Exception):  # the server may stop meanwhile: nothing to release then
        spark.stop()


def start(master: str | None = None):
    """Start the project session now (exits with a plain message when Java is missing)."""
    if not spark_remote():
        check_java()
    elif not install_lazy_session():
        # on a Spark Connect server dbt-spark must get the project session, never build its own
        _fail("dbt-spark's session module has no `SparkSession` to hook, so CDC_SPARK_REMOTE cannot be "
              "used with this dbt-spark; unset it to run Spark in this process.")
    configure_environment()
    # importing dbt takes about 2 s of Python; let it overlap the JVM's start-up
    dbt_import = threading.Thread(target=importlib.import_module, args=("dbt.cli.main",), daemon=True)
    dbt_import.start()
    spark = project_session(master)
    dbt_import.join()
    return spark


class _ProjectSessionFirst:
    """Stands in for pyspark's `SparkSession` inside dbt-spark's session module only.

    dbt-spark's `Cursor.execute` runs `SparkSession.builder.enableHiveSupport()...getOrCreate()`
    before each statement. Reading `.builder` here first makes sure the project session exists
    (started by project_session, once), so that getOrCreate() returns it, UDFs registered, exactly
    as when cdc-dbt started it before dbt. Everything else is pyspark's SparkSession unchanged.
    """

    def __init__(self, spark_session_class) -> None:
        self._real = spark_session_class

    @property
    def builder(self):
        project_session()
        if spark_remote():
            # the profile's server_side_parameters (spark.master among them) are the server's
            # business: a Connect session refuses a master, and its static settings are fixed
            return _ProjectSessionBuilder()
        return self._real.builder

    def __getattr__(self, name: str):
        return getattr(self._real, name)


class _ProjectSessionBuilder:
    """What dbt-spark's cursor gets for `SparkSession.builder` when the session is a Spark Connect
    one (CDC_SPARK_REMOTE): its settings are ignored, getOrCreate() returns the project session."""

    def enableHiveSupport(self):
        return self

    def config(self, *_args, **_kwargs):
        return self

    def getOrCreate(self):
        return project_session()


def install_lazy_session() -> bool:
    """Hook dbt-spark's session method so that its first statement starts the project session.

    Returns False (nothing hooked) when dbt-spark's session module no longer has the
    `SparkSession` name its cursor builds sessions from; main() then starts Spark at once.
    """
    try:
        from dbt.adapters.spark import session as dbt_spark_session
    except ImportError:
        return False
    current = getattr(dbt_spark_session, "SparkSession", None)
    if isinstance(current, _ProjectSessionFirst):
        return True
    if current is None or not hasattr(current, "builder"):
        return False
    dbt_spark_session.SparkSession = _ProjectSessionFirst(current)
    return True


def invoke_dbt(args: list[str]) -> int:
    """Run one dbt command in this process; returns dbt's exit code convention (0, 1, 2)."""
    from dbt.cli.main import dbtRunner

    from python_udfs import cte_injection, unit_test_graph

    cte_injection.install()  # the unit tests' given rows placed without parsing the model's SQL (D44)
    unit_test_graph.install()  # unit tests typed from the model's declared columns (D46)
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


# Commands that always run SQL: Spark starts at once, while dbt is being imported (about 2 s saved).
# Any other command starts it only if dbt runs a statement (install_lazy_session).
SPARK_COMMANDS = ("run", "build", "seed", "test", "snapshot", "show", "clone", "retry")


def starts_spark_at_once(args: list[str]) -> bool:
    if not args or "-h" in args or "--help" in args:
        return False
    return args[0] in SPARK_COMMANDS or args[:2] == ["docs", "generate"]


def _version(package: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def print_version() -> None:
    """Versions from the installed packages' metadata: neither dbt nor pyspark is imported."""
    print(f"cdc-dbt {_version('cdc-dbt-spark')} (project {PROJECT_DIR})")
    for package in ("dbt-core", "dbt-spark", "pyspark"):
        print(f"  {package:<10} {_version(package)}")
    print(f"  {'python':<10} {sys.version.split()[0]} ({sys.executable})")


# The environment cdc-dbt, profiles.yml and dbt_project.yml read: (name, default, meaning).
ENVIRONMENT = (
    ("CDC_LANDING_DIR", str(PROJECT_DIR / "data" / "landing"),
     "input: one sub-folder per vendor (debezium/, qlik/, ...), or a URI (s3a://...)"),
    ("CDC_SPARK_DIR", str(PROJECT_DIR / ".spark"), "Spark state: metastore_db/ and warehouse/"),
    ("CDC_SPARK_MASTER", "local[*]", "Spark master of the session cdc-dbt starts"),
    ("CDC_SPARK_DRIVER_MEMORY", "6g", "spark.driver.memory"),
    ("CDC_SHUFFLE_PARTITIONS", "4", "spark.sql.shuffle.partitions and spark.databricks.delta.snapshotPartitions"),
    ("CDC_SCHEMA", "cdc", "schema prefix: <schema>_staging, _intermediate, _marts, _reference"),
    ("CDC_FILE_FORMAT", "parquet",
     "format of the state tables; cdc-dbt makes it delta when CDC_DELTA_JARS holds the jars (make delta)"),
    ("CDC_DELTA_JARS", str(PROJECT_DIR / ".delta-jars"), "folder of the Delta Lake jars `make delta` fetches"),
    ("CDC_CLASS_ARCHIVE", "on", "off: start the JVM without the class archive `make setup` wrote (.spark-cds/)"),
    ("CDC_SPARK_REMOTE", "unset: Spark runs in this process",
     "sc://HOST:PORT of a running `cdc-spark-server --connect-port PORT`: its warm JVM runs the SQL"),
    ("CDC_DBT_TARGET", "local", "profiles.yml target: local (this process) or thrift (cdc-spark-server)"),
    ("CDC_THRIFT_HOST", "127.0.0.1", "thrift target: server host"),
    ("CDC_THRIFT_PORT", "10000", "thrift target: server port"),
    ("CDC_THRIFT_USER", "dbt", "thrift target: user name"),
    ("DBT_PROFILES_DIR", str(PROJECT_DIR), "folder of profiles.yml"),
    ("DBT_PROJECT_DIR", str(PROJECT_DIR), "dbt project folder (cdc-dbt also runs dbt from there)"),
    ("JAVA_HOME", "the `java` on PATH", "Java 17+ for Spark, checked only when Spark starts"),
    ("PYSPARK_PYTHON", "this interpreter", "Python of Spark's workers (also PYSPARK_DRIVER_PYTHON)"),
)


def print_help() -> None:
    print("usage: cdc-dbt <dbt command> [dbt flags]    e.g. cdc-dbt run --full-refresh\n"
          "       cdc-dbt <dbt command> --help         dbt's own help for that command\n"
          "       cdc-dbt --version | --help\n"
          "\n"
          "Runs dbt in this process on a local Spark session with the project's Python UDFs registered\n"
          "(or on a running `cdc-spark-server --connect-port PORT`: set CDC_SPARK_REMOTE=sc://HOST:PORT).\n"
          "Spark (Java 17+; none here with CDC_SPARK_REMOTE) starts at once for\n"
          f"{', '.join(SPARK_COMMANDS)} and docs generate;\n"
          "for any other command only when dbt first runs a statement: ls, parse, deps and clean never\n"
          "do; compile does to fill dbt's relation cache (skip it: --no-populate-cache) and for models\n"
          "whose macros query the warehouse. run and build load the reference seeds first when missing.\n"
          "\n"
          "Environment (* = set in this environment):")
    width = max(len(name) for name, _, _ in ENVIRONMENT)
    for name, default, meaning in ENVIRONMENT:
        mark = "*" if name in os.environ else " "
        print(f" {mark}{name:<{width}}  {meaning}\n   {'':<{width}}  default: {default}")
    print("dbt's own variables (DBT_TARGET_PATH, DBT_LOG_PATH, ...) work as with plain dbt.")


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print_help()
        raise SystemExit(0)
    if args[0] == "--version":
        print_version()
        raise SystemExit(0)
    configure_environment()
    if "-h" not in args and "--help" not in args and not spark_remote():  # a server's folder is the server's
        check_landing_dir(args[0])
    spark = None
    if starts_spark_at_once(args) or not install_lazy_session():
        try:
            spark = start()
        except SparkStartError as exc:  # the JVM's own output is above
            print(exc, file=sys.stderr)
            raise SystemExit(2) from None
    os.chdir(PROJECT_DIR)
    if spark is not None and ensure_reference_seeds(spark, args) != 0:
        raise SystemExit(1)
    raise SystemExit(invoke_dbt(args))


def run_and_summarise(argv: list[str] | None = None) -> None:
    """`cdc-run`: dbt seed + dbt run on the bundled or given landing folder, then a summary."""
    extra = list(sys.argv[1:] if argv is None else argv)
    try:
        spark = start()
    except SparkStartError as exc:
        print(exc, file=sys.stderr)
        raise SystemExit(2) from None
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
