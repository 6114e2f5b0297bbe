"""`cdc-spark-server`: a Spark Thrift Server whose one shared session holds the project's UDFs.

dbt's `thrift` target (profiles.yml) connects to it with plain `dbt`; the server is the
Spark driver, so the same project runs on `local[*]`, a standalone cluster (`spark://…`), YARN
(client mode) or Kubernetes. Steps: build the session as `cdc-dbt` does (runner.build_spark_session)
with `spark.sql.hive.thriftServer.singleSession=true`, ship the python_udfs package to the
executors (non-local masters), register the UDFs, start HiveThriftServer2 on that session, wait
until the port accepts connections, print one "listening" line, and on SIGTERM / SIGINT stop the
server and the SparkContext and exit 0.

With `--connect-port PORT` the same SparkContext also serves Spark Connect: `cdc-dbt` with
CDC_SPARK_REMOTE=sc://HOST:PORT runs dbt in its own process but its statements in this JVM, which
stays warm between runs (DECISIONLOG D55). Each such run is a Connect session of its own (its
temporary views and the UDFs it registers are its own); the catalog and the tables are shared.
"""

from __future__ import annotations

import argparse
import errno
import os
import signal
import socket
import sys
import threading
import time
import zipfile
from pathlib import Path

from python_udfs.runner import PROJECT_DIR, build_spark_session, check_java, configure_environment

PACKAGE_DIR = Path(__file__).resolve().parent
READY_TIMEOUT_SECONDS = 120


def _fail(message: str, code: int = 2) -> None:
    print(f"cdc-spark-server: {message}", file=sys.stderr, flush=True)
    raise SystemExit(code)


def _log(message: str) -> None:
    print(f"cdc-spark-server: {message}", file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="cdc-spark-server",
        description="Start a Spark Thrift Server with the project's Python UDFs registered, for "
                    "`dbt … --target thrift`. Stop it with Ctrl-C or SIGTERM.")
    parser.add_argument("--master", default=os.environ.get("CDC_SPARK_MASTER", "local[*]"),
                        help="Spark master: local[*] (default, or CDC_SPARK_MASTER), spark://host:7077, "
                             "yarn, k8s://https://host:443")
    parser.add_argument("--host", default=os.environ.get("CDC_THRIFT_HOST", "127.0.0.1"),
                        help="address the Thrift server binds to (default 127.0.0.1; 0.0.0.0 for all)")
    parser.add_argument("--port", type=int, default=int(os.environ.get("CDC_THRIFT_PORT", "10000")),
                        help="Thrift server port (default 10000, or CDC_THRIFT_PORT)")
    parser.add_argument("--connect-port", type=int, default=None, metavar="PORT",
                        help="also serve Spark Connect on PORT (e.g. 15002), on the same host: "
                             "`CDC_SPARK_REMOTE=sc://HOST:PORT cdc-dbt run` then runs on this warm JVM")
    parser.add_argument("--spark-dir", default=os.environ.get("CDC_SPARK_DIR", str(PROJECT_DIR / ".spark")),
                        help="state folder: metastore_db/, warehouse/, scratch files "
                             "(default CDC_SPARK_DIR or the project's .spark)")
    parser.add_argument("--warehouse-dir", help="spark.sql.warehouse.dir (default <spark-dir>/warehouse); "
                                                "on a real cluster a shared path, e.g. hdfs:///cdc/warehouse")
    parser.add_argument("--metastore-url", help="metastore JDBC URL (default: Derby in <spark-dir>/metastore_db)")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="any Spark setting, repeatable, e.g. --conf spark.executor.memory=2g")
    return parser.parse_args(argv)


def parse_conf(pairs: list[str]) -> dict[str, str]:
    conf = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            _fail(f"--conf takes KEY=VALUE, got {pair!r} (e.g. --conf spark.executor.memory=2g)")
        conf[key.strip()] = value
    return conf


# who else may hold a port, and what to set after picking another, by option
_PORT_USERS = {
    "--port": ("another Thrift server or HiveServer2?", "set CDC_THRIFT_PORT=N for dbt"),
    "--connect-port": ("another Spark Connect server?", "set CDC_SPARK_REMOTE=sc://HOST:N for cdc-dbt"),
}


def check_port_free(host: str, port: int, option: str = "--port") -> None:
    if not 0 < port < 65536:
        _fail(f"{option} must be between 1 and 65535, got {port}")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Java's server socket: TIME_WAIT is fine
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                holder, then = _PORT_USERS[option]
                _fail(f"port {port} on {host} is already in use ({holder}). "
                      f"Stop it, or pick another port with {option} N and {then}.")
            _fail(f"cannot bind {host}:{port}: {exc.strerror or exc}. Check --host.")


def accepts_connections(host: str, port: int) -> bool:
    try:
        with socket.create_connection((_client_host(host), port), timeout=2):
            return True
    except OSError:
        return False


def _client_host(host: str) -> str:
    return "127.0.0.1" if host in ("0.0.0.0", "") else host


def _wait_until_listening(host: str, port: int, what: str, stop_requested: threading.Event) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while not accepts_connections(host, port):
        if stop_requested.is_set():
            return
        if time.monotonic() > deadline:
            _fail(f"{what} did not accept connections on {host}:{port} within "
                  f"{READY_TIMEOUT_SECONDS} s (see the Spark log above)", code=1)
        time.sleep(0.5)


def package_zip(spark_dir: Path) -> Path:
    """python_udfs as a zip for sc.addPyFile, so executors on other machines can import it."""
    target = spark_dir / "cdc-python-udfs.zip"
    partial = target.with_suffix(".zip.partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(PACKAGE_DIR.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                archive.write(path, Path("python_udfs") / path.relative_to(PACKAGE_DIR))
    partial.replace(target)
    return target


def server_conf(args: argparse.Namespace, spark_dir: Path) -> dict[str, str]:
    """Settings of the server session; the user's --conf pairs come last and win."""
    scratch = spark_dir / "hive-scratch"
    for name in ("hdfs", "local", "resources", "operation_logs"):
        (scratch / name).mkdir(parents=True, exist_ok=True)  # Hive creates only the last level
    conf = {
        "spark.sql.hive.thriftServer.singleSession": "true",
        # dbt-spark asks for this on every connection; the shared session must agree from the start.
        "spark.sql.ansi.enabled": "false",
        "spark.hadoop.hive.server2.thrift.bind.host": args.host,
        "spark.hadoop.hive.server2.thrift.port": str(args.port),
        # Hive's scratch and operation-log folders default to /tmp/<user>: keep them with the state.
        "spark.hadoop.hive.exec.scratchdir": str(scratch / "hdfs"),
        "spark.hadoop.hive.exec.local.scratchdir": str(scratch / "local"),
        # per JDBC session (as Hive's default): closing a session deletes its folder
        "spark.hadoop.hive.downloaded.resources.dir": str(scratch / "resources") + "/${hive.session.id}",
        "spark.hadoop.hive.server2.logging.operation.log.location": str(scratch / "operation_logs"),
    }
    if args.connect_port is not None:
        conf["spark.connect.grpc.binding.address"] = args.host
        conf["spark.connect.grpc.binding.port"] = str(args.connect_port)
    conf.update(parse_conf(args.conf))
    return conf


def main(argv: list[str] | None = None) -> None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.connect_port is not None and args.connect_port == args.port:
        _fail(f"--connect-port and --port are both {args.port}; give Spark Connect its own port (e.g. 15002)")
    spark_dir = Path(args.spark_dir).expanduser().resolve()
    os.environ["CDC_SPARK_DIR"] = str(spark_dir)
    check_java()
    check_port_free(args.host, args.port)
    if args.connect_port is not None:
        check_port_free(args.host, args.connect_port, "--connect-port")
    configure_environment()  # PYSPARK_PYTHON defaults to this interpreter (executors run the UDFs with it)
    # HiveServer2 reads these before its configuration: they make --host/--port authoritative.
    os.environ["HIVE_SERVER2_THRIFT_BIND_HOST"] = args.host
    os.environ["HIVE_SERVER2_THRIFT_PORT"] = str(args.port)
    conf = server_conf(args, spark_dir)
    local = args.master.startswith("local")

    stop_requested = threading.Event()

    def request_stop(signum, _frame):
        _log(f"{signal.Signals(signum).name} received, stopping")
        stop_requested.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)

    started = time.monotonic()
    _log(f"starting Spark (master {args.master}, spark dir {spark_dir})")
    try:
        spark = build_spark_session(args.master, app_name="cdc-spark-server", warehouse_dir=args.warehouse_dir,
                                    metastore_url=args.metastore_url, extra_conf=conf)
    except Exception as exc:  # noqa: BLE001 - one line instead of a py4j stack trace
        _fail(f"Spark did not start (master {args.master}): {type(exc).__name__}: "
              f"{str(exc).splitlines()[0] if str(exc) else ''} (see the Spark log above)", code=1)
    # SparkContext installs its own SIGINT handler (cancel jobs, raise KeyboardInterrupt): take it back.
    signal.signal(signal.SIGINT, request_stop)
    server = None
    connect = None
    code = 0
    try:
        if not local:
            spark.sparkContext.addPyFile(str(package_zip(spark_dir)))
        from python_udfs.registration import register_all

        names = register_all(spark)
        jvm = spark.sparkContext._jvm
        server = jvm.org.apache.spark.sql.hive.thriftserver.HiveThriftServer2.startWithContext(
            spark._jsparkSession.sqlContext())
        _wait_until_listening(args.host, args.port, "the Thrift server", stop_requested)
        if args.connect_port is not None and not stop_requested.is_set():
            connect = jvm.org.apache.spark.sql.connect.service.SparkConnectService
            connect.start(spark.sparkContext._jsc.sc())
            _wait_until_listening(args.host, args.connect_port, "Spark Connect", stop_requested)
        if not stop_requested.is_set():
            print(f"Spark Thrift Server listening on jdbc:hive2://{args.host}:{args.port} "
                  f"(master {args.master}, Spark {spark.version}, {len(names)} UDFs, "
                  f"ready in {time.monotonic() - started:.0f} s; stop with Ctrl-C or SIGTERM)", flush=True)
            if connect is not None:
                print(f"Spark Connect listening on sc://{args.host}:{args.connect_port} "
                      f"(CDC_SPARK_REMOTE=sc://{_client_host(args.host)}:{args.connect_port} cdc-dbt run)",
                      flush=True)
        while not stop_requested.wait(2):
            if spark.sparkContext._jsc.sc().isStopped():
                _log("the SparkContext stopped (cluster lost?); exiting")
                code = 1
                break
    except KeyboardInterrupt:
        _log("interrupted, stopping")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:  # noqa: BLE001 - report any start failure in one line, then clean up
        _log(f"failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
        code = 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if connect is not None:
            try:
                connect.stop(getattr(connect, "stop$default$1")(), getattr(connect, "stop$default$2")())
            except Exception as exc:  # noqa: BLE001 - the JVM may already be gone
                _log(f"stopping Spark Connect: {type(exc).__name__}")
        if server is not None:
            try:
                server.stop()
            except Exception as exc:  # noqa: BLE001 - the JVM may already be gone
                _log(f"stopping the Thrift server: {type(exc).__name__}")
        try:
            spark.stop()
        except Exception as exc:  # noqa: BLE001
            _log(f"stopping Spark: {type(exc).__name__}")
        _log("stopped")
    raise SystemExit(code)


if __name__ == "__main__":
    main()
