"""cdc-dbt on a running server (CDC_SPARK_REMOTE, DECISIONLOG D55), without Spark: the address
check, the hook that hands dbt-spark the Connect session, and the server's --connect-port option.
test_thrift_cluster.py runs a real `cdc-dbt run` through Spark Connect on a cluster."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import CDC_DBT, PROJECT_DIR, free_port, in_threads

from python_udfs import runner, server


def on_absent_server(command: list[str], tmp_path: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run `command` with CDC_SPARK_REMOTE naming a port nothing listens on; returns that port and
    the finished process."""
    port = free_port()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CDC_SPARK_REMOTE": f"sc://127.0.0.1:{port}",
           "CDC_SPARK_DIR": str(tmp_path / "spark"), "DBT_TARGET_PATH": str(tmp_path / "target"),
           "DBT_LOG_PATH": str(tmp_path / "logs"), "DO_NOT_TRACK": "1", **env}
    proc = subprocess.run(command, cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"no Spark Connect server answers at sc://127.0.0.1:{port}" in proc.stderr
    return port, proc


@pytest.mark.parametrize("address", [
    "127.0.0.1:15002", "sc://127.0.0.1", "sc://:15002", "http://127.0.0.1:15002", "sc://host:port", "sc:/h:1",
    # pyspark's client refuses these too: parameters need the `/`, a port is below 65536
    "sc://127.0.0.1:15002;user_id=analyst", "sc://127.0.0.1:70000", "sc://127.0.0.1:0"])
def test_a_malformed_address_says_how_to_write_one(address):
    problem = runner.remote_problem(address)
    assert problem is not None
    assert f"CDC_SPARK_REMOTE={address} is not a Spark Connect address" in problem
    assert "sc://HOST:PORT" in problem and "unset it" in problem


def test_an_address_nobody_answers_names_the_command_that_starts_a_server():
    port = free_port()
    problem = runner.remote_problem(f"sc://127.0.0.1:{port}", timeout=1)
    assert problem is not None
    assert f"no Spark Connect server answers at sc://127.0.0.1:{port}" in problem
    assert f"cdc-spark-server --connect-port {port}" in problem
    assert "unset CDC_SPARK_REMOTE" in problem


@pytest.mark.parametrize("suffix", ["", "/", "/;user_id=analyst"])
def test_an_address_with_a_listener_is_accepted(suffix):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert runner.remote_problem(f"sc://127.0.0.1:{port}{suffix}") is None


def test_spark_remote_reads_the_variable(monkeypatch):
    monkeypatch.delenv("CDC_SPARK_REMOTE", raising=False)
    assert runner.spark_remote() is None
    monkeypatch.setenv("CDC_SPARK_REMOTE", "  ")
    assert runner.spark_remote() is None
    monkeypatch.setenv("CDC_SPARK_REMOTE", " sc://10.0.0.5:15002 ")
    assert runner.spark_remote() == "sc://10.0.0.5:15002"


@pytest.fixture
def remote_hooked(monkeypatch, no_project_session):
    """dbt-spark's module hooked with CDC_SPARK_REMOTE set; Spark replaced by counters."""
    from python_udfs import registration

    dbt_spark_session = no_project_session
    monkeypatch.setenv("CDC_SPARK_REMOTE", "sc://127.0.0.1:15002")
    calls = {"java": 0, "probe": [], "connect": [], "build": 0, "register": [], "released": []}

    class RemoteSession:
        def stop(self):
            calls["released"].append(self)

    def connect(url):
        calls["connect"].append(url)
        time.sleep(0.2)  # every thread arrives while the first one connects
        return RemoteSession()

    def java_problem():
        calls["java"] += 1

    def build(master=None):
        calls["build"] += 1

    monkeypatch.setattr(runner, "java_problem", java_problem)
    monkeypatch.setattr(runner, "remote_problem", lambda url, timeout=3.0: calls["probe"].append(url))
    monkeypatch.setattr(runner, "connect_session", connect)
    monkeypatch.setattr(runner, "build_spark_session", build)
    monkeypatch.setattr(registration, "register_all", lambda spark: calls["register"].append(spark) or [])
    exit_handlers = []
    monkeypatch.setattr(runner, "atexit",
                        SimpleNamespace(register=lambda handler, *args: exit_handlers.append((handler, args))))
    assert runner.install_lazy_session()
    return dbt_spark_session, calls, exit_handlers


def test_dbt_spark_gets_the_connect_session_whatever_its_profile_sets(remote_hooked):
    dbt_spark_session, calls, exit_handlers = remote_hooked

    def statement():  # what dbt-spark's Cursor.execute does, with the local profile's parameters
        builder = dbt_spark_session.SparkSession.builder.enableHiveSupport()
        for key, value in (("spark.master", "local[*]"), ("spark.sql.warehouse.dir", "/elsewhere")):
            builder = builder.config(key, value)
        return builder.getOrCreate()

    sessions, errors = in_threads(statement, 4)
    assert not errors
    assert len(sessions) == 4 and all(session is sessions[0] for session in sessions)
    assert calls["probe"] == ["sc://127.0.0.1:15002"] and calls["connect"] == ["sc://127.0.0.1:15002"]
    assert calls["java"] == 0 and calls["build"] == 0  # no JVM in this process
    assert calls["register"] == [sessions[0]]  # the functions belong to this run's session
    # the run's session is released on the server when the process ends, if the server answers
    assert len(exit_handlers) == 1
    handler, args = exit_handlers[0]
    handler(*args)
    assert calls["released"] == [sessions[0]]
    assert calls["probe"] == ["sc://127.0.0.1:15002"] * 2


def test_a_server_gone_by_the_end_is_not_asked_to_release(monkeypatch):
    """Spark's client would retry a release for minutes; a server that does not answer is skipped."""
    released = []
    session = SimpleNamespace(stop=lambda: released.append("stopped"))
    monkeypatch.setattr(runner, "remote_problem", lambda url, timeout=3.0: "nobody there")
    began = time.monotonic()
    runner._release_remote_session(session, "sc://127.0.0.1:15002")
    assert released == [] and time.monotonic() - began < 1


def test_a_release_that_hangs_does_not_hold_the_exit(monkeypatch):
    session = SimpleNamespace(stop=lambda: time.sleep(30))
    monkeypatch.setattr(runner, "remote_problem", lambda url, timeout=3.0: None)
    began = time.monotonic()
    runner._release_remote_session(session, "sc://127.0.0.1:15002")
    assert time.monotonic() - began < 10


def test_a_server_that_does_not_answer_fails_every_statement_with_the_probe_message(remote_hooked, monkeypatch):
    dbt_spark_session, calls, _ = remote_hooked
    monkeypatch.setattr(runner, "remote_problem", lambda url: calls["probe"].append(url) or "nobody there")
    for _ in range(3):
        with pytest.raises(runner.SparkStartError, match="^cdc-dbt: nobody there$"):
            _ = dbt_spark_session.SparkSession.builder
    assert calls["probe"] == ["sc://127.0.0.1:15002"]  # asked once, not retried
    assert calls["connect"] == [] and calls["java"] == 0


def test_a_failure_on_the_server_names_it(remote_hooked, monkeypatch):
    dbt_spark_session, calls, _ = remote_hooked

    def refuse(url):
        calls["connect"].append(url)
        raise ConnectionError("UNAVAILABLE")

    monkeypatch.setattr(runner, "connect_session", refuse)
    with pytest.raises(runner.SparkStartError,
                       match="on the Spark Connect server sc://127.0.0.1:15002: ConnectionError: UNAVAILABLE"):
        _ = dbt_spark_session.SparkSession.builder
    assert calls["connect"] == ["sc://127.0.0.1:15002"] and calls["register"] == []


def test_starting_on_a_server_hooks_dbt_spark_first(monkeypatch, no_project_session):
    """cdc-dbt run and cdc-run start the session at once: on a server the hook must be in place
    too, or dbt-spark's own builder would start a local JVM beside it."""
    dbt_spark_session = no_project_session
    monkeypatch.setenv("CDC_SPARK_REMOTE", "sc://127.0.0.1:15002")
    monkeypatch.setattr(runner, "check_java", lambda: pytest.fail("Java checked for a server run"))
    monkeypatch.setattr(runner, "project_session", lambda master=None: "the Connect session")
    assert runner.start() == "the Connect session"
    assert isinstance(dbt_spark_session.SparkSession, runner._ProjectSessionFirst)
    assert dbt_spark_session.SparkSession.builder.config("spark.master", "local[*]").getOrCreate() \
        == "the Connect session"


def test_local_runs_keep_dbt_sparks_own_builder(monkeypatch, no_project_session):
    """Without CDC_SPARK_REMOTE the hook returns pyspark's builder, as before D55."""
    from pyspark.sql import SparkSession

    dbt_spark_session = no_project_session
    monkeypatch.delenv("CDC_SPARK_REMOTE", raising=False)
    monkeypatch.setattr(runner, "_session", "the local session")
    assert runner.install_lazy_session()
    assert type(dbt_spark_session.SparkSession.builder) is type(SparkSession.builder)


def test_cdc_dbt_run_on_an_absent_server_stops_before_dbt_without_java(tmp_path):
    """The whole command: no JVM is looked for, the message says what to start, exit code 2."""
    fake_java = tmp_path / "bin" / "java"
    fake_java.parent.mkdir()
    calls = tmp_path / "java-calls.txt"
    fake_java.write_text(f'#!/bin/sh\necho "java $*" >> "{calls}"\nexit 1\n')
    fake_java.chmod(0o755)
    port, proc = on_absent_server([str(CDC_DBT), "run"], tmp_path,
                                  {"PATH": f"{fake_java.parent}:/usr/bin:/bin", "JAVA_HOME": str(tmp_path)})
    assert f"cdc-spark-server --connect-port {port}" in proc.stderr
    assert not calls.exists(), calls.read_text()
    assert "Running with dbt" not in proc.stdout  # stopped before dbt's run began


def test_cdc_run_on_an_absent_server_says_so_without_a_traceback(tmp_path):
    _, proc = on_absent_server([str(CDC_DBT.with_name("cdc-run"))], tmp_path, {})
    assert "Traceback" not in proc.stderr


def test_on_a_server_the_landing_folder_is_the_servers_to_check(monkeypatch):
    """A folder only the server's machine has is not refused here (CDC_LANDING_DIR is read there)."""
    checked = []
    monkeypatch.setattr(runner, "configure_environment", lambda: None)
    monkeypatch.setattr(runner, "check_landing_dir", checked.append)
    monkeypatch.setattr(runner, "start", lambda master=None: pytest.fail("started"))
    monkeypatch.setattr(runner, "starts_spark_at_once", lambda args: False)
    monkeypatch.setattr(runner, "install_lazy_session", lambda: True)
    monkeypatch.setattr(runner, "invoke_dbt", lambda args: 0)
    monkeypatch.setattr(runner.os, "chdir", lambda path: None)
    for remote, expected in (("sc://10.0.0.5:15002", []), (None, ["ls"])):
        checked.clear()
        if remote:
            monkeypatch.setenv("CDC_SPARK_REMOTE", remote)
        else:
            monkeypatch.delenv("CDC_SPARK_REMOTE", raising=False)
        with pytest.raises(SystemExit) as done:
            runner.main(["ls"])
        assert done.value.code == 0
        assert checked == expected


# ---------------------------------------------------------------------------------------------
# cdc-spark-server --connect-port


def test_the_server_serves_connect_only_when_asked(tmp_path):
    without = server.parse_args(["--port", "10001"])
    assert without.connect_port is None
    conf = server.server_conf(without, tmp_path)
    assert not any(key.startswith("spark.connect.") for key in conf)

    with_connect = server.parse_args(["--host", "0.0.0.0", "--port", "10001", "--connect-port", "15003"])
    conf = server.server_conf(with_connect, tmp_path)
    assert conf["spark.connect.grpc.binding.port"] == "15003"
    assert conf["spark.connect.grpc.binding.address"] == "0.0.0.0"


def test_a_connect_port_in_use_says_which_option_to_change(capsys):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        with pytest.raises(SystemExit) as stopped:
            server.check_port_free("127.0.0.1", port, "--connect-port")
    assert stopped.value.code == 2
    message = capsys.readouterr().err
    assert f"port {port} on 127.0.0.1 is already in use (another Spark Connect server?)" in message
    assert "--connect-port N" in message and "CDC_SPARK_REMOTE=sc://HOST:N" in message


def test_the_connect_port_cannot_be_the_thrift_port():
    proc = subprocess.run([sys.executable, "-m", "python_udfs.server", "--port", "10002", "--connect-port", "10002",
                           "--spark-dir", str(Path("/nonexistent-cdc-spark-dir"))], cwd=PROJECT_DIR,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "--connect-port and --port are both 10002" in proc.stderr
