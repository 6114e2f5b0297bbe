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


# One Spark session per test project: runs dbt commands (in-process, as cdc-dbt does) and SQL
# queries sent as JSON lines, answering each with a line that starts with MARK.
MARK = "\x1ecdc-test "
_WORKER = """
import json, sys
from python_udfs.runner import invoke_dbt, start
spark = start()
MARK = sys.argv[1]
for line in sys.stdin:
    request = json.loads(line)
    try:
        if "dbt" in request:
            print(MARK + json.dumps({"exit_code": invoke_dbt(request["dbt"])}), flush=True)
        else:
            rows = [json.loads(row) for row in spark.sql(request["sql"]).toJSON().collect()]
            print(MARK + json.dumps({"rows": rows}), flush=True)
    except Exception as exc:
        print(MARK + json.dumps({"error": repr(exc)[:4000]}), flush=True)
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

    def run_cli(self, *dbt_args: str) -> str:
        """Run the real `cdc-dbt <args>` command in its own process, as a user would."""
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
        if self._worker is None:
            self._worker = subprocess.Popen([sys.executable, "-c", _WORKER, MARK], cwd=PROJECT_DIR,
                                            env=self.environment(), stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, text=True)
        self._worker.stdin.write(json.dumps(request) + "\n")
        self._worker.stdin.flush()
        output = []
        while True:
            line = self._worker.stdout.readline()
            if not line:
                self.stop()
                pytest.fail(f"the Spark process died during {request}:\n{''.join(output)[-6000:]}")
            if line.startswith(MARK):
                return json.loads(line[len(MARK):]), "".join(output)
            output.append(line)

    def stop(self) -> None:
        """End this project's Spark session (the embedded metastore admits one process)."""
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
    project.stop()
