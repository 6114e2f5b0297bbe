"""Every enabled vendor through the whole project, with the commands a user types: `build` on the
tests' shared Spark session, and a first `cdc-dbt run` in its own process on a fresh folder.

Real published samples (../shared/conformance/<vendor>) must all become change events or
control records with nothing quarantined; malformed input must be quarantined with its reason
while the run succeeds; every landing record must be accounted for (the dbt data tests run in
`build`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CONFORMANCE_DIR, PROJECT_DIR, shared_project

pytestmark = pytest.mark.spark

VENDORS_UNDER_TEST = ("datastream", "debezium", "spanner", "qlik", "datahub")
# Published files that hold no change, only a control record (a Qlik metadata message).
METADATA_ONLY = {("qlik", "Metadata.json")}
# `build` here runs models and data tests; the dbt unit tests run once, in test_bundled_samples.py
NO_UNIT_TESTS = ("--exclude", "test_type:unit")
ACCOUNTING_TEST = ("--select", "assert_every_landing_record_is_accounted_for")
# Published files that are not landing input (DataHub's DTS Avro schemas are reference only).
NOT_INPUT_SUFFIXES = (".avsc",)
# The Qlik README examples are bare data messages; on a real feed they arrive in a Kafka record
# that names the topic, which is what gives them a table.
QLIK_EXAMPLES_TOPIC = "inventory.customers"

# Qlik records the project must quarantine, with their reason.
QLIK_MALFORMED = [
    (('{"data": {"id": 1}, "beforeData": null, "headers": {"operation": "INSERT", "changeSequence": "1", '
     '"timestamp": "", "changeMask": "01", "columnMask": "01"}}'), "unknown_table"),
    (('{"topic": "inventory.customers", "value": {"data": {"id": 9, "email": "x"}, "beforeData": null, '
     '"headers": {"operation": "INSERT", "changeSequence": "5", "timestamp": "", "changeMask": "0G", '
     '"columnMask": "03"}}}'), "invalid_column_mask"),
    (('{"topic": "inventory.customers", "value": {"data": {"id": 9, "email": "x"}, "beforeData": null, '
     '"headers": {"operation": "INSERT", "changeSequence": "5", "timestamp": "", "changeMask": "03", '
     '"columnMask": "07"}}}'), "invalid_column_mask"),
    (('{"topic": "inventory.customers", "value": {"data": {"id": 9, "email": "x"}, "beforeData": null, '
     '"headers": {"operation": "INSERT", "changeSequence": "12a", "timestamp": "", "changeMask": "03", '
     '"columnMask": "03"}}}'), "invalid_position"),
]

# One malformed record per line, with the reason the project must give it.
MALFORMED = [
    ('{"before": null, "after": {"id": 1, "name": "cut', "invalid_json"),
    (('{"before": null, "after": {"id": 2}, "source": {"connector": "mysql", "db": "shop", '
      '"table": "t", "file": "mysql-bin.000001", "pos": 4, "row": 0}, "op": "x"}'), "unknown_op"),
    ('{"before": null, "after": {"id": 3}, "op": "c"}', "missing_source"),
    (('{"before": null, "after": [1, 2], "source": {"connector": "mysql", "db": "shop", "table": "t"}, '
      '"op": "c"}'), "wrong_type"),
    ("", "empty_record"),
    ("42", "not_an_object"),
    (('{"before": null, "after": {"code": "A", "name": "no key"}, "source": {"connector": "mysql", '
      '"db": "shop", "table": "no_key_table", "file": "mysql-bin.000001", "pos": 9, "row": 0}, "op": "c"}'),
     "missing_primary_key"),
    (('{"before": null, "after": {"id": 5}, "source": {"connector": "mysql", "db": "shop", "table": "t", '
      '"file": "mysql-bin.000001", "pos": "not-a-number", "row": 0}, "op": "c"}'), "invalid_position"),
]
GOOD_AFTER_MALFORMED = ('{"topic": "shop.t", "partition": 0, "offset": 7, "key": {"id": 6}, "value": null}',
                        "tombstone")


@pytest.fixture(scope="module")
def built(tmp_path_factory, shared_spark):
    if not CONFORMANCE_DIR.is_dir():
        pytest.skip(f"conformance samples not found at {CONFORMANCE_DIR}")
    project = shared_project(shared_spark, tmp_path_factory.mktemp("conformance_e2e"))
    samples = []
    for vendor in VENDORS_UNDER_TEST:
        folder = project.landing_dir / vendor
        folder.mkdir(parents=True)
        for path in sorted(path for path in (CONFORMANCE_DIR / vendor).rglob("*") if path.is_file()):
            if path.name.endswith(NOT_INPUT_SUFFIXES):
                continue
            if vendor == "qlik" and path.suffix == ".jsonl":
                project.write_landing_file(vendor, path.name, [
                    json.dumps({"topic": QLIK_EXAMPLES_TOPIC, "partition": 0, "offset": offset,
                                "value": json.loads(line)})
                    for offset, line in enumerate(path.read_text(encoding="utf-8").splitlines()) if line.strip()])
            else:
                shutil.copy(path, folder / path.name)
            samples.append((vendor, path.name))
    project.write_landing_file("debezium", "malformed.jsonl",
                               [line for line, _ in MALFORMED] + [GOOD_AFTER_MALFORMED[0]])
    if "qlik" in VENDORS_UNDER_TEST:
        project.write_landing_file("qlik", "malformed.jsonl", [line for line, _ in QLIK_MALFORMED])
    # damaged Avro: an empty file, and a real file cut short (its first records must survive)
    (project.landing_dir / "datastream" / "empty.avro").write_bytes(b"")
    whole = (CONFORMANCE_DIR / "datastream" / "published" / "dump.avro").read_bytes()
    (project.landing_dir / "datastream" / "cut.avro").write_bytes(whole[: len(whole) * 2 // 3])
    # seeds, models and every data test (incl. the record accounting); the dbt unit tests of the
    # flattening SQL need no landing data and run once, in test_bundled_samples.py
    project.run("build", *NO_UNIT_TESTS)
    return project, samples


def test_every_conformance_file_becomes_change_events(built):
    project, samples = built
    rows = project.sql(
        "select source_vendor, reverse(split(_source_file, '/'))[0] as file, count(*) as events "
        "from cdc_intermediate.int_cdc__change_events group by 1, 2")
    events = {(row["source_vendor"], row["file"]): row["events"] for row in rows}
    missing = [sample for sample in samples if not events.get(sample) and sample not in METADATA_ONLY]
    assert not missing, f"conformance files without change events: {missing}"
    controls = project.sql("select reverse(split(_source_file, '/'))[0] as file, control_type "
                           "from cdc_intermediate.int_cdc__control_events where source_vendor = 'qlik'")
    assert ("Metadata.json", "table_version") in {(row["file"], row["control_type"]) for row in controls}


def test_nothing_from_the_conformance_files_is_quarantined(built):
    project, _ = built
    rows = project.sql("select _source_file, reason, detail from cdc_intermediate.int_cdc__quarantine "
                       "where _source_file not rlike '/(malformed.jsonl|empty.avro|cut.avro)$'")
    assert rows == []


def test_damaged_avro_files_are_quarantined_and_keep_what_was_readable(built):
    project, _ = built
    rows = project.sql("select reverse(split(_source_file, '/'))[0] as file, reason "
                       "from cdc_intermediate.int_cdc__quarantine where _source_file rlike '/(empty|cut).avro$'")
    # a zero-byte file holds no record: Spark's file sources do not see it (DECISIONLOG D22)
    assert sorted((row["file"], row["reason"]) for row in rows) == [("cut.avro", "unreadable_file")]
    kept = project.sql("select count(*) as n from cdc_intermediate.int_cdc__change_events "
                       "where _source_file like '%/cut.avro'")
    assert kept[0]["n"] > 0


def test_malformed_records_are_quarantined_with_their_reason(built):
    project, _ = built
    rows = project.sql("select _record_no, reason, detail, raw from cdc_intermediate.int_cdc__quarantine "
                       "where _source_file like '%/debezium/malformed.jsonl' order by _record_no")
    got = {row["_record_no"]: row["reason"] for row in rows}
    expected = {number: reason for number, (_, reason) in enumerate(MALFORMED, start=1)}
    assert got == expected
    assert all(row["detail"] for row in rows)
    # the raw text is kept for the person who has to look (the empty record is empty)
    assert rows[0].get("raw") == MALFORMED[0][0]


def test_malformed_qlik_records_are_quarantined_with_their_reason(built):
    project, _ = built
    rows = project.sql("select _record_no, reason, detail from cdc_intermediate.int_cdc__quarantine "
                       "where _source_file like '%/qlik/malformed.jsonl' order by _record_no")
    assert {row["_record_no"]: row["reason"] for row in rows} == {
        number: reason for number, (_, reason) in enumerate(QLIK_MALFORMED, start=1)}
    assert all(row["detail"] for row in rows)


def test_qlik_known_values(built):
    project, _ = built
    rows = project.sql("select source_table, pk, row, last_op from cdc_marts.cdc_current where source_vendor = 'qlik'")
    current = {(row["source_table"], row["pk"]): (json.loads(row["row"]), row["last_op"]) for row in rows}
    # Data.json (REFRESH) finds its table through Metadata.json's schema id, and its key there
    salary = current[("employees.salaries", '{"emp_no":14472,"from_date":"1993-11-25"}')]
    assert salary == ({"emp_no": 14472, "salary": 49592, "from_date": "1993-11-25", "to_date": "1994-11-25"},
                      "snapshot")
    versions = project.sql("select table_version, key_columns from cdc_staging.stg_qlik__table_versions")
    assert [(row["table_version"], row["key_columns"]) for row in versions] == [("1", ["emp_no", "from_date"])]
    # the README examples: an update, two deletes (the row in beforeData, or in data) and the
    # same update in the atMSG envelope, all of id 1; the key comes from `id`, and the masks
    # ("1") name only ordinal 1, so the updates carry `id` alone
    events = project.sql("select op, pk, present_columns from cdc_intermediate.int_cdc__change_events "
                         "where source_vendor = 'qlik' and source_table = 'inventory.customers'")
    assert sorted((row["op"], row["pk"]) for row in events) == [
        ("delete", '{"id":1}'), ("delete", '{"id":1}'), ("update", '{"id":1}'), ("update", '{"id":1}')]
    assert [row["present_columns"] for row in events if row["op"] == "update"] == [["id"], ["id"]]


def test_datahub_known_values(built):
    project, _ = built
    rows = project.sql("select pk, row, last_op from cdc_marts.cdc_current where source_vendor = 'datahub' "
                       "and source_table = 'bigdata_test.sync_test_table'")
    current = {row["pk"]: (json.loads(row["row"]), row["last_op"]) for row in rows}
    # event-insert.txt is a full-load row (sequenceId -1); event-update-in-one.txt updates it
    # (DOUBLE sent as text, DATE as epoch milliseconds); event-delete.txt deletes a key never seen
    assert current == {'{"id":2}': ({"id": 2, "val": 2.2, "name": "a", "create_time": "2024-11-15T08:58:34Z"},
                                    "update")}


def test_tombstone_is_a_control_record(built):
    project, _ = built
    rows = project.sql("select control_type from cdc_intermediate.int_cdc__control_events "
                       "where _source_file like '%/debezium/malformed.jsonl'")
    assert [row["control_type"] for row in rows] == [GOOD_AFTER_MALFORMED[1]]


def test_ledger_accounts_for_every_record(built):
    project, samples = built
    rows = project.sql("select source_vendor, reverse(split(_source_file, '/'))[0] as file, records, "
                       "change_records, control_records, quarantined_records "
                       "from cdc_intermediate.int_cdc__ingestion_ledger")
    ledger = {(row["source_vendor"], row["file"]): row for row in rows}
    assert set(ledger) == set(samples) | {("debezium", "malformed.jsonl"), ("datastream", "cut.avro"),
                                          ("qlik", "malformed.jsonl")}
    for row in ledger.values():
        assert row["records"] == row["change_records"] + row["control_records"] + row["quarantined_records"], row
    assert ledger[("debezium", "malformed.jsonl")]["quarantined_records"] == len(MALFORMED)
    assert ledger[("qlik", "malformed.jsonl")]["quarantined_records"] == len(QLIK_MALFORMED)


def test_known_values_come_out(built):
    project, _ = built
    rows = project.sql("select source_table, pk, row from cdc_marts.cdc_current "
                       "where source_vendor = 'debezium' and source_table in "
                       "('DEBEZIUM.CUSTOMERS', 'inventory.customers', 'bigdata_test.sync_test_table')")
    current = {(row["source_table"], row["pk"]): json.loads(row["row"]) for row in rows}
    assert current[("DEBEZIUM.CUSTOMERS", '{"ID":1004}')]["EMAIL"] == "annek@noanswer.org"
    # serde-update.json (an update at the same binlog position as the create) wins by arrival
    assert current[("inventory.customers", '{"id":1004}')]["first_name"] in {"Anne", "Anne-Marie"}
    mongo = current[("bigdata_test.sync_test_table", '{"_id":"67ab25755c0d5ac87eb8c632"}')]
    assert mongo["tags"] == ["succeed"]


def test_datastream_known_values(built):
    project, _ = built
    # Oracle update-pk.avro: key 210 becomes 211 (UPDATE-DELETE + UPDATE-INSERT at one position)
    rows = project.sql("select pk from cdc_marts.cdc_current "
                       "where source_vendor = 'datastream' and source_table = 'xe.HR.EMPLOYEES' "
                       "and pk in ('{\"EMPLOYEE_ID\":210}', '{\"EMPLOYEE_ID\":211}')")
    assert [row["pk"] for row in rows] == ['{"EMPLOYEE_ID":211}']
    engines = project.sql("select distinct source_engine from cdc_intermediate.int_cdc__change_events "
                          "where source_vendor = 'datastream'")
    assert {row["source_engine"] for row in engines} >= {"mysql", "oracle", "postgresql"}


def test_spanner_documented_values(built):
    project, _ = built
    rows = project.sql("select source_table, pk, row from cdc_marts.cdc_current where source_vendor = 'spanner'")
    current = {(row["source_table"], row["pk"]): json.loads(row["row"]) for row in rows}
    # spanner-change-streams-tail README: INT64 key arrives as a JSON string and becomes a number
    assert current[("Players", '{"PlayerId":22}')] == {"Name": "foo", "PlayerId": 22}
    heartbeats = project.sql("select complete_up_to from cdc_intermediate.int_cdc__feed_watermarks "
                             "where source_vendor = 'spanner'")
    assert len(heartbeats) == 1 and heartbeats[0]["complete_up_to"]


def test_plain_dbt_names_the_runner(isolated_project):
    """`dbt run` without cdc-dbt has no UDFs: it must fail before its first model and say what to
    run instead, also when the selected model calls no UDF (the on-run-start check)."""
    # no DBT_PROFILES_DIR: plain dbt finds profiles.yml in the project folder, as for a user
    env = {key: value for key, value in isolated_project.environment().items() if key != "DBT_PROFILES_DIR"}
    proc = subprocess.run([str(Path(sys.executable).parent / "dbt"), "run", "--select",
                           "stg_debezium__change_events"],
                          cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode != 0
    for says in ("`dbt run` on this project needs the project's Python UDFs",
                 "Run it through the project runner instead of plain dbt:", ".venv/bin/cdc-dbt run ..."):
        assert says in proc.stdout, proc.stdout[-3000:]


def _assert_accounting_passes(project) -> None:
    output = project.run("test", *ACCOUNTING_TEST)
    assert any(ACCOUNTING_TEST[1] in line and " PASS " in line for line in output.splitlines()), output[-3000:]


def test_first_run_on_a_fresh_folder_then_qlik_metadata_delivered_later(isolated_project):
    """What a user types first: `cdc-dbt run` (no `seed` before it) on fresh folders, then
    `cdc-dbt show ... --output json --quiet`, whose standard output must be the JSON alone.
    The same first run also holds Qlik's Data.json, which names its table only by
    messageSchemaId: before Metadata.json arrives it waits (not quarantined, not guessed); the
    run that brings the metadata takes it (DECISIONLOG D16). One project for both: a first run
    on a fresh state is the most expensive run there is."""
    isolated_project.write_landing_file("debezium", "one.jsonl", [
        ('{"before": null, "after": {"ID": 7, "NAME": "Ada"}, "source": {"connector": "oracle", '
        '"db": "ORCLPDB1", "schema": "INVENTORY", "table": "CUSTOMERS", "scn": "100", "ssn": 0}, "op": "c"}'),
        ('{"before": {"ID": 7, "NAME": "Ada"}, "after": {"ID": 7, "NAME": null}, "source": {"connector": '
        '"oracle", "db": "ORCLPDB1", "schema": "INVENTORY", "table": "CUSTOMERS", "scn": "99999999999999999999", '
        '"ssn": 0}, "op": "u"}'),
    ])
    published = CONFORMANCE_DIR / "qlik" / "published"
    qlik_folder = isolated_project.landing_dir / "qlik"
    qlik_folder.mkdir(parents=True)
    shutil.copy(published / "Data.json", qlik_folder / "1-data.json")
    isolated_project.run_cli("run")
    out = isolated_project.run_cli("show", "--inline",
                              "select source_vendor, source_table, pk, row from {{ ref('cdc_current') }}",
                              "--limit", "-1", "--output", "json", "--quiet")
    rows = json.loads(out)["show"]
    assert rows == [{"source_vendor": "debezium", "source_table": "ORCLPDB1.INVENTORY.CUSTOMERS",
                     "pk": '{"ID":7}', "row": '{"ID":7,"NAME":null}'}]

    waiting = isolated_project.sql("select schema_id from cdc_staging.stg_qlik__awaiting_metadata")
    assert [row["schema_id"] for row in waiting] == ["8FB9D3C10EA4B25751DF9CC8318F0A02"]
    assert isolated_project.sql("select * from cdc_marts.cdc_current where source_vendor = 'qlik'") == []
    assert isolated_project.sql("select * from cdc_intermediate.int_cdc__quarantine") == []
    _assert_accounting_passes(isolated_project)  # the record accounting counts the waiting message
    _assert_staging_tables_alike(isolated_project)

    shutil.copy(published / "Metadata.json", qlik_folder / "2-metadata.json")
    # Spanner had no folder on the first run (its staging tables were created empty): now it has data
    readme_examples = CONFORMANCE_DIR / "spanner" / "extracted" / "spanner_change_streams_tail_readme_examples.jsonl"
    isolated_project.write_landing_file("spanner", "one.jsonl", readme_examples.read_text(encoding="utf-8").splitlines()[:1])
    isolated_project.run("run")
    assert isolated_project.sql("select * from cdc_staging.stg_qlik__awaiting_metadata") == []
    rows = isolated_project.sql("select source_table, pk from cdc_marts.cdc_current where source_vendor = 'qlik'")
    assert [(row["source_table"], row["pk"]) for row in rows] == [
        ("employees.salaries", '{"emp_no":14472,"from_date":"1993-11-25"}')]
    rows = isolated_project.sql("select source_table, pk, row from cdc_marts.cdc_current where source_vendor = 'spanner'")
    assert [(row["source_table"], row["pk"], json.loads(row["row"])) for row in rows] == [
        ("Players", '{"PlayerId":22}', {"Name": "foo", "PlayerId": 22})]
    _assert_accounting_passes(isolated_project)
    _assert_staging_tables_alike(isolated_project)


def _assert_staging_tables_alike(project) -> None:
    """Every vendor's landing, parsed and change-event tables have one schema, whether Spark
    built them from the model's SQL (a vendor with data), from a Python parser (Qlik) or from
    the declared cdc_empty_table_columns (a vendor whose first build found nothing)."""
    for pattern in ("base_{}__landing_records", "base_{}__parsed", "stg_{}__change_events"):
        schemas = {}
        for vendor in VENDORS_UNDER_TEST:
            columns = project.sql(f"describe cdc_staging.{pattern.format(vendor)}")
            schemas[vendor] = [(row["col_name"], row["data_type"]) for row in columns
                               if row["col_name"] and not row["col_name"].startswith("#")]
        assert len({tuple(schema) for schema in schemas.values()}) == 1, (pattern, schemas)
