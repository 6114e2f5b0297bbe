"""Per-table configuration (vars cdc_tables / cdc_feeds; README "Per-table configuration"), end to
end through `cdc-dbt run` on a small Debezium feed: keys, a sequence_by override, SCD type 1, an
excluded column, soft deletes, a feed's table exclusion, and a configuration change that applies
to events read before it."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.spark


def _message(table: str, op: str, lsn: int, before: dict | None, after: dict | None) -> str:
    """A Debezium PostgreSQL message value without a Kafka key (a value-only dump)."""
    database, schema, name = table.split(".")
    return json.dumps({
        "before": before, "after": after, "op": op, "ts_ms": 1_700_000_000_000 + lsn,
        "source": {"version": "2.5.0.Final", "connector": "postgresql", "name": "server1",
                   "ts_ms": 1_700_000_000_000 + lsn, "snapshot": "false", "db": database,
                   "schema": schema, "table": name, "txId": lsn, "lsn": lsn},
    })


CUSTOMERS = "shop.inventory.customers"
AUDIT_LOG = "shop.inventory.audit_log"
ORDERS = "shop.inventory.orders"
EVENTS = [
    _message(CUSTOMERS, "c", 100, None, {"id": 1, "email": "a@x.org", "version_no": 1, "name": "Ann"}),
    # version 3 was written before version 2 reached the log: the vendor position says version 2 is
    # newer; `sequence_by: [version_no]` says version 3 is
    _message(CUSTOMERS, "u", 200, None, {"id": 1, "email": "b@x.org", "version_no": 3, "name": "Ann B"}),
    _message(CUSTOMERS, "u", 300, None, {"id": 1, "email": "c@x.org", "version_no": 2, "name": "Ann C"}),
    _message(CUSTOMERS, "c", 400, None, {"id": 2, "email": "d@x.org", "version_no": 1, "name": "Bob"}),
    _message(CUSTOMERS, "d", 500, {"id": 2, "email": "d@x.org", "version_no": 2, "name": "Bob"}, None),
    _message(AUDIT_LOG, "c", 600, None, {"entry_no": 7, "text": "login"}),
    # track_history_columns: [status]: a new note updates the open version, a new status opens one
    _message(ORDERS, "c", 700, None, {"order_no": 9, "status": "new", "note": "a"}),
    _message(ORDERS, "u", 800, None, {"order_no": 9, "status": "new", "note": "b"}),
    _message(ORDERS, "u", 900, None, {"order_no": 9, "status": "shipped", "note": "b"}),
]

CONFIG = {
    "cdc_tables": [{
        "table": CUSTOMERS, "vendor": "debezium", "keys": ["id"], "sequence_by": ["version_no"],
        "scd_type": 1, "except_columns": ["email"], "deletes": "soft",
    }, {
        "table": AUDIT_LOG, "keys": ["entry_no"],
    }, {
        "table": ORDERS, "keys": ["order_no"], "track_history_columns": ["status"],
    }],
    "cdc_feeds": {"debezium": {"exclude": ["shop.inventory.audit_*"]}},
}


def _current(project) -> dict:
    rows = project.sql("select source_table, pk, row, is_deleted from cdc_marts.cdc_current "
                       "where source_vendor = 'debezium'")
    return {(r["source_table"], r["pk"]): (json.loads(r["row"]), r["is_deleted"]) for r in rows}


def test_table_configuration_applies_to_events_read_before_and_after(cdc_project):
    cdc_project.write_landing_file("debezium", "batch1.jsonl", EVENTS)
    # qlik is read too, but its folder does not exist: a warning, not silence
    vendors = {"cdc_vendors": ["debezium", "qlik"]}
    cdc_project.run("seed")
    output = cdc_project.run("run", "--vars", json.dumps(vendors))
    assert f"qlik is in the var cdc_vendors but {cdc_project.landing_dir}/qlik holds no landing file" in output
    # the alerts on cdc_feed_health: qlik has no files, debezium's latest load quarantined records
    output = cdc_project.run("test", "--select", "cdc_feed_health", "--vars", json.dumps(vendors))
    for alert in ("cdc_feed_health_warns_when_a_vendor_has_no_files",
                  "cdc_feed_health_warns_when_the_latest_load_quarantined_records"):
        assert any(alert in line and "WARN 1" in line for line in output.splitlines()), output[-4000:]
    assert any("cdc_feed_health_fails_when_the_latest_load_quarantined_over_1000_records" in line and "PASS" in line
               for line in output.splitlines()), output[-4000:]

    # no key in the message, none declared: customers is keyed by its `id` column
    # (cdc_key_fallback_columns), audit_log has none and is quarantined, naming the YAML to write
    reasons = cdc_project.sql(
        "select reason, detail from cdc_intermediate.int_cdc__quarantine where source_vendor = 'debezium'")
    assert [r["reason"] for r in reasons] == ["missing_primary_key"] * 4
    assert sum(f"vars: cdc_tables: - {{table: {AUDIT_LOG}, vendor: debezium, keys: [<column>, ...]}}" in r["detail"]
               for r in reasons) == 1
    before = _current(cdc_project)
    assert set(before) == {(CUSTOMERS, '{"id":1}')}  # id 2 was deleted
    assert before[(CUSTOMERS, '{"id":1}')][0]["name"] == "Ann C"  # the last by log position

    # the same run with the configuration: no new file, yet every event is read again under it
    configured = ["--vars", json.dumps({**vendors, **CONFIG})]
    output = cdc_project.run("run", *configured)
    assert "per-table configuration" in output
    # the example typed model of the bundled Debezium sample names a table this feed never sent
    assert ("inventory_customers_current: the debezium feed has never sent table ORCLPDB1.INVENTORY.CUSTOMERS; "
            f"the tables it sent: {CUSTOMERS}, {ORDERS}.") in output
    current = _current(cdc_project)
    assert set(current) == {(CUSTOMERS, '{"id":1}'), (CUSTOMERS, '{"id":2}'), (ORDERS, '{"order_no":9}')}, current
    row_1, deleted_1 = current[(CUSTOMERS, '{"id":1}')]
    assert (row_1["version_no"], row_1["name"], deleted_1) == (3, "Ann B", False)  # sequence_by wins
    assert "email" not in row_1  # except_columns
    row_2, deleted_2 = current[(CUSTOMERS, '{"id":2}')]
    assert deleted_2 is True and row_2["name"] == "Bob"  # deletes: soft keeps the key, flagged
    history = cdc_project.sql(f"select version_number, row, valid_from from cdc_marts.cdc_history "
                              f"where source_table = '{ORDERS}' order by version_number")
    assert [(h["version_number"], json.loads(h["row"])["status"], json.loads(h["row"])["note"]) for h in history] \
        == [(1, "new", "b"), (2, "shipped", "b")]
    assert history[0]["valid_from"].startswith("2023-11-14T22:13:20.7")  # the version keeps its start
    # scd_type 1: no history for the table; the excluded feed table is nowhere
    assert cdc_project.sql(f"select * from cdc_marts.cdc_history where source_table = '{CUSTOMERS}'") == []
    assert cdc_project.sql("select * from cdc_intermediate.int_cdc__change_events "
                           f"where source_table = '{AUDIT_LOG}'") == []
    assert cdc_project.sql("select * from cdc_intermediate.int_cdc__quarantine "
                           "where source_vendor = 'debezium'") == []

    # a typed model pair for the table, generated from what the feed sent
    output = cdc_project.run("run-operation", "cdc_generate_typed_model", *configured,
                             "--args", json.dumps({"vendor": "debezium", "source_table": CUSTOMERS}))
    generated = output[output.index("# ---- models/marts/inventory/_inventory_customers__models.yml"):]
    for expected in ("  - name: inventory_customers_current\n", "  - name: inventory_customers_history\n",
                     ("      - name: id\n        description: \"TODO (key column)\"\n        data_type: bigint\n"
                     "        data_tests: [not_null, unique]\n"),
                     "      - name: version_no\n        description: \"TODO\"\n        data_type: bigint\n",
                     "      - name: name\n        description: \"TODO\"\n        data_type: string\n",
                     ("-- ---- models/marts/inventory/inventory_customers_current.sql\n{{ config(materialized='view') }}\n"
                     f"{{{{ cdc_typed_current(source_vendor='debezium', source_table='{CUSTOMERS}') }}}}\n")):
        assert expected in generated, generated
    assert "email" not in generated  # except_columns

    # unchanged configuration, nothing new: nothing is rebuilt and the result stays
    output = cdc_project.run("run", *configured)
    assert "per-table configuration" not in output
    assert _current(cdc_project) == current
    # nor are the typed models checked again: nothing was merged, so their answer is the same
    assert "has never sent table" not in output

    # a new event of one table: typed models are checked again only for the tables the run merged,
    # so the bundled sample's model of a table this feed never sent is not (DECISIONLOG D53)
    cdc_project.write_landing_file("debezium", "batch2.jsonl", [
        _message(ORDERS, "u", 1000, None, {"order_no": 9, "status": "delivered", "note": "b"})])
    output = cdc_project.run("run", *configured)
    assert _current(cdc_project)[(ORDERS, '{"order_no":9}')][0]["status"] == "delivered"
    assert "has never sent table" not in output


def test_invalid_configuration_says_what_to_write(cdc_project):
    for bad, message in [
        ({"table": CUSTOMERS, "keys": ["id"], "scd_typ": 1}, "unknown setting 'scd_typ'"),
        ({"table": CUSTOMERS, "keys": "id"}, "keys must be a non-empty list of column names"),
        ({"table": CUSTOMERS, "keys": ["id"], "except_columns": ["id"]}, "id is a key column"),
        ({"table": CUSTOMERS, "deletes": "sometimes"}, "deletes must be hard"),
        ({"keys": ["id"]}, "set `table:`"),
    ]:
        config = {"cdc_vendors": ["debezium"], "cdc_tables": [bad]}
        answer, output = cdc_project._ask({"dbt": ["compile", "--select", "cdc_current", "--vars", json.dumps(config)]})
        assert answer["exit_code"] != 0, bad
        assert message in output and "cdc_tables:" in output, output[-3000:]
