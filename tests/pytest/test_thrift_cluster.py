"""The project on a real Spark cluster: standalone master + one worker, `cdc-spark-server`, plain dbt
and cdc-dbt through Spark Connect.

Everything binds to 127.0.0.1 and runs in its own process group, which the fixtures kill at the
end (also when the test fails). The UDFs run in the worker's executor, which imports python_udfs
from the zip the server ships (sc.addPyFile), as it would on a remote machine. The result of
`dbt seed` + `dbt run --target thrift` must equal the local target's on the same landing files: the local
side is the bundled samples' build on the tests' shared session (conftest bundled_samples_build,
which test_bundled_samples.py checks), read here for the two vendors the cluster builds.
Two vendors keep it short: Debezium (flattened in SQL) and Datastream (Avro files and its parser
are Python functions, so the executor's Python is exercised); the data tests run in
test_bundled_samples.py, not here. The same server also serves Spark Connect (--connect-port):
`cdc-dbt run` with CDC_SPARK_REMOTE builds the two vendors again, in a schema of its own, through
it (the UDFs registered by the client's session, run by the worker), with the same result
(DECISIONLOG D55).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import CDC_DBT, PROJECT_DIR, SamplesBuild, free_port

pytestmark = [pytest.mark.spark, pytest.mark.cluster]

BIN = Path(sys.executable).parent
CURRENT_ROWS = ("select to_json(struct(*)) as row_json from {{ ref('cdc_current') }} "
                "order by source_vendor, source_table, pk")
STARTUP_TIMEOUT = 180
# the vendors built on both sides, and the dbt selection that builds them alone
VENDORS = ("debezium", "datastream")
VENDORS_ALONE = ("--select", *(f"staging.{vendor}+" for vendor in VENDORS),
                  "--vars", "{cdc_vendors: [" + ", ".join(VENDORS) + "]}")


def spark_class() -> Path:
    import pyspark

    path = Path(pyspark.__file__).parent / "bin" / "spark-class"
    assert path.exists(), f"the pyspark wheel has no bin/spark-class at {path}"
    return path


class Processes:
    """Started processes (each in its own session / process group) and their log files."""

    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.started: list[tuple[str, subprocess.Popen]] = []

    def start(self, name: str, command: list[str], env: dict[str, str]) -> subprocess.Popen:
        log = (self.log_dir / f"{name}.log").open("w")
        proc = subprocess.Popen(command, cwd=PROJECT_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        self.started.append((name, proc))
        return proc

    def log(self, name: str) -> str:
        path = self.log_dir / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self, name: str, grace: float = 60) -> int | None:
        """SIGTERM to the process (a clean stop), then SIGKILL to its whole process group."""
        for entry in list(self.started):
            if entry[0] != name:
                continue
            proc = entry[1]
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=grace)
                except subprocess.TimeoutExpired:
                    pass
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # leftovers: the JVM, Python workers
            except (ProcessLookupError, PermissionError):
                pass
            if proc.poll() is None:
                proc.wait(timeout=30)
            self.started.remove(entry)
            return proc.returncode
        return None

    def stop_all(self) -> None:
        for name, _ in reversed(list(self.started)):
            self.stop(name, grace=20)


def wait_for(what: str, ready, proc: subprocess.Popen, processes: Processes, name: str) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while not ready():
        if proc.poll() is not None:
            pytest.fail(f"{what}: the process exited ({proc.returncode}):\n{processes.log(name)[-6000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not ready after {STARTUP_TIMEOUT} s:\n{processes.log(name)[-6000:]}")
        time.sleep(1)


def alive_workers(webui_port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{webui_port}/json/", timeout=5) as answer:
            state = json.load(answer)
    except (OSError, ValueError):
        return 0
    return sum(1 for worker in state.get("workers", []) if worker.get("state") == "ALIVE")


@pytest.fixture
def processes(tmp_path: Path):
    started = Processes(tmp_path)
    yield started
    started.stop_all()


@pytest.fixture
def standalone_master(processes: Processes) -> str:
    """A Spark standalone master and one worker (2 cores, 2g) on 127.0.0.1; returns the master URL."""
    began = time.monotonic()
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_DAEMON_MEMORY": "512m",
           "SPARK_WORKER_DIR": str(processes.log_dir / "worker"),
           "SPARK_LOCAL_DIRS": str(processes.log_dir / "spark-local")}
    port, webui = free_port(), free_port()
    master = processes.start("master", [str(spark_class()), "org.apache.spark.deploy.master.Master",
                                        "--host", "127.0.0.1", "--port", str(port),
                                        "--webui-port", str(webui)], env)
    url = f"spark://127.0.0.1:{port}"
    worker = processes.start("worker", [str(spark_class()), "org.apache.spark.deploy.worker.Worker", url,
                                        "--host", "127.0.0.1", "--cores", "2", "--memory", "2g",
                                        "--webui-port", str(free_port())], env)
    wait_for("standalone master", lambda: alive_workers(webui) > 0 or worker.poll() is not None,
             master, processes, "master")
    wait_for("standalone worker", lambda: alive_workers(webui) > 0, worker, processes, "worker")
    print(f"\n[cluster] master {url} + 1 worker registered in {time.monotonic() - began:.0f} s")
    return url


def start_server(processes: Processes, master: str, spark_dir: Path) -> tuple[int, int]:
    """cdc-spark-server on the cluster; returns its Thrift port and its Spark Connect port."""
    began = time.monotonic()
    port, connect_port = free_port(), free_port()
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"}
    server = processes.start("server", [
        str(BIN / "cdc-spark-server"), "--master", master, "--port", str(port), "--connect-port", str(connect_port),
        "--spark-dir", str(spark_dir),
        "--conf", "spark.driver.memory=1g", "--conf", "spark.driver.host=127.0.0.1",
        "--conf", "spark.executor.memory=1g", "--conf", "spark.executor.cores=2",
        "--conf", "spark.cores.max=2"], env)
    wait_for("cdc-spark-server", lambda: "Spark Connect listening on" in processes.log("server"),
             server, processes, "server")
    assert "Spark Thrift Server listening on" in processes.log("server")
    print(f"[cluster] cdc-spark-server ready on 127.0.0.1:{port} (Spark Connect {connect_port}) "
          f"in {time.monotonic() - began:.0f} s")
    return port, connect_port


def client_command(command: list[str], root: Path, landing: Path, env: dict[str, str]) -> str:
    """A client of the server, run from the project folder with `root`'s target/ and logs/ and the
    landing folder the server reads; its stdout, or the test fails with its output."""
    env = {**os.environ, "CDC_LANDING_DIR": str(landing), "DBT_TARGET_PATH": str(root / "target"),
           "DBT_LOG_PATH": str(root / "logs"), "CDC_SPARK_DIR": str(root / "unused-local-spark"), **env}
    proc = subprocess.run(command, cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=1800,
                          check=False)
    if proc.returncode != 0:
        pytest.fail(f"{' '.join(command)} failed ({proc.returncode}):\n{proc.stdout[-8000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout


def plain_dbt(root: Path, landing: Path, port: int, *args: str) -> str:
    """Plain `dbt <args> --target thrift`, as a user runs it (no runner, no UDF registration here)."""
    return client_command([str(BIN / "dbt"), *args, "--target", "thrift"], root, landing,
                          {"CDC_THRIFT_HOST": "127.0.0.1", "CDC_THRIFT_PORT": str(port)})


def remote_cdc_dbt(root: Path, landing: Path, connect_port: int, *args: str) -> str:
    """`cdc-dbt <args>` through the server's Spark Connect (CDC_SPARK_REMOTE), in its own schema and
    on the profile's local target, whatever the caller's shell says."""
    return client_command([str(CDC_DBT), *args], root, landing,
                          {"CDC_SPARK_REMOTE": f"sc://127.0.0.1:{connect_port}", "CDC_SCHEMA": "cdc_connect",
                           "CDC_DBT_TARGET": "local"})


def show_rows(output: str) -> list[str]:
    return [row["row_json"] for row in json.loads(output[output.index("{"):])["show"]]


def local_rows(build: SamplesBuild) -> list[str]:
    """The local target's cdc_current rows of the cluster's vendors, in the same order."""
    return [row for row in build.current_rows if json.loads(row)["source_vendor"] in VENDORS]


def test_dbt_run_through_thrift_on_a_standalone_cluster_matches_local(
        tmp_path: Path, processes: Processes, standalone_master: str, bundled_samples_build: SamplesBuild):
    timings = {}
    # The cluster reads the landing folder the local build read, so even the landing paths match.
    landing = bundled_samples_build.landing_dir
    assert all((landing / vendor).is_dir() for vendor in VENDORS), landing
    thrift_root = tmp_path / "thrift"

    began = time.monotonic()
    port, connect_port = start_server(processes, standalone_master, thrift_root / "spark")
    timings["cluster: server start"] = time.monotonic() - began

    began = time.monotonic()
    plain_dbt(thrift_root, landing, port, "seed")
    run_output = plain_dbt(thrift_root, landing, port, "run", *VENDORS_ALONE)
    timings["cluster: dbt seed + run"] = time.monotonic() - began
    assert "ERROR=0" in run_output, run_output[-4000:]

    began = time.monotonic()
    cluster_rows = show_rows(plain_dbt(thrift_root, landing, port, "show", "--inline",
                                       CURRENT_ROWS, "--limit", "-1", "--output", "json", "--quiet"))
    timings["cluster: query"] = time.monotonic() - began
    # The work ran in the worker's executor (its folder holds the application's executor logs).
    assert list((tmp_path / "worker").glob("app-*/*/stderr")), "no executor ran on the worker"

    # cdc-dbt through Spark Connect on the same server: the reference seeds loaded first (cdc-dbt
    # run does that when they are missing), then the same two vendors, in schema cdc_connect
    began = time.monotonic()
    connect_root = tmp_path / "connect"
    connect_output = remote_cdc_dbt(connect_root, landing, connect_port, "run", *VENDORS_ALONE)
    assert "ERROR=0" in connect_output, connect_output[-4000:]
    connect_rows = show_rows(remote_cdc_dbt(connect_root, landing, connect_port, "show", "--inline",
                                            CURRENT_ROWS, "--limit", "-1", "--output", "json", "--quiet"))
    timings["cluster: cdc-dbt run + query through Spark Connect"] = time.monotonic() - began

    began = time.monotonic()
    assert processes.stop("server") == 0, processes.log("server")[-4000:]
    processes.stop("worker")
    processes.stop("master")
    timings["cluster: stop"] = time.monotonic() - began

    print("[cluster] " + ", ".join(f"{step}: {seconds:.0f} s" for step, seconds in timings.items()))
    expected = local_rows(bundled_samples_build)
    assert {json.loads(row)["source_vendor"] for row in expected} == set(VENDORS), expected[:3]
    assert len(cluster_rows) == len(expected)
    assert cluster_rows == expected
    assert connect_rows == expected
