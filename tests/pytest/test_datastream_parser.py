"""Tests of the Datastream parser on the shared conformance samples and hand-built events."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from landing_split import split_records
from parser_helpers import one_with, parse_with, reason_with
from parsers import datastream
from parsers.datastream import parse_datastream

from python_udfs.avro import avro_records
from python_udfs.contract import PARSED_FIELDS, canonical_json

CONFORMANCE = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "datastream" / "published"
SAMPLE_FILES = sorted(p for p in CONFORMANCE.iterdir() if p.is_file()) if CONFORMANCE.is_dir() else []


# --- helpers ---------------------------------------------------------------------------------


def sample_path(name: str) -> Path:
    path = CONFORMANCE / name
    if not path.is_file():
        pytest.skip(f"conformance sample {name} not found under {CONFORMANCE}")
    return path


def file_records(path: Path) -> list[str]:
    if path.suffix == ".avro":
        return avro_records(str(path))
    return split_records(path.read_text(encoding="utf-8"))


def sample_changes(name: str) -> list[dict]:
    return [one(raw) for raw in file_records(sample_path(name))]


def parse(raw) -> list[dict]:
    return parse_with(parse_datastream, raw)


def one(raw) -> dict:
    return one_with(parse_datastream, raw)


def reason(raw) -> str:
    return reason_with(parse_datastream, raw)


# Hand-built events, one per source, shaped like the Datastream document's tables.
SOURCE_METADATA = {
    "mysql": {"database": "shop", "table": "orders", "primary_keys": ["id"], "log_file": "mysql-bin.000014",
              "log_position": 59424, "change_type": "INSERT", "is_deleted": False},
    "oracle": {"database": "DB1", "schema": "ROOT", "table": "SAMPLE", "log_file": "", "scn": 15869116216871,
               "row_id": "AAAPwRAALAAMzMBABD", "rs_id": " 0x0073c9.000a4e4c.01d0 ", "ssn": 67,
               "tx_id": "CAACAAUKAAA=", "change_type": "INSERT", "is_deleted": False},
    "postgresql": {"schema": "public", "table": "orders", "lsn": "16/CB002DB0", "tx_id": 363552,
                   "primary_keys": ["id"], "change_type": "INSERT", "is_deleted": False},
    "sqlserver": {"database": "sales", "schema": "dbo", "table": "orders", "lsn": "0000002A:00000B28:0003",
                  "tx_id": "0000:00000a1b", "physical_location": [1, 2, 3], "replication_index": ["id"],
                  "change_type": "INSERT", "is_deleted": False},
    "salesforce": {"object_name": "Account", "domain": "example.my.salesforce.com", "primary_keys": ["Id"],
                   "change_type": "INSERT", "is_deleted": False},
    "mongodb": {"database": "shop", "collection": "orders", "primary_keys": ["_id"], "change_type": "CREATE",
                "is_deleted": False, "ts": {"$timestamp": {"t": 1715237813, "i": 7}}},
}
READ_METHODS = {
    "mysql": "mysql-cdc-binlog",
    "oracle": "oracle-cdc-logminer",
    "postgresql": "postgresql-cdc",
    "sqlserver": "sqlserver-cdc",
    "salesforce": "salesforce-cdc",
    "mongodb": "mongodb-cdc",
}
PAYLOADS = {
    "salesforce": {"Id": "001xx000003DGb2AAG", "Name": "Acme"},
    "mongodb": {"_id": "6650f0c2a1b2c3d4e5f60718", "total": 10},
}


def event(engine: str = "mysql", meta: dict | None = None, **top) -> dict:
    """A Datastream event of one source; `meta` entries replace source_metadata fields (None removes)."""
    source_metadata = copy.deepcopy(SOURCE_METADATA[engine])
    for name, value in (meta or {}).items():
        if value is None:
            source_metadata.pop(name, None)
        else:
            source_metadata[name] = value
    built = {
        "stream_name": "projects/p/locations/l/streams/s",
        "read_method": READ_METHODS[engine],
        "object": "shop_orders",
        "schema_key": "e98d95ab545285b7571f9c4bdeaacb7abfac251b",
        "uuid": "8546a123-e6bc-49ca-b0c4-249000010000",
        "read_timestamp": 1715237869833,
        "source_timestamp": 1715237813000,
        "source_metadata": source_metadata,
        "payload": copy.deepcopy(PAYLOADS.get(engine, {"id": 7, "name": "Ann", "total": 12.5})),
    }
    for name, value in top.items():
        if value is None:
            built.pop(name, None)
        else:
            built[name] = value
    return built


# --- conformance samples ---------------------------------------------------------------------


def test_all_sample_files_are_present():
    if not SAMPLE_FILES:
        pytest.skip(f"no conformance samples under {CONFORMANCE}")
    assert sum(p.suffix == ".avro" for p in SAMPLE_FILES) == 58
    assert sorted(p.name for p in SAMPLE_FILES if p.suffix == ".json") == ["records1.json", "records2.json"]


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=[p.name for p in SAMPLE_FILES])
def test_every_sample_record_is_one_change(path):
    raws = file_records(path)
    assert raws
    for raw in raws:
        record = one(raw)
        assert record["kind"] == "change", record
        assert record["source_engine"] in ("mysql", "oracle", "postgresql")
        assert record["source_table"]
        assert (record["before"] is None) != (record["after"] is None)
        assert record["committed_at_us"] and record["read_at_us"]
        # the identity hash only where event_id reads it: a change without a position (D34)
        assert (record["content_hash"] is None) == (record["position"] is not None)
        assert record["content_hash"] is None or len(record["content_hash"]) == 64
        if record["position"] is not None:
            assert record["position"]["change_type_rank"] in ("0", "1")
            assert "uuid" not in record["position"]


def test_sample_totals_by_engine_and_operation():
    counts: dict[tuple[str, str], int] = {}
    for path in SAMPLE_FILES:
        for raw in file_records(path):
            record = one(raw)
            counts[record["source_engine"], record["vendor_op"]] = counts.get(
                (record["source_engine"], record["vendor_op"]), 0) + 1
    if not counts:
        pytest.skip("no conformance samples")
    assert counts == {
        ("mysql", "BACKFILL"): 68, ("mysql", "INSERT"): 45, ("mysql", "UPDATE-INSERT"): 17,
        ("mysql", "UPDATE-DELETE"): 2, ("mysql", "DELETE"): 14,
        ("oracle", "BACKFILL"): 131, ("oracle", "INSERT"): 1, ("oracle", "UPDATE"): 1, ("oracle", "DELETE"): 1,
        ("oracle", "UPDATE-DELETE"): 1, ("oracle", "UPDATE-INSERT"): 1,
        ("postgresql", "INSERT"): 1,
    }


def test_oracle_primary_key_update_pair_shares_its_position():
    delete_half, insert_half = sample_changes("update-pk.avro")
    assert delete_half["vendor_op"] == "UPDATE-DELETE" and insert_half["vendor_op"] == "UPDATE-INSERT"
    assert delete_half["source_engine"] == insert_half["source_engine"] == "oracle"
    assert delete_half["source_table"] == "xe.HR.EMPLOYEES"
    assert delete_half["key"] == {"EMPLOYEE_ID": "210"} and insert_half["key"] == {"EMPLOYEE_ID": "211"}
    assert delete_half["after"] is None and delete_half["before"]["EMPLOYEE_ID"] == "210"
    assert insert_half["before"] is None and insert_half["after"]["EMPLOYEE_ID"] == "211"
    assert delete_half["position"] == {"scn": "382470", "rs_id": " 0x000004.00000705.0010 ", "ssn": "0",
                                       "change_type_rank": "0"}
    assert insert_half["position"] == {**delete_half["position"], "change_type_rank": "1"}
    assert delete_half["transaction_id"] == insert_half["transaction_id"] == "BAABACkBAAA="
    assert delete_half["committed_at_us"] == 1_635_990_271_000_000
    assert delete_half["schema_version"] == "d29ee2aceda76cdfe2f2fa9a8a5e6ba169f82d7d"
    assert delete_half["before"]["SALARY"] == '"12131.00"'  # an Avro decimal, as decimal text
    assert delete_half["before"]["HIRE_DATE"] == '"2020-01-09T00:00:00Z"'


def test_oracle_cdc_insert_update_delete_files():
    (insert,) = sample_changes("insert.avro")
    (update,) = sample_changes("update.avro")
    (delete,) = sample_changes("delete.avro")
    assert [r["vendor_op"] for r in (insert, update, delete)] == ["INSERT", "UPDATE", "DELETE"]
    assert insert["position"] == {"scn": "7044811", "rs_id": " 0x0000d4.000091be.0010 ", "ssn": "1",
                                  "change_type_rank": "1"}
    assert delete["position"]["change_type_rank"] == "0" and delete["after"] is None
    assert delete["before"]["EMPLOYEE_ID"] == "210"
    # these older files name no primary key: the SQL takes it from seeds/cdc_primary_keys.csv
    assert insert["key"] is update["key"] is delete["key"] is None


def test_postgresql_bytearray_file():
    (record,) = sample_changes("bytearray.avro")
    assert record["source_engine"] == "postgresql"
    assert record["vendor_op"] == "INSERT"
    assert record["source_table"] == "public.source_table"
    assert record["position"] == {"source_timestamp_us": "1739315197151000", "lsn": "16/CB002DB0",
                                  "change_type_rank": "1"}
    assert record["transaction_id"] == "363552"
    assert record["key"] is None  # primary_keys is []
    assert record["after"]["binary_content"] == '"3q2+7w=="'  # bytea as base64
    assert record["after"]["json_column"] == "null"


def test_mysql_numbers_file_positions():
    first, second = sample_changes("mysql_numbers_test.avro")
    assert first["source_table"] == "user1.numbers"
    assert first["position"] == {"log_file": "mysql-bin.000025", "log_position": "78443180",
                                 "change_type_rank": "1"}
    assert second["position"]["log_position"] == "78443804"
    assert first["key"] == {"id": "1"} and second["key"] == {"id": "2"}


def test_mysql_cdc_users_delete_has_before_and_no_after():
    records = sample_changes("mysql-cdc-Users.avro")
    assert [r["vendor_op"] for r in records] == ["DELETE", "INSERT", "INSERT", "UPDATE-INSERT"]
    delete = records[0]
    assert delete["after"] is None
    assert delete["before"] == {"age": "33", "id": "2", "name": '"Tester Yadav"', "plan": '"B"',
                                "startDate": '"2024-01-01T00:00:00Z"', "subscribed": "1"}
    assert delete["key"] == {"id": "2"}
    assert delete["position"] == {"log_file": "mysql-bin.000014", "log_position": "59424",
                                  "change_type_rank": "0"}
    assert all(r["before"] is None for r in records[1:])


def test_mysql_primary_key_update_pair_shares_its_position():
    delete_half, insert_half = sample_changes("my_table-simpleTest-pk-update.avro")
    assert (delete_half["vendor_op"], insert_half["vendor_op"]) == ("UPDATE-DELETE", "UPDATE-INSERT")
    assert delete_half["key"] == {"id": "1"} and insert_half["key"] == {"id": "10"}
    assert {k: v for k, v in delete_half["position"].items() if k != "change_type_rank"} == {
        k: v for k, v in insert_half["position"].items() if k != "change_type_rank"}
    assert (delete_half["position"]["change_type_rank"], insert_half["position"]["change_type_rank"]) == ("0", "1")
    # the two halves carry source timestamps one second apart, at one binlog position
    assert insert_half["committed_at_us"] - delete_half["committed_at_us"] == 1_000_000


def test_rows_of_one_mysql_statement_share_a_position():
    records = sample_changes("Books.avro")
    assert len({json.dumps(r["position"], sort_keys=True) for r in records}) == 1
    assert len({json.dumps(r["after"], sort_keys=True) for r in records}) == 3
    assert all(r["content_hash"] is None for r in records)  # placed changes need no identity hash


@pytest.mark.parametrize(
    ("name", "count", "table"),
    [
        ("dump.avro", 108, "xe.HR.EMPLOYEES"),  # oracle-backfill, change_type null
        ("avro_file_ut.avro", 23, "XE.HR.LOCATIONS"),  # oracle_dump, no change_type at all
        ("mysql-backfill-Users.avro", 2, "l1.Users"),  # mysql-backfill-fulldump with change_type INSERT
        ("mysql_people_test.avro", 1, "test.people"),  # backfill with log_file null, no sort_keys
        ("mysql-cdc-person1.avro", 2, "db11.person1"),  # named cdc, read_method says backfill
    ],
)
def test_backfill_files_give_backfill_rows_without_position(name, count, table):
    records = sample_changes(name)
    assert len(records) == count
    for record in records:
        assert record["vendor_op"] == "BACKFILL"
        assert record["position"] is None
        assert record["source_table"] == table
        assert record["after"] and record["before"] is None


def test_file_names_do_not_decide_backfill():
    # named '-backfill' but read by the binlog reader: ordinary CDC inserts with a position
    records = sample_changes("DatatypeColumnsReducedSizes-backfill.avro")
    assert {r["vendor_op"] for r in records} == {"INSERT"}
    assert all(r["position"]["log_file"] == "mysql-bin.000014" for r in records)


def test_oracle_dump_file_raw_long_times_and_record_values():
    record = sample_changes("avro_file_ut.avro")[0]
    assert record["source_engine"] == "oracle"
    assert record["committed_at_us"] == 1_597_101_230_365_000  # a long without logical type: ms
    assert record["schema_version"] is None and record["key"] is None
    assert record["after"]["CITY"] == '{"length":30,"value":"Roma"}'


def test_badal_json_array_files_are_mysql_events_with_positions():
    records = sample_changes("records1.json") + sample_changes("records2.json")
    assert len(records) == 10
    assert [r["vendor_op"] for r in records[:6]] == ["INSERT", "INSERT", "UPDATE-INSERT", "INSERT", "INSERT",
                                                     "DELETE"]
    for record in records:
        assert record["source_engine"] == "mysql"
        assert record["source_table"] == "demo.inventory.voters"
        assert record["position"]["log_file"] == "mysql-bin.000002"
        assert record["schema_version"] == "e98d95ab545285b7571f9c4bdeaacb7abfac251b"
    first = records[0]
    assert first["key"] == {"id": '"915725144"'}  # the JSON writer sent the id as text
    assert first["position"] == {"log_file": "mysql-bin.000002", "log_position": "28460861",
                                 "change_type_rank": "1"}
    assert first["committed_at_us"] == 1_621_127_581_000_000
    assert records[5]["before"]["address"] == '"5678 Hughes Road\\nBowenview, RI 62759"'


# --- positions, one source at a time ---------------------------------------------------------


def test_mysql_position():
    record = one(event("mysql"))
    assert record["source_engine"] == "mysql"
    assert record["position"] == {"log_file": "mysql-bin.000014", "log_position": "59424", "change_type_rank": "1"}


@pytest.mark.parametrize("log_file", ["", None, "   "])
def test_mysql_without_log_file_has_no_position(log_file):
    meta = {"log_file": log_file} if log_file is not None else {"log_file": None, "log_position": None}
    assert one(event("mysql", meta))["position"] is None


def test_oracle_position_keeps_rs_id_as_given():
    record = one(event("oracle"))
    assert record["source_engine"] == "oracle"
    assert record["source_table"] == "DB1.ROOT.SAMPLE"
    assert record["position"] == {"scn": "15869116216871", "rs_id": " 0x0073c9.000a4e4c.01d0 ", "ssn": "67",
                                  "change_type_rank": "1"}
    assert record["transaction_id"] == "CAACAAUKAAA="


def test_oracle_without_scn_or_rs_id_has_no_position():
    assert one(event("oracle", {"scn": None, "rs_id": None}))["position"] is None
    assert one(event("oracle", {"rs_id": None}))["position"] == {"scn": "15869116216871", "ssn": "67",
                                                                 "change_type_rank": "1"}


@pytest.mark.parametrize("read_method", ["postgresql-cdc", "postgres-cdc-wal"])
def test_postgresql_position_for_both_read_methods(read_method):
    record = one(event("postgresql", read_method=read_method))
    assert record["source_engine"] == "postgresql"
    assert record["source_table"] == "public.orders"
    assert record["position"] == {"source_timestamp_us": "1715237813000000", "lsn": "16/CB002DB0",
                                  "change_type_rank": "1"}
    assert record["transaction_id"] == "363552"


def test_sqlserver_position_and_replication_index_key():
    record = one(event("sqlserver"))
    assert record["source_engine"] == "sqlserver"
    assert record["source_table"] == "sales.dbo.orders"
    assert record["position"] == {"source_timestamp_us": "1715237813000000", "lsn": "0000002A:00000B28:0003",
                                  "change_type_rank": "1"}
    assert record["key"] == {"id": "7"}
    assert record["transaction_id"] == "0000:00000a1b"


def test_sqlserver_document_types_for_database_and_schema():
    # the document types SQL Server's database as a number and its schema as an array of strings
    record = one(event("sqlserver", {"database": 5, "schema": ["dbo"]}))
    assert record["source_table"] == "5.dbo.orders"


def test_salesforce_position_is_the_source_timestamp():
    record = one(event("salesforce"))
    assert record["source_engine"] == "salesforce"
    assert record["source_table"] == "Account"
    assert record["position"] == {"source_timestamp_us": "1715237813000000", "change_type_rank": "1"}
    assert record["key"] == {"Id": '"001xx000003DGb2AAG"'}
    assert one(event("salesforce", source_timestamp=None))["position"] is None


@pytest.mark.parametrize(
    ("meta", "seconds", "increment"),
    [
        ({"ts": {"$timestamp": {"t": 1715237813, "i": 7}}}, "1715237813", "7"),
        ({"ts": {"t": 1715237813, "i": 8}}, "1715237813", "8"),
        ({"ts": None, "clusterTime": {"$timestamp": {"t": 1715237814, "i": 1}}}, "1715237814", "1"),
        ({"ts": None, "cluster_time": "Timestamp(1715237815, 2)"}, "1715237815", "2"),
        ({"ts": None, "clusterTime": "Timestamp({ t: 1715237815, i: 3 })"}, "1715237815", "3"),
        ({"ts": (1715237816 << 32) + 4}, "1715237816", "4"),
        ({"ts": str((1715237816 << 32) + 5)}, "1715237816", "5"),
        ({"ts": None, "resume_token": {"_data": "826650F0C5000000062B022C0100296E5A1004ABCDEF"}}, "1716580549", "6"),
        ({"ts": None, "_id": "826650F0C5000000092B022C0100296E5A1004ABCDEF"}, "1716580549", "9"),
    ],
)
def test_mongodb_position_from_oplog_time_cluster_time_or_resume_token(meta, seconds, increment):
    record = one(event("mongodb", meta))
    assert record["source_engine"] == "mongodb"
    assert record["source_table"] == "shop.orders"
    assert record["position"] == {"ts_seconds": seconds, "ts_increment": increment, "change_type_rank": "1"}


def test_mongodb_key_is_the_id_and_change_type_is_kept():
    record = one(event("mongodb", {"primary_keys": None}))
    assert record["key"] == {"_id": '"6650f0c2a1b2c3d4e5f60718"'}
    assert record["vendor_op"] == "CREATE"  # MongoDB's own word: the op-code seed maps it


def test_mongodb_without_a_time_has_no_position():
    assert one(event("mongodb", {"ts": None}))["position"] is None
    assert one(event("mongodb", {"ts": "noon", "_id": "6650f0c2a1b2c3d4e5f60718"}))["position"] is None


def test_unknown_source_keeps_its_read_method_word_and_has_no_position():
    record = one(event("mysql", {"log_file": None, "log_position": None}, read_method="db2-cdc"))
    assert record["source_engine"] == "db2"
    assert record["position"] is None


@pytest.mark.parametrize(
    ("engine", "expected"),
    [("mysql", "mysql"), ("oracle", "oracle"), ("postgresql", "postgresql"), ("sqlserver", "sqlserver"),
     ("salesforce", "salesforce"), ("mongodb", "mongodb")],
)
def test_engine_from_source_metadata_when_read_method_is_missing(engine, expected):
    assert one(event(engine, read_method=None))["source_engine"] == expected


def test_delete_half_sorts_first_at_one_position():
    delete_half = one(event("mysql", {"change_type": "UPDATE-DELETE", "is_deleted": True}))
    insert_half = one(event("mysql", {"change_type": "UPDATE-INSERT"}))
    assert delete_half["position"]["change_type_rank"] == "0"
    assert insert_half["position"]["change_type_rank"] == "1"


def test_uuid_is_not_part_of_position_or_identity():
    first = one(event("mysql"))
    again = one(event("mysql", uuid="00000000-0000-0000-0000-000000000001", read_timestamp=1715237999999))
    assert first["position"] == again["position"]
    # backfill rows have no position: their identity is the content hash
    backfill = one(event("mysql", read_method="mysql-backfill-fulldump"))
    copy_of_it = one(event("mysql", read_method="mysql-backfill-fulldump", uuid="00000000-0000-0000-0000-000000000001",
                           read_timestamp=1715237999999))
    assert backfill["position"] is None and backfill["content_hash"] == copy_of_it["content_hash"]
    other_row = one(event("mysql", read_method="mysql-backfill-fulldump", payload={"id": 7, "name": "Bob", "total": 12.5}))
    assert other_row["content_hash"] != backfill["content_hash"]


def test_content_hash_is_sha256_of_table_change_type_and_payload():
    record = one(event("mysql", read_method="mysql-backfill-fulldump"))
    content = {"source_table": "shop.orders", "change_type": "BACKFILL",
               "payload": {"id": 7, "name": "Ann", "total": 12.5}}
    assert record["content_hash"] == hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()


# --- operations, images, key -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("meta", "top", "vendor_op"),
    [
        ({"change_type": "INSERT"}, {}, "INSERT"),
        ({"change_type": "UPDATE"}, {}, "UPDATE"),
        ({"change_type": "UPDATE-INSERT"}, {}, "UPDATE-INSERT"),
        ({"change_type": "UPDATE-DELETE", "is_deleted": True}, {}, "UPDATE-DELETE"),
        ({"change_type": "UPDATE-DELETE", "is_deleted": False}, {}, "UPDATE-DELETE"),  # as Oracle writes it
        ({"change_type": "DELETE", "is_deleted": True}, {}, "DELETE"),
        ({"change_type": "delete"}, {}, "DELETE"),
        ({"change_type": None}, {}, "INSERT"),
        ({"change_type": ""}, {}, "INSERT"),
        ({"change_type": None, "is_deleted": True}, {}, "DELETE"),
        ({"change_type": "UPDATE-INSERT", "is_deleted": True}, {}, "DELETE"),
        ({"change_type": "INSERT", "is_deleted": "true"}, {}, "DELETE"),
        ({"change_type": "TRUNCATE"}, {}, "TRUNCATE"),  # unknown: kept for the SQL to judge
        ({"change_type": "INSERT"}, {"read_method": "mysql-backfill-fulldump"}, "BACKFILL"),
        ({"change_type": "INSERT"}, {"read_method": "mysql-backfill-incremental"}, "BACKFILL"),
        ({"change_type": None}, {"read_method": "oracle-backfill"}, "BACKFILL"),
        ({"change_type": None}, {"read_method": "oracle_dump"}, "BACKFILL"),
        ({"change_type": "DELETE", "is_deleted": True}, {"read_method": "postgresql-backfill"}, "BACKFILL"),
        ({"change_type": "INSERT"}, {"read_method": "oracle-supplementation"}, "INSERT"),
    ],
)
def test_vendor_op(meta, top, vendor_op):
    assert one(event("mysql", meta, **top))["vendor_op"] == vendor_op


@pytest.mark.parametrize("change_type", ["DELETE", "UPDATE-DELETE"])
def test_deletes_carry_the_row_as_before(change_type):
    record = one(event("oracle", {"change_type": change_type}, payload={"ID": 1, "NAME": None}))
    assert record["after"] is None
    assert record["before"] == {"ID": "1", "NAME": "null"}


def test_other_changes_carry_the_row_as_after():
    record = one(event("mysql", payload={"id": 1, "tags": ["a"], "doc": {"k": 1.5}, "gone": None}))
    assert record["before"] is None
    assert record["after"] == {"id": "1", "tags": '["a"]', "doc": '{"k":1.5}', "gone": "null"}


def test_backfill_has_no_position_even_with_a_log_file():
    record = one(event("mysql", read_method="mysql-backfill-incremental"))
    assert record["vendor_op"] == "BACKFILL" and record["position"] is None
    assert record["after"]["id"] == "7"


def test_payload_as_json_text_is_parsed():
    record = one(event("mysql", payload=json.dumps({"id": 3, "name": "Eve"})))
    assert record["after"] == {"id": "3", "name": '"Eve"'}


def test_key_columns_come_from_the_row():
    record = one(event("mysql", {"primary_keys": ["id", "name"]}))
    assert record["key"] == {"id": "7", "name": '"Ann"'}


def test_a_key_column_missing_from_the_row_is_null_for_the_sql_to_report():
    record = one(event("mysql", {"primary_keys": ["id", "region"]}))
    assert record["key"] == {"id": "7", "region": "null"}


@pytest.mark.parametrize("primary_keys", [[], None])
def test_no_key_columns_leaves_the_key_to_the_registry(primary_keys):
    assert one(event("mysql", {"primary_keys": primary_keys}))["key"] is None


# --- names, times, versions ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("meta", "top", "table"),
    [
        ({}, {}, "shop.orders"),
        ({"database": "demo", "table": "inventory.voters"}, {}, "demo.inventory.voters"),
        ({"database": ""}, {}, "orders"),
        ({"database": None, "table": None}, {"source_table": "shop.orders_v2"}, "shop.orders_v2"),
        ({"database": None, "table": None}, {}, "shop_orders"),
    ],
)
def test_source_table(meta, top, table):
    assert one(event("mysql", meta, **top))["source_table"] == table


@pytest.mark.parametrize(
    ("value", "micros"),
    [
        (1715237813000, 1_715_237_813_000_000),
        ("1715237813000", 1_715_237_813_000_000),
        (1715237813000.5, 1_715_237_813_000_500),
        ("2024-05-09T06:56:53Z", 1_715_237_813_000_000),
        ("2024-05-09T06:56:53.833Z", 1_715_237_813_833_000),
        ("2024-05-09T06:56:53.1234567Z", 1_715_237_813_123_456),
        ("2024-05-09T06:56:53", 1_715_237_813_000_000),  # the document's example: no zone, UTC
        ("2024-05-09 08:56:53+02:00", 1_715_237_813_000_000),
        ("2024-05-09T08:56:53+0200", 1_715_237_813_000_000),
        ("2024-05-09T06:56Z", 1_715_237_760_000_000),
        (1_715_237_813_000_000, 1_715_237_813_000_000),  # too large for ms: microseconds
        (1_715_237_813_000_000_000, 1_715_237_813_000_000),  # nanoseconds
    ],
)
def test_source_timestamp_forms(value, micros):
    assert one(event("mysql", source_timestamp=value))["committed_at_us"] == micros


def test_times_may_be_missing():
    record = one(event("mysql", source_timestamp=None, read_timestamp=None))
    assert record["committed_at_us"] is None and record["read_at_us"] is None


def test_read_timestamp_and_schema_version():
    record = one(event("mysql", read_timestamp="2021-03-22T08:05:33.148Z"))
    assert record["read_at_us"] == 1_616_400_333_148_000
    assert record["schema_version"] == "e98d95ab545285b7571f9c4bdeaacb7abfac251b"
    assert one(event("mysql", schema_key=None))["schema_version"] is None
    assert one(event("mysql", {"schema_key": "abc"}, schema_key=None))["schema_version"] == "abc"


def test_transaction_fields():
    record = one(event("oracle"))
    assert record["transaction_id"] == "CAACAAUKAAA="
    assert record["transaction_seq"] is None and record["transaction_last"] is None
    assert one(event("mysql"))["transaction_id"] is None


# --- quarantine ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, "empty_record"),
        ("", "empty_record"),
        ("  \t ", "empty_record"),
        ("{not json", "invalid_json"),
        ("[1, 2]", "not_an_object"),
        ("42", "not_an_object"),
        ('"text"', "not_an_object"),
        ("null", "not_an_object"),
        ("{}", "missing_payload"),
    ],
)
def test_quarantine_of_unusable_text(raw, expected):
    assert reason(raw) == expected


def test_quarantine_of_bytes_and_non_text():
    (record,) = parse_datastream(json.dumps(event("mysql")).encode("utf-8"))
    assert record["kind"] == "change"
    (record,) = parse_datastream(12)
    assert record["reason"] == "wrong_type"


@pytest.mark.parametrize(
    ("meta", "top", "expected", "detail"),
    [
        ({}, {"payload": None}, "missing_payload", "payload"),
        ({}, {"source_metadata": None}, "missing_source", "source_metadata"),
        ({"database": None, "table": None}, {"object": None}, "missing_source_table", "table"),
        ({"database": None, "table": ""}, {"object": ""}, "missing_source_table", "table"),
        ({}, {"payload": [1, 2]}, "wrong_type", "payload"),
        ({}, {"payload": "{not json"}, "invalid_json", "payload"),
        ({}, {"payload": "[1]"}, "wrong_type", "payload"),
        ({}, {"source_metadata": ["mysql"]}, "wrong_type", "source_metadata"),
        ({}, {"read_method": 5}, "wrong_type", "read_method"),
        ({"change_type": 1}, {}, "wrong_type", "change_type"),
        ({"is_deleted": 1}, {}, "wrong_type", "is_deleted"),
        ({"primary_keys": "id"}, {}, "wrong_type", "primary_keys"),
        ({"primary_keys": ["id", 3]}, {}, "wrong_type", "primary_keys"),
        ({"table": {"name": "orders"}}, {}, "wrong_type", "table"),
        ({"log_position": {"pos": 1}}, {}, "wrong_type", "log_position"),
        ({"log_file": ["mysql-bin.000014"]}, {}, "wrong_type", "log_file"),
        ({"tx_id": True}, {}, "wrong_type", "tx_id"),
        ({}, {"source_timestamp": True}, "wrong_type", "source_timestamp"),
        ({}, {"read_timestamp": {"ms": 1}}, "wrong_type", "read_timestamp"),
        ({}, {"source_timestamp": "yesterday"}, "invalid_timestamp", "source_timestamp"),
        ({}, {"source_timestamp": "2024-02-30T00:00:00Z"}, "invalid_timestamp", "source_timestamp"),
        ({}, {"read_timestamp": 10**30}, "invalid_timestamp", "read_timestamp"),
        ({}, {"read_timestamp": 1e300}, "invalid_timestamp", "read_timestamp"),
    ],
)
def test_quarantine_of_broken_events(meta, top, expected, detail):
    record = one(event("mysql", meta, **top))
    assert record["kind"] == "quarantine", record
    assert record["reason"] == expected
    assert detail in record["detail"]


def test_unexpected_errors_become_parse_error(monkeypatch):
    def broken(*_args):
        raise RuntimeError("boom")

    monkeypatch.setitem(datastream._POSITIONS, "mysql", broken)
    record = one(event("mysql"))
    assert record["reason"] == "parse_error" and "boom" in record["detail"]


# --- never raises ----------------------------------------------------------------------------

_FIELD_NAMES = st.sampled_from([
    "payload", "source_metadata", "read_method", "source_timestamp", "read_timestamp", "object", "schema_key",
    "change_type", "is_deleted", "primary_keys", "database", "schema", "table", "collection", "object_name",
    "log_file", "log_position", "scn", "rs_id", "ssn", "lsn", "tx_id", "ts", "clusterTime", "_id", "_data",
    "$timestamp", "t", "i", "replication_index", "id",
])
_VALUES = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
           | st.sampled_from(["mysql-cdc-binlog", "oracle_dump", "postgresql-cdc", "mongodb-cdc", "DELETE",
                              "2024-05-09T06:56:53Z", "16/CB002DB0", "826650F0C5000000062B022C0100296E5A10"]))
_EVENTISH = st.recursive(
    _VALUES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_FIELD_NAMES, inner, max_size=8),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_one_record_and_never_raises(text):
    (record,) = parse_datastream(text)
    assert set(record) == set(PARSED_FIELDS)


@settings(max_examples=500, deadline=None)
@given(_EVENTISH)
def test_any_json_gives_one_record_and_never_raises(value):
    (record,) = parse_datastream(json.dumps(value))
    assert set(record) == set(PARSED_FIELDS)
    assert record["reason"] != "parse_error", record


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(SOURCE_METADATA)), st.dictionaries(_FIELD_NAMES, _VALUES, max_size=4))
def test_any_source_metadata_values_never_raise(engine, meta):
    (record,) = parse_datastream(json.dumps(event(engine, meta), allow_nan=True))
    assert record["reason"] != "parse_error", record
