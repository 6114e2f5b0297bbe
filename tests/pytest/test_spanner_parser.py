"""Tests of the Spanner change-stream parser on the shared conformance samples and hand-built rows."""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from landing_split import split_records
from parser_helpers import one_with, parse_with, reason_with
from parsers import spanner
from parsers.spanner import parse_spanner

from python_udfs.contract import PARSED_FIELDS

CONFORMANCE = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "spanner"
SAMPLE_FILES = sorted(p for p in CONFORMANCE.rglob("*") if p.is_file()) if CONFORMANCE.is_dir() else []
# outputs each sample file gives: all of them changes or controls, none quarantined
EXPECTED_OUTPUTS = {
    "spanner_change_streams_tail_postgresql_dialect_examples.jsonl": 3,
    "spanner_change_streams_tail_readme_examples.jsonl": 3,
    "spream_readme_examples.jsonl": 3,
    "bufferInput.json": 1,
    "bufferInputAllDatatypes.json": 1,
    "events.txt": 6,
}

ACCOUNT_COLUMNS = [
    {"name": "AccountId", "type": {"code": "STRING"}, "is_primary_key": True, "ordinal_position": 1},
    {"name": "LastUpdate", "type": {"code": "TIMESTAMP"}, "is_primary_key": False, "ordinal_position": 2},
    {"name": "Balance", "type": {"code": "INT64"}, "is_primary_key": False, "ordinal_position": 3},
]


# --- helpers ---------------------------------------------------------------------------------


def sample_records(name: str) -> list[dict]:
    path = next((p for p in SAMPLE_FILES if p.name == name), None)
    if path is None:
        pytest.skip(f"conformance sample {name} not found under {CONFORMANCE}")
    return [rec for raw in split_records(path.read_text(encoding="utf-8")) for rec in parse_spanner(raw)]


def parse(raw) -> list[dict]:
    return parse_with(parse_spanner, raw)


def one(raw) -> dict:
    return one_with(parse_spanner, raw)


def reason(raw) -> str:
    return reason_with(parse_spanner, raw)


_DEFAULT = object()


def data_change(mods=_DEFAULT, mod_type="UPDATE", capture="OLD_AND_NEW_VALUES", columns=None, **extra) -> dict:
    """A GoogleSQL data_change_record (snake_case) on AccountBalance, like the document's examples."""
    record = {
        "commit_timestamp": "2022-09-27T12:30:00.123456Z",
        "record_sequence": "00000000",
        "server_transaction_id": "6329047911",
        "is_last_record_in_transaction_in_partition": True,
        "table_name": "AccountBalance",
        "column_types": ACCOUNT_COLUMNS if columns is None else columns,
        "mods": mods if mods is not _DEFAULT else [{
            "keys": {"AccountId": "Id1"},
            "new_values": {"LastUpdate": "2022-09-27T12:30:00.123456Z", "Balance": "1000"},
            "old_values": {"LastUpdate": "2022-09-26T11:28:00.189413Z", "Balance": "1500"},
        }],
        "mod_type": mod_type,
        "value_capture_type": capture,
        "number_of_records_in_transaction": 1,
        "number_of_partitions_in_transaction": 1,
        "transaction_tag": "app=banking,env=prod,action=update",
        "is_system_transaction": False,
    }
    record.update(extra)
    return record


def typed_value(type_json, value, column_type_as_text: bool = False):
    """The encoded `after` value of column c with the given Spanner type."""
    column_type = json.dumps(type_json) if column_type_as_text else type_json
    columns = [{"name": "k", "type": {"code": "INT64"}, "is_primary_key": True, "ordinal_position": 1},
               {"name": "c", "type": column_type, "is_primary_key": False, "ordinal_position": 2}]
    record = data_change(mods=[{"keys": {"k": "1"}, "new_values": {"c": value}, "old_values": {}}],
                         mod_type="INSERT", columns=columns)
    return one(record)


def beam_record(**extra) -> dict:
    """A Dataflow/Beam DataChangeRecord as Gson writes it (TypeCode.code holds the type's JSON)."""
    record = {
        "partitionToken": "__8BAYEGAQ",
        "commitTimestamp": {"seconds": 1685527032, "nanos": 194991000},
        "serverTransactionId": "Nzg0OTU2OTQzNDUwMTUxMzYzNA==",
        "isLastRecordInTransactionInPartition": True,
        "recordSequence": "00000002",
        "tableName": "Singers",
        "rowType": [
            {"name": "SingerId", "type": {"code": '{"code":"INT64"}'}, "isPrimaryKey": True, "ordinalPosition": 1},
            {"name": "Name", "type": {"code": '{"code":"STRING"}'}, "isPrimaryKey": False, "ordinalPosition": 2},
            {"name": "Tags", "type": {"code": '{"array_element_type":{"code":"STRING"},"code":"ARRAY"}'},
             "isPrimaryKey": False, "ordinalPosition": 3},
        ],
        "mods": [
            {"keysJson": '{"SingerId":"7"}', "oldValuesJson": '{"Name":"old"}',
             "newValuesJson": '{"Name":"new","Tags":["a","b"]}'},
            {"keysJson": '{"SingerId":"8"}', "oldValuesJson": "{}", "newValuesJson": '{"Name":"other"}'},
        ],
        "modType": "UPDATE",
        "valueCaptureType": "OLD_AND_NEW_VALUES",
        "numberOfRecordsInTransaction": 3,
        "numberOfPartitionsInTransaction": 1,
        "transactionTag": "",
        "isSystemTransaction": False,
        "metadata": {"partitionToken": "__8BAYEGAQ", "numberOfRecordsRead": 4},
    }
    record.update(extra)
    return record


def ns_of(text: str) -> int:
    """Exact ns of a 'YYYY-MM-DDTHH:MM:SS[.f]Z' text, computed independently of the parser."""
    whole, _, fraction = text.rstrip("Z").partition(".")
    moment = dt.datetime.fromisoformat(whole).replace(tzinfo=dt.UTC)
    return int(moment.timestamp()) * 1_000_000_000 + int(fraction.ljust(9, "0") or 0)


# --- the published and extracted samples -----------------------------------------------------


def test_all_sample_files_are_known():
    if not SAMPLE_FILES:
        pytest.skip(f"Spanner conformance samples not found at {CONFORMANCE}")
    assert {p.name for p in SAMPLE_FILES} == set(EXPECTED_OUTPUTS)


@pytest.mark.parametrize("name", sorted(EXPECTED_OUTPUTS))
def test_every_sample_record_parses_without_quarantine(name):
    records = sample_records(name)
    assert len(records) == EXPECTED_OUTPUTS[name]
    assert [r for r in records if r["kind"] == "quarantine"] == []
    for record in records:
        assert set(record) == set(PARSED_FIELDS)
        if record["kind"] == "change":
            assert record["source_engine"] == "spanner"
            assert record["position"]["commit_timestamp_ns"].isdigit()
            assert record["committed_at_us"] == int(record["position"]["commit_timestamp_ns"]) // 1000


def test_spream_insert_update_delete_on_singers():
    insert, update, delete = sample_records("spream_readme_examples.jsonl")
    assert [r["vendor_op"] for r in (insert, update, delete)] == ["INSERT", "UPDATE", "DELETE"]
    assert {r["source_table"] for r in (insert, update, delete)} == {"Singers"}
    # SingerId is INT64: the stream writes "1", the key carries the number 1
    assert insert["key"] == {"SingerId": "1"}
    assert insert["after"] == {"SingerId": "1", "Name": '"foo"'}
    assert insert["before"] is None and insert["changed_columns"] is None
    assert update["before"] == {"SingerId": "1", "Name": '"foo"'}
    assert update["after"] == {"SingerId": "1", "Name": '"bar"'}
    assert update["changed_columns"] == ["Name"]
    # the DELETE has old_values only: no after, the old row as before
    assert delete["after"] is None
    assert delete["before"] == {"SingerId": "1", "Name": '"bar"'}
    assert delete["key"] == {"SingerId": "1"}
    assert delete["transaction_id"] == "ODkwNDMzNDgxMDU2NzAwMDM2MA=="
    assert delete["transaction_seq"] == 0 and delete["transaction_last"] is True
    assert delete["committed_at_us"] == 1673156879117807
    assert delete["position"] == {"commit_timestamp_ns": str(ns_of("2023-01-08T05:47:59.117807Z")),
                                  "record_sequence": "00000000",
                                  "server_transaction_id": "ODkwNDMzNDgxMDU2NzAwMDM2MA==",
                                  "mod_index": "0"}


def test_change_streams_tail_readme_players():
    first, second, update = sample_records("spanner_change_streams_tail_readme_examples.jsonl")
    assert first["source_table"] == "Players" and first["vendor_op"] == "INSERT"
    assert first["key"] == {"PlayerId": "22"}
    assert first["after"] == {"PlayerId": "22", "Name": '"foo"'}
    assert first["before"] is None  # old_values {} on an insert is no before image
    assert first["position"]["commit_timestamp_ns"] == "1652942772536575000"
    assert second["key"] == {"PlayerId": "23"}
    assert update["vendor_op"] == "UPDATE"
    assert update["before"] == {"PlayerId": "23", "Name": '"foo"'}
    assert update["after"] == {"PlayerId": "23", "Name": '"bar"'}
    assert update["changed_columns"] == ["Name"]


def test_postgresql_dialect_records():
    children, insert, heartbeat = sample_records("spanner_change_streams_tail_postgresql_dialect_examples.jsonl")
    assert children["kind"] == "control" and children["control_type"] == "child_partitions"
    content = json.loads(children["control_json"])
    # -08:00 offsets come out in UTC
    assert content["start_timestamp"] == "2023-02-24T09:06:48Z"
    assert content["record_sequence"] == "00000001"
    assert content["child_partitions"][0]["token"].startswith("__8BAYEG0qQD8AABgsBDg3B")
    assert content["child_partitions"][0]["parent_partition_tokens"] == []
    assert children["committed_at_us"] == ns_of("2023-02-24T09:06:48Z") // 1000

    assert insert["kind"] == "change" and insert["vendor_op"] == "INSERT"
    assert insert["source_table"] == "players"
    assert insert["key"] == {"playerid": "3"}
    assert insert["after"] == {"playerid": "3", "playername": '"b"'}
    assert insert["position"]["commit_timestamp_ns"] == str(ns_of("2023-02-25T01:17:00.678847Z"))
    assert insert["transaction_last"] is True

    assert heartbeat["kind"] == "control" and heartbeat["control_type"] == "heartbeat"
    assert json.loads(heartbeat["control_json"]) == {"timestamp": "2023-02-25T01:16:43.811345Z"}
    assert heartbeat["committed_at_us"] == ns_of("2023-02-25T01:16:43.811345Z") // 1000


def test_dataflow_events_file():
    records = sample_records("events.txt")
    assert [r["vendor_op"] for r in records] == ["INSERT", "INSERT", "UPDATE", "DELETE", "INSERT", "INSERT"]
    users = records[0]
    assert users["source_table"] == "Users"
    # no rowType in these files: values stay as written (INT64 "1" cannot be told from STRING "1")
    assert users["key"] == {"id": '"1"'}
    assert users["after"] == {"id": '"1"', "name": '"FF"'}
    assert users["position"]["commit_timestamp_ns"] == "1719247984109263000"
    assert users["committed_at_us"] == 1719247984109263
    assert users["transaction_id"] == "NzkxOTE5OTY4NTQzNjMzODY3Mg=="
    assert users["transaction_last"] is None  # the template drops the field
    update, delete = records[2], records[3]
    assert update["after"]["double_column"] == "123456.123"
    assert update["after"]["bool_column"] == "true"
    assert "bigint_column" in update["changed_columns"]
    # the template's DELETE still carries newValuesJson: a delete has no after image all the same
    assert delete["after"] is None and delete["before"] is None
    assert delete["key"] == {"varchar_column": '"example2"'}


def test_template_buffer_record_with_a_single_mod():
    (record,) = sample_records("bufferInput.json")
    assert record["source_table"] == "table3"
    assert record["key"] == {"userId": '"test1"'}
    assert record["after"] == {"userId": '"test1"', "balance": '"10"', "hb_shardId": '"shard1"',
                               "name": '"gollum"'}
    assert record["position"]["mod_index"] == "0"
    assert record["position"]["commit_timestamp_ns"] == "1685527032194991000"


def test_template_buffer_record_with_all_datatypes():
    (record,) = sample_records("bufferInputAllDatatypes.json")
    assert record["source_table"] == "sample_table"
    after = record["after"]
    assert after["float_column"] == "4.2" and after["bool_column"] == "false"
    assert after["set_column"] == '["1","2"]'
    assert after["timestamp_column"] == '"2023-05-18T12:01:13.088397258Z"'


# --- record forms ----------------------------------------------------------------------------


def test_bare_data_change_record_and_google_sql_change_record_agree():
    bare = parse(data_change())
    wrapped = parse({"data_change_record": [data_change()], "heartbeat_record": [],
                     "child_partitions_record": [], "partition_token": "tok"})
    postgres = parse({"data_change_record": data_change()})
    assert bare == wrapped == postgres
    assert bare[0]["kind"] == "change"


def test_verbose_reader_lines_with_change_record():
    children = {"partition_token": "", "change_record": [{
        "data_change_record": [], "heartbeat_record": [],
        "child_partitions_record": [{"start_timestamp": "2022-05-20T08:23:10.12375Z", "record_sequence": "00000001",
                                     "child_partitions": [{"token": "AUKm", "parent_partition_tokens": []}]}]}]}
    record = one(children)
    assert record["control_type"] == "child_partitions"
    assert json.loads(record["control_json"]) == {
        "start_timestamp": "2022-05-20T08:23:10.12375Z", "record_sequence": "00000001",
        "child_partitions": [{"token": "AUKm", "parent_partition_tokens": []}]}
    heartbeat = one({"partition_token": "AUKm", "change_record": [{
        "data_change_record": [], "heartbeat_record": [{"timestamp": "2022-05-20T08:23:20.123938Z"}],
        "child_partitions_record": []}]})
    assert heartbeat["control_type"] == "heartbeat"
    assert heartbeat["committed_at_us"] == ns_of("2022-05-20T08:23:20.123938Z") // 1000


def test_a_change_record_with_several_kinds_gives_one_output_each():
    record = {
        "data_change_record": [data_change(), data_change(record_sequence="00000001")],
        "heartbeat_record": [{"timestamp": "2022-09-27T12:35:00.312486Z"}],
        "child_partitions_record": [{"start_timestamp": "2022-09-27T12:40:00.562986Z",
                                     "record_sequence": "00000001",
                                     "child_partitions": [{"token": "child_token_1",
                                                           "parent_partition_tokens": ["p2", "p1"]}]}],
    }
    records = parse(record)
    assert [r["kind"] for r in records] == ["change", "change", "control", "control"]
    assert [r["transaction_seq"] for r in records[:2]] == [0, 1]
    assert records[2]["control_type"] == "heartbeat"
    content = json.loads(records[3]["control_json"])
    assert content["child_partitions"] == [{"token": "child_token_1", "parent_partition_tokens": ["p1", "p2"]}]
    assert records[3]["committed_at_us"] == ns_of("2022-09-27T12:40:00.562986Z") // 1000


def test_a_json_array_of_change_records():
    records = parse([{"data_change_record": [data_change()]},
                     {"heartbeat_record": [{"timestamp": "2022-09-27T12:35:00Z"}]}])
    assert [r["kind"] for r in records] == ["change", "control"]


def test_postgresql_form_ignores_empty_objects_of_other_kinds():
    records = parse({"data_change_record": {}, "heartbeat_record": {"timestamp": "2023-02-24T17:16:43Z"}})
    assert [r["control_type"] for r in records] == ["heartbeat"]


def test_partition_records_of_mutable_key_range_streams_are_control():
    record = {"partition_token": "t", "change_record": [{
        "data_change_record": [], "heartbeat_record": [], "child_partitions_record": [],
        "partition_start_records": [{"start_timestamp": "2024-01-01T00:00:00.5+01:00", "record_sequence": "00000001",
                                     "partition_tokens": ["a", "b"]}],
        "partition_end_records": [{"end_timestamp": "2024-01-01T00:10:00Z", "record_sequence": "00000002",
                                   "partition_token": "t"}]}]}
    start, end = parse(record)
    assert start["control_type"] == "partition_start"
    assert json.loads(start["control_json"])["start_timestamp"] == "2023-12-31T23:00:00.5Z"
    assert end["control_type"] == "partition_end"
    assert end["committed_at_us"] == ns_of("2024-01-01T00:10:00Z") // 1000


def test_beam_data_change_record_with_row_type():
    first, second = parse(beam_record())
    assert first["vendor_op"] == "UPDATE" and first["source_table"] == "Singers"
    assert first["key"] == {"SingerId": "7"}
    assert first["after"] == {"SingerId": "7", "Name": '"new"', "Tags": '["a","b"]'}
    assert first["before"] == {"SingerId": "7", "Name": '"old"'}
    assert first["changed_columns"] == ["Name", "Tags"]
    assert first["transaction_seq"] == 2 and first["transaction_last"] is True
    assert first["position"] == {"commit_timestamp_ns": "1685527032194991000", "record_sequence": "00000002",
                                 "server_transaction_id": "Nzg0OTU2OTQzNDUwMTUxMzYzNA==", "mod_index": "0"}
    assert second["key"] == {"SingerId": "8"} and second["before"] is None
    assert second["position"]["mod_index"] == "1"


def test_beam_commit_timestamp_as_text_and_as_string_seconds():
    text = one(beam_record(mods=[{"keysJson": '{"SingerId":"1"}', "newValuesJson": "{}"}],
                           commitTimestamp="2023-05-31T09:57:12.194991Z"))
    as_strings = one(beam_record(mods=[{"keysJson": '{"SingerId":"1"}', "newValuesJson": "{}"}],
                                 commitTimestamp={"seconds": "1685527032", "nanos": 194991000}))
    assert text["position"]["commit_timestamp_ns"] == "1685527032194991000"
    assert as_strings["position"] == text["position"]


def test_bare_beam_heartbeat_and_child_partitions_records():
    heartbeat = one({"timestamp": {"seconds": 1, "nanos": 5}, "metadata": {"partitionToken": "t"}})
    assert json.loads(heartbeat["control_json"]) == {"timestamp": "1970-01-01T00:00:01.000000005Z"}
    children = one({"startTimestamp": "2024-01-01T00:00:00Z", "recordSequence": "00000003",
                    "childPartitions": [{"token": "c", "parentTokens": ["p"]}]})
    assert json.loads(children["control_json"]) == {
        "start_timestamp": "2024-01-01T00:00:00Z", "record_sequence": "00000003",
        "child_partitions": [{"token": "c", "parent_partition_tokens": ["p"]}]}


def test_pretty_printed_single_document_is_one_record():
    text = json.dumps(beam_record(), indent=2)
    (raw,) = split_records(text)
    assert len(parse(raw)) == 2


def test_database_and_schema_qualify_the_table():
    assert one(data_change(database="bank", schema_name="public"))["source_table"] == "bank.public.AccountBalance"
    assert one(data_change(database="", schema_name="sales"))["source_table"] == "sales.AccountBalance"


# --- value capture types (the document's AccountBalance examples) ----------------------------


def test_old_and_new_values_update():
    record = one(data_change())
    assert record["key"] == {"AccountId": '"Id1"'}
    assert record["after"] == {"AccountId": '"Id1"', "LastUpdate": '"2022-09-27T12:30:00.123456Z"', "Balance": "1000"}
    assert record["before"] == {"AccountId": '"Id1"', "LastUpdate": '"2022-09-26T11:28:00.189413Z"',
                                "Balance": "1500"}
    assert record["changed_columns"] == ["Balance", "LastUpdate"]


def test_new_values_update_is_a_partial_row():
    record = one(data_change(capture="NEW_VALUES", mods=[{
        "keys": {"AccountId": "Id1"}, "new_values": {"LastUpdate": "2022-09-27T12:30:00.123456Z"},
        "old_values": {}}]))
    # only the changed column and the key: Balance is not invented
    assert record["after"] == {"AccountId": '"Id1"', "LastUpdate": '"2022-09-27T12:30:00.123456Z"'}
    assert record["before"] is None
    assert record["changed_columns"] == ["LastUpdate"]


def test_new_row_update_carries_every_tracked_column():
    record = one(data_change(capture="NEW_ROW", mods=[{
        "keys": {"AccountId": "Id1"}, "new_values": {"LastUpdate": "2022-09-27T12:30:00.123456Z", "Balance": 1000},
        "old_values": {}}]))
    assert record["after"] == {"AccountId": '"Id1"', "LastUpdate": '"2022-09-27T12:30:00.123456Z"', "Balance": "1000"}
    assert record["before"] is None
    assert record["changed_columns"] is None  # NEW_ROW does not say which columns changed


def test_new_row_and_old_values_update():
    record = one(data_change(capture="NEW_ROW_AND_OLD_VALUES", mods=[{
        "keys": {"AccountId": "Id1"}, "new_values": {"LastUpdate": "2022-09-27T12:30:00.123456Z", "Balance": 1000},
        "old_values": {"LastUpdate": "2022-09-26T11:28:00.189413Z"}}]))
    assert set(record["after"]) == {"AccountId", "LastUpdate", "Balance"}
    assert record["before"] == {"AccountId": '"Id1"', "LastUpdate": '"2022-09-26T11:28:00.189413Z"'}
    assert record["changed_columns"] == ["LastUpdate"]  # old values are kept for changed columns only


@pytest.mark.parametrize("capture", ["OLD_AND_NEW_VALUES", "NEW_VALUES", "NEW_ROW", "NEW_ROW_AND_OLD_VALUES"])
def test_delete_has_no_after_in_every_capture_type(capture):
    old = {"LastUpdate": "2022-09-26T11:28:00Z", "Balance": "1500"} if "OLD" in capture else {}
    record = one(data_change(mod_type="DELETE", capture=capture,
                             mods=[{"keys": {"AccountId": "Id9"}, "new_values": {}, "old_values": old}]))
    assert record["vendor_op"] == "DELETE" and record["after"] is None
    assert record["key"] == {"AccountId": '"Id9"'}
    assert record["before"] == ({"AccountId": '"Id9"', "LastUpdate": '"2022-09-26T11:28:00Z"', "Balance": "1500"}
                                if old else None)
    assert record["changed_columns"] is None


def test_insert_has_key_and_new_values():
    record = one(data_change(mod_type="INSERT", mods=[{
        "keys": {"AccountId": "Id3"}, "new_values": {"LastUpdate": None, "Balance": "0"}, "old_values": {}}]))
    assert record["after"] == {"AccountId": '"Id3"', "LastUpdate": "null", "Balance": "0"}
    assert record["before"] is None and record["changed_columns"] is None


def test_several_mods_give_one_change_each_in_order():
    mods = [{"keys": {"AccountId": f"Id{i}"}, "new_values": {"Balance": str(i * 100)}, "old_values": {}}
            for i in range(3)]
    records = parse(data_change(mods=mods, capture="NEW_VALUES"))
    assert [r["key"] for r in records] == [{"AccountId": f'"Id{i}"'} for i in range(3)]
    assert [r["position"]["mod_index"] for r in records] == ["0", "1", "2"]
    assert [r["after"]["Balance"] for r in records] == ["0", "100", "200"]
    assert {r["position"]["record_sequence"] for r in records} == {"00000000"}


def test_composite_keys_are_all_typed():
    columns = [{"name": "SingerId", "type": {"code": "INT64"}, "is_primary_key": True, "ordinal_position": 1},
               {"name": "AlbumId", "type": {"code": "INT64"}, "is_primary_key": True, "ordinal_position": 2},
               {"name": "Title", "type": {"code": "STRING"}, "is_primary_key": False, "ordinal_position": 3}]
    record = one(data_change(columns=columns, mod_type="INSERT", mods=[{
        "keys": {"SingerId": "1", "AlbumId": "2"}, "new_values": {"Title": "Go"}, "old_values": {}}]))
    assert record["key"] == {"SingerId": "1", "AlbumId": "2"}
    assert record["after"] == {"SingerId": "1", "AlbumId": "2", "Title": '"Go"'}


def test_system_transactions_and_ttl_deletes_are_ordinary_changes():
    record = one(data_change(mod_type="DELETE", is_system_transaction=True, transaction_tag="RowDeletionPolicy",
                             mods=[{"keys": {"AccountId": "Id1"}, "new_values": {}, "old_values": {}}]))
    assert record["kind"] == "change" and record["vendor_op"] == "DELETE"


def test_unknown_mod_type_is_kept_for_the_sql_to_judge():
    record = one(data_change(mod_type="MERGE"))
    assert record["kind"] == "change" and record["vendor_op"] == "MERGE"


def test_record_sequence_and_transaction_fields():
    record = one(data_change(record_sequence="00000017", is_last_record_in_transaction_in_partition=False))
    assert record["transaction_seq"] == 17 and record["position"]["record_sequence"] == "00000017"
    assert record["transaction_last"] is False
    assert record["transaction_id"] == "6329047911"
    assert record["read_at_us"] is None and record["schema_version"] is None and record["content_hash"] is None


# --- typed values ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("type_json", "value", "encoded"),
    [
        ({"code": "INT64"}, "42", "42"),
        ({"code": "INT64"}, "-9223372036854775808", "-9223372036854775808"),
        ({"code": "INT64"}, 7, "7"),
        ({"code": "FLOAT64"}, 3.5, "3.5"),
        ({"code": "FLOAT64"}, 2, "2.0"),
        ({"code": "FLOAT64"}, "NaN", '"NaN"'),
        ({"code": "FLOAT64"}, "Infinity", '"Infinity"'),
        ({"code": "FLOAT64"}, "-Infinity", '"-Infinity"'),
        ({"code": "FLOAT32"}, 1.25, "1.25"),
        ({"code": "NUMERIC"}, "123.450", '"123.450"'),
        ({"code": "NUMERIC"}, "-0.000000001", '"-0.000000001"'),
        ({"code": "NUMERIC"}, 12, '"12"'),
        ({"code": "NUMERIC", "type_annotation": "PG_NUMERIC"}, "NaN", '"NaN"'),
        ({"code": "BOOL"}, True, "true"),
        ({"code": "BOOL"}, "false", "false"),
        ({"code": "STRING"}, "héllo", '"héllo"'),
        ({"code": "BYTES"}, "YWJj", '"YWJj"'),
        ({"code": "DATE"}, "2024-02-29", '"2024-02-29"'),
        ({"code": "TIMESTAMP"}, "2022-09-27T12:30:00.123456000Z", '"2022-09-27T12:30:00.123456Z"'),
        ({"code": "TIMESTAMP"}, "2022-09-27T12:30:00.000000001Z", '"2022-09-27T12:30:00.000000001Z"'),
        ({"code": "TIMESTAMP"}, "2022-09-27T05:30:00.5-07:00", '"2022-09-27T12:30:00.5Z"'),
        ({"code": "TIMESTAMP"}, "0001-01-01T00:00:00Z", '"0001-01-01T00:00:00Z"'),
        ({"code": "JSON"}, '{"b": 1, "a": [true, null]}', '{"a":[true,null],"b":1}'),
        ({"code": "JSON"}, {"z": {"y": 1}}, '{"z":{"y":1}}'),
        ({"code": "JSON"}, '"text"', '"text"'),
        ({"code": "JSON", "type_annotation": "PG_JSONB"}, "[1,2]", "[1,2]"),
        ({"code": "ARRAY", "array_element_type": {"code": "INT64"}}, ["1", None, "3"], "[1,null,3]"),
        ({"code": "ARRAY", "array_element_type": {"code": "INT64"}}, '["4","5"]', "[4,5]"),
        ({"code": "ARRAY", "array_element_type": {"code": "TIMESTAMP"}}, ["2024-01-01T00:00:00.100Z"],
         '["2024-01-01T00:00:00.1Z"]'),
        ({"code": "ARRAY", "array_element_type": {"code": "ARRAY", "array_element_type": {"code": "BOOL"}}},
         [[True], ["false"]], "[[true],[false]]"),
        ({"code": "STRUCT", "struct_type": {"fields": []}}, {"a": "1"}, '{"a":"1"}'),
        ({"code": "INT"}, 1000, "1000"),  # the document's examples write INT: not a Spanner type, kept
        ({"code": "UUID"}, "3f0c", '"3f0c"'),
        ({"code": "INT64"}, None, "null"),
        ({"code": "TIMESTAMP"}, None, "null"),
    ],
)
def test_typed_values(type_json, value, encoded):
    assert typed_value(type_json, value)["after"]["c"] == encoded
    assert typed_value(type_json, value, column_type_as_text=True)["after"]["c"] == encoded


@pytest.mark.parametrize(
    "type_field",
    [
        '{"code":"INT64"}',  # GoogleSQL printed with the JSON column as text
        {"code": '{"code":"INT64"}'},  # Beam TypeCode: the type's JSON text in `code`
        "INT64",
        "int64",
    ],
)
def test_type_spellings(type_field):
    columns = [{"name": "k", "type": type_field, "is_primary_key": True, "ordinal_position": 1}]
    record = one(data_change(columns=columns, mod_type="INSERT",
                             mods=[{"keys": {"k": "5"}, "new_values": {}, "old_values": {}}]))
    assert record["key"] == {"k": "5"}
    assert record["after"] == {"k": "5"}


def test_array_type_as_text():
    columns = [{"name": "k", "type": "INT64", "is_primary_key": True, "ordinal_position": 1},
               {"name": "a", "type": "ARRAY<INT64>", "is_primary_key": False, "ordinal_position": 2}]
    record = one(data_change(columns=columns, mod_type="INSERT",
                             mods=[{"keys": {"k": "5"}, "new_values": {"a": ["1"]}, "old_values": {}}]))
    assert record["after"]["a"] == "[1]"


def test_columns_without_a_type_keep_their_value():
    record = one(data_change(columns=[], mod_type="INSERT",
                             mods=[{"keys": {"k": "5"}, "new_values": {"x": "7"}, "old_values": {}}]))
    assert record["key"] == {"k": '"5"'} and record["after"] == {"k": '"5"', "x": '"7"'}


@pytest.mark.parametrize(
    ("type_json", "value"),
    [
        ({"code": "INT64"}, "abc"),
        ({"code": "INT64"}, "1.5"),
        ({"code": "INT64"}, "\u0663"),  # a non-ASCII digit
        ({"code": "INT64"}, True),
        ({"code": "INT64"}, "9223372036854775808"),
        ({"code": "INT64"}, 2.5),
        ({"code": "FLOAT64"}, "abc"),
        ({"code": "FLOAT64"}, False),
        ({"code": "NUMERIC"}, "1,5"),
        ({"code": "NUMERIC"}, True),
        ({"code": "BOOL"}, "yes"),
        ({"code": "BOOL"}, 1),
        ({"code": "STRING"}, 5),
        ({"code": "BYTES"}, "not base64!"),
        ({"code": "DATE"}, "2022-13-01"),
        ({"code": "DATE"}, "20220101"),
        ({"code": "TIMESTAMP"}, "yesterday"),
        ({"code": "TIMESTAMP"}, "2022-09-27T12:30:00"),
        ({"code": "ARRAY", "array_element_type": {"code": "INT64"}}, 5),
        ({"code": "ARRAY", "array_element_type": {"code": "INT64"}}, ["1", "x"]),
    ],
)
def test_values_that_do_not_fit_their_type(type_json, value):
    record = typed_value(type_json, value)
    assert record["kind"] == "quarantine" and record["reason"] == "wrong_type"
    assert "column c" in record["detail"]


def test_a_wrong_key_value_quarantines_the_whole_record():
    mods = [{"keys": {"AccountId": "Id1"}, "new_values": {"Balance": "1"}, "old_values": {}},
            {"keys": {"AccountId": "Id2"}, "new_values": {"Balance": "many"}, "old_values": {}}]
    assert reason(data_change(mods=mods)) == "wrong_type"


# --- commit timestamps -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("2022-09-27T12:30:00Z", 1664281800_000000000),
        ("2022-09-27T12:30:00.123Z", 1664281800_123000000),
        ("2022-09-27T12:30:00.123456Z", 1664281800_123456000),
        ("2022-09-27T12:30:00.123456789Z", 1664281800_123456789),
        ("2022-09-27T12:30:00.999999999Z", 1664281800_999999999),
        ("2022-09-27T05:30:00.000000001-07:00", 1664281800_000000001),
        ("2022-09-27T14:30:00+0200", 1664281800_000000000),
        ("2022-09-27 12:30:00.1z", 1664281800_100000000),
        ("1969-12-31T23:59:59.999999999Z", -1),
    ],
)
def test_commit_timestamp_is_exact_nanoseconds(text, ns):
    record = one(data_change(commit_timestamp=text))
    assert record["position"]["commit_timestamp_ns"] == str(ns)
    assert record["committed_at_us"] == ns // 1000  # floor, also before 1970


def test_commit_timestamp_seconds_and_nanos():
    records = parse(beam_record(commitTimestamp={"seconds": 1664281800, "nanos": 123456789}))
    assert [r["kind"] for r in records] == ["change", "change"]
    assert {r["position"]["commit_timestamp_ns"] for r in records} == {"1664281800123456789"}
    assert one(beam_record(commitTimestamp={"seconds": 1664281800}, mods=[
        {"keysJson": '{"SingerId":"1"}'}]))["committed_at_us"] == 1664281800_000000


@pytest.mark.parametrize(
    "value",
    [
        "yesterday",
        "2022-09-27T12:30:00",  # no zone
        "2022-09-27T12:30:00.1234567891Z",  # 10 fractional digits
        "2022-02-30T12:30:00Z",
        "2022-09-27T24:00:00Z",
        "2022-09-27T12:30:00+25:00",
        1664281800,
        {"seconds": 1, "nanos": 1_000_000_000},
        {"seconds": "x"},
        {"nanos": 5},
        {"seconds": 10**12},
    ],
)
def test_bad_commit_timestamps(value):
    record = one(data_change(commit_timestamp=value))
    assert record["reason"] == "invalid_timestamp"
    assert "commit_timestamp" in record["detail"]


def test_bad_heartbeat_and_child_partition_times():
    assert reason({"heartbeat_record": [{"timestamp": "noon"}]}) == "invalid_timestamp"
    assert reason({"child_partitions_record": [{"start_timestamp": "2022-09-27", "child_partitions": []}]}) == (
        "invalid_timestamp")
    assert reason({"heartbeat_record": [{"time": "2022-09-27T12:30:00Z"}]}) == "missing_field"


# --- quarantine ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, "empty_record"),
        ("", "empty_record"),
        ("  \t ", "empty_record"),
        ("{not json", "invalid_json"),
        ("2022-05-19 06:49:15.093823 +0000 UTC | INSERT | Players | []", "invalid_json"),
        ("[1, 2]", "not_an_object"),
        ("42", "not_an_object"),
        ('"text"', "not_an_object"),
        ("null", "not_an_object"),
        ('{"foo": 1}', "not_a_change_stream_record"),
        ("{}", "not_a_change_stream_record"),
        ('{"data_change_record": [], "heartbeat_record": [], "child_partitions_record": []}', "empty_record"),
        ('{"data_change_record": null}', "empty_record"),
        ('{"data_change_record": [5]}', "wrong_type"),
    ],
)
def test_quarantine_of_unusable_text(raw, expected):
    assert reason(raw) == expected


def test_quarantine_of_bytes_and_non_text():
    (record,) = parse_spanner(json.dumps(data_change()).encode("utf-8"))
    assert record["kind"] == "change"
    (record,) = parse_spanner(12)
    assert record["reason"] == "wrong_type"


@pytest.mark.parametrize(
    ("change", "expected", "detail"),
    [
        ({"table_name": None}, "missing_field", "table_name"),
        ({"table_name": ""}, "missing_field", "table_name"),
        ({"commit_timestamp": None}, "missing_field", "commit_timestamp"),
        ({"mods": None}, "missing_field", "mods"),
        ({"mods": []}, "missing_field", "mods"),
        ({"mods": [{"new_values": {"Balance": "1"}}]}, "missing_field", "keys"),
        ({"mods": [{"keys": None, "new_values": {}}]}, "missing_field", "keys"),
        ({"mods": {"keys": {}}}, "wrong_type", "mods"),
        ({"mods": [{"keys": ["Id1"]}]}, "wrong_type", "keys"),
        ({"mods": ["x"]}, "wrong_type", "mods[0]"),
        ({"table_name": 5}, "wrong_type", "table_name"),
        ({"record_sequence": "seq1"}, "invalid_position", "record_sequence"),
        ({"column_types": {"a": 1}}, "wrong_type", "column_types"),
    ],
)
def test_quarantine_of_broken_data_change_records(change, expected, detail):
    record = one(data_change(**change))
    assert record["kind"] == "quarantine"
    assert record["reason"] == expected
    assert detail in record["detail"]


def test_quarantine_of_broken_beam_mods():
    record = one(beam_record(mods=[{"keysJson": "{not json", "newValuesJson": "{}"}]))
    assert record["reason"] == "invalid_json" and "keys" in record["detail"]
    assert reason(beam_record(mods=[{"newValuesJson": "{}"}])) == "missing_field"
    assert reason(beam_record(mods=[{"keysJson": "[1]"}])) == "wrong_type"


def test_unexpected_errors_become_parse_error(monkeypatch):
    def broken(record):
        raise RuntimeError("boom")

    monkeypatch.setitem(spanner._RECORD_PARSERS, "heartbeat_record", broken)
    record = one({"heartbeat_record": [{"timestamp": "2022-09-27T12:35:00Z"}]})
    assert record["reason"] == "parse_error" and "boom" in record["detail"]


def test_parsing_does_not_modify_nothing_shared():
    record = data_change()
    before = copy.deepcopy(record)
    parse(record)
    assert record == before


# --- never raises ----------------------------------------------------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=20,
)
_FIELD_NAMES = st.sampled_from(["data_change_record", "heartbeat_record", "child_partitions_record", "mods",
                                "commit_timestamp", "table_name", "column_types", "keys", "new_values",
                                "timestamp", "start_timestamp", "child_partitions", "mod_type", "commitTimestamp",
                                "keysJson", "rowType", "type", "code", "name", "record_sequence"])
_SPANNERISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30) | st.just("2022-09-27T12:30:00Z"),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_FIELD_NAMES, inner, max_size=6),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_records_and_never_raises(text):
    records = parse_spanner(text)
    assert records and all(set(r) == set(PARSED_FIELDS) for r in records)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_JSON, _SPANNERISH))
def test_any_json_gives_records_and_never_raises(value):
    records = parse_spanner(json.dumps(value))
    assert records and all(set(r) == set(PARSED_FIELDS) for r in records)
    assert all(r["reason"] != "parse_error" for r in records), records
