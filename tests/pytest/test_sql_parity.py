"""While a vendor has both a SQL flattening and its old Python parser, the two must agree on
every conformance file and on generated workloads (see parser_parity.py)."""

from __future__ import annotations

import bz2
import gzip
import importlib
import json
import os
from collections import Counter

import pytest
from edge_records import (
    datahub_records,
    datastream_records,
    debezium_records,
    debezium_repeated_keys,
    qlik_records,
    spanner_records,
)
from landing_split import VENDORS as LANDING_FOLDERS
from parser_parity import assert_parity, land_conformance_and_workloads, landing_problems

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
    cdc_project.write_landing_file("debezium", "edge-records.jsonl", debezium_records())
    cdc_project.write_landing_file("spanner", "edge-records.jsonl", spanner_records())
    assert_parity(cdc_project, VENDORS)
    # Debezium reads plain records by a shorter path (DECISIONLOG D57): the same rows without it
    cdc_project.write_landing_file("debezium", "repeated-keys.jsonl", debezium_repeated_keys())
    cdc_project.run("run", "--select", "+base_debezium__parsed")
    with_plain_path = _parsed_rows(cdc_project, "debezium")
    cdc_project.run("run", "--full-refresh", "--select", "base_debezium__parsed",
                    "--vars", "{cdc_debezium_plain_path: false}")
    without = _parsed_rows(cdc_project, "debezium")
    assert len(with_plain_path) > 1000 and with_plain_path == without, (
        f"{len(with_plain_path)} rows with the plain path, {len(without)} without; "
        f"only with it: {sorted(with_plain_path - without)[:2]}; only without: {sorted(without - with_plain_path)[:2]}")


def _parsed_rows(project, vendor: str) -> Counter:
    """base_<vendor>__parsed as JSON text per row, without the columns a run stamps."""
    return Counter(row["row_json"] for row in project.sql(
        f"select to_json(struct(* except (_parsed_at, _run_id, _loaded_at))) as row_json from cdc_staging.base_{vendor}__parsed"))


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
    _write_files_of_every_route(cdc_project.landing_dir / "debezium")
    compared, problems = landing_problems(cdc_project, LANDING_FOLDERS)
    assert set(compared) == set(LANDING_FOLDERS) and all(compared.values()), compared
    assert not problems, "\n".join(problems[:8])
    # the same files read again with a whole-file limit of 4 kB: every larger text file goes line by
    # line (an array or document among them is refused as too large), compressed ones too (DECISIONLOG D63)
    compared, problems = landing_problems(cdc_project, LANDING_FOLDERS, whole_file_bytes=4096, full_refresh=True)
    assert set(compared) == set(LANDING_FOLDERS) and all(compared.values()), compared
    assert not problems, "\n".join(problems[:8])


def _write_files_of_every_route(folder) -> None:
    """Files of each way a landing file is read: compressed (.gz, .bz2) newline-delimited records and
    a compressed array, a large file of CRLF lines with a blank one, a large array, a file of another
    format."""
    records = [json.dumps({"op": "c", "after": {"id": number, "note": "x" * 40}, "ts_ms": number}) for number in range(120)]
    (folder / "compressed.jsonl.gz").write_bytes(gzip.compress("\n".join(records[:5]).encode() + b"\n"))
    (folder / "compressed-array.json.gz").write_bytes(gzip.compress(("[" + ",".join(records[:3]) + "]").encode()))
    (folder / "compressed-large.jsonl.bz2").write_bytes(bz2.compress("\n".join(records).encode() + b"\n"))
    (folder / "large-crlf.jsonl").write_bytes(
        "\r\n".join(records[:60]).encode() + b"\r\n\r\n" + "\n".join(records[60:]).encode() + b"\n")
    (folder / "large-array.json").write_text("[\n" + ",\n".join(records) + "\n]", encoding="utf-8")
    (folder / "notes.csv").write_text("id,note\n1,x\n", encoding="utf-8")
