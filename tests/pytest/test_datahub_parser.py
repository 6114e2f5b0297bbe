"""Tests of the Alibaba DataHub parser on the published Blob samples, the seed's examples (Blob,
Tuple, heartbeat, DDL with its real ddlMeta) and malformed records."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from landing_split import split_records
from parser_helpers import one_with, parse_with, reason_with
from parsers.datahub import parse_datahub
from test_java_serialization import SEED_DDL_META, SEED_DDL_TEXT

from python_udfs.contract import canonical_json

PUBLISHED = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "datahub" / "published"


def parse(raw) -> list[dict]:
    return parse_with(parse_datahub, raw)


def one(raw) -> dict:
    return one_with(parse_datahub, raw)


def reason(raw) -> str:
    return reason_with(parse_datahub, raw)


def sample(name: str) -> list[dict]:
    path = PUBLISHED / name
    if not path.is_file():
        pytest.skip(f"conformance sample {path} not found")
    return [record for raw in split_records(path.read_text(encoding="utf-8")) for record in parse(raw)]


# The seed's Blob examples (shared/seeds/004_3b28fad0bd30944a.txt): table t_shiyu_pk, key (id, name).
SEED_SCHEMA = {
    "dataColumn": [{"name": "id", "type": "LONG"}, {"name": "name", "type": "STRING"},
                   {"name": "comment", "type": "STRING"}],
    "source": {"dbName": "yunshi_db", "dbType": "MySQL", "tableName": "t_shiyu_pk"},
    "primaryKey": ["id", "name"],
}


def blob(op: str, sequence="1605339516000000005", before=None, after=None, schema=None, **payload) -> dict:
    body = {"op": op, "sequenceId": sequence,
            "timestamp": {"eventTime": 1605339934000, "systemTime": 1605339934951, "checkpointTime": 1605339934000}}
    if before is not None:
        body["before"] = {"dataColumn": before}
    if after is not None:
        body["after"] = {"dataColumn": after}
    body.update(payload)
    return {"schema": copy.deepcopy(SEED_SCHEMA) if schema is None else schema, "payload": body, "version": "0.0.1"}


TYPED_SCHEMA = {
    "dataColumn": [{"name": "id", "type": "LONG"}, {"name": "flag", "type": "BOOLEAN"},
                   {"name": "ratio", "type": "DOUBLE"}, {"name": "bin", "type": "BYTES"},
                   {"name": "ts", "type": "DATE"}, {"name": "name", "type": "STRING"},
                   {"name": "extra", "type": "DECIMAL"}],
    "primaryKey": ["id"],
    "source": {"dbType": "PostgreSQL", "dbName": "db", "schemaName": "public", "tableName": "typed"},
}


def typed(column: str, value) -> dict:
    """The parsed record of an INSERT whose `column` holds `value`."""
    return one(blob("INSERT", after={"id": 1, column: value}, schema=TYPED_SCHEMA))


def tuple_record(op="I", sequence="1649991610688000000", before="N", after="Y", **columns) -> dict:
    return {"_sequence_id_": sequence, "_operation_type_": op, "_excute_time_": 1649991726000,
            "_source_table_": "shop_db.order_items", "_before_image_": before, "_after_image_": after,
            **(columns or {"order_id": 7, "line_no": 1, "sku": "茶-001", "price": 2.5, "note": None})}


# --- the published samples (paimon-aliyun) ----------------------------------------------------


def test_published_insert_is_a_full_load_row():
    (record,) = sample("paimon-aliyun__event-insert.txt")
    assert record["kind"] == "change"
    assert record["vendor_op"] == "FULL_LOAD"  # sequenceId "-1": a row of the initial load
    assert record["position"] is None
    assert record["source_table"] == "bigdata_test.sync_test_table"
    assert record["source_engine"] == "mysql"
    assert record["key"] == {"id": "2"}
    assert record["after"] == {"id": "2", "val": "1.1", "name": '"a"', "create_time": '"2024-11-15T08:58:34Z"'}
    assert record["before"] is None
    assert record["committed_at_us"] is None  # eventTime -1: unknown
    assert record["read_at_us"] == 1731661820245000


def test_published_delete():
    (record,) = sample("paimon-aliyun__event-delete.txt")
    assert (record["kind"], record["vendor_op"]) == ("change", "DELETE")
    assert record["position"] == {"sequence_id": "1731663842292000000", "image_rank": "1"}
    assert record["key"] == {"id": "1"}
    assert record["before"] == {"id": "1", "val": "1.1", "name": '"a"', "create_time": '"2024-11-15T08:58:34Z"'}
    assert record["after"] is None
    assert record["committed_at_us"] == 1731662085000000
    assert record["read_at_us"] == 1731663848953000


def test_published_update_in_one_carries_both_images():
    (record,) = sample("paimon-aliyun__event-update-in-one.txt")
    assert (record["kind"], record["vendor_op"]) == ("change", "UPDATE_AFTER")
    assert record["position"] == {"sequence_id": "1731663842292000001", "image_rank": "1"}
    assert record["key"] == {"id": "2"}
    assert record["before"]["val"] == "1.1" and record["after"]["val"] == "2.2"
    assert record["after"] == {"id": "2", "val": "2.2", "name": '"a"', "create_time": '"2024-11-15T08:58:34Z"'}
    assert record["committed_at_us"] == 1731662097000000


def test_every_published_record_parses():
    files = sorted(PUBLISHED.glob("paimon-aliyun__event-*.txt")) if PUBLISHED.is_dir() else []
    if not files:
        pytest.skip(f"no paimon-aliyun samples under {PUBLISHED}")
    records = [r for path in files for raw in split_records(path.read_text(encoding="utf-8")) for r in parse(raw)]
    assert len(records) == 3
    assert [r for r in records if r["kind"] == "quarantine"] == []


# --- the seed's Blob examples -----------------------------------------------------------------


def test_seed_insert():
    record = one(blob("INSERT", "1605339516000000004", after={"name": "joe", "comment": "comment", "id": 1}))
    assert (record["kind"], record["vendor_op"]) == ("change", "INSERT")
    assert record["source_table"] == "yunshi_db.t_shiyu_pk"
    assert record["source_engine"] == "mysql"
    assert record["key"] == {"id": "1", "name": '"joe"'}
    assert record["after"] == {"name": '"joe"', "comment": '"comment"', "id": "1"}
    assert record["position"] == {"sequence_id": "1605339516000000004", "image_rank": "1"}
    assert record["committed_at_us"] == 1605339934000000
    assert record["read_at_us"] == 1605339934951000
    assert record["transaction_id"] is None
    assert record["content_hash"] is None  # placed changes need no identity hash (D34)


def test_update_before_half_is_a_control_with_structured_fields():
    record = one(blob("UPDATE_BEFOR", before={"name": "joe", "comment": "comment", "id": 1}))
    assert (record["kind"], record["control_type"]) == ("control", "update_before_image")
    assert record["vendor_op"] == "UPDATE_BEFOR"
    assert record["before"] == {"name": '"joe"', "comment": '"comment"', "id": "1"}
    assert record["after"] is None
    assert record["key"] == {"id": "1", "name": '"joe"'}
    assert record["position"] == {"sequence_id": "1605339516000000005", "image_rank": "0"}
    assert record["source_table"] == "yunshi_db.t_shiyu_pk"
    assert record["committed_at_us"] == 1605339934000000
    assert json.loads(record["control_json"]) == {
        "op": "UPDATE_BEFOR", "sequence_id": "1605339516000000005", "source_table": "yunshi_db.t_shiyu_pk",
        "format": "blob"}
    assert record["control_json"] == canonical_json(json.loads(record["control_json"]))


def test_update_after_half_shares_the_sequence_and_sorts_after():
    before = one(blob("UPDATE_BEFOR", before={"name": "joe", "comment": "comment", "id": 1}))
    after = one(blob("UPDATE_AFTER", after={"name": "joe", "comment": "com1", "id": 1}))
    assert (after["kind"], after["vendor_op"]) == ("change", "UPDATE_AFTER")
    assert after["before"] is None and after["after"]["comment"] == '"com1"'
    assert after["position"]["sequence_id"] == before["position"]["sequence_id"]
    assert (before["position"]["image_rank"], after["position"]["image_rank"]) == ("0", "1")


def test_seed_delete():
    record = one(blob("DELETE", "1605339516000000006", before={"name": "joe", "comment": "com1", "id": 1}))
    assert (record["vendor_op"], record["key"], record["after"]) == ("DELETE", {"id": "1", "name": '"joe"'}, None)
    assert record["before"]["comment"] == '"com1"'


def test_key_change_pair_keys_come_from_each_image():
    before = one(blob("UPDATE_BEFOR", before={"name": "joe", "comment": "c", "id": 1}))
    after = one(blob("UPDATE_AFTER", after={"name": "joe", "comment": "c", "id": 2}))
    assert before["key"] == {"id": "1", "name": '"joe"'}
    assert after["key"] == {"id": "2", "name": '"joe"'}


def test_update_before_spelt_out_is_the_same_half():
    record = one(blob("UPDATE_BEFORE", before={"name": "joe", "comment": "c", "id": 1}))
    assert record["control_type"] == "update_before_image" and record["position"]["image_rank"] == "0"


def test_truncate_has_no_images():
    record = one(blob("TRUNCATE", before={"id": 1, "name": "x", "comment": None}))
    assert (record["kind"], record["vendor_op"]) == ("change", "TRUNCATE")
    assert (record["before"], record["after"], record["key"]) == (None, None, None)
    assert record["source_table"] == "yunshi_db.t_shiyu_pk"


def test_unknown_op_is_passed_on_as_a_change():
    record = one(blob("UPSERT", after={"name": "joe", "comment": "c", "id": 1}))
    assert (record["kind"], record["vendor_op"]) == ("change", "UPSERT")
    assert one(blob("insert", after={"name": "joe", "comment": "c", "id": 1}))["vendor_op"] == "insert"


def test_full_load_needs_an_insert():
    assert one(blob("INSERT", "-1", after={"id": 1, "name": "a", "comment": None}))["vendor_op"] == "FULL_LOAD"
    assert reason(blob("DELETE", "-1", before={"id": 1, "name": "a", "comment": None})) == "invalid_position"


def test_schema_name_qualifies_the_table_and_engine_names_are_normalised():
    record = typed("name", "x")
    assert record["source_table"] == "db.public.typed"
    assert record["source_engine"] == "postgresql"


def test_table_without_primary_key_gives_no_key():
    schema = {**SEED_SCHEMA, "primaryKey": []}
    assert one(blob("INSERT", after={"id": 1, "name": "n", "comment": None}, schema=schema))["key"] is None
    schema = {k: v for k, v in SEED_SCHEMA.items() if k != "primaryKey"}
    assert one(blob("INSERT", after={"id": 1, "name": "n", "comment": None}, schema=schema))["key"] is None


def test_key_column_missing_from_the_image_is_null():
    assert one(blob("INSERT", after={"id": 1, "comment": None}))["key"] == {"id": "1", "name": "null"}


def test_redelivered_copy_with_a_new_system_time_has_the_same_content_hash():
    # a full-load row (negative sequence id) has no position: its identity is the content hash
    message = blob("INSERT", after={"name": "joe", "comment": "c", "id": 1})
    message["payload"]["sequenceId"] = "-1"
    again = copy.deepcopy(message)
    again["payload"]["timestamp"]["systemTime"] += 60_000
    first, second = one(message), one(again)
    assert first["content_hash"] == second["content_hash"] and first["read_at_us"] != second["read_at_us"]
    other = copy.deepcopy(message)
    other["payload"]["after"]["dataColumn"]["comment"] = "d"
    assert one(other)["content_hash"] != first["content_hash"]


def test_payload_as_json_text_is_accepted():
    message = blob("INSERT", after={"name": "joe", "comment": "c", "id": 1})
    message["payload"] = json.dumps(message["payload"])
    assert one(message)["vendor_op"] == "INSERT"


def test_schema_version_follows_the_columns():
    first = one(blob("INSERT", after={"name": "joe", "comment": "c", "id": 1}))
    schema = copy.deepcopy(SEED_SCHEMA)
    schema["dataColumn"].append({"name": "holo", "type": "STRING"})
    second = one(blob("INSERT", after={"name": "joe", "comment": "c", "id": 1, "holo": "h"}, schema=schema))
    assert first["schema_version"].startswith("columns:") and first["schema_version"] != second["schema_version"]


# --- value types ------------------------------------------------------------------------------


@pytest.mark.parametrize("column, value, encoded", [
    ("id", 7, "7"),
    ("id", "9007199254740993", "9007199254740993"),  # LONG as text, beyond a double's precision
    ("id", " -12 ", "-12"),
    ("flag", True, "true"),
    ("flag", "false", "false"),
    ("ratio", "1.100000", "1.1"),  # the published files write DOUBLE as text
    ("ratio", 2, "2.0"),
    ("ratio", -0.5, "-0.5"),
    ("ratio", "1e3", "1000.0"),
    ("ratio", "NaN", '"NaN"'),
    ("ratio", "-Infinity", '"-Infinity"'),
    ("bin", "5rWL6K+VdGV4dDEyMw==", '"5rWL6K+VdGV4dDEyMw=="'),  # base64 kept as base64 text
    ("ts", 1590315269000, '"2020-05-24T10:14:29Z"'),
    ("ts", "1590315269123", '"2020-05-24T10:14:29.123Z"'),
    ("ts", -1000, '"1969-12-31T23:59:59Z"'),
    ("name", "李雷 \"x\"", '"李雷 \\"x\\""'),
    ("extra", "12.3400", '"12.3400"'),  # a type outside the six: kept as given
    ("extra", 5, "5"),
    ("name", None, "null"),
    ("ts", None, "null"),
])
def test_typed_values(column, value, encoded):
    assert typed(column, value)["after"][column] == encoded


@pytest.mark.parametrize("column, value", [
    ("id", "12a"), ("id", 1.5), ("id", True), ("id", [1]),
    ("flag", "yes"), ("flag", 1),
    ("ratio", "abc"), ("ratio", True), ("ratio", "1e999"),
    ("bin", "not base64!"), ("bin", 12),
    ("ts", "2020-05-24"), ("ts", 10**16), ("ts", 1.5),
    ("name", 12), ("name", {"a": 1}),
])
def test_values_that_do_not_fit_their_type_are_rejected(column, value):
    assert reason(blob("INSERT", after={"id": 1, column: value}, schema=TYPED_SCHEMA)) == "wrong_type"


def test_a_column_not_in_the_schema_is_kept_as_given():
    assert typed("unlisted", {"a": [1, 2]})["after"]["unlisted"] == '{"a":[1,2]}'


# --- heartbeats, transactions, DDL ------------------------------------------------------------


def test_seed_heartbeat():
    record = one({"schema": {}, "payload": {"op": "MHEARTBEAT", "timestamp": {
        "eventTime": 1605339953629, "checkpointTime": 1605339953629}}, "version": "0.0.1"})
    assert (record["kind"], record["control_type"]) == ("control", "heartbeat")
    assert record["committed_at_us"] == 1605339953629000
    assert json.loads(record["control_json"]) == {"event_time": "2020-11-14T07:45:53.629Z",
                                                  "checkpoint_time": "2020-11-14T07:45:53.629Z",
                                                  "system_time": None}
    assert record["source_table"] is None and record["position"] is None


@pytest.mark.parametrize("op", ["TRANSACTION_BEGIN", "TRANSACTION_END", "GTID", "XACOMMIT", "XAROLLBACK"])
def test_transaction_markers_are_controls(op):
    message = {"schema": {"source": {"dbType": "MySQL", "dbName": "yunshi_db"}},
               "payload": {"op": op, "sequenceId": "1605339516000000010",
                           "timestamp": {"eventTime": 1605339934000}}, "version": "0.0.1"}
    record = one(message)
    assert (record["kind"], record["control_type"], record["vendor_op"]) == ("control", "transaction", op)
    assert record["position"] == {"sequence_id": "1605339516000000010", "image_rank": "1"}
    assert json.loads(record["control_json"])["op"] == op
    assert record["source_table"] is None  # no tableName: the marker is for the database


SEED_DDL_MESSAGE = {
    "schema": {"source": {"dbName": "yunshi_db", "dbType": "MySQL", "tableName": "t_shiyu_nopk"}},
    "payload": {"op": "ALTER", "sequenceId": "1605339516000000035",
                "ddl": {"text": SEED_DDL_TEXT, "ddlMeta": SEED_DDL_META},
                "timestamp": {"eventTime": 1605342109000, "systemTime": 1605342109259,
                              "checkpointTime": 1605342109000}},
    "version": "0.0.1",
}


def test_seed_ddl_record_decodes_its_meta():
    record = one(SEED_DDL_MESSAGE)
    assert (record["kind"], record["control_type"], record["vendor_op"]) == ("control", "ddl", "ALTER")
    assert record["source_table"] == "yunshi_db.t_shiyu_nopk"
    assert record["position"] == {"sequence_id": "1605339516000000035", "image_rank": "1"}
    assert record["committed_at_us"] == 1605342109000000
    content = json.loads(record["control_json"])
    assert content == {
        "op": "ALTER", "ddl_text": SEED_DDL_TEXT, "decoded_text": SEED_DDL_TEXT, "decode_error": None,
        "matches_text": True, "operation": "ALTER", "table": "t_shiyu_nopk",
        "added_columns": [{"name": "holo", "type": "text"}], "dropped_columns": [], "renamed_to": None,
        "meta_class": "com.alibaba.di.plugin.center.meta.DDLMeta",
    }


def test_ddl_text_differing_only_in_whitespace_matches():
    message = copy.deepcopy(SEED_DDL_MESSAGE)
    message["payload"]["ddl"]["text"] = "alter table  t_shiyu_nopk\n add column holo text "
    assert json.loads(one(message)["control_json"])["matches_text"] is True
    message["payload"]["ddl"]["text"] = "alter table t_shiyu_nopk add column holo varchar(10)"
    assert json.loads(one(message)["control_json"])["matches_text"] is False


@pytest.mark.parametrize("meta, error", [
    (SEED_DDL_META[:120], "truncated_stream"),  # ends before the text
    ("%%%", "invalid_base64"),
    ("aGVsbG8gd29ybGQ=", "not_java_serialization"),
    (None, "empty"),
])
def test_bad_ddl_meta_still_gives_the_ddl_control(meta, error):
    message = copy.deepcopy(SEED_DDL_MESSAGE)
    message["payload"]["ddl"]["ddlMeta"] = meta
    record = one(message)
    assert (record["kind"], record["control_type"]) == ("control", "ddl")
    content = json.loads(record["control_json"])
    assert content["decode_error"].startswith(error + ":")
    assert content["decoded_text"] is None and content["matches_text"] is None
    # what the statement does is then read from ddl.text
    assert (content["operation"], content["table"]) == ("ALTER", "t_shiyu_nopk")
    assert content["added_columns"] == [{"name": "holo", "type": "text"}]


def test_ddl_meta_broken_after_its_text_keeps_the_text_and_the_error():
    message = copy.deepcopy(SEED_DDL_MESSAGE)
    message["payload"]["ddl"]["ddlMeta"] = SEED_DDL_META[:400]
    content = json.loads(one(message)["control_json"])
    assert content["decode_error"].startswith("truncated_stream:")
    assert content["decoded_text"] == SEED_DDL_TEXT and content["matches_text"] is True


@pytest.mark.parametrize("op", ["CREATE", "RENAME", "ERASE", "CINDEX", "DINDEX", "QUERY"])
def test_other_ddl_ops_are_ddl_controls(op):
    message = {"schema": {"source": {"dbName": "d", "dbType": "MySQL"}},
               "payload": {"op": op, "sequenceId": "5", "ddl": {"text": "CREATE INDEX i ON t (a)"}}}
    record = one(message)
    assert (record["control_type"], record["vendor_op"], record["source_table"]) == ("ddl", op, None)
    assert json.loads(record["control_json"])["table"] == "t"


# --- Tuple ------------------------------------------------------------------------------------


def test_tuple_insert():
    record = one(tuple_record())
    assert (record["kind"], record["vendor_op"]) == ("change", "INSERT")
    assert record["source_table"] == "shop_db.order_items"
    assert record["source_engine"] is None and record["key"] is None  # the seed supplies the key
    assert record["after"] == {"order_id": "7", "line_no": "1", "sku": '"茶-001"', "price": "2.5", "note": "null"}
    assert record["position"] == {"sequence_id": "1649991610688000000", "image_rank": "1"}
    assert record["committed_at_us"] == 1649991726000000


def test_tuple_update_pair_from_the_seed():
    # seed: 1649991610688000001 U 1649991756000 Y N / N Y
    before = one(tuple_record("U", "1649991610688000001", "Y", "N", order_id=7, line_no=1, qty=1))
    after = one(tuple_record("U", "1649991610688000001", "N", "Y", order_id=7, line_no=1, qty=2))
    assert (before["kind"], before["control_type"], before["vendor_op"]) == (
        "control", "update_before_image", "UPDATE_BEFOR")
    assert before["before"] == {"order_id": "7", "line_no": "1", "qty": "1"} and before["key"] is None
    assert before["position"] == {"sequence_id": "1649991610688000001", "image_rank": "0"}
    assert json.loads(before["control_json"])["format"] == "tuple"
    assert (after["kind"], after["vendor_op"], after["after"]["qty"]) == ("change", "UPDATE_AFTER", "2")
    assert after["position"] == {"sequence_id": "1649991610688000001", "image_rank": "1"}
    assert before["content_hash"] is None and after["content_hash"] is None  # both placed (D34)


def test_tuple_delete():
    record = one(tuple_record("D", "1649991610688000002", "Y", "N", order_id=7, line_no=1))
    assert (record["vendor_op"], record["before"], record["after"]) == (
        "DELETE", {"order_id": "7", "line_no": "1"}, None)


@pytest.mark.parametrize("spelling, vendor_op", [("I", "INSERT"), ("i", "INSERT"), ("INSERT", "INSERT"),
                                                 ("D", "DELETE"), ("delete", "DELETE")])
def test_tuple_op_spellings(spelling, vendor_op):
    before, after = ("Y", "N") if vendor_op == "DELETE" else ("N", "Y")
    assert one(tuple_record(spelling, before=before, after=after, k=1))["vendor_op"] == vendor_op


def test_tuple_flags_as_booleans_and_the_other_time_spelling():
    message = tuple_record("U", before=True, after=False, k=1)
    del message["_excute_time_"]
    message["_execute_time_"] = "1649991756000"
    record = one(message)
    assert record["control_type"] == "update_before_image" and record["committed_at_us"] == 1649991756000000
    assert record["before"] == {"k": "1"}


def test_tuple_full_load_and_bad_sequences():
    assert one(tuple_record(sequence="-1", k=1))["vendor_op"] == "FULL_LOAD"
    assert reason(tuple_record("D", sequence="-1", before="Y", after="N", k=1)) == "invalid_position"
    assert reason(tuple_record(sequence="abc", k=1)) == "invalid_position"
    assert reason(tuple_record(sequence=None, k=1)) == "invalid_position"


def test_tuple_unknown_op_and_bad_flags():
    assert one(tuple_record("X", k=1))["vendor_op"] == "X"
    assert reason(tuple_record("U", before="N", after="N", k=1)) == "missing_image"
    assert reason(tuple_record("U", before="Y", after="Y", k=1)) == "missing_image"
    assert reason(tuple_record("I", before="maybe", k=1)) == "wrong_type"
    assert reason({k: v for k, v in tuple_record(k=1).items() if k != "_source_table_"}) == "missing_source_table"


# --- malformed input --------------------------------------------------------------------------


@pytest.mark.parametrize("raw, code", [
    (None, "empty_record"),
    ("", "empty_record"),
    ("   ", "empty_record"),
    ("{not json", "invalid_json"),
    ("[1, 2]", "not_an_object"),
    ('"text"', "not_an_object"),
    ("{}", "not_a_datahub_record"),
    ('{"schema": {}, "version": "0.0.1"}', "not_a_datahub_record"),
    ('{"payload": null}', "missing_field"),
    ('{"payload": [1]}', "wrong_type"),
    ('{"payload": {"sequenceId": "1"}}', "missing_op"),
    ('{"payload": {"op": 5}}', "missing_op"),
])
def test_malformed_records_are_quarantined(raw, code):
    assert reason(raw) == code


@pytest.mark.parametrize("mutate, code", [
    (lambda m: m["payload"].pop("sequenceId"), "invalid_position"),
    (lambda m: m["payload"].update(sequenceId="12x"), "invalid_position"),
    (lambda m: m["payload"].update(sequenceId=1.5), "invalid_position"),
    (lambda m: m["payload"].pop("after"), "missing_image"),
    (lambda m: m["payload"].update(after={"dataColumn": None}), "missing_image"),
    (lambda m: m["payload"].update(after=[1]), "wrong_type"),
    (lambda m: m["schema"]["source"].pop("tableName"), "missing_source_table"),
    (lambda m: m["schema"]["source"].update(dbName=5), "wrong_type"),
    (lambda m: m["schema"].update(dataColumn={"id": "LONG"}), "wrong_type"),
    (lambda m: m["schema"].update(dataColumn=["id"]), "wrong_type"),
    (lambda m: m["schema"].update(primaryKey="id"), "wrong_type"),
    (lambda m: m["payload"]["timestamp"].update(eventTime="yesterday"), "invalid_timestamp"),
    (lambda m: m["payload"]["timestamp"].update(eventTime=10**16), "invalid_timestamp"),
    (lambda m: m["payload"].update(timestamp=5), "wrong_type"),
])
def test_broken_blob_fields_are_quarantined(mutate, code):
    message = blob("INSERT", after={"name": "joe", "comment": "c", "id": 1})
    mutate(message)
    assert reason(message) == code


def test_update_before_without_before_image_is_quarantined():
    assert reason(blob("UPDATE_BEFOR", after={"id": 1, "name": "n", "comment": None})) == "missing_image"
    assert reason(blob("DELETE", after={"id": 1, "name": "n", "comment": None})) == "missing_image"


def test_sequence_as_a_number_is_accepted():
    record = one(blob("INSERT", 1605339516000000004, after={"name": "joe", "comment": "c", "id": 1}))
    assert record["position"]["sequence_id"] == "1605339516000000004"


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                     lambda children: st.lists(children, max_size=4)
                     | st.dictionaries(st.text(max_size=10), children, max_size=4), max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["schema", "payload", "version", "_sequence_id_", "_operation_type_",
                                        "_source_table_", "_before_image_", "_after_image_", "_excute_time_",
                                        "other"]), _JSON, max_size=6))
def test_random_objects_never_raise(message):
    records = parse(json.dumps(message))
    assert records and all(r["kind"] in ("change", "control", "quarantine") for r in records)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["op", "sequenceId", "timestamp", "before", "after", "ddl"]), _JSON)
def test_random_payload_fields_never_raise(name, value):
    message = blob("UPDATE_AFTER", after={"name": "joe", "comment": "c", "id": 1},
                   before={"name": "joe", "comment": "c", "id": 1})
    message["payload"][name] = value
    assert len(parse(json.dumps(message))) == 1
