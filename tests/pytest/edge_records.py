"""Hand-made records at the edges of a vendor format, for the differential test of the SQL
flattening against the Python parser (test_sql_parity.py): every rule that quarantines, and the
value forms the conformance samples and generated workloads do not show."""

from __future__ import annotations

import json

from test_java_serialization import SEED_DDL_META, SEED_DDL_TEXT

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


_DATASTREAM_META = {
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


def _edited(fields: dict, changes: dict | None) -> dict:
    """A copy of `fields` with `changes` applied: a value replaces a field's, None removes it."""
    edited = dict(fields)
    for name, value in (changes or {}).items():
        if value is None:
            edited.pop(name, None)
        else:
            edited[name] = value
    return edited


def _event(engine="mysql", meta=None, **top) -> dict:
    """A Datastream event; `meta` entries replace source_metadata fields (None removes one)."""
    source_metadata = _edited(_DATASTREAM_META[engine], meta)
    built = {"read_method": f"{engine}-cdc", "object": "shop_orders", "schema_key": "e98d95ab",
             "uuid": "8546a123", "read_timestamp": 1715237869833, "source_timestamp": 1715237813000,
             "source_metadata": source_metadata, "payload": {"id": 7, "name": "Ann", "total": 12.5}}
    return _edited(built, top)


def datastream_records() -> list[str]:
    """One JSON text (or not JSON) per line."""
    values = [
        [1], "text", {"payload": {"id": 1}}, _event(payload=None), _event(payload="  "), _event(payload="{bad"),
        _event(payload=5), _event(payload="[1]"), _event(payload=json.dumps({"id": 1, "b": [1, 2]})),
        _event(source_metadata=None), _event(source_metadata=json.dumps(_DATASTREAM_META["mysql"])),
        _event(source_metadata=[1]), _event(read_method=5), _event(read_method=None), _event(read_method=" MySQL-CDC "),
        _event(read_method="something-else"), _event(read_method="!?"),
        # engines from the fields only one source writes
        *(_event(engine, read_method=None) for engine in _DATASTREAM_META),
        _event("postgresql", read_method=None, meta={"lsn": 12345}), _event("mysql", read_method=None, meta={"log_file": None, "log_position": None, "lsn": "A:B"}),
        # tables
        _event(meta={"table": ""}), _event(meta={"table": None, "collection": "c"}), _event(meta={"table": 5.5}),
        _event(meta={"table": "", "collection": 5.5}), _event(meta={"table": "t", "collection": 5.5}),
        _event(meta={"database": 12, "schema": ["a", "", "b"]}), _event(meta={"schema": []}), _event(meta={"schema": [1]}),
        _event(meta={"database": True}), _event(meta={"table": None}), _event(meta={"table": None}, object=None),
        _event(meta={"table": None}, object=None, source_table="x.y"), _event(meta={"table": None}, source_table=5),
        _event(meta={"table": None}, source_table=" ", object=5), _event(meta={"table": "  "}),
        # operations
        _event(meta={"change_type": "delete"}), _event(meta={"change_type": " update-delete "}), _event(meta={"change_type": None}),
        _event(meta={"change_type": ""}), _event(meta={"change_type": 5}), _event(meta={"is_deleted": True}),
        _event(meta={"is_deleted": " TRUE ", "change_type": "UPDATE-DELETE"}), _event(meta={"is_deleted": "yes"}),
        _event(meta={"is_deleted": 1}), _event(read_method="mysql-backfill-fulldump"),
        _event(read_method="oracle_dump", meta={"change_type": 5}), _event("oracle", read_method="oracle-backfill"),
        # times
        _event(source_timestamp=None), _event(source_timestamp=""), _event(source_timestamp="1715237813000"),
        _event(source_timestamp=" -5 "), _event(source_timestamp=1715237813000123), _event(source_timestamp=1715237813000123456),
        _event(source_timestamp=-1715237813000123456), _event(source_timestamp=10**40), _event(source_timestamp=1.5),
        _event(source_timestamp=1715237813000.4), _event(source_timestamp=1e300), _event(source_timestamp=True),
        _event(source_timestamp=[1]), _event(source_timestamp="2024-05-09T06:56:53Z"),
        _event(source_timestamp="2024-05-09 06:56:53.123456789+02"), _event(source_timestamp="2024-05-09T06:56.5-0130"),
        _event(source_timestamp="2024-05-09T06:56:53,5"), _event(source_timestamp="2024-02-30T00:00:00"),
        _event(source_timestamp="2024-05-09T06:56:53+24:00"), _event(source_timestamp="0000-12-31T23:30:00-01:00"),
        _event(source_timestamp="9999-12-31T23:30:00-01:00"), _event(source_timestamp="soon"),
        _event(read_timestamp="bad"), _event(read_timestamp={"a": 1}), _event(read_timestamp=None),
        # positions per engine
        _event(meta={"log_file": ""}), _event(meta={"log_file": None}), _event(meta={"log_file": "  "}),
        _event(meta={"log_file": 5.0}), _event(meta={"log_file": [1]}), _event(meta={"log_position": [1]}),
        _event(meta={"log_file": "", "log_position": [1]}), _event(meta={"log_position": " "}),
        _event(meta={"log_position": 1e20}), _event(meta={"log_position": 12.5}),
        _event("oracle", meta={"scn": None, "rs_id": None}), _event("oracle", meta={"scn": None}),
        _event("oracle", meta={"rs_id": " "}), _event("oracle", meta={"ssn": {"a": 1}}), _event("oracle", meta={"scn": "12"}),
        _event("postgresql", meta={"lsn": ""}), _event("postgresql", meta={"lsn": 5}), _event("postgresql", meta={"lsn": True}),
        _event("postgresql", source_timestamp=None), _event("sqlserver", meta={"lsn": None}),
        _event("salesforce", source_timestamp=None), _event("salesforce"),
        # MongoDB times
        *(_event("mongodb", meta={"ts": value}) for value in [
            {"t": 5, "i": 6}, {"seconds": "5", "increment": " 6 "}, {"time": 5, "inc": 6}, {"t": 5}, {"$timestamp": None},
            "Timestamp(1715237813, 7)", "Timestamp({t: 1715237813, i: 7})", (1715237813 << 32) + 7, str((1715237813 << 32) + 7),
            -5, 1.5, True, None]),
        _event("mongodb", meta={"ts": None, "clusterTime": {"$timestamp": {"t": 9, "i": 1}}}),
        _event("mongodb", meta={"ts": None}, clusterTime={"t": 9, "i": 2}),
        _event("mongodb", meta={"ts": None, "resume_token": {"_data": "8266B8A0C5000000072B022C0100296E5A1004"}}),
        _event("mongodb", meta={"ts": None, "_id": "8266B8A0C50000000704"}), _event("mongodb", meta={"ts": None, "_id": "82zz"}),
        # keys
        _event(meta={"primary_keys": ["id", "id", "name"]}), _event(meta={"primary_keys": ["missing"]}),
        _event(meta={"primary_keys": []}), _event(meta={"primary_keys": None}), _event(meta={"primary_keys": "id"}),
        _event(meta={"primary_keys": ["id", ""]}), _event(meta={"primary_keys": [1]}),
        _event("sqlserver", meta={"replication_index": "id"}), _event("sqlserver", meta={"replication_index": None}),
        _event("sqlserver", meta={"primary_keys": ["id"], "replication_index": 5}), _event("mongodb", meta={"primary_keys": None}),
        # transactions and schema keys
        _event(meta={"tx_id": 5}), _event(meta={"tx_id": ""}), _event(meta={"tx_id": 1.5}), _event(meta={"tx_id": [1]}),
        _event(schema_key=None, meta={"schema_key": "m1"}), _event(schema_key="", meta={"schema_hash": 42}),
        _event(schema_key=7), _event(schema_key=True, meta={"schema_hash": ""}),
        # values
        _event(payload={"a": None, "b": {"c": [1, 2.50, "x"]}, "d": "é", "e": 1e20, "f": -0.0}),
    ]
    lines = [value if isinstance(value, str) and value.startswith(("{", "[")) else json.dumps(value, ensure_ascii=False)
             for value in values]
    return [*lines, "{", '{"a": 1} {"b": 2}', "\ufeff" + json.dumps(_event()), "nul"]


_ABSENT = object()  # a DataHub field the record leaves out (None writes a JSON null)


def _datahub_schema(columns=None, **source) -> dict:
    """The seed 004 Blob schema (table t_shiyu_pk, key id + name); `source` entries replace
    schema.source fields (_ABSENT removes one)."""
    spec = {"dbName": "yunshi_db", "dbType": "MySQL", "tableName": "t_shiyu_pk"}
    spec.update(source)
    if columns is None:
        columns = [{"name": "id", "type": "LONG"}, {"name": "name", "type": "STRING"},
                   {"name": "comment", "type": "STRING"}]
    return {"dataColumn": columns, "primaryKey": ["id", "name"],
            "source": {name: value for name, value in spec.items() if value is not _ABSENT}}


_DH_ROW = {"id": 1, "name": "joe", "comment": "comment"}
_DH_TYPES = {"id": "LONG", "flag": "BOOLEAN", "ratio": "DOUBLE", "bin": "BYTES", "ts": "DATE", "name": "STRING",
             "extra": "DECIMAL"}


def _blob(op="INSERT", before=_ABSENT, after=_ABSENT, schema=None, times=None, **payload) -> dict:
    """A Blob message; `before` / `after` are the dataColumn objects, `times` entries replace
    payload.timestamp fields and `payload` entries replace payload fields (_ABSENT removes one)."""
    timestamp = {"eventTime": 1605339934000, "systemTime": 1605339934951, "checkpointTime": 1605339934000}
    timestamp.update(times or {})
    body = {"op": op, "sequenceId": "1605339516000000004",
            "timestamp": {name: value for name, value in timestamp.items() if value is not _ABSENT}}
    if before is not _ABSENT:
        body["before"] = {"dataColumn": before}
    if after is not _ABSENT:
        body["after"] = {"dataColumn": after}
    body.update(payload)
    return {"schema": _datahub_schema() if schema is None else schema,
            "payload": {name: value for name, value in body.items() if value is not _ABSENT}, "version": "0.0.1"}


def _insert(times=None, **payload) -> dict:
    """The seed's INSERT; `payload` entries replace payload fields, op and after too (_ABSENT removes one)."""
    message = _blob("INSERT", after=_DH_ROW, times=times)
    message["payload"] = {name: value for name, value in {**message["payload"], **payload}.items()
                          if value is not _ABSENT}
    return message


def _typed(**values) -> dict:
    """An INSERT into a typed table (key id): a column's type is named by the first part of its
    name (`ratio_2` is a DOUBLE, see _DH_TYPES); `unlisted` has no declared type."""
    row = {"id": 1, **values}
    columns = [{"name": name, "type": _DH_TYPES[name.split("_")[0]]} for name in row
               if name.split("_")[0] in _DH_TYPES]
    schema = {**_datahub_schema(columns, dbType="PostgreSQL", schemaName="public", tableName="typed"),
              "primaryKey": ["id"]}
    return _blob("INSERT", after=row, schema=schema)


def _control(op, sequence=_ABSENT, schema=None, **payload) -> dict:
    """A heartbeat, transaction or DDL message (schema.source without a table unless given)."""
    body = {"op": op, "sequenceId": sequence, **payload}
    return {"schema": {"source": {"dbName": "yunshi_db", "dbType": "MySQL"}} if schema is None else schema,
            "payload": {name: value for name, value in body.items() if value is not _ABSENT}, "version": "0.0.1"}


def _tuple(op="I", before="N", after="Y", columns=None, **meta) -> dict:
    """A Tuple record; `meta` entries replace metadata columns (_ABSENT removes one)."""
    built = {"_sequence_id_": "1649991610688000000", "_operation_type_": op, "_excute_time_": 1649991726000,
             "_source_table_": "shop_db.order_items", "_before_image_": before, "_after_image_": after}
    built.update(meta)
    row = {"order_id": 7, "line_no": 1, "sku": "茶-001", "price": 2.5, "note": None} if columns is None else columns
    return {**{name: value for name, value in built.items() if value is not _ABSENT}, **row}


def datahub_records() -> list[str]:
    """One JSON text (or not JSON) per line."""
    seq = "1605339516000000035"
    values = [
        # records that are not messages
        [1, 2], "text", 5, {}, {"payload": None}, {"payload": ""}, {"payload": "  "}, {"payload": "{bad"},
        {"payload": [1]},
        # Blob data ops and their images
        _insert(), _blob("UPDATE_AFTER", after={**_DH_ROW, "comment": "com1"}),
        _blob("UPDATE_AFTER", before=_DH_ROW, after={**_DH_ROW, "comment": "com1"}),
        _blob("UPDATE_BEFOR", before=_DH_ROW), _blob("UPDATE_BEFORE", before=_DH_ROW),
        _blob("UPDATE", before=_DH_ROW, after={**_DH_ROW, "id": 2}), _blob("DELETE", before=_DH_ROW),
        _blob(" DELETE ", before=_DH_ROW), _blob("TRUNCATE", before=_DH_ROW), _blob("UPDATE_BEFOR", after=_DH_ROW),
        _blob("DELETE", after=_DH_ROW), _blob("INSERT", after=None), _blob("FOO", after=_DH_ROW, sequenceId=_ABSENT),
        # sequence ids: full load, positions
        _insert(sequenceId="-1"), _insert(sequenceId=-5), _blob("DELETE", before=_DH_ROW, sequenceId="-1"),
        _blob("UPDATE_BEFOR", before=_DH_ROW, sequenceId="-1"), _blob("TRUNCATE", sequenceId=_ABSENT),
        _insert(sequenceId=" 0042 "), _insert(sequenceId=2**70), _insert(sequenceId="12x"), _insert(sequenceId=1.5),
        # op
        _insert(op=_ABSENT), _insert(op="  "), _insert(op=5),
        # heartbeats
        _control("MHEARTBEAT", timestamp={"eventTime": 1605339953629, "checkpointTime": 1605339953629}),
        _control("MHEARTBEAT", timestamp={"eventTime": "1605339953629", "systemTime": -1, "checkpointTime": "soon"}),
        _control(" MHEARTBEAT ", timestamp={"eventTime": 1605339953629.0, "checkpointTime": 10**16}),
        _control("MHEARTBEAT", timestamp={"eventTime": "yesterday"}),
        # transactions
        _control("TRANSACTION_BEGIN", "1605339516000000010", timestamp={"eventTime": 1605339934000}),
        _control("XACOMMIT"), _control("XAROLLBACK", "x"),
        _control("TRANSACTION_END", "-1", _datahub_schema(dbType="pg", schemaName="public")),
        _control("GTID", "9", _datahub_schema(dbName=5)),
        # DDL: the seed's record with its real ddlMeta, that ddlMeta cut after and before its text, others
        _control("ALTER", seq, _datahub_schema(tableName="t_shiyu_nopk"),
                 ddl={"text": SEED_DDL_TEXT, "ddlMeta": SEED_DDL_META},
                 timestamp={"eventTime": 1605342109000, "systemTime": 1605342109259, "checkpointTime": 1605342109000}),
        _control("ALTER", seq, ddl={"text": " alter table  t_shiyu_nopk\n add column holo text",
                                    "ddlMeta": SEED_DDL_META[:400]}),
        _control("ALTER", seq, ddl={"text": "alter table t_shiyu_nopk add column holo int",
                                    "ddlMeta": SEED_DDL_META[:120]}),
        _control("ALTER", seq, ddl={"text": SEED_DDL_TEXT}),
        _control("ALTER", seq, ddl={"text": SEED_DDL_TEXT, "ddlMeta": "%%%"}),
        _control("ALTER", seq, ddl={"text": SEED_DDL_TEXT, "ddlMeta": "aGVsbG8gd29ybGQ="}), _control("ALTER", seq),
        _control("ALTER", seq, ddl={"text": "ALTER TABLE t DROP COLUMN a, ADD COLUMN (b int, c varchar(3))"}),
        _control("CREATE", ddl={"text": "CREATE TABLE IF NOT EXISTS shop.t (a int, b text)"}),
        _control("QUERY", seq, ddl={"text": "TRUNCATE TABLE t"}),
        _control("RENAME", seq, ddl=json.dumps({"text": "RENAME TABLE a TO b"})),
        _control("CINDEX", seq, ddl={"text": "CREATE UNIQUE INDEX i ON shop.t (a)", "ddlMeta": ""}),
        _control("DINDEX", seq, ddl={"text": 5, "ddlMeta": 5}),
        # payload, schema and their blocks as JSON text or of the wrong type
        {**_insert(), "payload": json.dumps(_insert()["payload"])},
        {**_insert(), "schema": json.dumps(_datahub_schema())},
        {**_insert(), "schema": ""}, {**_insert(), "schema": "  "}, {**_insert(), "schema": [1]},
        _insert(timestamp=5), _blob("INSERT", after=json.dumps(_DH_ROW)), _blob("INSERT", after=[1]),
        _insert(after=json.dumps({"dataColumn": _DH_ROW})), _insert(after=""),
        _blob("UPDATE_AFTER", after=_DH_ROW, before=json.dumps(_DH_ROW)),
        # schema.source: table parts, engines
        *(_blob("INSERT", after=_DH_ROW, schema=_datahub_schema(**source)) for source in (
            {"dbName": _ABSENT, "dbType": "postgres"}, {"dbName": "", "schemaName": "dbo", "dbType": "SQL Server"},
            {"schemaName": "", "dbType": "pg"}, {"tableName": " t ", "dbType": "mssql"}, {"dbType": " MySQL "},
            {"dbType": 5}, {"dbName": 5}, {"tableName": _ABSENT}, {"tableName": ""}, {"tableName": 5})),
        {**_insert(), "schema": {"source": json.dumps({"dbName": "d", "tableName": "t"})}},
        {**_insert(), "schema": {**_datahub_schema(), "source": [1]}},
        # schema.dataColumn and primaryKey
        *(_blob("INSERT", after=_DH_ROW, schema=_datahub_schema(columns)) for columns in (
            {"id": "LONG"}, ["id"], [{"name": 5, "type": "LONG"}],
            [{"name": "id", "type": "long"}, {"name": "name", "type": " string "}],
            [{"name": "id", "type": "INT"}, {"name": "name", "type": 5}, {"name": "comment"}],
            [{"name": "id", "type": "LONG"}, {"name": "id", "type": "STRING"}])),
        *({**_insert(), "schema": {**_datahub_schema(), "primaryKey": key}} for key in (
            "id", ["id", ""], ["id", "id", "name"])),
        _blob("DELETE", before={"name": "joe"}), _blob("UPDATE_BEFOR", before={"id": None, "name": "joe"}),
        # typed values: good ones together, each bad one alone
        _typed(id=42, flag=True, ratio="1.100000", bin="5rWL6K+VdGV4dDEyMw==", ts=1590315269000, name='李雷 "x"',
               extra="12.3400", unlisted={"a": [1, 2.50]}),
        _typed(id=" -7 ", flag="TRUE", flag_2=" false ", ratio=1, ratio_2=2.5, ratio_3=-0.0, ratio_4=1e308,
               bin="YWJj", bin_2="", ts="1590315269123", ts_2=-86_400_000, ts_3=253_402_300_799_999,
               ts_4=-62_135_596_800_000, name="", extra=5, extra_2=[1, "a"]),
        _typed(id=2**70, ratio="NaN", ratio_2="Infinity", ratio_3="-Infinity", ratio_4="+Infinity", ratio_5="1e-400",
               ratio_6=" 3.0 ", ratio_7=".5", ratio_8="5.", ratio_9="+1.5e3", ratio_10="0.1"),
        _typed(id="42", flag=None, ratio=None, bin=None, ts=None, name=None, extra=None),
        *(_typed(**{column: value}) for column, value in (
            ("flag", "yes"), ("flag", 1), ("ratio", "1e400"), ("ratio", "abc"), ("ratio", True), ("id", "4.0"),
            ("id", 4.5), ("id", True), ("name", 12), ("ts", 253_402_300_800_000), ("ts", "2020-05-24"),
            ("bin", "YWJ"), ("bin", "not base64!"), ("bin", 12))),
        # times
        *(_insert(times=times) for times in (
            {"eventTime": "1605339934000", "systemTime": "-1"}, {"eventTime": -1, "systemTime": 1605339934951.0},
            {"eventTime": " 1605339934000 ", "systemTime": _ABSENT},
            {"eventTime": 253_402_300_799_999, "systemTime": ""},
            {"eventTime": 1605339934000.5}, {"eventTime": True}, {"eventTime": 10**16}, {"systemTime": 0.5})),
        # Tuple records
        _tuple(), _tuple(" INSERT ", "0", "1"), _tuple("U", "Y", "N"), _tuple("U", "N", "Y"),
        _tuple("UPDATE", True, False), _tuple("d", " y ", "n"), _tuple("D", _ABSENT, _ABSENT, _excute_time_=_ABSENT),
        _tuple("U", "Y", "Y"), _tuple("U", _ABSENT, _ABSENT), _tuple("I", "maybe"),
        _tuple("I", after=1), _tuple("X"), _tuple(5, _source_table_=5), _tuple(None), _tuple(_ABSENT),
        _tuple(_source_table_=_ABSENT), _tuple(_source_table_="  "), _tuple(_sequence_id_=_ABSENT),
        _tuple(_sequence_id_="abc"), _tuple(_sequence_id_="-1"),
        _tuple("D", "Y", "N", _sequence_id_="-1"), _tuple(_excute_time_=_ABSENT, _execute_time_="1649991756000"),
        _tuple(_execute_time_=1), _tuple(_excute_time_="x"),
        _tuple(columns={"b": True, "n": None, "f": -0.5, "big": 2**64, "obj": {"z": 1, "a": [1, 2.50]}, "s": "é"}),
        {"_operation_type_": "I"},
    ]
    lines = [value if isinstance(value, str) and value.startswith(("{", "[")) else json.dumps(value, ensure_ascii=False)
             for value in values]
    # texts that are not one JSON document, and a blank line
    return [*lines, "{", '{"a": 1} {"b": 2}', "\ufeff" + json.dumps(_insert()), "   ", "nul"]


# A plain Debezium change event (base_debezium__parsed's `plain_candidates`, DECISIONLOG D57): a bare
# payload of a relational connector. The records below sit on each edge of that definition, so the
# plain steps and the general ones are both compared with the Python parser.
_DBZ_ROW = {"id": 1001, "name": "Zoë", "score": 2.50, "big": 123456789012345678901234567890,
            "tags": ["a", {"b": None}], "esc": "\u00e9\n\"q\"", "none": None}
_DBZ_SOURCE = {"version": "2.7.0.Final", "connector": "mysql", "name": "shop", "ts_ms": 1717200905108,
               "db": "shop", "table": "orders", "file": "mysql-bin.000012", "pos": 48892344, "row": 0}


def _dbz(op="c", before=None, after=_ABSENT, source=None, **top) -> dict:
    """A bare Debezium payload; `_ABSENT` leaves a field out, `source` entries replace the block's
    fields (None removes one)."""
    built = {"before": before, "after": _DBZ_ROW if after is _ABSENT and op != "d" else after,
             "source": _edited(_DBZ_SOURCE, source), "op": op, "ts_ms": 1717200905358, "transaction": None,
             **top}
    return {name: value for name, value in built.items() if value is not _ABSENT}


def debezium_records() -> list[str]:
    """One JSON text (or not JSON) per line."""
    values = [
        # plain: each op, each relational connector and its position (" MySQL " and "postgres" are
        # not spelled as the connectors write them: they take the general steps)
        _dbz(), _dbz("r"), _dbz("u", before=_DBZ_ROW, after={**_DBZ_ROW, "score": 3}), _dbz("d", before=_DBZ_ROW, after=None),
        _dbz(source={"connector": " MySQL "}), _dbz(source={"connector": "postgres", "file": None, "pos": None, "row": None,
                                                           "lsn": 24023128, "sequence": '["24023119","24023128"]'}),
        _dbz(source={"connector": "oracle", "scn": "2298375", "commit_scn": "2298377", "file": None}),
        _dbz(source={"connector": "sqlserver", "change_lsn": "00000025:00000d98:0002", "commit_lsn": "00000025:00000d98:0003"}),
        _dbz(source={"connector": "db2", "change_lsn": "00000000:0000150f:0000000000048fca", "file": None}),
        # plain without a position (identity from the payload, D10), with a transaction, other times
        _dbz(source={"file": None}), _dbz(source={"file": ""}),
        _dbz(transaction={"id": "571:53195832", "total_order": 1, "data_collection_order": 1}),
        _dbz(ts_ms=_ABSENT, ts_us=1717200905358123, source={"ts_ms": None, "ts_ns": 1717200905108000123}),
        # plain with values PostgreSQL leaves out, an empty image, a Kafka field next to op
        _dbz("u", before=None, after={"id": 1, "doc": "__debezium_unavailable_value"},
             source={"connector": "postgresql", "lsn": 1}),
        _dbz(after={}), _dbz(value={"op": "c"}, topic="shop.orders", partition=0, offset=5),
        _dbz(schema={"type": "struct", "name": "shop.orders.Envelope"}),
        # near plain, decided by the general steps
        _dbz("u", before=5), _dbz(after="text"), _dbz(after=[1]), _dbz(after=True), _dbz("c", after=None),
        _dbz("u", before=_DBZ_ROW, after=None),
        {name: value for name, value in _dbz().items() if name != "after"}, _dbz("d", before=None, after=None),
        _dbz(source={"table": None}), _dbz(source={"table": ""}), _dbz(source={"connector": None}),
        _dbz(source={"connector": 5}), _dbz(source={"connector": "  "}), _dbz(source={"connector": "vitess"}),
        _dbz(source={"connector": "mongodb", "collection": "orders"}, after=json.dumps({"_id": {"$oid": "5f1"}})),
        _dbz(status="BEGIN", id="571"), _dbz(status=None), _dbz(ddl=None), _dbz(ddl="CREATE TABLE t (id int)"),
        _dbz(tableChanges=[]), _dbz(payload=None), _dbz(payload={"op": "c"}), _dbz(op=5), _dbz(op="m"), _dbz(op="t"),
        _dbz(op="x"), _dbz(op=None), _dbz() | {"source": 5}, _dbz() | {"source": None}, {"ts_ms": 1717200905358},
        {"op": "c", "source": _DBZ_SOURCE},
    ]
    lines = [json.dumps(value, ensure_ascii=False) for value in values]
    plain = json.dumps(_dbz())
    # numbers and escapes as sent (1.50 stays 1.50)
    spelled = ('{"op":"c","before":null,"after":{"n":1.50,"e":1e2,"u":"\\u00e9","z":-0.0},'
               '"source":{"connector":"mysql","db":"d","table":"t","file":"f","pos":1,"row":0}}')
    # then texts that are not one JSON document: text after the document, a byte-order mark
    # (dropped), a truncated record, a blank line
    return [*lines, spelled, plain + " x", "\ufeff" + plain, plain[:40], "   "]


def debezium_repeated_keys() -> list[str]:
    """Plain records but for a repeated key: the SQL quarantines them (Spark's parser refuses
    them), the Python parser keeps the last value (DECISIONLOG D35), so only the two SQL paths are
    compared on them."""
    plain = json.dumps(_dbz())
    return [plain[:-1] + ', "op": "u"}', plain.replace('"id": 1001,', '"id": 1001, "id": 1002,', 1),
            plain.replace('"table": "orders"', '"table": "orders", "table": "items"')]


def _spanner_insert(number: int, column_type, value) -> dict:
    """A GoogleSQL data change record inserting key `number` with column c of `column_type`."""
    return {
        "commit_timestamp": "2024-05-01T10:00:00.000001Z", "record_sequence": f"{number:08d}",
        "server_transaction_id": f"edge-{number}", "is_last_record_in_transaction_in_partition": True,
        "table_name": "Typed",
        "column_types": [
            {"name": "k", "type": {"code": "INT64"}, "is_primary_key": True, "ordinal_position": 1},
            {"name": "c", "type": column_type, "is_primary_key": False, "ordinal_position": 2}],
        "mods": [{"keys": {"k": str(number)}, "new_values": {"c": value}, "old_values": {}}],
        "mod_type": "INSERT", "value_capture_type": "OLD_AND_NEW_VALUES",
    }


def spanner_records() -> list[str]:
    """ARRAY columns, which no conformance sample or workload has: elements typed one by one, nulls
    among them, an array sent as text, a long array (an embedding of 768 floats), and arrays that
    do not fit their type."""
    def array_of(code: str, **element) -> dict:
        return {"code": "ARRAY", "array_element_type": {"code": code, **element}}

    cases = [
        (array_of("INT64"), ["1", None, "3"]),
        (array_of("INT64"), '["4","5"]'),
        (array_of("INT64"), []),
        (array_of("INT64"), "[]"),
        (array_of("INT64"), None),
        (array_of("STRING"), ["a", "b\"c", "é"]),
        (array_of("FLOAT64"), [1.5, 2, "NaN", "-Infinity"]),
        (array_of("FLOAT64"), [round((i * 7919 % 1000) / 997 - 0.5, 6) for i in range(768)]),
        (array_of("NUMERIC"), ["1.50", "-0.000000001"]),
        (array_of("TIMESTAMP"), ["2024-01-01T00:00:00.100Z", "2024-01-01T05:00:00+05:00"]),
        (array_of("DATE"), ["2024-02-29"]),
        (array_of("BOOL"), [True, "false"]),
        (array_of("JSON"), ['{"b": 1, "a": 2}', "[1]"]),
        # an array of arrays (not a Spanner type) whose inner elements are already in their JSON type:
        # the SQL keeps the inner arrays as sent, the Python parser types them (DECISIONLOG D60)
        (array_of("ARRAY", array_element_type={"code": "BOOL"}), [[True], [False], []]),
        ("ARRAY<INT64>", ["6", "7"]),
        # do not fit: not an array, an element of the wrong type (first, in the middle, last)
        (array_of("INT64"), 5),
        (array_of("INT64"), ["x", "1"]),
        (array_of("INT64"), ["1", "x", "2"]),
        (array_of("INT64"), ["1", "2", "1.5"]),
        (array_of("DATE"), ["2024-02-30"]),
    ]
    return [json.dumps(_spanner_insert(number, column_type, value)) for number, (column_type, value) in enumerate(cases)]
