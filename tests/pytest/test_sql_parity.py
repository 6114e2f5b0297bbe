"""While a vendor has both a SQL flattening and its old Python parser, the two must agree on
every conformance file and on generated workloads (see parser_parity.py)."""

from __future__ import annotations

import importlib
import os

import pytest
from edge_records import datahub_records, datastream_records, qlik_records
from parser_parity import assert_parity, land_conformance_and_workloads, landing_problems

from python_udfs.landing import VENDORS as LANDING_FOLDERS

pytestmark = pytest.mark.spark

SEEDS = (int(os.environ.get("CDC_WORKLOAD_SEED", "7")), 11)
# vendors flattened in SQL whose Python parser still exists
VENDORS = ("debezium", "spanner", "qlik", "datastream", "datahub")


def test_sql_flattening_matches_the_python_parser(cdc_project):
    """Every vendor in one project: one Spark session and one dbt run for them all."""
    for vendor in VENDORS:
        generator = importlib.import_module(f"workloads.{vendor}")
        land_conformance_and_workloads(cdc_project, vendor, [generator.build_workload(seed) for seed in SEEDS])
    cdc_project.write_landing_file("qlik", "edge-records.jsonl", qlik_records())
    cdc_project.write_landing_file("datastream", "edge-records.jsonl", datastream_records())
    cdc_project.write_landing_file("datahub", "edge-records.jsonl", datahub_records())
    assert_parity(cdc_project, VENDORS)


def test_landing_files_split_like_the_python_reader(cdc_project):
    """Every vendor's conformance files in one project, split by one dbt run."""
    for vendor in LANDING_FOLDERS:
        land_conformance_and_workloads(cdc_project, vendor, [])
    # no text conformance file has Windows line ends (an empty line among them)
    crlf = cdc_project.landing_dir / "debezium" / "windows-line-ends.jsonl"
    crlf.write_bytes(b'{"op": "c", "n": 1}\r\n{"op": "u", "n": 2}\r\n\r\n{"op": "d"}\r\n')
    # only the final newline ends a record: the blank lines before it are records (the regular
    # expression the split used before D49 dropped one of them)
    blank_end = cdc_project.landing_dir / "debezium" / "blank-lines-at-the-end.jsonl"
    blank_end.write_bytes(b'{"op": "c", "n": 1}\n{"op": "u", "n": 2}\n\n\n')
    compared, problems = landing_problems(cdc_project, LANDING_FOLDERS)
    assert set(compared) == set(LANDING_FOLDERS) and all(compared.values()), compared
    assert not problems, "\n".join(problems[:8])
