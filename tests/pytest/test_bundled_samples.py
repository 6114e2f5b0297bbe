"""The bundled samples (data/landing), which `make run` builds for a newcomer: `build` runs every
seed, model, data test and dbt unit test of the project on them (on the tests' shared session;
`make dbt-build` does the same as its own `cdc-dbt` process)."""

from __future__ import annotations

import re
import shutil

import pytest
from conftest import PROJECT_DIR

pytestmark = pytest.mark.spark

SAMPLES = PROJECT_DIR / "data" / "landing"


def test_the_bundled_samples_pass_every_data_test_and_unit_test(cdc_project):
    vendors = sorted(folder for folder in SAMPLES.iterdir() if folder.is_dir())
    assert len(vendors) == 5, vendors
    for folder in vendors:
        shutil.copytree(folder, cdc_project.landing_dir / folder.name)
    output = cdc_project.run("build")
    done = re.findall(r"Done\. PASS=(\d+) WARN=(\d+) ERROR=(\d+) SKIP=(\d+)", output)
    assert done and done[-1][1:] == ("0", "0", "0"), output[-4000:]
    finished = next(line for line in output.splitlines() if "Finished running" in line)
    for kind in ("seeds", "data tests", "unit tests", "view models", "cdc merge models"):
        assert re.search(rf"\b[1-9]\d* {kind}\b", finished), f"no {kind} ran: {finished}"
