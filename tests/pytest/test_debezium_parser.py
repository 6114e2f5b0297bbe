"""Tests of the Debezium parser on the shared conformance samples and on hand-built messages."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from landing_split import split_records
from parser_helpers import one_with
from parsers import debezium
from parsers.debezium import parse_debezium

from python_udfs.contract import PARSED_FIELDS

CONFORMANCE = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "debezium"
SAMPLE_FILES = sorted(p for p in CONFORMANCE.rglob("*") if p.is_file()) if CONFORMANCE.is_dir() else []

MYSQL_SOURCE = {"connector": "mysql", "db": "inventory", "table": "customers", "file": "mysql-bin.000003",
                "pos": 154, "row": 0, "ts_ms": 1465491411000}


# --- helpers ---------------------------------------------------------------------------------


def need_samples() -> None:
    if not CONFORMANCE.is_dir():
        pytest.skip(f"Debezium conformance samples not found at {CONFORMANCE}")


def sample_records(name: str) -> list[dict]:
    need_samples()
    path = next((p for p in SAMPLE_FILES if p.name == name), None)
    if path is None:
        pytest.skip(f"conformance sample {name} not found under {CONFORMANCE}")
    return [rec for raw in split_records(path.read_text(encoding="utf-8")) for rec in parse_debezium(raw)]


def one(raw) -> dict:
    return one_with(parse_debezium, raw)


def message(op="c", before=None, after=None, source=None, **extra) -> dict:
    payload = {"op": op, "before": before, "after": after,
               "source": MYSQL_SOURCE if source is None else source, "ts_ms": 1465491411815}
    payload.update(extra)
    return payload


def column_schema(**fields: dict) -> dict:
    """An envelope schema whose before/after structs have the given column field schemas."""
    columns = [{"field": name, "optional": True, **spec} for name, spec in fields.items()]
    struct = {"type": "struct", "name": "srv.inventory.t.Value", "fields": columns, "optional": True}
    return {"type": "struct", "name": "srv.inventory.t.Envelope",
            "fields": [{**struct, "field": "before"}, {**struct, "field": "after"},
                       {"type": "string", "field": "op"}]}


def logical_after(value, **spec) -> str:
    """The encoded 'v' column of a create whose schema gives 'v' the field schema `spec`."""
    record = one({"schema": column_schema(v=spec), "payload": message(after={"v": value})})
    assert record["kind"] == "change", record
    return record["after"]["v"]


# --- conformance samples -----------------------------------------------------------------------


@pytest.mark.parametrize("path", SAMPLE_FILES or [None], ids=lambda p: p.name if p else "no-samples")
def test_every_sample_parses_without_quarantine(path):
    if path is None:
        need_samples()
    records = [r for raw in split_records(path.read_text(encoding="utf-8")) for r in parse_debezium(raw)]
    assert records
    bad = [(r["reason"], r["detail"]) for r in records if r["kind"] == "quarantine"]
    assert bad == []
    assert all(set(r) == set(PARSED_FIELDS) for r in records)


def test_oracle_doc_example():
    (record,) = sample_records("oracle_connector_doc_examples.jsonl")
    assert record["source_engine"] == "oracle"
    assert record["source_table"] == "DEBEZIUM.CUSTOMERS"
    assert record["position"] == {"scn": "2122185", "commit_scn": "2122185",
                                  "rs_id": "001234.00012345.0124", "ssn": "1"}
    assert record["after"]["ID"] == "1004"
    assert record["after"]["EMAIL"] == '"annek@noanswer.org"'
    assert record["before"] is None
    assert record["transaction_id"] == "6.28.807"
    assert record["committed_at_us"] == 1520085154000000
    assert record["read_at_us"] == 1532592105975741
    assert record["schema_version"] == "server1.DEBEZIUM.CUSTOMERS.Value"


def test_mysql_serde_update():
    (record,) = sample_records("serde-update.json")
    assert (record["vendor_op"], record["source_engine"]) == ("u", "mysql")
    assert record["source_table"] == "inventory.customers"
    assert record["position"] == {"file": "mysql-bin.000003", "pos": "154", "row": "0"}
    assert record["before"]["first_name"] == '"Anne-Marie"'
    assert record["after"]["first_name"] == '"Anne"'
    assert record["committed_at_us"] is None  # source ts_ms is 0: not known
    assert record["read_at_us"] == 1465491411815000
    assert record["changed_columns"] is None


def test_postgres_doc_example():
    (record,) = sample_records("postgresql_connector_doc_examples.jsonl")
    assert record["source_engine"] == "postgresql"
    assert record["source_table"] == "postgres.public.customers"
    assert record["position"]["lsn"] == "24023128"
    assert record["position"]["sequence"] == '["24023119","24023128"]'
    assert record["transaction_id"] == "555"


def test_alltype_decimals_and_times_by_hand():
    (record,) = sample_records("paimon__table-schema-alltype__debezium-data-1.txt")
    after = record["after"]
    # DECIMAL(8,3) written as the number 12345.11 -> the column's scale, as a decimal string
    assert after["_numeric"] == '"12345.110"'
    assert after["pt"] == '"1.1"'
    assert after["_decimal"] == '"11111"'
    assert after["_date"] == '"2023-03-23"'  # 19439 days
    assert after["_datetime3"] == '"2023-03-23T14:30:05.123Z"'  # 1679581805123 ms
    assert after["_time"] == '"10:13:23"'  # 36803000000 us
    assert after["_bin"] == '"Ynl0ZXMAAAAAAA=="'  # bytes stay base64 text
    assert json.loads(after["_point"])["x"] == 1.0


def test_schema_include_bytes_decimal_by_hand():
    snapshot, binlog = sample_records("debezium-data-schema-include.json")
    # "EtaH" = 0x12D687 = 1234567, scale 4
    assert snapshot["after"]["decimal_c"] == '"123.4567"'
    assert snapshot["after"]["numeric_c"] == '"346"'  # "AVo=" = 0x015A
    assert snapshot["after"]["date_c"] == '"2020-07-17"'
    assert snapshot["vendor_op"] == "r"
    # the binlog sample's schema lists the columns directly; they are still converted
    assert binlog["after"]["decimal_c"] == '"123.4567"'
    assert binlog["before"]["datetime6_c"] == '"2020-07-17T18:00:22.123456Z"'


def test_mongo_bson_sample():
    records = sample_records("paimon__debezium-bson__event-update.txt")
    keys = [r for r in records if r["kind"] == "control"]
    changes = [r for r in records if r["kind"] == "change"]
    assert [k["control_type"] for k in keys] == ["message_key", "message_key"]
    assert json.loads(keys[0]["control_json"]) == {"id": '{"$oid": "67ab25755c0d5ac87eb8c632"}'}
    update = changes[1]
    assert update["source_engine"] == "mongodb"
    assert update["source_table"] == "bigdata_test.sync_test_table"
    assert update["after"]["_id"] == '"67ab25755c0d5ac87eb8c632"'
    assert update["after"]["created_at"] == "1736207571013"
    assert update["after"]["updated_at"] == '"2025-02-13T14:03:17.97Z"'
    assert update["after"]["tags"] == '["succeed"]'
    assert update["before"]["tags"] == '["pending"]'
    assert update["position"] == {"ts_ms": "1739321992000", "ord": "28"}


def test_flink_with_and_without_schema_give_same_images():
    def images(name):
        records = sample_records(name)
        assert {r["source_table"] for r in records} == {"$databaseName.customers", "$databaseName.products"}
        assert {r["source_engine"] for r in records} == {"unknown"}
        return sorted(json.dumps([r["source_table"], r["vendor_op"], r["before"], r["after"]], sort_keys=True)
                      for r in records)

    plain = images("flink-cdc__mysqlToKafka__debezium-json.txt")
    assert plain == images("flink-cdc__mysqlToKafka__debezium-json-with-schema.txt")
    assert len(plain) == 20


# --- malformed input --------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "reason"), [
    ('{"op": "c", "after": {"id": 1}, "sour', "invalid_json"),
    ("", "empty_record"),
    ("   \t ", "empty_record"),
    (None, "empty_record"),
    ("42", "not_an_object"),
    ('["op", "c"]', "not_an_object"),
    (json.dumps(message(op="x", after={"id": 1})), "unknown_op"),
    (json.dumps({"before": None, "after": {"id": 1}, "source": MYSQL_SOURCE}), "unknown_op"),
    (json.dumps({"op": "c", "after": {"id": 1}}), "missing_source"),
    (json.dumps(message(op=1, after={"id": 1})), "wrong_type"),
    (json.dumps(message(after=[1, 2])), "wrong_type"),
    (json.dumps(message(after='{"id": 1}')), "wrong_type"),  # a string image is MongoDB-only
    (json.dumps({"op": "c", "after": {"id": 1}, "source": "mysql"}), "wrong_type"),
    (json.dumps({"schema": None, "payload": [1]}), "wrong_type"),
    (json.dumps(message(op="u", before={"id": 1})), "missing_image"),
    (json.dumps(message(op="d")), "missing_image"),
    (json.dumps(message(after={"id": 1}, source={"connector": "mysql", "db": "inventory"})),
     "missing_source_table"),
    (json.dumps({"topic": "t", "partition": 0, "offset": 1, "key": None, "value": '{"op": "c", '}),
     "invalid_json"),
    (json.dumps({"topic": "t", "partition": 0, "offset": 1, "key": None, "value": 7}), "not_an_object"),
])
def test_malformed_input_is_quarantined(raw, reason):
    record = one(raw)
    assert (record["kind"], record["reason"]) == ("quarantine", reason)
    assert record["detail"]


def test_unexpected_error_becomes_parse_error(monkeypatch):
    def explode(*_args):
        raise RuntimeError("boom")

    monkeypatch.setattr(debezium, "_change_event", explode)
    record = one(message(after={"id": 1}))
    assert (record["kind"], record["reason"]) == ("quarantine", "parse_error")
    assert "boom" in record["detail"]


def test_pretty_printed_json_is_one_record():
    record = one(json.dumps(message(after={"id": 1}), indent=2))
    assert record["kind"] == "change"


# --- Kafka record wrappers, keys and control events -------------------------------------------


def wrapper(value, key=None, topic="srv.inventory.customers") -> dict:
    return {"topic": topic, "partition": 2, "offset": 17, "timestamp": 1465491411815, "key": key,
            "value": value}


def test_wrapper_tombstone_is_control():
    record = one(wrapper(None, key={"schema": {"type": "struct"}, "payload": {"id": 1004}}))
    assert (record["kind"], record["control_type"]) == ("control", "tombstone")
    assert json.loads(record["control_json"]) == {"topic": "srv.inventory.customers", "key": {"id": 1004}}
    assert (record["kafka_topic"], record["kafka_partition"], record["kafka_offset"]) == (
        "srv.inventory.customers", 2, 17)


def test_wrapper_value_as_json_string_parses_like_object():
    value = {"schema": None, "payload": message(op="d", before={"id": 1004, "email": "a@b"})}
    as_object = one(wrapper(value, key={"id": 1004}))
    as_text = one(wrapper(json.dumps(value), key=json.dumps({"id": 1004})))
    assert as_object == as_text
    assert as_object["key"] == {"id": "1004"}
    assert (as_object["kafka_partition"], as_object["kafka_offset"]) == (2, 17)


def test_delete_with_only_a_kafka_key_is_a_change():
    record = one(wrapper(message(op="d"), key={"payload": {"id": 7}, "schema": {"name": "x.Key"}}))
    assert (record["kind"], record["vendor_op"], record["key"], record["before"]) == ("change", "d", {"id": "7"},
                                                                                      None)


def test_mongo_key_maps_to_underscore_id():
    source = {"connector": "mongodb", "db": "shop", "collection": "orders", "ord": 3, "ts_ms": 1739321992000}
    value = message(op="d", source=source)
    record = one(wrapper(value, key={"id": '{"$oid": "67ab25755c0d5ac87eb8c632"}'}, topic="m.shop.orders"))
    assert record["key"] == {"_id": '"67ab25755c0d5ac87eb8c632"'}
    assert record["source_table"] == "shop.orders"


def test_mongo_update_description_names_changed_columns():
    source = {"connector": "mongodb", "db": "shop", "collection": "orders", "ord": 3, "ts_ms": 1}
    after = json.dumps({"_id": {"$numberLong": "5"}, "n": {"$numberInt": "2"}, "price": {"$numberDecimal": "9.90"},
                        "at": {"$date": {"$numberLong": "0"}}, "seen": {"$date": "2024-01-01T01:00:00+01:00"},
                        "ratio": {"$numberDouble": "0.5"}, "addr": {"city": "X", "zip": {"$numberInt": "1"}}})
    description = {"updatedFields": json.dumps({"n": 2, "addr.city": "X"}), "removedFields": ["old"]}
    record = one(message(op="u", after=after, source=source, updateDescription=description))
    assert record["after"] == {"_id": "5", "n": "2", "price": '"9.90"', "at": '"1970-01-01T00:00:00Z"',
                               "seen": '"2024-01-01T00:00:00Z"', "ratio": "0.5",
                               "addr": '{"city":"X","zip":1}'}
    assert record["changed_columns"] == ["n", "addr", "old"]


def test_bare_key_lines_are_message_key_controls():
    plain = one({"id": 1004})
    assert (plain["control_type"], plain["control_json"]) == ("message_key", '{"id":1004}')
    with_schema = one({"schema": {"type": "struct", "name": "srv.inventory.customers.Key"},
                       "payload": {"id": 1004}})
    assert (with_schema["control_type"], with_schema["control_json"]) == ("message_key", '{"id":1004}')


@pytest.mark.parametrize(("raw", "control_type"), [
    ({"ts_ms": 1589355606100}, "heartbeat"),
    ({"schema": {"name": "io.debezium.connector.common.Heartbeat"}, "payload": {"ts_ms": 1}}, "heartbeat"),
    ({"status": "BEGIN", "id": "571:53195829", "ts_ms": 1, "event_count": None}, "transaction"),
    ({"status": "END", "id": "571", "event_count": 2, "data_collections": [{"data_collection": "s.t"}]},
     "transaction"),
    ({"source": MYSQL_SOURCE, "databaseName": "inventory", "ddl": "ALTER TABLE t ADD c INT",
      "tableChanges": []}, "ddl"),
    (message(op="m", message={"prefix": "p", "content": "Y29udGVudA=="}), "message"),
    ({"schema": None, "payload": None}, "tombstone"),
])
def test_control_events(raw, control_type):
    record = one(raw)
    assert (record["kind"], record["control_type"]) == ("control", control_type)
    assert record["control_json"]
    if control_type == "transaction":
        assert record["transaction_id"] == raw["id"]


def test_truncate_is_a_change_without_images():
    source = {"connector": "oracle", "db": "ORCLPDB1", "schema": "DEBEZIUM", "table": "TEST_TABLE",
              "scn": "13234397", "commit_scn": "13271102", "rs_id": "001234.00012345.0124", "ssn": 1}
    record = one(wrapper(message(op="t", source=source), key={"id": 1}))
    assert (record["kind"], record["vendor_op"]) == ("change", "t")
    assert (record["before"], record["after"], record["key"]) == (None, None, None)
    assert record["source_table"] == "ORCLPDB1.DEBEZIUM.TEST_TABLE"
    assert record["position"]["commit_scn"] == "13271102"


# --- naming, positions, identity ---------------------------------------------------------------


def test_table_from_topic_and_engine_from_source_fields():
    source = {"change_lsn": "00000027:00000758:0003", "commit_lsn": "00000027:00000758:0005",
              "event_serial_no": 1}
    record = one(wrapper(message(after={"id": 1}, source=source), topic="srv.testDB.dbo.customers"))
    assert record["source_engine"] == "sqlserver"
    assert record["source_table"] == "testDB.dbo.customers"
    assert record["position"] == {"change_lsn": "00000027:00000758:0003",
                                  "commit_lsn": "00000027:00000758:0005", "event_serial_no": "1"}


def test_engine_from_schema_source_struct_and_postgres_alias():
    schema = {"type": "struct", "fields": [
        {"type": "struct", "field": "source", "name": "io.debezium.connector.db2.Source", "fields": []}]}
    record = one({"schema": schema, "payload": message(after={"id": 1}, source={"db": "d", "table": "t"})})
    assert record["source_engine"] == "db2"
    source = {"connector": "postgres", "db": "p", "schema": "public", "table": "t", "lsn": None}
    record = one(message(after={"id": 1}, source=source))
    assert (record["source_engine"], record["position"]) == ("postgresql", None)


def test_mysql_without_binlog_file_has_no_position():
    record = one(message(after={"id": 1}, source={**MYSQL_SOURCE, "file": ""}))
    assert record["position"] is None


def test_times_and_transaction():
    source = {**MYSQL_SOURCE, "ts_us": 1465491411000123}
    record = one(message(after={"id": 1}, source=source, ts_ns=1465491411815000999,
                         transaction={"id": "tx-9", "total_order": 4, "data_collection_order": 2}))
    assert record["committed_at_us"] == 1465491411000123
    assert record["read_at_us"] == 1465491411815000
    assert (record["transaction_id"], record["transaction_seq"], record["transaction_last"]) == ("tx-9", 4, None)


def test_content_hash_ignores_processing_times():
    # a change without a position (MySQL file '' as in snapshots and Flink CDC, D10)
    unplaced = {**MYSQL_SOURCE, "file": "", "pos": 0}
    first = one(message(after={"id": 1}, source=unplaced, ts_ms=1))
    again = one(message(after={"id": 1}, source=unplaced, ts_ms=2, ts_us=2000))
    other = one(message(after={"id": 2}, source=unplaced, ts_ms=1))
    assert first["position"] is None
    assert first["content_hash"] == again["content_hash"] != other["content_hash"]
    assert re.fullmatch(r"[0-9a-f]{64}", first["content_hash"])


def test_content_hash_only_for_changes_without_a_position():
    placed = one(message(after={"id": 1}))
    assert placed["position"] is not None and placed["content_hash"] is None


# --- logical types ------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "spec", "expected"), [
    (18460, {"type": "int32", "name": "io.debezium.time.Date"}, "2020-07-17"),
    (-1, {"type": "int32", "name": "org.apache.kafka.connect.data.Date"}, "1969-12-31"),
    (1595008822123, {"type": "int64", "name": "io.debezium.time.Timestamp"}, "2020-07-17T18:00:22.123Z"),
    (1595008822000, {"type": "int64", "name": "org.apache.kafka.connect.data.Timestamp"}, "2020-07-17T18:00:22Z"),
    (1595008822123456, {"type": "int64", "name": "io.debezium.time.MicroTimestamp"},
     "2020-07-17T18:00:22.123456Z"),
    (1595008822123456789, {"type": "int64", "name": "io.debezium.time.NanoTimestamp"},
     "2020-07-17T18:00:22.123456789Z"),
    ("2020-07-17T20:00:22.5+02:00", {"type": "string", "name": "io.debezium.time.ZonedTimestamp"},
     "2020-07-17T18:00:22.5Z"),
    ("2020-07-17T18:00:22.123456789Z", {"type": "string", "name": "io.debezium.time.ZonedTimestamp"},
     "2020-07-17T18:00:22.123456789Z"),
    (64822123, {"type": "int32", "name": "io.debezium.time.Time"}, "18:00:22.123"),
    (64822000000, {"type": "int64", "name": "io.debezium.time.MicroTime"}, "18:00:22"),
    (64822123456789, {"type": "int64", "name": "io.debezium.time.NanoTime"}, "18:00:22.123456789"),
    ("+x4=", {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "2"}},
     "-12.50"),
    ("BOI=", {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "2"}},
     "12.50"),
    ({"scale": 3, "value": "+w=="}, {"type": "struct", "name": "io.debezium.data.VariableScaleDecimal"},
     "-0.005"),
])
def test_logical_types(value, spec, expected):
    assert json.loads(logical_after(value, **spec)) == expected


def test_other_values_stay_as_they_are():
    assert logical_after("aGVsbG8=", type="bytes") == '"aGVsbG8="'
    assert logical_after({"b": 1, "a": [1, 2]}, type="struct") == '{"a":[1,2],"b":1}'
    assert logical_after(2023, type="int32", name="io.debezium.time.Year") == "2023"
    assert logical_after(None, type="int32", name="io.debezium.time.Date") == "null"


def test_unavailable_placeholder_is_dropped():
    after = {"id": 1, "big_text": "__debezium_unavailable_value",
             "big_bytes": "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==", "tags": ["__debezium_unavailable_value"],
             "name": "kept"}
    source = {"connector": "postgresql", "db": "p", "schema": "public", "table": "t", "lsn": 33}
    record = one(message(op="u", after=after, before=dict(after), source=source))
    assert record["after"] == {"id": "1", "name": '"kept"'}
    assert record["before"] == {"id": "1", "name": '"kept"'}
    assert record["position"] == {"lsn": "33"}
