"""Hand-made records at the edges of a vendor format, for the differential test of the SQL
flattening against the Python parser (test_sql_parity.py): every rule that quarantines, and the
value forms the conformance samples and generated workloads do not show."""

from __future__ import annotations

import json

_ROW = {"id": 1001, "name": "Zoë", "email": "zoe@example.com", "score": 2.5}


def _headers(operation="UPDATE", **extra) -> dict:
    block = {"operation": operation, "changeSequence": "20240501090000123456000000000001234",
             "timestamp": "2024-05-01T09:00:00.123", "transactionId": "A1B2", "changeMask": "0C",
             "columnMask": "0F", "transactionEventCounter": 2, "transactionLastEvent": False}
    block.update(extra)
    return block


def _data(operation="UPDATE", data=_ROW, before=None, **extra) -> dict:
    return {"data": data, "beforeData": before, "headers": _headers(operation, **extra)}


def _atmsg(message, kind="DT", schema_id="S1", **extra) -> dict:
    return {"magic": "atMSG", "type": kind, "headers": None, "messageSchemaId": schema_id,
            "messageSchema": None, "message": message, **extra}


def _kafka(value, **extra) -> dict:
    return {"topic": "shop.customers", "partition": 0, "offset": 7, "timestamp": 1_714_554_000_123,
            "key": "1001", "value": value, **extra}


def _metadata(columns=None, schema_id="S1", **lineage) -> dict:
    spec = {"server": "r1", "task": "t1", "schema": "hr", "table": "employees", "tableVersion": 3,
            "timestamp": "2024-05-01T09:00:00.000"}
    spec.update(lineage)
    if columns is None:
        columns = {"emp_no": {"ordinal": 1, "type": "INT4", "primaryKeyPosition": 1, "nullable": False},
                   "name": {"ordinal": 2, "type": "STRING", "length": 30, "nullable": True}}
    return _atmsg({"schemaId": schema_id, "lineage": spec, "tableStructure": {"tableColumns": columns}}, kind="MD")


def qlik_records() -> list[str]:
    """One JSON text (or not JSON) per line."""
    values = [
        # records that are not messages
        [1, 2], "text", {"hello": 1},
        _kafka(None), _kafka("null"), _kafka("  "), _kafka("{oops"), _kafka(5), _kafka(None, key={"id": [1, 2]}),
        _kafka(json.dumps(_data()), topic="", partition="12", offset=" +8 ", timestamp="1714554000123"),
        _kafka(_atmsg(json.dumps(_data()))), _kafka(_atmsg("  ")), _kafka(_atmsg("[1")), _kafka(_atmsg("5")),
        # the atMSG wrapper
        _atmsg(_data(), magic="other"), _atmsg(_data(), magic=None), _atmsg(_data(), kind="XX"),
        _atmsg(_data(), kind=" dt "), _atmsg(_data(), kind=None), _atmsg(_data(), schema_id=5),
        _atmsg(_data(), schema_id=""), {"type": "DT", "message": _data()}, _atmsg(None),
        # metadata messages
        _metadata(), _metadata(schema_id=None), _metadata(schema_id=""), _metadata(schema_id=7),
        _metadata(tableVersion="7"), _metadata(tableVersion=True), _metadata(tableVersion=1.5),
        _metadata(tableVersion=None), _metadata(table=""), _metadata(table=5), _metadata(schema=""),
        _metadata(schema=5), _metadata(server={"a": 1}), _metadata(columns={}),
        _metadata(columns={"a": {"ordinal": 2}, "b": {"ordinal": 1, "primaryKeyPosition": "1"}}),
        _metadata(columns={"a": {"ordinal": 1}, "b": {"ordinal": 1}}), _metadata(columns={"a": 5}),
        _metadata(columns={"a": {"ordinal": 0}}), _metadata(columns={"a": {"ordinal": "x"}}),
        _atmsg({"lineage": 5}, kind="MD"), _atmsg({"lineage": {"table": "t"}, "tableStructure": 5}, kind="MD"),
        # data messages: operation and images
        _atmsg(_data("insert")), _atmsg(_data(" Insert ")), _atmsg(_data(5)), _atmsg(_data("  ")),
        _atmsg({"data": _ROW, "beforeData": None}), _atmsg({"data": _ROW, "headers": 5}),
        _atmsg(_data("DELETE", data=None, before=_ROW)), _atmsg(_data("DELETE", data=_ROW, before=None)),
        _atmsg(_data("DELETE", data={"id": 1}, before={"id": 2, "x": 1})), _atmsg(_data("DELETE", data={}, before={})),
        _atmsg(_data("DELETE", data=None, before=None)), _atmsg(_data("INSERT", data={}, before=_ROW)),
        _atmsg(_data("MERGE", data=None, before={"id": 1})), _atmsg(_data("MERGE", data={}, before={})),
        _atmsg(_data("TRUNCATE", data={"id": 1}, columnMask=None, changeMask=None)),
        _atmsg(_data(data=json.dumps({"z": 1, "a": 2}), columnMask="03", changeMask="02")),
        _atmsg(_data(data=" {broken")), _atmsg(_data(data="plain text")), _atmsg(_data(data=[1])),
        _atmsg(_data(before=5)), _atmsg(_data(data={"b": 1, "a": None, "c": {"x": [1, 2.50]}}, columnMask="07", changeMask="")),
        # tables and schema references
        _data(), _kafka(_data()), _data(schemaName="hr", tableName="emp"), _data(schema="", table="emp"),
        {**_data(), "schemaName": "s", "tableName": "t"}, _data(externalSchemaId="E1"), _data(externalSchemaId=5),
        _atmsg(_data(externalSchemaId=5)), _atmsg(_data(), schema_id=None),
        # positions
        _atmsg(_data(changeSequence="")), _atmsg(_data(changeSequence=None)), _atmsg(_data(changeSequence=" 0042 ")),
        _atmsg(_data(changeSequence=12345)), _atmsg(_data(changeSequence=-1)), _atmsg(_data(changeSequence="12a")),
        _atmsg(_data(changeSequence=1.5)), _atmsg(_data(changeSequence="9" * 56)), _atmsg(_data(changeSequence="9" * 57)),
        _atmsg(_data(changeSequence="0" * 60 + "7")), _atmsg(_data("REFRESH", changeSequence="x")),
        _atmsg(_data(transactionEventCounter=None)), _atmsg(_data(transactionEventCounter="")),
        _atmsg(_data(transactionEventCounter="5")), _atmsg(_data(transactionEventCounter=-1)),
        _atmsg(_data(transactionEventCounter=2**63)), _atmsg(_data(transactionEventCounter=True)),
        _atmsg(_data(transactionEventCounter=-1, timestamp="bad")),
        _atmsg(_data("REFRESH", transactionEventCounter=-1)),
        # times
        _atmsg(_data(timestamp="")), _atmsg(_data(timestamp=1000)), _atmsg(_data(timestamp=-1000)),
        _atmsg(_data(timestamp=10**14)), _atmsg(_data(timestamp=10**20)), _atmsg(_data(timestamp=1.5)),
        _atmsg(_data(timestamp=1714554000.25e3)), _atmsg(_data(timestamp="1714554000123")),
        _atmsg(_data(timestamp=" -12 ")), _atmsg(_data(timestamp="2024-05-01 09:00")),
        _atmsg(_data(timestamp="2024-05-01T09:00:00,5Z")), _atmsg(_data(timestamp="2024-05-01t09:00:00.123456789 UTC")),
        _atmsg(_data(timestamp="2024-05-01T09:00:00+05:30")), _atmsg(_data(timestamp="2024-05-01T09:00:00-0130")),
        _atmsg(_data(timestamp="2024-05-01T09:00:00+24:00")), _atmsg(_data(timestamp="2024-05-01T09:00:00+05:60")),
        _atmsg(_data(timestamp="2024-02-30T09:00:00")), _atmsg(_data(timestamp="2024-05-01T24:00:00")),
        _atmsg(_data(timestamp="0000-12-31T23:30:00-01:00")), _atmsg(_data(timestamp="9999-12-31T23:59:59Z")),
        _atmsg(_data(timestamp="9999-12-31T23:59:59-01:00")), _atmsg(_data(timestamp="0001-01-01T00:00:00Z")),
        _atmsg(_data(timestamp=True)), _atmsg(_data(timestamp={"a": 1})), _atmsg(_data(timestamp="yesterday")),
        # transactions
        _atmsg(_data(transactionId="")), _atmsg(_data(transactionId=123)), _atmsg(_data(transactionId=1.5)),
        _atmsg(_data(transactionId=False)), _atmsg(_data(transactionLastEvent="TRUE ")),
        _atmsg(_data(transactionLastEvent="no")), _atmsg(_data(transactionLastEvent=1)),
        # masks
        _atmsg(_data(columnMask="1", changeMask="")), _atmsg(_data(columnMask="FF01", changeMask="01")),
        _atmsg(_data(columnMask="1F", changeMask="01")), _atmsg(_data(columnMask="0G", changeMask="01")),
        _atmsg(_data(columnMask="012", changeMask="01")), _atmsg(_data(columnMask=15, changeMask="01")),
        _atmsg(_data(columnMask="0f", changeMask=" 01")), _atmsg(_data(columnMask="00", changeMask="00")),
        _atmsg(_data(columnMask=None, changeMask="10")),
    ]
    lines = [value if isinstance(value, str) and value.startswith(("{", "[")) else json.dumps(value, ensure_ascii=False)
             for value in values]
    # texts that are not one JSON document
    return [*lines, "{", '{"a": 1} {"b": 2}', '\ufeff' + json.dumps(_data()), "nul"]
