"""The bundled samples (data/landing), which `make run` builds for a newcomer: `build` runs every
seed, model, data test and dbt unit test of the project on them (on the tests' shared session,
the bundled_samples_build fixture, which test_thrift_cluster.py compares a cluster's result with;
`make dbt-build` does the same as its own `cdc-dbt` process)."""

from __future__ import annotations

import re

import pytest
from conftest import SAMPLES_DIR

pytestmark = pytest.mark.spark


def test_the_bundled_samples_pass_every_data_test_and_unit_test(bundled_samples_build):
    vendors = sorted(folder.name for folder in SAMPLES_DIR.iterdir() if folder.is_dir())
    assert len(vendors) == 5, vendors
    output = bundled_samples_build.output
    done = re.findall(r"Done\. PASS=(\d+) WARN=(\d+) ERROR=(\d+) SKIP=(\d+)", output)
    assert done and done[-1][1:] == ("0", "0", "0"), output[-4000:]
    finished = next(line for line in output.splitlines() if "Finished running" in line)
    for kind in ("seeds", "data tests", "unit tests", "view models", "cdc merge models"):
        assert re.search(rf"\b[1-9]\d* {kind}\b", finished), f"no {kind} ran: {finished}"
    assert bundled_samples_build.current_rows, "cdc_current is empty after building the bundled samples"


def test_unit_tests_take_the_declared_column_types(bundled_samples_build):
    """Every unit test of the project is on a model that declares its columns (cdc_empty_table_columns),
    so none made dbt's empty temporary view of the model to learn them (DECISIONLOG D46)."""
    log = (bundled_samples_build.landing_dir.parent / "logs" / "dbt.log").read_text(encoding="utf-8")
    assert "START unit_test" in log
    assert not re.findall(r"create or replace temporary view \w+__dbt_tmp", log)
