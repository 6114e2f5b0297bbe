"""Shared fixtures: a throw-away landing folder and Spark state, and a way to run `cdc-dbt`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parents[2]
SHARED_DIR = PROJECT_DIR.parent / "shared"
CONFORMANCE_DIR = SHARED_DIR / "conformance"
CDC_DBT = Path(sys.executable).parent / "cdc-dbt"


# Reads SQL statements (one JSON string per line) and answers each with one line of JSON rows.
_QUERY_WORKER = """
import json, sys
from python_udfs.runner import start
spark = start()
for line in sys.stdin:
    try:
        rows = [json.loads(row) for row in spark.sql(json.loads(line)).toJSON().collect()]
        print("ROWS " + json.dumps(rows), flush=True)
    except Exception as exc:
        print("ERROR " + json.dumps(str(exc)[:4000]), flush=True)
"""


@dataclass
class CdcProject:
    """One isolated project state: its own landing folder and its own Spark warehouse/metastore."""

    root: Path
    env: dict = field(default_factory=dict)
    _worker: subprocess.Popen | None = None

    @property
    def landing_dir(self) -> Path:
        return self.root / "landing"

    @property
    def spark_dir(self) -> Path:
        return self.root / "spark"

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

    def run(self, *dbt_args: str) -> str:
        """Run `cdc-dbt <args>`; fail the test with dbt's output when it fails."""
        self.stop_queries()
        env = self.environment()
        proc = subprocess.run([str(CDC_DBT), *dbt_args], cwd=PROJECT_DIR, env=env,
                              capture_output=True, text=True, timeout=1800, check=False)
        if proc.returncode != 0:
            pytest.fail(f"cdc-dbt {' '.join(dbt_args)} failed ({proc.returncode}):\n"
                        f"{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}")
        return proc.stdout

    def sql(self, statement: str) -> list[dict]:
        """Rows of a Spark SQL query on this project's warehouse, as dicts.

        Faster than `query` (no dbt): one Spark session per project serves every query until
        the next `run`, which stops it first (the embedded metastore admits one process).
        """
        if self._worker is None:
            self._worker = subprocess.Popen([sys.executable, "-c", _QUERY_WORKER], cwd=PROJECT_DIR,
                                            env=self.environment(), stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, text=True)
        self._worker.stdin.write(json.dumps(statement) + "\n")
        self._worker.stdin.flush()
        while True:
            line = self._worker.stdout.readline()
            if not line:
                self.stop_queries()
                pytest.fail(f"the query process died running: {statement}")
            if line.startswith("ROWS "):
                return json.loads(line[5:])
            if line.startswith("ERROR "):
                pytest.fail(f"query failed: {statement}\n{json.loads(line[6:])}")

    def stop_queries(self) -> None:
        if self._worker is not None:
            self._worker.stdin.close()
            self._worker.wait(timeout=120)
            self._worker = None

    def query(self, sql: str) -> list[dict]:
        """Rows of a SELECT (Jinja allowed, e.g. {{ ref('cdc_current') }}) as dicts."""
        out = self.run("show", "--inline", sql, "--limit", "-1", "--output", "json", "--quiet")
        return json.loads(out[out.index("{"):])["show"]


@pytest.fixture
def cdc_project(tmp_path: Path):
    project = CdcProject(root=tmp_path)
    project.landing_dir.mkdir()
    yield project
    project.stop_queries()
