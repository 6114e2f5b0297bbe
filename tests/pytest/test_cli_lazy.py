"""`cdc-dbt` starts Spark only when dbt runs a statement (issue 16), and plain `dbt` finds the profile.

The subprocess tests run with a fake Java first on PATH and as JAVA_HOME: it records every call in a
file and claims to be Java 11, so any attempt to check or start Java is seen (and would fail).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

import pytest
from conftest import CDC_DBT, PROJECT_DIR, CdcProject, in_threads

from python_udfs import runner

DBT = Path(sys.executable).parent / "dbt"
FAKE_JAVA = """#!/bin/sh
echo "java $*" >> "{calls}"
echo 'openjdk version "11.0.2" 2019-01-15' >&2
exit 0
"""


@pytest.fixture(scope="module")
def no_java(tmp_path_factory) -> dict:
    """Env for a subprocess whose only Java is the fake one; target/ and logs/ are shared by this
    module's tests (partial parsing keeps them short) and kept out of the project folder."""
    root = tmp_path_factory.mktemp("no-java")
    java_home = root / "java"
    (java_home / "bin").mkdir(parents=True)
    calls = root / "java-calls.txt"
    java = java_home / "bin" / "java"
    java.write_text(FAKE_JAVA.format(calls=calls))
    java.chmod(0o755)
    env = {key: value for key, value in os.environ.items()
           if key not in ("DBT_PROFILES_DIR", "CDC_DBT_TARGET")}
    env.update({"PATH": str(java_home / "bin"), "JAVA_HOME": str(java_home),
                "CDC_SPARK_DIR": str(root / "spark"), "DBT_TARGET_PATH": str(root / "target"),
                "DBT_LOG_PATH": str(root / "logs"), "DO_NOT_TRACK": "1"})
    return {"env": env, "calls": calls}


def run(command: list[str], no_java: dict) -> subprocess.CompletedProcess:
    no_java["calls"].unlink(missing_ok=True)  # java_calls() then tells about this command alone
    return subprocess.run(command, cwd=PROJECT_DIR, env=no_java["env"], capture_output=True, text=True,
                          timeout=600, check=False)


def java_calls(no_java: dict) -> str:
    calls = no_java["calls"]
    return calls.read_text() if calls.exists() else ""


def assert_no_java(no_java: dict, proc: subprocess.CompletedProcess) -> None:
    assert java_calls(no_java) == "", f"Java was run:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


# ---------------------------------------------------------------------------------------------
# --version and --help: no dbt, no pyspark, no Java


def test_version_prints_the_versions_without_java(no_java):
    proc = run([str(CDC_DBT), "--version"], no_java)
    assert proc.returncode == 0, proc.stderr
    assert f"cdc-dbt {metadata.version('cdc-dbt-spark')}" in proc.stdout
    for package in ("dbt-core", "dbt-spark", "pyspark"):
        assert re.search(rf"^\s*{package}\s+{re.escape(metadata.version(package))}$", proc.stdout, re.MULTILINE), \
            proc.stdout
    assert_no_java(no_java, proc)


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_import_neither_dbt_nor_pyspark(flag, no_java):
    probe = ("import sys\nfrom python_udfs.runner import main\n"
             f"try:\n    main([{flag!r}])\nexcept SystemExit as exc:\n    assert exc.code == 0, exc.code\n"
             "print('IMPORTED', sorted({m.split('.')[0] for m in sys.modules} & {'dbt', 'pyspark', 'py4j'}))")
    proc = run([sys.executable, "-c", probe], no_java)
    assert proc.returncode == 0, proc.stderr
    assert "IMPORTED []" in proc.stdout, proc.stdout[-2000:]


def _env_vars_read_by_the_project() -> dict[str, str | None]:
    """Env vars read by profiles.yml, dbt_project.yml, macros, models and the runner, with the
    literal default where the code gives one."""
    texts = [PROJECT_DIR / "profiles.yml", PROJECT_DIR / "dbt_project.yml", PROJECT_DIR / "python_udfs" / "runner.py",
             *sorted((PROJECT_DIR / "macros").rglob("*.sql")), *sorted((PROJECT_DIR / "models").rglob("*.sql")),
             *sorted((PROJECT_DIR / "models").rglob("*.yml"))]
    with_default = (r"env_var\(\s*['\"]([A-Z][A-Z0-9_]*)['\"]\s*(?:,\s*['\"]([^'\"]*)['\"])?",
                    r"os\.environ\.(?:get|setdefault)\(\s*\"([A-Z][A-Z0-9_]*)\"\s*(?:,\s*\"([^\"]*)\")?")
    read = r"os\.environ\[\"([A-Z][A-Z0-9_]*)\"\](?!\s*=[^=])"  # not an assignment
    found: dict[str, str | None] = {}
    for path in texts:
        text = path.read_text(encoding="utf-8")
        for pattern in with_default:
            for name, default in re.findall(pattern, text):
                found[name] = default or found.get(name)
        for name in re.findall(read, text):
            found.setdefault(name, None)
    return found


def test_help_lists_every_environment_variable_with_its_default(no_java):
    proc = run([str(CDC_DBT), "--help"], no_java)
    assert proc.returncode == 0, proc.stderr
    assert_no_java(no_java, proc)
    listed = dict(re.findall(r"^ [ *]([A-Z][A-Z0-9_]*) .*\n\s+default: (.*)$", proc.stdout, re.MULTILINE))
    for name in ("CDC_LANDING_DIR", "CDC_SPARK_DIR", "CDC_SPARK_MASTER", "CDC_SPARK_DRIVER_MEMORY",
                 "CDC_SHUFFLE_PARTITIONS", "CDC_SCHEMA", "CDC_DBT_TARGET", "DBT_PROFILES_DIR"):
        assert name in listed, proc.stdout
    assert listed["DBT_PROFILES_DIR"] == str(PROJECT_DIR)
    for name, default in _env_vars_read_by_the_project().items():
        if name == "PATH":
            continue
        assert name in proc.stdout, f"{name} is read by the project but `cdc-dbt --help` does not name it"
        if name in listed and default:
            # a relative default in the YAML is relative to the project folder, where cdc-dbt runs dbt
            assert listed[name] in (default, str(PROJECT_DIR / default)), (name, listed[name], default)


# ---------------------------------------------------------------------------------------------
# dbt commands that run no SQL start no Java; the first statement does


def test_parse_and_ls_run_without_java(no_java):
    parse = run([str(CDC_DBT), "parse"], no_java)
    assert parse.returncode == 0, parse.stdout[-3000:] + parse.stderr[-3000:]
    assert (Path(no_java["env"]["DBT_TARGET_PATH"]) / "manifest.json").is_file()
    assert_no_java(no_java, parse)
    ls = run([str(CDC_DBT), "ls", "--select", "stg_debezium__change_events", "--resource-type", "model"],
             no_java)
    assert ls.returncode == 0, ls.stdout[-3000:] + ls.stderr[-3000:]
    assert "cdc_spark.staging.debezium.stg_debezium__change_events" in ls.stdout
    assert_no_java(no_java, ls)


def test_compile_starts_spark_when_dbt_runs_its_first_statement(no_java):
    """compile fills dbt's relation cache from Spark: that first statement checks Java (here the
    fake one, too old), and the message reaches the user through dbt."""
    proc = run([str(CDC_DBT), "compile", "--select", "stg_debezium__change_events"], no_java)
    assert proc.returncode != 0
    assert "java -version" in java_calls(no_java)
    assert "cdc-dbt: Java 17+ is required, found 11.0.2" in proc.stdout + proc.stderr, proc.stdout[-3000:]


def test_run_checks_java_before_dbt_starts(no_java):
    """run always needs Spark: it is started (and Java checked) at once, not lazily."""
    proc = run([str(CDC_DBT), "run", "--select", "stg_debezium__change_events"], no_java)
    assert proc.returncode == 2
    assert "cdc-dbt: Java 17+ is required, found 11.0.2" in proc.stderr
    assert "Running with dbt" not in proc.stdout


# ---------------------------------------------------------------------------------------------
# plain dbt from the project folder


def test_plain_dbt_finds_the_profile_in_the_project_folder(no_java):
    """profiles.yml sits next to dbt_project.yml: plain `dbt` run from the project folder finds it
    (no DBT_PROFILES_DIR, no --profiles-dir), so its errors are the project's own (the
    `cdc_require_udfs` message naming cdc-dbt: test_plain_dbt_names_the_runner), not "Could not
    find profile named 'cdc_spark'"."""
    assert "DBT_PROFILES_DIR" not in no_java["env"]
    proc = run([str(DBT), "ls", "--select", "stg_debezium__change_events", "--resource-type", "model"],
               no_java)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "cdc_spark.staging.debezium.stg_debezium__change_events" in proc.stdout
    assert_no_java(no_java, proc)


# ---------------------------------------------------------------------------------------------
# the hook itself, in this process (no Spark: the session is a stand-in)


def test_starts_spark_at_once_only_for_commands_that_always_run_sql():
    for args in (["run"], ["build", "--select", "x"], ["seed"], ["test"], ["show", "--inline", "select 1"],
                 ["docs", "generate"]):
        assert runner.starts_spark_at_once(args), args
    for args in (["ls"], ["list"], ["parse"], ["compile"], ["docs", "serve"], ["debug"], ["run", "--help"],
                 ["build", "-h"], []):
        assert not runner.starts_spark_at_once(args), args


def test_dbt_spark_still_builds_its_session_where_the_hook_is():
    """The hook replaces the `SparkSession` name in dbt-spark's session module: its cursor must
    still reach the session through `SparkSession.builder...getOrCreate()`."""
    import inspect

    from dbt.adapters.spark import session as dbt_spark_session

    source = inspect.getsource(dbt_spark_session.Cursor.execute)
    assert "SparkSession.builder" in source and ".getOrCreate()" in source


@pytest.fixture
def hooked(monkeypatch, no_project_session):
    """install_lazy_session() on dbt-spark's module, undone afterwards; Spark replaced by counters."""
    from python_udfs import registration

    dbt_spark_session = no_project_session
    calls = {"java": 0, "build": 0, "register": 0}

    def java_problem():
        calls["java"] += 1

    def build(master=None):
        calls["build"] += 1
        time.sleep(0.3)  # long enough for every thread to arrive while the first one builds
        return "the project session"

    def register(spark):
        assert spark == "the project session"
        calls["register"] += 1
        return []

    monkeypatch.setattr(runner, "java_problem", java_problem)
    monkeypatch.setattr(runner, "build_spark_session", build)
    monkeypatch.setattr(registration, "register_all", register)
    assert runner.install_lazy_session()
    assert runner.install_lazy_session()  # a second install keeps the one hook
    return dbt_spark_session, calls


def test_lazy_hook_starts_the_session_once_for_concurrent_threads(hooked):
    dbt_spark_session, calls = hooked
    assert calls == {"java": 0, "build": 0, "register": 0}  # installing starts nothing
    # what Cursor.execute reads first
    builders, errors = in_threads(lambda: dbt_spark_session.SparkSession.builder, 6)
    assert not errors
    assert len(builders) == 6
    assert calls == {"java": 1, "build": 1, "register": 1}
    assert runner.project_session() == "the project session"
    assert calls["build"] == 1


def test_a_failed_start_is_reported_to_every_caller_and_not_retried(hooked, monkeypatch):
    dbt_spark_session, calls = hooked

    def no_java():
        calls["java"] += 1
        return "no java"

    monkeypatch.setattr(runner, "java_problem", no_java)
    for _ in range(3):
        with pytest.raises(runner.SparkStartError, match="cdc-dbt: no java"):
            _ = dbt_spark_session.SparkSession.builder
    assert calls == {"java": 1, "build": 0, "register": 0}


# ---------------------------------------------------------------------------------------------
# with Spark: the lazily started session is the project's, UDFs registered


@pytest.mark.spark
def test_lazy_start_registers_the_udfs(tmp_path):
    project = CdcProject(root=tmp_path)
    probe = "{% set found = run_query(\"show user functions like 'cdc_*'\") %}select {{ found | length }} as udfs"
    proc = subprocess.run([str(CDC_DBT), "compile", "--no-populate-cache", "--inline", probe], cwd=PROJECT_DIR,
                          env=project.environment(), capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    from python_udfs.registration import VALUE_FUNCTIONS

    assert f"select {1 + len(VALUE_FUNCTIONS)} as udfs" in proc.stdout, proc.stdout[-3000:]
    # each function's kind is given, so pyspark guesses none (it used to warn on every start)
    assert "Cannot infer the eval type" not in proc.stderr, proc.stderr[-3000:]
