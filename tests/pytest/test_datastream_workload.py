"""The Google Datastream workload: the generator and oracle themselves, then the project against them.

Replay a failure with the seed it names: ``CDC_WORKLOAD_SEED=<seed> pytest -k datastream_workload``.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import re
import uuid
from collections import Counter
from itertools import pairwise

import fastavro
import pytest
from conftest import CONFORMANCE_DIR, PROJECT_DIR
from landing_split import read_landing_file
from workloads.datastream import (
    CUSTOMERS,
    FIRST_BINLOG_FILE,
    FORMATS,
    ORDERS,
    TABLES,
    VENDOR,
    Event,
    LandingFile,
    avro_schema,
    build_workload,
    contract_op,
    deliver,
    iso_ms,
    oracle,
)

from python_udfs.contract import canonical_json

WORKLOAD_SEED = int(os.environ.get("CDC_WORKLOAD_SEED", "7"))
# the generator's guarantees must hold for any seed, not just the one the end-to-end test uses
UNIT_SEEDS = sorted({WORKLOAD_SEED, 1, 2, 3, 4})
PUBLISHED = CONFORMANCE_DIR / "datastream" / "published"
OP_CODE_SEED = PROJECT_DIR / "seeds" / "cdc_op_codes.csv"

GENERIC_FIELDS = ["uuid", "read_timestamp", "source_timestamp", "object", "read_method", "stream_name",
                  "schema_key", "sort_keys", "source_metadata", "payload"]
METADATA_FIELDS = {
    "mysql": {"table", "database", "primary_keys", "log_file", "log_position", "change_type", "is_deleted"},
    "postgresql": {"schema", "table", "database", "is_deleted", "change_type", "tx_id", "lsn", "primary_keys"},
}
LSN = re.compile(r"([0-9A-F]+)/([0-9A-F]{8})")
ISO_MS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


@pytest.fixture(scope="module", params=UNIT_SEEDS, ids=lambda seed: f"seed{seed}")
def workload(request):
    return build_workload(request.param)


def _key(event: Event) -> tuple[str, str]:
    return event.table.qualified, event.table.pk_json(event.payload)


def _cdc(workload, table=None) -> list[Event]:
    """The CDC events (originals, in stream order), of one table if given."""
    return [e for e in workload.events if not e.backfill and (table is None or e.table is table)]


def _delivered(workload) -> list[tuple[int, LandingFile, Event]]:
    """(batch number from 0, file, event) of every delivered copy."""
    return [(number, file, event) for number, batch in enumerate(workload.batches)
            for file in batch for event in file.events]


def _first_batch(workload) -> dict[int, int]:
    """Event index -> the earliest batch that delivers a copy of it."""
    first: dict[int, int] = {}
    for number, _file, event in _delivered(workload):
        first[event.index] = min(first.get(event.index, number), number)
    return first


def _lsn(text: str) -> int:
    high, low = LSN.fullmatch(text).groups()
    return int(high, 16) << 32 | int(low, 16)


def _ms(moment: dt.datetime) -> int:
    return (moment - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(milliseconds=1)


def _documents(file: LandingFile) -> list[dict]:
    """The events of a file read back from its bytes, as JSON documents (Avro timestamps as ISO text)."""
    content = file.content()
    if file.format == "jsonl":
        return [json.loads(line) for line in content.decode().splitlines()]
    if file.format == "json":
        return json.loads(content)
    documents = []
    for datum in fastavro.reader(io.BytesIO(content)):
        datum["read_timestamp"] = iso_ms(_ms(datum["read_timestamp"]))
        datum["source_timestamp"] = iso_ms(_ms(datum["source_timestamp"]))
        documents.append(datum)
    return documents


# ---------------------------------------------------------------------------------------------
# Source history
# ---------------------------------------------------------------------------------------------


def test_history_has_enough_transactions_of_one_to_four_changes(workload):
    transactions = workload.history.transactions
    assert len(transactions) >= 150
    assert all(1 <= len(txn.changes) <= 4 for txn in transactions)
    assert all({c.table.engine for c in txn.changes} == {txn.engine} for txn in transactions)
    engines = Counter(txn.engine for txn in transactions)
    assert engines["mysql"] >= 40 and engines["postgresql"] >= 40
    tx_ids = [txn.tx_id for txn in transactions if txn.engine == "postgresql"]
    assert None not in tx_ids and len(set(tx_ids)) == len(tx_ids)


def test_every_kind_of_change_occurs_in_both_tables(workload):
    for table in TABLES:
        kinds = Counter(c.kind for c in workload.history.changes() if c.table is table)
        for kind in ("insert", "update", "delete", "reinsert", "key_change"):
            assert kinds[kind] > 0, f"no {kind} of {table.name} in seed {workload.seed}"


def test_composite_keys_share_their_first_column(workload):
    keys = [json.loads(pk) for table, pk in workload.expected.history if table == ORDERS.qualified]
    assert keys and all(set(key) == {"order_id", "line"} for key in keys)
    assert max(Counter(key["order_id"] for key in keys).values()) > 1
    assert {table for table, _pk in workload.expected.history} == {"shop.customers", "app.public.orders"}


def test_nullable_columns_go_null_and_back(workload):
    updates = [c for c in workload.history.changes() if c.kind == "update"]
    for column, table in (("email", CUSTOMERS), ("note", ORDERS)):
        pairs = [(c.before[column], c.after[column]) for c in updates if c.table is table]
        assert any(b is not None and a is None for b, a in pairs), f"{column} never went null"
        assert any(b is None and a is not None for b, a in pairs), f"{column} never came back"


def _first_change(workload) -> dict[tuple, int]:
    """(table name, pk_json) -> index of the first transaction that changes the key."""
    first: dict[tuple, int] = {}
    for txn in workload.history.transactions:
        for change in txn.changes:
            for row in (change.before, change.after):
                if row is not None:
                    first.setdefault((change.table.name, change.table.pk_json(row)), txn.index)
    return first


def test_backfill_reads_each_key_once_as_the_source_has_it(workload):
    history = workload.history
    keys = [(r.table.name, r.table.pk_json(r.row)) for r in history.backfill]
    assert len(set(keys)) == len(keys)
    first_change = _first_change(workload)
    initial = {(t.name, t.pk_json(row)): row for t in TABLES for row in history.initial[t.name]}
    unchanged = 0
    for read in history.backfill:
        key = (read.table.name, read.table.pk_json(read.row))
        if key in initial and first_change.get(key, len(history.transactions)) >= read.after_transactions:
            # no CDC change before the read: the backfill row is the row as the stream found it
            assert read.row == initial[key]
            unchanged += 1
    assert unchanged >= 10
    # the scan goes in key order, table by table
    for table in TABLES:
        order = [table.key_tuple(r.row) for r in history.backfill if r.table is table]
        assert order == sorted(order)


def test_backfill_overlaps_cdc_both_ways(workload):
    """Some keys change before the backfill reads them, some after: both with CDC in between."""
    first_change = _first_change(workload)
    before_read = after_read = 0
    for read in workload.history.backfill:
        changed_at = first_change.get((read.table.name, read.table.pk_json(read.row)))
        if changed_at is not None:
            before_read += changed_at < read.after_transactions
            after_read += changed_at >= read.after_transactions
    assert before_read >= 2 and after_read >= 2
    assert max(read.after_transactions for read in workload.history.backfill) > 10


# ---------------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------------


def test_events_have_the_generic_and_per_engine_fields(workload):
    for event in workload.events:
        document = event.document()
        assert list(document) == GENERIC_FIELDS
        assert set(document["source_metadata"]) == METADATA_FIELDS[event.table.engine]
        assert uuid.UUID(document["uuid"]).version == 4
        assert ISO_MS.fullmatch(document["read_timestamp"]) and ISO_MS.fullmatch(document["source_timestamp"])
        assert event.read_ms >= event.source_ms
        assert document["object"] == {"mysql": "shop_customers", "postgresql": "public_orders"}[event.table.engine]
        assert document["source_metadata"]["primary_keys"] == list(event.table.key)
        assert set(document["payload"]) == {column for column, _t, _n in event.table.columns}
    assert len({e.uuid for e in workload.events}) == len(workload.events)


def test_change_types_and_read_methods_per_engine(workload):
    types = {table.engine: Counter(e.change_type for e in _cdc(workload, table)) for table in TABLES}
    assert set(types["mysql"]) == {"INSERT", "UPDATE-INSERT", "UPDATE-DELETE", "DELETE"}
    assert set(types["postgresql"]) == {"INSERT", "UPDATE", "UPDATE-INSERT", "UPDATE-DELETE", "DELETE"}
    # PostgreSQL writes UPDATE-INSERT only as the new key of a key change
    assert types["postgresql"]["UPDATE-INSERT"] == types["postgresql"]["UPDATE-DELETE"]
    for event in workload.events:
        assert event.is_deleted == (event.change_type in ("DELETE", "UPDATE-DELETE"))
    methods = Counter((e.table.engine, e.read_method) for e in workload.events)
    assert set(methods) == {("mysql", "mysql-backfill-fulldump"), ("mysql", "mysql-cdc-binlog"),
                            ("postgresql", "postgresql-backfill"), ("postgresql", "postgresql-cdc")}


def test_backfill_events_have_no_position(workload):
    backfill = [e for e in workload.events if e.backfill]
    assert {e.table for e in backfill} == set(TABLES)
    for event in backfill:
        metadata = event.source_metadata()
        assert (event.change_type, event.is_deleted) == ("INSERT", False)
        if event.table.engine == "mysql":
            assert (metadata["log_file"], metadata["log_position"]) == ("", 0)
            assert event.sort_keys == [event.source_ms, "", 0]
        else:
            assert metadata["lsn"] is None and metadata["tx_id"] is None
    # a backfill row is read while CDC runs: its timestamp is later than CDC changes of its key
    cdc_ms: dict[tuple, int] = {}
    for event in _cdc(workload):
        cdc_ms.setdefault(_key(event), event.source_ms)
    assert any(event.source_ms > cdc_ms.get(_key(event), event.source_ms) for event in backfill)


def test_binlog_rolls_over_and_positions_restart(workload):
    events = _cdc(workload, CUSTOMERS)
    files = [e.position.log_file for e in events]
    numbers = sorted({int(name.rsplit(".", 1)[1]) for name in files})
    assert numbers[:3] == [FIRST_BINLOG_FILE, FIRST_BINLOG_FILE + 1, FIRST_BINLOG_FILE + 2]
    assert all(re.fullmatch(r"mysql-bin\.\d{6}", name) for name in files)
    for event, following in pairwise(events):
        a, b = event.position.order(), following.position.order()
        if (event.change_type, following.change_type) == ("UPDATE-DELETE", "UPDATE-INSERT") and a == b:
            continue
        assert a < b, "the binlog position increases along the stream"
        if a[0] < b[0]:
            assert b[1] < a[1], "a new binlog file restarts at a lower position"
    # a key changed at the end of one file changes again at the start of the next:
    # ordering by log_position alone would put the later change first
    last_in_file: dict[tuple, tuple[int, int]] = {}
    crossed = 0
    for event in events:
        file_number, position = event.position.order()
        earlier = last_in_file.get(_key(event))
        crossed += earlier is not None and earlier[0] < file_number and earlier[1] > position
        last_in_file[_key(event)] = (file_number, position)
    assert crossed >= 1


def test_lsn_crosses_hex_digit_widths(workload):
    events = _cdc(workload, ORDERS)
    texts = [e.position.lsn_text for e in events]
    assert all(LSN.fullmatch(text) for text in texts)
    assert texts[0] == "9/FFFFFF00" and "A/00000010" in texts
    highs = {int(LSN.fullmatch(text).group(1), 16) for text in texts}
    assert {9, 10, 15} <= highs and max(highs) >= 0x10
    values = [_lsn(text) for text in texts]
    assert values == sorted(values), "the LSN increases along the stream"
    assert sorted(texts) != sorted(texts, key=_lsn), "text order must differ from LSN order"
    # (source_timestamp, lsn) orders PostgreSQL: the timestamps never go back along the LSN
    assert all(a.source_ms <= b.source_ms for a, b in pairwise(events))
    # two changes of one key in one transaction, at one timestamp, across F/… -> 10/…
    by_key: dict[tuple, list[Event]] = {}
    for event in events:
        by_key.setdefault(_key(event), []).append(event)
    assert any(a.source_ms == b.source_ms and a.position.lsn_text.startswith("F/")
               and b.position.lsn_text.startswith("10/")
               for same_key in by_key.values() for a, b in pairwise(same_key))


def test_source_timestamps_never_decrease_and_sometimes_tie(workload):
    for table in TABLES:
        stamps = [e.source_ms for e in _cdc(workload, table)]
        assert stamps == sorted(stamps)
    commits = [txn.commit_ms for txn in workload.history.transactions]
    assert commits == sorted(commits)
    assert len(set(commits)) < len(commits), "no two transactions share a millisecond"


def test_key_change_is_update_delete_then_update_insert_at_one_position(workload):
    events = workload.events
    pairs = 0
    for first, second in pairwise(events):
        if first.change_type == "UPDATE-DELETE":
            assert second.change_type == "UPDATE-INSERT" and second.table is first.table
            assert first.position == second.position and first.sort_keys == second.sort_keys
            assert first.source_ms == second.source_ms and first.tx_id == second.tx_id
            assert (first.is_deleted, second.is_deleted) == (True, False)
            assert _key(first) != _key(second)
            pairs += 1
    key_changes = [c for c in workload.history.changes() if c.kind == "key_change"]
    assert pairs == len(key_changes) and {c.table for c in key_changes} == set(TABLES)


def test_deletes_carry_the_deleted_row(workload):
    for change in workload.history.changes():
        if change.kind == "delete":
            (event,) = [e for e in workload.events if not e.backfill and e.position == change.position]
            assert event.change_type == "DELETE" and event.payload == change.before


# ---------------------------------------------------------------------------------------------
# Delivery
# ---------------------------------------------------------------------------------------------


def test_every_event_is_delivered_and_some_twice(workload):
    delivered = Counter(event.index for _number, _file, event in _delivered(workload))
    assert set(delivered) == {event.index for event in workload.events}
    assert any(count > 1 for count in delivered.values())


def test_exact_copies_and_copies_with_a_new_uuid(workload):
    by_index: dict[int, list[Event]] = {}
    for _number, _file, event in _delivered(workload):
        by_index.setdefault(event.index, []).append(event)
    exact = resent = 0
    for index, copies in by_index.items():
        original = workload.events[index]
        for copy in copies:
            assert copy.identity == original.identity, "a copy is the same change"
            if copy is not original:
                resent += 1
                assert copy.uuid != original.uuid and copy.read_ms > original.read_ms
                assert not copy.backfill, "backfill rows are only copied exactly"
                assert (copy.position, copy.payload, copy.source_ms) == (
                    original.position, original.payload, original.source_ms)
        exact += sum(copy is original for copy in copies) - 1
    assert exact > 0 and resent > 0
    assert resent < 0.15 * len(workload.events)


def test_backfill_rows_arrive_after_cdc_changes_of_their_key(workload):
    """For keys read before their first CDC change (a stale row) and after it: the backfill row
    is first delivered in a later batch than a CDC change of its key."""
    first = _first_batch(workload)
    cdc_of: dict[tuple, list[Event]] = {}
    for event in _cdc(workload):
        cdc_of.setdefault(_key(event), []).append(event)
    stale = fresh = 0
    for event in workload.events:
        changes = cdc_of.get(_key(event))
        if not event.backfill or not changes:
            continue
        if any(first[event.index] > first[change.index] for change in changes):
            if event.index < changes[0].index:
                stale += 1
            else:
                fresh += 1
    assert stale >= 2 and fresh >= 2


def test_cdc_changes_of_a_key_arrive_out_of_order(workload):
    first = _first_batch(workload)
    latest: dict[tuple, int] = {}
    late = 0
    for event in _cdc(workload):
        late += first[event.index] < latest.get(_key(event), -1)
        latest[_key(event)] = max(latest.get(_key(event), -1), first[event.index])
    assert late > 0


def test_batches_and_files(workload):
    assert len(workload.batches) == 3
    assert all(1 <= len(batch) <= 3 for batch in workload.batches)
    names = [file.name for batch in workload.batches for file in batch]
    assert names == sorted(names) and len(set(names)) == len(names)
    for number, batch in enumerate(workload.batches, start=1):
        for part, file in enumerate(batch):
            assert file.name == f"batch{number}-part{part}.{file.format}" and file.events
    assert {file.format for batch in workload.batches for file in batch} == set(FORMATS)
    for batch in workload.batches:
        for file in batch:
            if file.format == "avro":
                assert len({event.table for event in file.events}) == 1


def test_files_read_back_as_the_events(workload):
    for batch in workload.batches:
        for file in batch:
            assert _documents(file) == [event.document() for event in file.events], file.name


def test_landing_reader_gives_one_record_per_event(workload, tmp_path):
    """The project's landing split (D8) reads every file back as one record per delivered event."""
    for batch in workload.batches:
        for file in batch:
            path = file.write(tmp_path)
            records = list(read_landing_file(str(path)))
            assert [error for _number, _text, error in records] == [None] * len(file.events), file.name
            read = [json.loads(text) for _number, text, _error in records]
            assert [(d["uuid"], d["payload"]) for d in read] == [(e.uuid, e.payload) for e in file.events]


def test_avro_schemas_are_shaped_like_the_published_files():
    if not PUBLISHED.is_dir():
        pytest.skip(f"{PUBLISHED} not present")

    def fields(schema: dict) -> dict:
        return {f["name"]: f["type"] for f in schema["fields"]}

    for table, sample in ((CUSTOMERS, "mysql-cdc-Users.avro"), (ORDERS, "bytearray.avro")):
        with (PUBLISHED / sample).open("rb") as handle:
            published = fastavro.reader(handle).writer_schema
        ours = avro_schema(table)
        assert [f["name"] for f in ours["fields"]] == [f["name"] for f in published["fields"]]
        generic = set(GENERIC_FIELDS) - {"source_metadata", "payload"}
        assert {k: v for k, v in fields(ours).items() if k in generic} == {
            k: v for k, v in fields(published).items() if k in generic}
        metadata, published_metadata = fields(fields(ours)["source_metadata"]), fields(
            fields(published)["source_metadata"])
        assert {k: metadata[k] for k in published_metadata} == published_metadata
        # PostgreSQL carries its database too (the contract names the table app.public.orders)
        assert set(metadata) - set(published_metadata) <= {"database"}


def test_workload_is_reproducible(workload):
    again = build_workload(workload.seed)
    assert [e.document() for e in again.events] == [e.document() for e in workload.events]
    assert deliver(workload.events, workload.seed) == workload.batches
    contents = [[(f.name, f.content()) for f in batch] for batch in workload.batches]
    assert [[(f.name, f.content()) for f in batch] for batch in again.batches] == contents
    assert again.expected == workload.expected


# ---------------------------------------------------------------------------------------------
# Oracle
# ---------------------------------------------------------------------------------------------


def _order(document: dict) -> tuple:
    """D3 order of one event, from its fields alone: class, then the engine's position."""
    metadata = document["source_metadata"]
    if "backfill" in document["read_method"]:
        return (0,)
    if metadata.get("log_file") is not None:
        return (1, int(metadata["log_file"].rsplit(".", 1)[1]), metadata["log_position"])
    return (1, document["source_timestamp"], _lsn(metadata["lsn"]))


def test_delivered_files_replay_to_the_oracle(workload):
    """A second, independent reading: fold the delivered files by D3/D4/D5 and get the oracle."""
    documents: dict[str, dict] = {}
    for batch in workload.batches:
        for file in batch:
            for document in _documents(file):
                identity = {k: v for k, v in document.items() if k not in ("uuid", "read_timestamp")}
                documents.setdefault(canonical_json(identity), document)
    per_key: dict[tuple, list[dict]] = {}
    for document in documents.values():
        metadata = document["source_metadata"]
        table = ".".join(p for p in (metadata["database"], metadata.get("schema"), metadata["table"]) if p)
        pk = canonical_json({column: document["payload"][column] for column in metadata["primary_keys"]})
        per_key.setdefault((table, pk), []).append(document)
    current, history = {}, {}
    for key, events in per_key.items():
        alive, versions = None, []
        for document in sorted(events, key=_order):
            metadata, row = document["source_metadata"], document["payload"]
            op = "snapshot" if _order(document) == (0,) else contract_op(metadata["change_type"])
            if metadata["is_deleted"]:
                if alive is not None:
                    versions.append((op, True, canonical_json(alive)))
                alive = None
            else:
                alive = row
                versions.append((op, False, canonical_json(row)))
        if versions:
            history[key] = versions
        if alive is not None:
            current[key] = canonical_json(alive)
    assert current == workload.expected.current
    assert history == workload.expected.history


def test_oracle_current_is_the_last_live_version_of_each_key(workload):
    current, history = workload.expected
    assert current == {key: versions[-1][2] for key, versions in history.items() if not versions[-1][1]}


def test_oracle_rows_are_canonical_full_and_typed(workload):
    columns = {t.qualified: {c: (avro_type, nullable) for c, avro_type, nullable in t.columns} for t in TABLES}
    python_type = {"int": int, "string": str}
    for (table, pk), versions in workload.expected.history.items():
        assert pk == canonical_json(json.loads(pk))
        for op, _is_deleted, row in versions:
            assert op in {"insert", "update", "delete", "snapshot"}
            values = json.loads(row)
            assert row == canonical_json(values) and set(values) == set(columns[table])
            for column, value in values.items():
                avro_type, nullable = columns[table][column]
                assert (value is None and nullable) or type(value) is python_type[avro_type]


def test_oracle_backfill_rows_come_first_and_lose_to_cdc(workload):
    history = workload.expected.history
    snapshots = [(key, versions) for key, versions in history.items() if versions[0][0] == "snapshot"]
    assert snapshots
    assert all(op != "snapshot" for _key, versions in history.items() for op, _d, _r in versions[1:])
    # a backfill row read before CDC changed the key is not the current row: the CDC change is
    stale = [key for key, versions in snapshots
             if len(versions) > 1 and versions[0][2] != versions[-1][2] and not versions[-1][1]]
    assert stale and all(workload.expected.current[key] == history[key][-1][2] for key in stale)


def test_oracle_key_change_is_delete_plus_update_insert(workload):
    history = workload.expected.history
    # keys the project has heard of: every backfill row (class 0) and then each CDC change in turn
    known = {(r.table.qualified, r.table.pk_json(r.row)) for r in workload.history.backfill}
    deletes = 0
    for change in workload.history.changes():
        table = change.table
        if change.kind == "key_change":
            new = history[(table.qualified, table.pk_json(change.after))]
            assert (workload.update_insert_op, False, canonical_json(change.after)) in new
            old_key = (table.qualified, table.pk_json(change.before))
            if old_key in known:
                assert ("delete", True, canonical_json(change.before)) in history[old_key]
                deletes += 1
            else:  # the key was renamed before the backfill reached it: its delete has nothing to end
                assert old_key not in history or history[old_key][0][0] != "snapshot"
        known.update((table.qualified, table.pk_json(row)) for row in (change.before, change.after) if row)
    assert deletes > 0


def test_oracle_delete_of_a_key_never_seen_gives_no_version(workload):
    """Initial rows deleted before the backfill reached them: Datastream sends only the delete."""
    read = {(r.table.qualified, r.table.pk_json(r.row)) for r in workload.history.backfill}
    unseen = [(t.qualified, t.pk_json(row)) for t in TABLES for row in workload.history.initial[t.name]
              if (t.qualified, t.pk_json(row)) not in read]
    for key in unseen:
        assert all(version[0] != "snapshot" for version in workload.expected.history.get(key, []))


def test_update_insert_op_decides_mysql_updates_and_key_change_inserts(workload):
    as_insert = oracle(workload.history, update_insert_op="insert")
    assert as_insert.current == workload.expected.current
    differ = [key for key in workload.expected.history
              if as_insert.history[key] != workload.expected.history[key]]
    assert differ
    for key in differ:
        for (op, deleted, row), (other, other_deleted, other_row) in zip(
                workload.expected.history[key], as_insert.history[key], strict=True):
            assert (deleted, row) == (other_deleted, other_row)
            assert op == other or (op, other) == ("update", "insert")


# ---------------------------------------------------------------------------------------------
# End to end: the project against the oracle
# ---------------------------------------------------------------------------------------------

def _update_insert_op() -> str:
    """What the project's op-code seed says 'UPDATE-INSERT' means ('update' unless it says 'insert').

    The one op the seed may choose: MySQL writes every UPDATE's new row as UPDATE-INSERT and the
    new key of a key change too, so one code cannot be both; any other mapping is checked by the
    oracle's own table.
    """
    if not OP_CODE_SEED.exists():
        return "update"
    with OP_CODE_SEED.open(newline="", encoding="utf-8") as handle:
        ops = {row["vendor_op"].strip(): row["op"].strip() for row in csv.DictReader(handle)
               if row["source_vendor"].strip() == VENDOR}
    op = ops.get("UPDATE-INSERT", "update")
    return op if op in ("insert", "update") else "update"
