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


@dataclass
class CdcProject:
    """One isolated project state: its own landing folder and its own Spark warehouse/metastore."""

    root: Path
    env: dict = field(default_factory=dict)

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
        env = self.environment()
        proc = subprocess.run([str(CDC_DBT), *dbt_args], cwd=PROJECT_DIR, env=env,
                              capture_output=True, text=True, timeout=1800, check=False)
        if proc.returncode != 0:
            pytest.fail(f"cdc-dbt {' '.join(dbt_args)} failed ({proc.returncode}):\n"
                        f"{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}")
        return proc.stdout

    def sql(self, statement: str) -> list[dict]:
        """Rows of a Spark SQL query on this project's warehouse (faster than `query`: no dbt)."""
        env = self.environment()
        script = ("import json, sys\n"
                  "from python_udfs.runner import start\n"
                  "rows = start().sql(sys.argv[1]).toJSON().collect()\n"
                  "print('ROWS' + json.dumps([json.loads(row) for row in rows]))\n")
        proc = subprocess.run([sys.executable, "-c", script, statement], cwd=PROJECT_DIR, env=env,
                              capture_output=True, text=True, timeout=900, check=False)
        if proc.returncode != 0 or "ROWS" not in proc.stdout:
            pytest.fail(f"query failed: {statement}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        return json.loads(proc.stdout[proc.stdout.index("ROWS") + 4:])

    def query(self, sql: str) -> list[dict]:
        """Rows of a SELECT (Jinja allowed, e.g. {{ ref('cdc_current') }}) as dicts."""
        out = self.run("show", "--inline", sql, "--limit", "-1", "--output", "json", "--quiet")
        return json.loads(out[out.index("{"):])["show"]


@pytest.fixture
def cdc_project(tmp_path: Path) -> CdcProject:
    project = CdcProject(root=tmp_path)
    project.landing_dir.mkdir()
    return project
