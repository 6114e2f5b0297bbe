"""The Spanner change-streams workload: the generator and oracle themselves, then the project against them.

Replay a failure with the seed it names: ``CDC_WORKLOAD_SEED=<seed> pytest -k spanner_workload``.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from itertools import pairwise

import pytest
from conftest import CONFORMANCE_DIR
from workloads.spanner import (
    ALBUMS,
    RECORD_FIELDS,
    SINGERS,
    TABLES_BY_NAME,
    VENDOR,
    Control,
    DataChange,
    Transaction,
    build_workload,
    deliver,
    parse_timestamp,
    read_data_change,
)

from python_udfs.contract import canonical_json

WORKLOAD_SEED = int(os.environ.get("CDC_WORKLOAD_SEED", "7"))
# the generator's guarantees must hold for any seed, not just the one the end-to-end test uses
UNIT_SEEDS = sorted({WORKLOAD_SEED, 1, 2, 3, 4})
BEAM_SAMPLE = CONFORMANCE_DIR / "spanner" / "published" / "events.txt"

DATA_CHANGE_FIELDS = {
    "commit_timestamp", "record_sequence", "server_transaction_id", "is_last_record_in_transaction_in_partition",
    "table_name", "column_types", "mods", "mod_type", "value_capture_type", "number_of_records_in_transaction",
    "number_of_partitions_in_transaction", "transaction_tag", "is_system_transaction",
}
BEAM_FIELDS = {
    "partitionToken", "commitTimestamp", "serverTransactionId", "isLastRecordInTransactionInPartition",
    "recordSequence", "tableName", "rowType", "mods", "modType", "valueCaptureType",
    "numberOfRecordsInTransaction", "numberOfPartitionsInTransaction", "transactionTag", "isSystemTransaction",
}
COMMIT_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.(\d{6,9})Z")


@pytest.fixture(scope="module", params=UNIT_SEEDS, ids=lambda seed: f"seed{seed}")
def workload(request):
    return build_workload(request.param)


def _transactions(workload) -> list[Transaction]:
    return workload.history.transactions


def _data_changes(workload) -> list[tuple[object, DataChange]]:
    return [(record, read_data_change(record.line)) for record in workload.records if record.kind == "data_change"]


def _delivered_lines(workload) -> list[str]:
    return [line for batch in workload.batches for _name, lines in batch for line in lines]


def _decode(code: str, value):
    """A mod value as the row holds it: INT64 from its decimal string, JSON from its text."""
    if value is None:
        return None
    if code == "INT64":
        return int(value)
    if code == "JSON":
        return json.loads(value)
    return value


def _key_of(change: DataChange, keys: dict) -> tuple[str, str]:
    return change.table_name, canonical_json({c: _decode(change.column_codes[c], v) for c, v in keys.items()})


# ---------------------------------------------------------------------------------------------
# Source history
# ---------------------------------------------------------------------------------------------


def test_history_has_enough_transactions_of_one_to_four_mods(workload):
    transactions = _transactions(workload)
    assert len(transactions) >= 150
    assert all(1 <= len(txn.mods) <= 4 for txn in transactions)
    assert len({txn.server_transaction_id for txn in transactions}) == len(transactions)
    micros = [txn.commit_ns // 1000 for txn in transactions]
    assert all(a < b for a, b in pairwise(micros)), "commits are strictly increasing, even in microseconds"
    same_second = sum(a.commit_ns // 10**9 == b.commit_ns // 10**9 for a, b in pairwise(transactions))
    assert same_second > 5


def test_every_kind_of_mod_occurs_in_both_tables(workload):
    kinds = Counter((mod.table.name, mod.kind) for mod in workload.history.mods())
    for table in ("Singers", "Albums"):
        for kind in ("insert", "update", "delete", "reinsert"):
            assert kinds[table, kind] > 0, f"no {kind} of {table} in seed {workload.seed}"


def test_a_transaction_writes_a_row_once_and_never_changes_a_key(workload):
    for txn in _transactions(workload):
        keys = [(mod.table.name, mod.table.pk_json(mod.row)) for mod in txn.mods]
        assert len(set(keys)) == len(keys)
        for mod in txn.mods:
            if mod.kind == "update":
                assert mod.table.key_of(mod.before) == mod.table.key_of(mod.after)
                assert 1 <= len(mod.columns) <= 2
                assert {c for c in mod.table.non_key if mod.before[c] != mod.after[c]} == set(mod.columns)


def test_composite_keys_and_int64_beyond_double_precision(workload):
    album_keys = [json.loads(pk) for table, pk in workload.expected.history if table == ALBUMS.name]
    assert all(set(key) == {"SingerId", "AlbumId"} for key in album_keys)
    assert max(Counter(key["SingerId"] for key in album_keys).values()) > 1, "albums should share a singer"
    singer_ids = [json.loads(pk)["SingerId"] for table, pk in workload.expected.history if table == SINGERS.name]
    assert any(singer_id > 2**53 for singer_id in singer_ids)
    assert any(mod.after and mod.after.get("Sales", 0) > 2**53 for mod in workload.history.mods())


def test_nullable_columns_go_null_and_back(workload):
    updates = [mod for mod in workload.history.mods() if mod.kind == "update"]
    back = Counter()
    for table, column in ((SINGERS, "Rating"), (SINGERS, "Info"), (ALBUMS, "ReleaseDate")):
        changes = [(m.before[column], m.after[column]) for m in updates if m.table is table and column in m.columns]
        assert any(old is not None and new is None for old, new in changes), f"{column} never set to NULL"
        back[table.name] += sum(old is None and new is not None for old, new in changes)
    assert back["Singers"] and back["Albums"], f"nullable columns never back from NULL: {back}"


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------


def test_googlesql_rows_have_the_documented_layout(workload):
    wrappers = Counter()
    for record in workload.records:
        if record.form != "googlesql":
            continue
        message = record.message
        assert set(message) <= set(RECORD_FIELDS)
        holding = [name for name in RECORD_FIELDS if message.get(name)]
        assert holding == [f"{record.kind}_record"] and len(message[holding[0]]) == 1
        wrappers[len(message)] += 1
        if record.kind == "data_change":
            assert set(message["data_change_record"][0]) == DATA_CHANGE_FIELDS
    assert wrappers[1] and wrappers[3], "rows with and without the empty sibling arrays"


def test_commit_timestamps_have_six_to_nine_digits_and_match_the_commit(workload):
    commits = {txn.index: txn.commit_ns for txn in _transactions(workload)}
    digits = Counter()
    for record, change in _data_changes(workload):
        assert change.commit_ns == commits[record.transaction]
        if record.form == "googlesql":
            text = record.message["data_change_record"][0]["commit_timestamp"]
            match = COMMIT_TIMESTAMP.fullmatch(text)
            assert match, text
            digits[len(match.group(1))] += 1
    assert set(digits) == {6, 7, 8, 9}


def test_records_of_a_transaction_are_sequenced_and_counted(workload):
    by_transaction: dict[str, list[DataChange]] = {}
    for _record, change in _data_changes(workload):
        by_transaction.setdefault(change.server_transaction_id, []).append(change)
    assert len(by_transaction) == len(_transactions(workload))
    several_partitions = 0
    for changes in by_transaction.values():
        count = changes[0].records_in_transaction
        assert [c.record_sequence for c in changes] == [f"{n:08d}" for n in range(count)]
        assert {(c.records_in_transaction, c.partitions_in_transaction, c.commit_ns) for c in changes} == {
            (count, changes[0].partitions_in_transaction, changes[0].commit_ns)}
        assert changes[-1].is_last_in_partition
        assert sum(c.is_last_in_partition for c in changes) == changes[0].partitions_in_transaction
        several_partitions += changes[0].partitions_in_transaction > 1
    assert several_partitions > 0


def test_capture_types_partial_singers_and_full_albums(workload):
    partial = null_set = 0
    for _record, change in _data_changes(workload):
        table = TABLES_BY_NAME[change.table_name]
        assert change.value_capture_type == table.value_capture_type
        assert change.key_columns == table.key
        for keys, new_values, old_values in change.mods:
            assert set(keys) == set(table.key) and old_values == {}
            if change.mod_type == "DELETE":
                assert new_values == {}
            elif change.mod_type == "INSERT" or table is ALBUMS:
                assert set(new_values) == set(table.non_key)
            else:
                assert 1 <= len(new_values) <= 2 and set(new_values) <= set(table.non_key)
                partial += len(new_values) < len(table.non_key)
                null_set += None in new_values.values()
        written = {column for _k, new_values, _o in change.mods for column in new_values}
        expected_columns = set(table.key) | (set(table.non_key) if table is ALBUMS else written)
        assert set(change.column_codes) == expected_columns
        assert all(change.column_codes[c] == table.code(c) for c in change.column_codes)
    assert partial and null_set


def test_multi_mod_records_and_transactions_spread_over_records(workload):
    multi = Counter()
    for _record, change in _data_changes(workload):
        columns = {frozenset(new_values) for _k, new_values, _o in change.mods}
        assert len(columns) == 1, "one record holds mods with the same written columns"
        if len(change.mods) > 1:
            multi[change.table_name, change.mod_type] += 1
    assert {table for table, _mod_type in multi} == {"Singers", "Albums"}
    assert ("Singers", "UPDATE") in multi, "no multi-mod record of partial updates"
    spread = [txn for txn in _transactions(workload)
              if len({(m.table.name, m.mod_type) for m in txn.mods}) > 1]
    assert spread
    records = Counter(record.transaction for record in workload.records if record.kind == "data_change")
    assert all(records[txn.index] >= len({(m.table.name, m.mod_type) for m in txn.mods}) for txn in spread)


def test_values_are_encoded_as_spanner_writes_them(workload):
    for _record, change in _data_changes(workload):
        for keys, new_values, _old in change.mods:
            assert all(isinstance(v, str) and v.isdigit() for v in keys.values()), keys
            for column, value in new_values.items():
                code = change.column_codes[column]
                if value is None:
                    assert TABLES_BY_NAME[change.table_name].nullable(column)
                elif code == "INT64":
                    assert isinstance(value, str) and value.isdigit()
                elif code == "JSON":
                    assert isinstance(value, str) and canonical_json(json.loads(value)) == value
                elif code == "FLOAT64":
                    assert isinstance(value, float)
                elif code == "DATE":
                    assert re.fullmatch(r"\d{4}-\d\d-\d\d", value)
                else:
                    assert code == "STRING" and isinstance(value, str)


def test_beam_form(workload):
    changes = _data_changes(workload)
    beam = [(record, change) for record, change in changes if record.form == "beam"]
    assert 0.1 < len(beam) / len(changes) < 0.35
    for record, _change in beam:
        assert set(record.message) == BEAM_FIELDS
        assert set(record.message["commitTimestamp"]) == {"seconds", "nanos"}
        for column in record.message["rowType"]:
            assert set(column) == {"name", "type", "isPrimaryKey", "ordinalPosition"}
            assert set(json.loads(column["type"]["code"])) == {"code"}
        assert all(set(mod) == {"keysJson", "oldValuesJson", "newValuesJson"} for mod in record.message["mods"])
    # written as Gson writes: '=' of base64 transaction ids escaped
    assert any("\\u003d" in record.line for record, _change in beam)


def test_beam_records_use_the_published_field_names(workload):
    if not BEAM_SAMPLE.exists():
        pytest.skip(f"conformance sample not found at {BEAM_SAMPLE}")
    lines = BEAM_SAMPLE.read_text(encoding="utf-8").splitlines()
    published = [json.loads(line) for line in lines if line.strip()]
    beam = next(record.message for record in workload.records if record.form == "beam")
    for sample in published:
        assert set(sample) - {"shard"} <= set(beam)  # `shard` is added by the sharded-migration template
        assert {field for mod in sample["mods"] for field in mod} == set(beam["mods"][0])


def test_heartbeats_and_child_partitions_between_transactions(workload):
    kinds = Counter(record.kind for record in workload.records)
    assert kinds["heartbeat"] and kinds["child_partitions"] > 1
    assert 0.03 < (kinds["heartbeat"] + kinds["child_partitions"]) / len(workload.records) < 0.2
    first = workload.records[0].message["child_partitions_record"][0]
    assert all(child["parent_partition_tokens"] == [] for child in first["child_partitions"])
    events = workload.history.events
    for previous, control, following in zip(events, events[1:], events[2:], strict=False):
        if isinstance(control, Control):
            assert isinstance(previous, Transaction) and previous.commit_ns < control.at_ns
            assert not isinstance(following, Transaction) or control.at_ns < following.commit_ns
    times = []
    for record in workload.records:
        if record.kind == "heartbeat":
            (heartbeat,) = record.message["heartbeat_record"]
            assert set(heartbeat) == {"timestamp"} and COMMIT_TIMESTAMP.fullmatch(heartbeat["timestamp"])
            times.append(parse_timestamp(heartbeat["timestamp"]))
        elif record.kind == "child_partitions":
            (child,) = record.message["child_partitions_record"]
            assert set(child) == {"start_timestamp", "record_sequence", "child_partitions"}
            assert child["record_sequence"] == "00000001"
            times.append(parse_timestamp(child["start_timestamp"]))
    assert times == [control.at_ns for control in workload.history.controls]


def test_partition_tokens_follow_the_child_partitions(workload):
    active: set[str] = set()
    for record in workload.records:
        if record.kind == "child_partitions":
            (child,) = record.message["child_partitions_record"]
            for partition in child["child_partitions"]:
                assert set(partition["parent_partition_tokens"]) <= active
            active -= {parent for p in child["child_partitions"] for parent in p["parent_partition_tokens"]}
            active |= {p["token"] for p in child["child_partitions"]}
        elif record.form == "beam":
            assert record.message["partitionToken"] in active


def test_records_replay_to_the_oracle(workload):
    """A reader that folds the rendered records (either form, either capture type) gets the
    oracle's history: the renderer and the oracle agree, and partial rows fill to full rows."""
    changes = sorted((change for _record, change in _data_changes(workload)),
                     key=lambda c: (c.commit_ns, int(c.record_sequence)))
    alive: dict[tuple, dict] = {}
    versions: dict[tuple, list] = {}
    for change in changes:
        for keys, new_values, _old in change.mods:
            key = _key_of(change, keys)
            values = {c: _decode(change.column_codes[c], v) for c, v in new_values.items()}
            if change.mod_type == "DELETE":
                version = ("delete", True, canonical_json(alive.pop(key)))
            elif change.mod_type == "UPDATE":
                alive[key] = {**alive[key], **values}
                version = ("update", False, canonical_json(alive[key]))
            else:
                assert key not in alive
                alive[key] = {**json.loads(key[1]), **values}
                version = ("insert", False, canonical_json(alive[key]))
            versions.setdefault(key, []).append(version)
    assert versions == workload.expected.history


# ---------------------------------------------------------------------------------------------
# Delivery
# ---------------------------------------------------------------------------------------------


def test_every_record_is_delivered_and_some_twice(workload):
    delivered = Counter(_delivered_lines(workload))
    lines = {record.line for record in workload.records}
    assert len(lines) == len(workload.records), "records are told apart by their text"
    assert set(delivered) == lines
    assert any(count > 1 for count in delivered.values()), "no exact copies"
    assert 0.05 < (delivered.total() - len(lines)) / len(lines) < 0.2


def test_batches_and_files(workload):
    assert len(workload.batches) == 3
    names = [name for batch in workload.batches for name, _lines in batch]
    assert all(1 <= len(batch) <= 3 for batch in workload.batches)
    assert names == sorted(names) and len(set(names)) == len(names)
    assert names[0] == "batch1-part0.jsonl"
    assert all(lines for batch in workload.batches for _name, lines in batch)


def test_changes_of_a_key_arrive_late(workload):
    """Some change is delivered in an earlier batch than an older change of the same key."""
    first_batch: dict[str, int] = {}
    for number, batch in enumerate(workload.batches):
        for _name, lines in batch:
            for line in lines:
                first_batch.setdefault(line, number)
    seen: dict[tuple, int] = {}  # key -> latest batch among its older changes
    late = 0
    for record, change in _data_changes(workload):
        batch = first_batch[record.line]
        for keys, _new, _old in change.mods:
            key = _key_of(change, keys)
            late += batch < seen.get(key, -1)
            seen[key] = max(seen.get(key, -1), batch)
    assert late > 0


def test_workload_is_reproducible(workload):
    again = build_workload(workload.seed)
    assert [r.line for r in again.records] == [r.line for r in workload.records]
    assert again.batches == workload.batches and again.expected == workload.expected
    assert deliver(workload.records, workload.seed) == workload.batches
    assert build_workload(workload.seed + 1000).batches != workload.batches


# ---------------------------------------------------------------------------------------------
# Oracle
# ---------------------------------------------------------------------------------------------


def test_oracle_current_is_the_last_live_version_of_each_key(workload):
    current, history = workload.expected
    from_history = {key: versions[-1][2] for key, versions in history.items() if not versions[-1][1]}
    assert current == from_history


def test_oracle_rows_are_canonical_full_and_typed(workload):
    python_types = {"INT64": int, "FLOAT64": float, "STRING": str, "DATE": str}
    for (table_name, pk), versions in workload.expected.history.items():
        table = TABLES_BY_NAME[table_name]
        assert pk == canonical_json(json.loads(pk)) and set(json.loads(pk)) == set(table.key)
        for op, _is_deleted, row_json in versions:
            assert op in {"insert", "update", "delete"}
            row = json.loads(row_json)
            assert row_json == canonical_json(row)
            assert set(row) == {column for column, _code, _nullable in table.columns}
            for column, code, nullable in table.columns:
                if row[column] is None:
                    assert nullable
                elif code != "JSON":
                    assert type(row[column]) is python_types[code], (column, row[column])


def test_oracle_versions_alternate_between_alive_and_deleted(workload):
    for versions in workload.expected.history.values():
        assert versions[0][0] == "insert"
        for (_op, deleted, row), (next_op, next_deleted, next_row) in pairwise(versions):
            if deleted:
                assert next_op == "insert" and not next_deleted, "only an insert revives a key"
            else:
                assert next_op != "insert", "an insert needs the key to be gone"
            if next_op == "delete":
                assert next_row == row, "a delete keeps the last row"


# ---------------------------------------------------------------------------------------------
# End to end: the project against the oracle
# ---------------------------------------------------------------------------------------------

def _control_problems(project, workload) -> list[str]:
    """Every heartbeat and child-partitions row is a control event."""
    problems = []
    rows = project.sql("select control_type, control_json from cdc_intermediate.int_cdc__control_events "
                       f"where source_vendor = '{VENDOR}'")
    found = Counter(row.get("control_type") for row in rows)
    delivered = Counter(_delivered_lines(workload))
    for kind in ("heartbeat", "child_partitions"):
        lines = [line for line in delivered if json.loads(line).get(f"{kind}_record")]
        # one control event per delivered row (D9), unless the project drops exact copies
        if not len(lines) <= found[kind] <= sum(delivered[line] for line in lines):
            problems.append(f"control: {found[kind]} '{kind}' events for {len(lines)} records "
                            f"({sum(delivered[line] for line in lines)} rows delivered)")
    # rows come from Spark's toJSON, which leaves out null columns
    text = " ".join(row.get("control_json") or "" for row in rows if row.get("control_type") == "child_partitions")
    tokens = [token for control in workload.history.controls for token, _parents in control.children]
    missing = [token for token in tokens if token not in text]
    if missing:
        problems.append(f"control: child partition tokens not in any control_json: {missing[:3]}")
    return problems
