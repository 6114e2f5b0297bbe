"""While a vendor has both a SQL flattening and its old Python parser, the two must agree on
every conformance file and on generated workloads (see parser_parity.py)."""

from __future__ import annotations

import importlib
import os

import pytest
from parser_parity import assert_parity, land_conformance_and_workloads, landing_problems

pytestmark = pytest.mark.spark

SEEDS = (int(os.environ.get("CDC_WORKLOAD_SEED", "7")), 11)
# vendors flattened in SQL whose Python parser still exists
VENDORS = ("debezium", "spanner")


@pytest.mark.parametrize("vendor", VENDORS)
def test_sql_flattening_matches_the_python_parser(cdc_project, vendor):
    generator = importlib.import_module(f"workloads.{vendor}")
    land_conformance_and_workloads(cdc_project, vendor, [generator.build_workload(seed) for seed in SEEDS])
    assert_parity(cdc_project, vendor)


@pytest.mark.parametrize("vendor", ("datastream", "spanner", "debezium", "qlik", "datahub"))
def test_landing_files_split_like_the_python_reader(cdc_project, vendor):
    land_conformance_and_workloads(cdc_project, vendor, [])
    compared, problems = landing_problems(cdc_project, vendor)
    assert compared > 0
    assert not problems, "\n".join(problems[:8])
