"""Shared fixtures: a throw-away landing folder and Spark state, and a way to run `cdc-dbt`."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parents[2]
SHARED_DIR = PROJECT_DIR.parent / "shared"
CONFORMANCE_DIR = SHARED_DIR / "conformance"
SAMPLES_DIR = PROJECT_DIR / "data" / "landing"  # the bundled samples `make run` builds
CDC_DBT = Path(sys.executable).parent / "cdc-dbt"
# The tests build their own state folders in Spark they start: a running server named in the
# caller's shell (D55) would receive every run instead (the tests that use one set it themselves).
os.environ.pop("CDC_SPARK_REMOTE", None)


# A Spark session in its own process: runs dbt commands (in-process, as cdc-dbt does) and SQL
# queries sent as JSON lines, answering each with a line that starts with MARK. Each request
# carries the environment of the project it is for (landing folder, dbt target/ and logs/, file
# format), so one session serves project after project: its JVM warms up once (D33).
MARK = "\x1ecdc-test "
_WORKER = """
import json, os, sys
from python_udfs.runner import configure_environment, invoke_dbt, start
spark = start()
MARK = sys.argv[1]
for line in sys.stdin:
    request = json.loads(line)
    try:
        os.environ.clear()
        os.environ.update(request["env"])
        configure_environment()
        if "reset" in request:
            spark.catalog.clearCache()
            for row in spark.sql("show databases").collect():
                if row[0] != "default":
                    spark.sql(f"drop database `{row[0]}` cascade")
            print(MARK + json.dumps({"reset": True}), flush=True)
        elif "dbt" in request:
            print(MARK + json.dumps({"exit_code": invoke_dbt(request["dbt"])}), flush=True)
        else:
            rows = [json.loads(row) for row in spark.sql(request["sql"]).toJSON().collect()]
            print(MARK + json.dumps({"rows": rows}), flush=True)
    except Exception as exc:
        print(MARK + json.dumps({"error": repr(exc)[:4000]}), flush=True)
"""


class SparkWorker:
    """The process that holds one Spark session (started on the first request)."""

    def __init__(self, spark_dir: Path, env: dict[str, str]):
        self.spark_dir = spark_dir
        self._env = {**env, "CDC_SPARK_DIR": str(spark_dir)}
        self._process: subprocess.Popen | None = None
        self.owner: Path | None = None  # the project whose tables the session holds (shared_project)

    def ask(self, request: dict) -> tuple[dict, str]:
        if self._process is None:
            self._process = subprocess.Popen([sys.executable, "-c", _WORKER, MARK], cwd=PROJECT_DIR,
                                             env=self._env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        output = []
        while True:
            line = self._process.stdout.readline()
            if not line:
                self.stop()
                doing = request.get("dbt") or request.get("sql") or "the emptying of its schemas"
                pytest.fail(f"the Spark process died during {doing}:\n{''.join(output)[-6000:]}")
            if line.startswith(MARK):
                return json.loads(line[len(MARK):]), "".join(output)
            output.append(line)

    def stop(self) -> None:
        """End the session (the embedded metastore admits one process)."""
        if self._process is not None:
            self._process.stdin.close()
            self._process.wait(timeout=120)
            self._process = None


@dataclass
class CdcProject:
    """One isolated project state: its own landing folder, dbt target/ and logs/, and Spark tables.

    With `shared`, the project runs on that session (the cdc_project fixture: the session's
    schemas are emptied for each project); without, it starts its own session on its own
    metastore and warehouse in `root/spark`, which `cdc-dbt` in another process can open too
    once this one stopped (the isolated_project fixture)."""

    root: Path
    env: dict = field(default_factory=dict)
    shared: SparkWorker | None = None
    _worker: SparkWorker | None = None

    @property
    def landing_dir(self) -> Path:
        return self.root / "landing"

    @property
    def spark_dir(self) -> Path:
        return self.shared.spark_dir if self.shared else self.root / "spark"

    def environment(self) -> dict[str, str]:
        """Env for cdc-dbt: this project's landing and Spark folders, and dbt's target/ and logs/
        kept here too, so tests never share dbt's partial-parse state with each other or a user."""
        return {**os.environ, **self.env, "CDC_LANDING_DIR": str(self.landing_dir),
                "CDC_SPARK_DIR": str(self.spark_dir), "DBT_TARGET_PATH": str(self.root / "target"),
                "DBT_LOG_PATH": str(self.root / "logs")}

    def write_landing_file(self, vendor: str, name: str, lines: list[str]) -> Path:
        folder = self.landing_dir / vendor
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return path

    def run_cli(self, *dbt_args: str) -> str:
        """Run the real `cdc-dbt <args>` command in its own process, as a user would."""
        if self.shared:
            pytest.fail("cdc-dbt in another process cannot open the shared session's metastore: "
                        "use the isolated_project fixture")
        self.stop()
        proc = subprocess.run([str(CDC_DBT), *dbt_args], cwd=PROJECT_DIR, env=self.environment(),
                              capture_output=True, text=True, timeout=1800, check=False)
        if proc.returncode != 0:
            pytest.fail(f"cdc-dbt {' '.join(dbt_args)} failed ({proc.returncode}):\n"
                        f"{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}")
        return proc.stdout

    def run(self, *dbt_args: str) -> str:
        """`cdc-dbt <args>` inside this project's Spark session; fails the test if dbt fails."""
        answer, output = self._ask({"dbt": list(dbt_args)})
        if answer.get("exit_code") != 0:
            pytest.fail(f"cdc-dbt {' '.join(dbt_args)} failed ({answer}):\n{output[-8000:]}")
        return output

    def sql(self, statement: str) -> list[dict]:
        """Rows of a Spark SQL query on this project's warehouse, as dicts (no dbt involved)."""
        answer, output = self._ask({"sql": statement})
        if "rows" not in answer:
            pytest.fail(f"query failed: {statement}\n{answer}\n{output[-3000:]}")
        return answer["rows"]

    def _ask(self, request: dict) -> tuple[dict, str]:
        if self.shared:
            if self.shared.owner != self.root:
                pytest.fail(f"the shared Spark session holds the tables of {self.shared.owner}, not of "
                            f"{self.root}: a later shared_project() emptied them")
            return self.shared.ask({**request, "env": self.environment()})
        if self._worker is None:
            self._worker = SparkWorker(self.spark_dir, self.environment())
        return self._worker.ask({**request, "env": self.environment()})

    def stop(self) -> None:
        """End this project's own Spark session (the shared one outlives the project)."""
        if self._worker is not None:
            self._worker.stop()
            self._worker = None

    def query(self, sql: str) -> list[dict]:
        """Rows of a SELECT (Jinja allowed, e.g. {{ ref('cdc_current') }}) as dicts."""
        out = self.run("show", "--inline", sql, "--limit", "-1", "--output", "json", "--quiet")
        return json.loads(out[out.index("{"):])["show"]


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on now (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def in_threads(task, count: int) -> tuple[list, list[Exception]]:
    """Run `task()` in `count` threads at once; returns what they returned and what they raised."""
    results, errors = [], []

    def run() -> None:
        try:
            results.append(task())
        except Exception as exc:  # noqa: BLE001 - handed to the caller
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results, errors


@pytest.fixture
def no_project_session(monkeypatch):
    """This process as if no project session had started: python_udfs.runner's session state
    reset, the environment left as it is, and dbt-spark's `SparkSession` name restored after the
    test (install_lazy_session replaces it). Returns dbt-spark's session module."""
    from dbt.adapters.spark import session as dbt_spark_session

    from python_udfs import runner

    monkeypatch.setattr(dbt_spark_session, "SparkSession", dbt_spark_session.SparkSession)
    monkeypatch.setattr(runner, "_session", None)
    monkeypatch.setattr(runner, "_session_error", None)
    monkeypatch.setattr(runner, "configure_environment", lambda: None)
    return dbt_spark_session


@pytest.fixture(scope="session")
def shared_spark(tmp_path_factory):
    """One Spark session for the tests' projects, one after another."""
    worker = SparkWorker(tmp_path_factory.mktemp("shared_spark") / "spark", dict(os.environ))
    yield worker
    worker.stop()


def shared_project(worker: SparkWorker, root: Path) -> CdcProject:
    """A project on the shared session, which first drops every table an earlier project left."""
    project = CdcProject(root=root, shared=worker)
    project.landing_dir.mkdir()
    answer, output = worker.ask({"reset": True, "env": project.environment()})
    assert answer.get("reset"), f"emptying the shared session's schemas failed: {answer}\n{output[-3000:]}"
    worker.owner = root
    return project


@pytest.fixture
def cdc_project(tmp_path: Path, shared_spark: SparkWorker):
    """A project on the shared session, whose schemas start empty (a fresh state)."""
    return shared_project(shared_spark, tmp_path)


@pytest.fixture
def isolated_project(tmp_path: Path):
    """A project with its own Spark state, for tests that run `cdc-dbt` or plain dbt as a process."""
    project = CdcProject(root=tmp_path)
    project.landing_dir.mkdir()
    yield project
    project.stop()


@dataclass
class SamplesBuild:
    """What `cdc-dbt build` left on the bundled samples (data/landing), kept after the shared
    session moved on to other projects: dbt's output, the landing folder it read, and cdc_current."""

    output: str
    landing_dir: Path
    current_rows: list[str]  # to_json of each cdc_current row, ordered by vendor, table, key


@pytest.fixture(scope="session")
def bundled_samples_build(shared_spark, tmp_path_factory) -> SamplesBuild:
    """One `build` of the bundled samples (every seed, model, data test and dbt unit test) on the
    shared session, for the tests that check it and the Thrift test that compares a cluster's
    result with it."""
    project = shared_project(shared_spark, tmp_path_factory.mktemp("bundled_samples"))
    for folder in sorted(folder for folder in SAMPLES_DIR.iterdir() if folder.is_dir()):
        # as a fresh delivery: new modification times, or a checkout older than a day makes the
        # feed-freshness test warn (cdc_feed_health_warns_after_a_day_without_files)
        shutil.copytree(folder, project.landing_dir / folder.name, copy_function=shutil.copy)
    output = project.run("build")
    rows = project.sql("select to_json(struct(*)) as row_json from cdc_marts.cdc_current "
                       "order by source_vendor, source_table, pk")
    return SamplesBuild(output=output, landing_dir=project.landing_dir, current_rows=[row["row_json"] for row in rows])
