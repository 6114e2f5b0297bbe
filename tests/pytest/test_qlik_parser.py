"""Tests of the Qlik Replicate parser on the shared conformance samples and on hand-built messages."""

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
from parsers.qlik import parse_qlik

from python_udfs.contract import PARSED_FIELDS, canonical_json

CONFORMANCE = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "qlik"
SAMPLE_FILES = sorted(p for p in CONFORMANCE.rglob("*") if p.is_file()) if CONFORMANCE.is_dir() else []
SCHEMA_ID = "8FB9D3C10EA4B25751DF9CC8318F0A02"
TOPIC = "inventory.customers"
BIG_SEQUENCE = "20240501090000123456000000000001234"  # 35 digits: far past 2**63


# --- helpers ---------------------------------------------------------------------------------


def need_samples() -> None:
    if not CONFORMANCE.is_dir():
        pytest.skip(f"Qlik conformance samples not found at {CONFORMANCE}")


def sample_texts(name: str) -> list[str]:
    need_samples()
    path = next((p for p in SAMPLE_FILES if p.name == name), None)
    if path is None:
        pytest.skip(f"conformance sample {name} not found under {CONFORMANCE}")
    return split_records(path.read_text(encoding="utf-8"))


def kafka(value, topic: str | None = TOPIC, offset: int = 7, as_text: bool = False) -> dict:
    """A Kafka record wrapper around a message (value as object, JSON text, or null)."""
    if as_text and value is not None:
        value = json.dumps(value)
    return {"topic": topic, "partition": 0, "offset": offset, "timestamp": 1_714_554_000_123,
            "key": "1001", "value": value}


def one(raw) -> dict:
    return one_with(parse_qlik, raw)


def reason(raw) -> str:
    return reason_with(parse_qlik, raw)


def headers(operation="UPDATE", **extra) -> dict:
    block = {
        "operation": operation,
        "changeSequence": BIG_SEQUENCE,
        "timestamp": "2024-05-01T09:00:00.123",
        "streamPosition": "00000001.00012345",
        "transactionId": "0000000000000000000000000000A1B2",
        "changeMask": "0C",
        "columnMask": "0F",
        "transactionEventCounter": 2,
        "transactionLastEvent": False,
    }
    block.update(extra)
    return block


_DEFAULT = object()


def data_message(operation="UPDATE", data=_DEFAULT, before=_DEFAULT, **header_fields) -> dict:
    """A data message on a 4-column table; by default the row is `data` (`beforeData` for a DELETE)."""
    row = {"id": 1001, "name": "Zoë", "email": "zoe@example.com", "score": 2.5}
    if data is _DEFAULT:
        data = None if operation == "DELETE" else row
    if before is _DEFAULT:
        before = row if operation == "DELETE" else None
    return {"data": data, "beforeData": before, "headers": headers(operation, **header_fields)}


def atmsg(message: dict, kind: str = "DT", schema_id: str | None = SCHEMA_ID) -> dict:
    return {"magic": "atMSG", "type": kind, "headers": None, "messageSchemaId": schema_id,
            "messageSchema": None, "message": message}


def metadata(columns: dict | None = None, **lineage) -> dict:
    spec = {"server": "replicate-01", "task": "oltp-to-kafka", "schema": "hr", "table": "employees",
            "tableVersion": 3, "timestamp": "2024-05-01T09:00:00.000"}
    spec.update(lineage)
    if columns is None:
        columns = {
            "emp_no": {"ordinal": 1, "type": "INT4", "length": 10, "precision": 0, "scale": 0,
                       "primaryKeyPosition": 1, "nullable": False},
            "name": {"ordinal": 2, "type": "STRING", "length": 30, "precision": 0, "scale": 0,
                     "primaryKeyPosition": 0, "nullable": True},
        }
    return atmsg({"schemaId": SCHEMA_ID, "lineage": spec, "tableStructure": {"tableColumns": columns},
                  "dataSchema": "{}"}, kind="MD")


# --- conformance samples -----------------------------------------------------------------------


def _with_topic(text: str) -> str:
    """The michelin examples are bare messages (and one atMSG without a schema id): give them the
    Kafka wrapper they were read from, which names the table by its topic."""
    return json.dumps(kafka(json.loads(text)))


@pytest.mark.parametrize("path", SAMPLE_FILES or [None], ids=lambda p: p.name if p else "no-samples")
def test_every_sample_parses_without_quarantine(path):
    if path is None:
        need_samples()
    texts = split_records(path.read_text(encoding="utf-8"))
    if path.parent.name == "extracted":
        texts = [_with_topic(text) for text in texts]
    records = [r for text in texts for r in parse_qlik(text)]
    assert records and len(records) == len(texts)
    bad = [(r["reason"], r["detail"]) for r in records if r["kind"] == "quarantine"]
    assert bad == []
    assert all(set(r) == set(PARSED_FIELDS) for r in records)


def test_published_metadata_is_a_table_version():
    (text,) = sample_texts("Metadata.json")
    record = one(text)
    assert record["kind"] == "control" and record["control_type"] == "table_version"
    assert record["source_table"] == "employees.salaries"
    assert record["schema_version"] == "1"
    assert record["schema_ref"] == SCHEMA_ID
    assert record["column_order"] == ["emp_no", "salary", "from_date", "to_date"]
    document = json.loads(record["control_json"])
    assert record["control_json"] == canonical_json(document)
    assert {k: document[k] for k in ("schema_id", "server", "task", "schema", "table", "source_table",
                                     "table_version", "timestamp")} == {
        "schema_id": SCHEMA_ID, "server": "attunity-01.custenborder.com", "task": "mysql-to-kafka",
        "schema": "employees", "table": "salaries", "source_table": "employees.salaries",
        "table_version": 1, "timestamp": "2018-04-13T20:13:58.289"}
    columns = document["columns"]
    assert [c["ordinal"] for c in columns] == [1, 2, 3, 4]
    assert columns[2] == {"name": "from_date", "ordinal": 3, "type": "DATE", "length": 0, "precision": 0,
                          "scale": 0, "primary_key_position": 2, "nullable": False}
    key = sorted((c for c in columns if c["primary_key_position"] > 0), key=lambda c: c["primary_key_position"])
    assert [c["name"] for c in key] == ["emp_no", "from_date"]
    assert record["vendor_op"] is None and record["position"] is None


def test_published_data_is_a_full_load_row():
    (text,) = sample_texts("Data.json")
    record = one(text)
    assert record["kind"] == "change"
    assert record["vendor_op"] == "REFRESH"
    assert record["schema_ref"] == SCHEMA_ID
    assert record["source_table"] is None  # resolved in SQL through the metadata registry
    assert record["position"] is None
    assert record["after"] == {"emp_no": "14472", "salary": "49592", "from_date": '"1993-11-25"',
                               "to_date": '"1994-11-25"'}
    assert record["before"] is None
    assert record["column_order"] == ["emp_no", "salary", "from_date", "to_date"]
    assert record["captured_ordinals"] is None and record["changed_ordinals"] is None
    assert record["committed_at_us"] is None and record["transaction_id"] is None
    assert record["source_engine"] is None
    content = {"operation": "REFRESH", "data": json.loads(text)["message"]["data"], "beforeData": None}
    assert record["content_hash"] == hashlib.sha256(canonical_json(content).encode()).hexdigest()


def test_michelin_examples():
    texts = sample_texts("michelin_readme_examples.jsonl")
    update, delete_before, delete_data, wrapped_update = (one(_with_topic(text)) for text in texts)
    for record in (update, delete_before, delete_data, wrapped_update):
        assert record["kind"] == "change"
        assert record["kafka_topic"] == TOPIC and record["kafka_offset"] == 7
        assert record["position"] == {"change_sequence_high": "0", "change_sequence_low": "100",
                                      "transaction_event_counter": "1"}
        assert record["committed_at_us"] == 1_000_000  # "timestamp": 1000 is epoch milliseconds
        assert (record["transaction_id"], record["transaction_seq"], record["transaction_last"]) == ("1", 1, True)
        assert record["captured_ordinals"] == record["changed_ordinals"] == [1]  # mask "1" is one byte
        assert record["column_order"] == ["id", "email"]
        assert record["schema_ref"] is None and record["source_table"] is None
    assert update["vendor_op"] == "UPDATE"
    assert update["after"] == {"id": "1", "email": '"foo@bar.com"'}
    assert update["before"] == {"id": "1", "email": '"john@doe.com"'}
    # the deleted row is in beforeData in one example and in data in the other: both go to `before`
    for delete in (delete_before, delete_data):
        assert delete["vendor_op"] == "DELETE"
        assert delete["before"] == {"id": "1", "email": '"john@doe.com"'} and delete["after"] is None
    assert wrapped_update["after"] == update["after"]
    # a change with a position needs no identity hash (event_id uses the position)
    assert update["content_hash"] is None and wrapped_update["content_hash"] is None


def test_michelin_examples_without_a_wrapper_name_no_table():
    texts = sample_texts("michelin_readme_examples.jsonl")
    assert {reason(text) for text in texts} == {"unknown_table"}


# --- record forms ------------------------------------------------------------------------------------


def test_atmsg_data_message():
    record = one(atmsg(data_message()))
    assert record["kind"] == "change" and record["vendor_op"] == "UPDATE"
    assert record["schema_ref"] == SCHEMA_ID and record["source_table"] is None
    assert record["kafka_topic"] is None and record["read_at_us"] is None
    assert record["after"] == {"id": "1001", "name": '"Zoë"', "email": '"zoe@example.com"', "score": "2.5"}
    assert record["column_order"] == ["id", "name", "email", "score"]
    assert record["captured_ordinals"] == [1, 2, 3, 4] and record["changed_ordinals"] == [3, 4]
    assert record["position"] == {"change_sequence_high": "20240501090000123", "change_sequence_low": "456000000000001234",
                                  "transaction_event_counter": "2"}
    assert record["committed_at_us"] == 1_714_554_000_123_000
    assert record["transaction_id"] == "0000000000000000000000000000A1B2"
    assert (record["transaction_seq"], record["transaction_last"]) == (2, False)


def test_bare_data_message_in_a_kafka_wrapper():
    for as_text in (False, True):
        record = one(kafka(data_message(), topic="hr.employees", offset=42, as_text=as_text))
        assert record["kind"] == "change"
        assert (record["kafka_topic"], record["kafka_partition"], record["kafka_offset"]) == ("hr.employees", 0, 42)
        assert record["read_at_us"] == 1_714_554_000_123_000
        assert record["schema_ref"] is None and record["source_table"] is None


def test_atmsg_in_a_kafka_wrapper():
    for as_text in (False, True):
        record = one(kafka(atmsg(data_message()), topic="all-tables", as_text=as_text))
        assert record["schema_ref"] == SCHEMA_ID and record["kafka_topic"] == "all-tables"
        md = one(kafka(metadata(), topic="qlik.metadata", as_text=as_text))
        assert md["control_type"] == "table_version" and md["kafka_topic"] == "qlik.metadata"
        assert md["source_table"] == "hr.employees" and md["schema_version"] == "3"


def test_kafka_record_with_kafka_headers():
    record = one({**kafka(atmsg(data_message())), "headers": [{"key": "trace", "value": "abc"}]})
    assert record["kind"] == "change" and record["kafka_topic"] == TOPIC and record["schema_ref"] == SCHEMA_ID


def test_tombstone():
    record = one(kafka(None))
    assert record["kind"] == "control" and record["control_type"] == "tombstone"
    assert json.loads(record["control_json"]) == {"topic": TOPIC, "key": "1001"}
    assert record["kafka_offset"] == 7
    assert one(kafka(None, as_text=True)) == record
    assert one({**kafka(None), "value": "null"})["control_type"] == "tombstone"


def test_external_schema_id_from_the_headers():
    record = one(kafka(data_message(externalSchemaId="ABCDEF0123")))
    assert record["schema_ref"] == "ABCDEF0123"
    # the atMSG wrapper's messageSchemaId comes first
    assert one(atmsg(data_message(externalSchemaId="ABCDEF0123")))["schema_ref"] == SCHEMA_ID
    assert one(atmsg(data_message(externalSchemaId=""), schema_id=""), )["kind"] == "quarantine"


@pytest.mark.parametrize(
    ("where", "fields", "expected"),
    [
        ("message", {"schemaName": "hr", "tableName": "employees"}, "hr.employees"),
        ("message", {"schema": "hr", "table": "employees"}, "hr.employees"),
        ("message", {"tableName": "employees"}, "employees"),
        ("message", {"schemaName": "", "tableName": "employees"}, "employees"),
        ("headers", {"schemaName": "sales", "tableName": "order_lines"}, "sales.order_lines"),
        ("headers", {"schema": "sales", "table": "order_lines"}, "sales.order_lines"),
        ("message", {"schemaName": "hr"}, None),  # a schema alone names no table
    ],
)
def test_own_table_names(where, fields, expected):
    message = data_message()
    (message if where == "message" else message["headers"]).update(fields)
    record = one(atmsg(message))
    assert record["source_table"] == expected


def test_metadata_columns_sorted_by_ordinal_and_lineage_without_schema():
    columns = {
        "c": {"ordinal": 3, "type": "STRING", "primaryKeyPosition": 0},
        "a": {"ordinal": 1, "type": "INT4", "primaryKeyPosition": 2},
        "b": {"ordinal": 2, "type": "INT4", "primaryKeyPosition": 1, "nullable": True},
    }
    record = one(metadata(columns, schema=""))
    assert record["column_order"] == ["a", "b", "c"] and record["source_table"] == "employees"
    document = json.loads(record["control_json"])
    assert [(c["name"], c["primary_key_position"]) for c in document["columns"]] == [("a", 2), ("b", 1), ("c", 0)]
    assert document["columns"][2]["length"] is None and document["columns"][2]["nullable"] is None


def test_metadata_schema_id_falls_back_to_the_message_schema_id():
    message = metadata()
    del message["message"]["schemaId"]
    assert one(message)["schema_ref"] == SCHEMA_ID


# --- operations and images ---------------------------------------------------------------------------


def test_insert():
    record = one(atmsg(data_message("INSERT", columnMask="0F", changeMask="0F")))
    assert record["vendor_op"] == "INSERT" and record["before"] is None
    assert record["after"]["id"] == "1001" and record["changed_ordinals"] == [1, 2, 3, 4]


def test_update_keeps_both_images_and_nulls():
    before = {"id": 1001, "name": "Zoe", "email": None, "score": 2.5}
    after = {"id": 1002, "name": "Zoë", "email": None, "score": None}
    record = one(atmsg(data_message("UPDATE", data=after, before=before)))
    assert record["before"] == {"id": "1001", "name": '"Zoe"', "email": "null", "score": "2.5"}
    assert record["after"] == {"id": "1002", "name": '"Zoë"', "email": "null", "score": "null"}


def test_partial_capture_is_not_filtered_here():
    after = {"id": 1001, "name": None, "email": "new@example.com", "score": None}
    record = one(atmsg(data_message("UPDATE", data=after, columnMask="05", changeMask="04")))
    assert record["after"] == {"id": "1001", "name": "null", "email": '"new@example.com"', "score": "null"}
    assert record["captured_ordinals"] == [1, 3] and record["changed_ordinals"] == [3]
    assert record["column_order"] == ["id", "name", "email", "score"]


def test_delete_row_in_before_data_or_in_data():
    row = {"id": 1001, "name": None, "email": None, "score": None}
    in_before = one(atmsg(data_message("DELETE", before=row, columnMask="01", changeMask="01")))
    in_data = one(atmsg(data_message("DELETE", data=row, before=None, columnMask="01", changeMask="01")))
    for record in (in_before, in_data):
        assert record["vendor_op"] == "DELETE" and record["after"] is None
        assert record["before"] == {"id": "1001", "name": "null", "email": "null", "score": "null"}
        assert record["captured_ordinals"] == [1] and record["column_order"] == ["id", "name", "email", "score"]
    assert in_before["position"] and in_before["content_hash"] is None and in_data["content_hash"] is None


def test_delete_with_both_images_takes_before_data():
    record = one(atmsg(data_message("DELETE", data={"id": 1, "x": 1}, before={"id": 2, "x": 2},
                                    columnMask="01", changeMask="01")))
    assert record["before"] == {"id": "2", "x": "2"} and record["column_order"] == ["id", "x"]


def test_operation_is_upper_cased_and_unknown_ops_pass_through():
    assert one(atmsg(data_message("update")))["vendor_op"] == "UPDATE"
    assert one(atmsg(data_message(" Insert ")))["vendor_op"] == "INSERT"
    unknown = one(atmsg(data_message("TRUNCATE", data={"id": 1}, columnMask=None, changeMask=None)))
    assert unknown["kind"] == "change" and unknown["vendor_op"] == "TRUNCATE"
    only_before = one(atmsg({"data": None, "beforeData": {"id": 1},
                         "headers": headers("MERGE", columnMask="1", changeMask="")}))
    assert only_before["vendor_op"] == "MERGE" and only_before["before"] == {"id": "1"}
    assert only_before["column_order"] == ["id"]


def test_refresh_has_no_position_even_with_a_change_sequence():
    record = one(atmsg(data_message("REFRESH", changeSequence=BIG_SEQUENCE)))
    assert record["vendor_op"] == "REFRESH" and record["position"] is None


def test_full_load_duplicates_share_their_content_hash():
    message = data_message("REFRESH", changeSequence="", timestamp="", transactionId="", changeMask=None,
                           columnMask=None)
    first = one(atmsg(message))
    again = one(kafka(copy.deepcopy(message), offset=99))
    assert first["content_hash"] == again["content_hash"]
    other = copy.deepcopy(message)
    other["data"]["score"] = 3.5
    assert one(atmsg(other))["content_hash"] != first["content_hash"]


# --- positions, times, transactions ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sequence", "high", "low"),
    [
        ("100", "0", "100"),
        ("000000000000000000000000000000000000100", "0", "100"),
        ("123456789012345678", "0", "123456789012345678"),
        ("1123456789012345678", "1", "123456789012345678"),
        ("9999999999999999999", "9", "999999999999999999"),  # > 2**63
        ("20240501090000123000000000000000007", "20240501090000123", "7"),
        ("0", "0", "0"),
        (1234, "0", "1234"),
    ],
)
def test_change_sequence_is_split_numerically(sequence, high, low):
    position = one(atmsg(data_message(changeSequence=sequence)))["position"]
    assert position == {"change_sequence_high": high, "change_sequence_low": low, "transaction_event_counter": "2"}


@given(st.integers(min_value=0, max_value=10**50 - 1), st.integers(min_value=0, max_value=40))
@settings(max_examples=60)
def test_change_sequence_split_round_trips(number, zeros):
    position = one(atmsg(data_message(changeSequence="0" * zeros + str(number))))["position"]
    assert int(position["change_sequence_high"]) * 10**18 + int(position["change_sequence_low"]) == number
    assert int(position["change_sequence_low"]) < 10**18
    for part in ("change_sequence_high", "change_sequence_low"):
        assert position[part] == str(int(position[part]))  # no leading zeros


def test_missing_change_sequence_or_counter():
    assert one(atmsg(data_message(changeSequence="")))["position"] is None
    assert one(atmsg(data_message(changeSequence=None)))["position"] is None
    message = data_message()
    del message["headers"]["transactionEventCounter"]
    record = one(atmsg(message))
    assert record["position"]["transaction_event_counter"] == "0" and record["transaction_seq"] is None
    assert one(atmsg(data_message(transactionEventCounter="5")))["position"]["transaction_event_counter"] == "5"


@pytest.mark.parametrize(
    ("value", "micros"),
    [
        ("2018-04-13T20:13:58.289", 1_523_650_438_289_000),
        ("2018-04-13 20:13:58.289", 1_523_650_438_289_000),
        ("2018-04-13T20:13:58", 1_523_650_438_000_000),
        ("2018-04-13T20:13:58.289123456", 1_523_650_438_289_123),
        ("2018-04-13T20:13:58.289Z", 1_523_650_438_289_000),
        ("2018-04-13T22:13:58.289+02:00", 1_523_650_438_289_000),
        ("2018-04-13T15:13:58.289-0500", 1_523_650_438_289_000),
        (1000, 1_000_000),
        ("1000", 1_000_000),
        (1_523_650_438_289, 1_523_650_438_289_000),
        (1_523_650_438_289_123, 1_523_650_438_289_123),  # >= 10**14: microseconds
        ("", None),
        (None, None),
    ],
)
def test_commit_timestamp(value, micros):
    assert one(atmsg(data_message(timestamp=value)))["committed_at_us"] == micros


def test_transaction_fields():
    record = one(atmsg(data_message(transactionId="", transactionLastEvent="true")))
    assert record["transaction_id"] is None and record["transaction_last"] is True
    record = one(atmsg(data_message(transactionId=77, transactionLastEvent=None)))
    assert record["transaction_id"] == "77" and record["transaction_last"] is None


# --- malformed input: quarantined with a reason, never raised ----------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, "empty_record"),
        ("", "empty_record"),
        ("   ", "empty_record"),
        ('{"magic": "atMSG", "type": "DT", "message": {"data": {"id": 1}', "invalid_json"),
        ("[1, 2]", "not_an_object"),
        ('"text"', "not_an_object"),
        ({"hello": "world"}, "unknown_message"),
        ({"magic": "atMSG", "type": "XX", "message": {}}, "unknown_message_type"),
        ({"magic": "atMSG", "type": None, "message": {}}, "unknown_message_type"),
        ({"magic": "other", "type": "DT", "message": {}}, "unknown_message"),
        ({"magic": "atMSG", "type": "DT", "message": None}, "missing_message"),
        ({"magic": "atMSG", "type": "DT", "message": [1]}, "missing_message"),
        ({"data": {"id": 1}, "beforeData": None, "headers": None}, "missing_headers"),
        ({"data": {"id": 1}, "headers": {"changeSequence": "1"}}, "unknown_op"),
        ({"data": {"id": 1}, "headers": {"operation": 3}}, "unknown_op"),
        ({"topic": "t", "partition": 0, "offset": 1, "value": [1]}, "not_an_object"),
        ({"topic": "t", "partition": 0, "offset": 1, "value": "{cut"}, "invalid_json"),
    ],
)
def test_malformed_records(raw, expected):
    assert reason(raw) == expected


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"columnMask": "0G"}, "invalid_column_mask"),
        ({"columnMask": "0F0"}, "invalid_column_mask"),
        ({"columnMask": "1F"}, "invalid_column_mask"),  # ordinal 5 of 4 columns
        ({"changeMask": "FF01"}, "invalid_column_mask"),
        ({"changeMask": 12}, "invalid_column_mask"),
        ({"changeSequence": "12a4"}, "invalid_position"),
        ({"changeSequence": "-12"}, "invalid_position"),
        ({"changeSequence": "1" * 60}, "invalid_position"),
        ({"changeSequence": 1.5}, "invalid_position"),
        ({"transactionEventCounter": "first"}, "invalid_position"),
        ({"transactionEventCounter": -1}, "invalid_position"),
        ({"timestamp": "yesterday"}, "invalid_timestamp"),
        ({"timestamp": "2018-02-30T10:00:00"}, "invalid_timestamp"),
        ({"timestamp": "2018-04-13T20:13:58+25:00"}, "invalid_timestamp"),
        ({"timestamp": 10**20}, "invalid_timestamp"),
        ({"timestamp": True}, "invalid_timestamp"),
        ({"timestamp": "9" * 5000}, "invalid_timestamp"),
        ({"externalSchemaId": 5}, "wrong_type"),
    ],
)
def test_bad_header_fields(fields, expected):
    assert reason(kafka(data_message(**fields))) == expected


def test_mask_detail_names_the_mask():
    record = one(atmsg(data_message(changeMask="0G")))
    assert record["reason"] == "invalid_column_mask" and "changeMask" in record["detail"]
    record = one(atmsg(data_message(columnMask="FFFF")))
    assert "columnMask" in record["detail"] and "ordinal 16" in record["detail"]


@pytest.mark.parametrize(
    "message",
    [
        {"data": None, "beforeData": None, "headers": headers("DELETE")},
        {"data": {}, "beforeData": None, "headers": headers("DELETE")},
        {"data": None, "beforeData": None, "headers": headers("INSERT")},
        {"data": None, "beforeData": {"id": 1}, "headers": headers("UPDATE")},
        {"data": None, "beforeData": None, "headers": headers("REFRESH")},
        {"data": None, "beforeData": None, "headers": headers("MERGE")},
    ],
)
def test_no_usable_image(message):
    assert reason(atmsg(message)) == "missing_image"


def test_images_must_be_objects():
    assert reason(atmsg({"data": [1, 2], "beforeData": None, "headers": headers("INSERT")})) == "wrong_type"
    assert reason(atmsg({"data": {"id": 1}, "beforeData": 5, "headers": headers("UPDATE")})) == "wrong_type"


def test_no_table_at_all():
    assert reason(data_message()) == "unknown_table"
    assert reason(atmsg(data_message(), schema_id=None)) == "unknown_table"
    assert reason(kafka(data_message(), topic=None)) == "unknown_table"
    assert reason(kafka(data_message(), topic="")) == "unknown_table"
    assert one(atmsg(data_message(), schema_id=None) | {"message": data_message() | {"tableName": "t"}})[
        "source_table"] == "t"


@pytest.mark.parametrize(
    "change",
    [
        lambda m: m["message"].pop("lineage"),
        lambda m: m["message"]["lineage"].pop("table"),
        lambda m: m["message"]["lineage"].update(table=""),
        lambda m: m["message"].pop("tableStructure"),
        lambda m: m["message"]["tableStructure"].pop("tableColumns"),
        lambda m: m["message"]["tableStructure"].update(tableColumns={}),
        lambda m: m["message"]["tableStructure"]["tableColumns"]["name"].pop("ordinal"),
        lambda m: m["message"]["tableStructure"]["tableColumns"]["name"].update(ordinal=1),
        lambda m: m["message"]["tableStructure"]["tableColumns"].update(name=5),
        lambda m: m["message"]["lineage"].update(tableVersion=[1]),
    ],
)
def test_invalid_metadata(change):
    message = metadata()
    change(message)
    assert reason(message) == "invalid_metadata"


@given(st.text(max_size=200))
@settings(max_examples=150)
def test_never_raises_on_text(text):
    records = parse_with(parse_qlik, text)
    assert len(records) == 1


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.sampled_from(["magic", "type", "message", "data", "beforeData", "headers",
                                         "operation", "changeSequence", "columnMask", "value", "topic",
                                         "lineage", "tableStructure", "tableColumns", "timestamp"]),
                        inner, max_size=5),
                    max_leaves=20))
@settings(max_examples=300)
def test_never_raises_on_json_shapes(value):
    records = parse_with(parse_qlik, json.dumps(value))
    assert len(records) == 1
    assert records[0]["kind"] in ("change", "control", "quarantine")
    assert records[0]["reason"] != "parse_error", records[0]["detail"]
