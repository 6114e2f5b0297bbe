"""The Qlik Replicate workload: the generator and oracle themselves, then the project against them.

Replay a failure with the seed it names: ``CDC_WORKLOAD_SEED=<seed> pytest -k qlik_workload``.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from itertools import pairwise

import pytest
from landing_split import read_landing_file
from parsers.qlik import parse_qlik
from workloads.qlik import (
    EMPLOYEES,
    FORMS,
    METADATA_TOPIC,
    ORDER_LINES,
    SHARED_TOPIC,
    TABLES,
    TABLES_BY_NAME,
    WIDENED,
    Ddl,
    FullLoadRead,
    Transaction,
    build_workload,
    deliver,
    unwrap,
)

from python_udfs.contract import canonical_json
from python_udfs.qlik_masks import decode_hex_mask

WORKLOAD_SEED = int(os.environ.get("CDC_WORKLOAD_SEED", "7"))
# the generator's guarantees must hold for any seed, not just the one the end-to-end test uses
UNIT_SEEDS = sorted({WORKLOAD_SEED, 1, 2, 3, 4})
KINDS = ("insert", "reinsert", "update", "key_change", "delete")


@pytest.fixture(scope="module", params=UNIT_SEEDS, ids=lambda seed: f"seed{seed}")
def workload(request):
    return build_workload(request.param)


def _key(table, row: dict) -> tuple[str, str]:
    return table.qualified, table.pk_json(row)


def _changes(workload, table=None) -> list:
    return [c for c in workload.history.changes() if table is None or c.table is table]


def _change_records(workload, table=None) -> list:
    return [r for r in workload.records if r.kind == "change" and (table is None or r.table is table)]


def _delivered(workload) -> list[tuple[int, object, object, str]]:
    """(batch number from 0, file, record, line) of every delivered copy."""
    return [(number, file, record, line) for number, batch in enumerate(workload.batches)
            for file in batch for record, line in zip(file.records, file.lines, strict=True)]


def _first_batch(workload) -> dict[int, int]:
    """Record index -> the earliest batch that delivers a copy of it."""
    first: dict[int, int] = {}
    for number, _file, record, _line in _delivered(workload):
        first[record.index] = min(first.get(record.index, number), number)
    return first


def _masks(record) -> tuple[list[int] | None, list[int] | None]:
    headers = unwrap(record.line)[2]["headers"]
    count = len(record.table.columns)
    return decode_hex_mask(headers["columnMask"], count), decode_hex_mask(headers["changeMask"], count)


def _ordinals(table, columns) -> list[int]:
    return sorted(table.ordinal(c) for c in columns)


# ---------------------------------------------------------------------------------------------
# Source history
# ---------------------------------------------------------------------------------------------


def test_history_has_enough_transactions_of_one_to_four_changes(workload):
    transactions = workload.history.transactions
    assert 150 <= len(transactions) <= 250
    assert all(1 <= len(txn.changes) <= 4 for txn in transactions)
    assert any({c.table for c in txn.changes} == set(TABLES) for txn in transactions)
    ids = [txn.transaction_id for txn in transactions]
    assert len(set(ids)) == len(ids)
    commits = [txn.commit_us for txn in transactions]
    assert commits == sorted(commits) and len(set(commits)) == len(commits)


def test_every_kind_of_change_occurs_in_both_tables(workload):
    for table in TABLES:
        kinds = Counter(c.kind for c in _changes(workload, table))
        for kind in KINDS:
            assert kinds[kind] > 0, f"no {kind} of {table.name} in seed {workload.seed}"
        updates = [c for c in _changes(workload, table) if c.kind == "update"]
        assert any(c.partial for c in updates) and any(not c.partial for c in updates)


def test_tables_and_keys():
    assert len(EMPLOYEES.columns) == 12 and EMPLOYEES.mask_bytes == 2
    assert ORDER_LINES.key == ("order_id", "line_no") and ORDER_LINES.mask_bytes == 1
    for table in TABLES:
        key = sorted((c for c in table.columns if c.pk_position), key=lambda c: c.pk_position)
        assert tuple(c.name for c in key) == table.key


def test_composite_keys_share_their_first_column(workload):
    keys = [json.loads(pk) for table, pk in workload.expected.history if table == ORDER_LINES.qualified]
    assert keys and all(set(key) == {"order_id", "line_no"} for key in keys)
    assert max(Counter(key["order_id"] for key in keys).values()) > 1
    assert {table for table, _pk in workload.expected.history} == {"hr.employees", "sales.order_lines"}


def test_updates_change_what_they_say(workload):
    for change in _changes(workload):
        if change.kind in ("update", "key_change"):
            differs = tuple(c for c in change.table.names if change.before[c] != change.after[c])
            assert differs == change.changed and differs
            assert set(change.changed) <= set(change.captured)
            assert set(change.table.key) <= set(change.captured)
        if change.kind == "key_change":
            assert change.table.pk_json(change.before) != change.table.pk_json(change.after)
            assert change.captured == change.table.names, "a key change carries the whole row"
        if change.kind == "update":
            assert change.table.pk_json(change.before) == change.table.pk_json(change.after)


def test_nullable_columns_go_null_and_back(workload):
    updates = [c for c in _changes(workload) if c.kind == "update"]
    for column in ("email", "title", "bonus", "manager_no", "note"):
        pairs = [(c.before[column], c.after[column]) for c in updates if column in c.changed]
        assert any(b is not None and a is None for b, a in pairs), f"{column} never went null"
        assert any(b is None and a is not None for b, a in pairs), f"{column} never came back"


def test_a_ddl_makes_a_second_table_version(workload):
    versions = workload.history.versions
    assert [(v.table, v.version) for v in versions] == [(EMPLOYEES, 1), (ORDER_LINES, 1), (EMPLOYEES, 2)]
    assert len({v.schema_id for v in versions}) == 3
    old, new = versions[0], versions[2]
    assert [c.name for c in old.columns] == [c.name for c in new.columns] == list(EMPLOYEES.names)
    name, length = WIDENED
    assert {c.name: c.length for c in new.columns}[name] == length != {c.name: c.length for c in old.columns}[name]
    (ddl,) = [e for e in workload.history.timeline if isinstance(e, Ddl)]
    for txn in workload.history.transactions:
        for change in txn.changes:
            if change.table is EMPLOYEES:
                assert change.version is (new if txn.index >= ddl.after_transactions else old)
    assert any(c.version is new for c in _changes(workload, EMPLOYEES))


def _first_change(workload) -> dict[tuple, int]:
    """Key -> index of the first transaction that changes it (either side of a key change)."""
    first: dict[tuple, int] = {}
    for txn in workload.history.transactions:
        for change in txn.changes:
            for row in (change.before, change.after):
                if row is not None:
                    first.setdefault(_key(change.table, row), txn.index)
    return first


def test_full_load_reads_each_key_once_in_key_order(workload):
    reads = workload.history.full_load
    keys = [_key(r.table, r.row) for r in reads]
    assert len(set(keys)) == len(keys)
    for table in TABLES:
        order = [table.key_tuple(r.row) for r in reads if r.table is table]
        assert order == sorted(order) and order
    initial = {_key(t, row): row for t in TABLES for row in workload.history.initial[t.qualified]}
    first_change = _first_change(workload)
    unchanged = sum(read.row == initial.get(_key(read.table, read.row)) for read in reads
                    if first_change.get(_key(read.table, read.row), 10**9) >= read.after_transactions)
    assert unchanged >= 10


def test_full_load_overlaps_cdc_both_ways(workload):
    first_change = _first_change(workload)
    before_read = after_read = 0
    for read in workload.history.full_load:
        changed_at = first_change.get(_key(read.table, read.row))
        if changed_at is not None:
            before_read += changed_at < read.after_transactions
            after_read += changed_at >= read.after_transactions
    assert before_read >= 2 and after_read >= 2
    assert max(read.after_transactions for read in workload.history.full_load) > 10


# ---------------------------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------------------------


def test_metadata_messages_come_first_one_per_table_version(workload):
    metadata = [r for r in workload.records if r.kind == "metadata"]
    assert metadata == workload.records[:len(metadata)]
    assert [r.version for r in metadata] == workload.history.versions
    for record in metadata:
        wrapper, envelope, message = unwrap(record.line)
        assert (envelope["magic"], envelope["type"]) == ("atMSG", "MD")
        assert envelope["messageSchemaId"] == message["schemaId"] == record.version.schema_id
        assert message["lineage"]["tableVersion"] == record.version.version
        columns = message["tableStructure"]["tableColumns"]
        assert list(columns) == list(record.table.names)
        assert [spec["ordinal"] for spec in columns.values()] == list(range(1, len(columns) + 1))
        assert wrapper is None or wrapper["topic"] == METADATA_TOPIC
    assert {r.form for r in metadata} <= {"atmsg", "kafka_atmsg"}


def test_the_three_forms(workload):
    for kind in ("refresh", "change"):
        assert {r.form for r in workload.records if r.kind == kind} == set(FORMS)
    as_text = as_object = 0
    for record in workload.records:
        if record.kind == "metadata":
            continue
        wrapper, envelope, message = unwrap(record.line)
        assert set(message) >= {"data", "beforeData", "headers"}
        if record.form == "atmsg":
            assert wrapper is None and envelope["messageSchemaId"] == record.version.schema_id
        elif record.form == "kafka_bare":
            assert envelope is None and wrapper["topic"] == record.table.topic == record.table.qualified
            assert message["headers"].get("externalSchemaId") in (None, record.version.schema_id)
        else:
            assert wrapper["topic"] == SHARED_TOPIC and envelope["messageSchemaId"] == record.version.schema_id
        if wrapper is not None:
            as_text += isinstance(wrapper["value"], str)
            as_object += isinstance(wrapper["value"], dict)
    assert as_text and as_object
    bare = [unwrap(r.line)[2]["headers"] for r in workload.records if r.form == "kafka_bare"]
    assert any(h.get("externalSchemaId") for h in bare) and any(not h.get("externalSchemaId") for h in bare)
    own_names = [unwrap(r.line)[2] for r in workload.records if r.form != "kafka_bare" and r.kind != "metadata"]
    assert any("tableName" in m for m in own_names) and any("tableName" not in m for m in own_names)


def test_data_images_are_in_ordinal_order_with_json_values(workload):
    for record in workload.records:
        if record.kind == "metadata":
            continue
        message = unwrap(record.line)[2]
        for image in (message["data"], message["beforeData"]):
            if image is not None:
                assert list(image) == list(record.table.names)
        values = [v for image in (message["data"], message["beforeData"]) if image for v in image.values()]
        assert all(v is None or isinstance(v, (int, float, str)) for v in values)
    skus = [c.after["sku"] for c in _changes(workload, ORDER_LINES) if c.after]
    assert any(sku > 2**53 for sku in skus), "INT8 beyond a double's precision"


def test_full_load_rows_are_refresh_without_position_or_masks(workload):
    refresh = [r for r in workload.records if r.kind == "refresh"]
    assert len(refresh) == len(workload.history.full_load)
    for record in refresh:
        message = unwrap(record.line)[2]
        headers = message["headers"]
        assert headers["operation"] == "REFRESH"
        assert (headers["changeSequence"], headers["timestamp"], headers["transactionId"]) == ("", "", "")
        assert headers["changeMask"] is None and headers["columnMask"] is None
        assert message["data"] == record.read.row and message["beforeData"] is None
        assert record.version.version == 1


def test_change_sequences_are_wide_and_monotonic_across_the_task(workload):
    sequences = [c.change_sequence for c in _changes(workload)]
    assert all(len(s) == 35 and s.isdigit() for s in sequences)
    numbers = [int(s) for s in sequences]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    assert min(numbers) > 2**63
    lows = [n % 10**18 for n in numbers]
    assert lows != sorted(lows), "the last 18 digits alone must not order the changes"
    for record in _change_records(workload):
        assert unwrap(record.line)[2]["headers"]["changeSequence"] == record.change.change_sequence


def test_transaction_counters_and_last_flags(workload):
    for txn in workload.history.transactions:
        assert [c.event_counter for c in txn.changes] == list(range(1, len(txn.changes) + 1))
        assert [c.last_in_transaction for c in txn.changes] == [False] * (len(txn.changes) - 1) + [True]
    for record in _change_records(workload):
        headers = unwrap(record.line)[2]["headers"]
        assert headers["transactionEventCounter"] == record.change.event_counter
        assert headers["transactionLastEvent"] is record.change.last_in_transaction
    assert any(len(txn.changes) > 1 for txn in workload.history.transactions)


def test_masks_decode_to_the_captured_and_changed_columns(workload):
    for record in _change_records(workload):
        change, table = record.change, record.table
        captured, changed = _masks(record)
        assert captured == _ordinals(table, change.captured)
        assert changed == _ordinals(table, change.changed)
        if change.kind == "delete":
            assert captured == changed == _ordinals(table, table.key), "a delete sets key bits only"
        if change.kind in ("insert", "reinsert"):
            assert captured == changed == list(range(1, len(table.columns) + 1))


def test_masks_are_multi_byte(workload):
    employee_masks = [unwrap(r.line)[2]["headers"] for r in _change_records(workload, EMPLOYEES)]
    widths = Counter(len(h["columnMask"]) for h in employee_masks) + Counter(len(h["changeMask"]) for h in employee_masks)
    assert widths[4] > 0 and widths[2] > 0  # two bytes, and now and then the zero high byte left out
    changed_high = [r for r in _change_records(workload, EMPLOYEES)
                    if r.change.kind == "update" and max(_masks(r)[1]) > 8]
    assert changed_high, "no update changed a column of ordinal 9 or more"
    partial = [r for r in _change_records(workload, EMPLOYEES) if r.change.partial]
    assert any(max(_masks(r)[0]) > 8 for r in partial), "no partial capture with a column of ordinal > 8"
    assert any(set(range(9, 13)) - set(_masks(r)[0]) for r in partial), "no partial capture leaves out ordinal > 8"


def test_partial_captures_carry_null_for_columns_left_out(workload):
    kept = captured_null = 0
    for record in _change_records(workload):
        change = record.change
        if not change.partial:
            continue
        message = unwrap(record.line)[2]
        for column in change.table.names:
            if column in change.captured:
                assert message["data"][column] == change.after[column]
                captured_null += change.after[column] is None
            else:
                assert message["data"][column] is None
                kept += change.after[column] is not None  # the null is not the value: it is kept
        if message["beforeData"] is not None:
            assert message["beforeData"] == {c: change.before[c] if c in change.captured else None
                                             for c in change.table.names}
    assert kept > 10 and captured_null > 0


def test_key_changes_are_updates_whose_before_data_has_the_old_key(workload):
    found = Counter()
    for record in _change_records(workload):
        change = record.change
        if change.kind != "key_change":
            continue
        message = unwrap(record.line)[2]
        assert message["headers"]["operation"] == "UPDATE"
        assert message["beforeData"] == change.before and message["data"] == change.after
        old, new = (record.table.pk_json(message[side]) for side in ("beforeData", "data"))
        assert old != new
        found[record.table.name] += 1
    assert set(found) == {t.name for t in TABLES}


def test_deletes_carry_the_row_in_before_data_or_in_data(workload):
    placements = Counter()
    for record in _change_records(workload):
        change = record.change
        if change.kind != "delete":
            continue
        message = unwrap(record.line)[2]
        assert message["headers"]["operation"] == "DELETE"
        side = "beforeData" if message["beforeData"] is not None else "data"
        assert message["data" if side == "beforeData" else "beforeData"] is None
        image = message[side]
        whole = image == change.before
        assert whole or image == {c: change.before[c] if c in record.table.key else None
                                  for c in record.table.names}
        placements[(side, whole)] += 1
    assert set(placements) == {("beforeData", True), ("beforeData", False), ("data", True), ("data", False)}


def test_updates_with_and_without_before_data(workload):
    updates = [unwrap(r.line)[2] for r in _change_records(workload) if r.change.kind == "update"]
    assert any(m["beforeData"] is None for m in updates) and any(m["beforeData"] is not None for m in updates)


# ---------------------------------------------------------------------------------------------
# Delivery
# ---------------------------------------------------------------------------------------------


def test_every_record_is_delivered_and_some_more_than_once(workload):
    delivered = Counter(record.index for _n, _f, record, _line in _delivered(workload))
    assert set(delivered) == {record.index for record in workload.records}
    assert any(count > 1 for count in delivered.values())


def test_exact_copies_and_copies_resent_with_new_kafka_coordinates(workload):
    exact = resent = 0
    seen: Counter = Counter()
    for _n, _f, record, line in _delivered(workload):
        seen[(record.index, line)] += 1
        if line != record.line:
            resent += 1
            wrapper, _envelope, message = unwrap(line)
            original = unwrap(record.line)
            assert wrapper["topic"] == record.topic and wrapper["offset"] > record.offset
            assert message == original[2] and wrapper["timestamp"] > original[0]["timestamp"]
    exact = sum(count - 1 for (index, line), count in seen.items() if line == workload.records[index].line)
    assert exact > 0 and resent > 0


def test_metadata_arrives_in_the_first_batch(workload):
    for number, _file, record, _line in _delivered(workload):
        if record.kind == "metadata":
            assert number == 0


def test_changes_of_a_key_arrive_out_of_order(workload):
    first = _first_batch(workload)
    latest: dict[tuple, int] = {}
    late = 0
    for record in _change_records(workload):
        key = _key(record.table, record.change.row)
        late += first[record.index] < latest.get(key, -1)
        latest[key] = max(latest.get(key, -1), first[record.index])
    assert late > 0


def test_full_load_rows_arrive_after_cdc_changes_of_their_key(workload):
    """Stale full-load rows (read before the key's first change) and fresh ones (read after)
    are first delivered in a later batch than a CDC change of their key: they must lose."""
    first = _first_batch(workload)
    cdc_of: dict[tuple, list] = {}
    for record in _change_records(workload):
        for row in (record.change.before, record.change.after):
            if row is not None:
                cdc_of.setdefault(_key(record.table, row), []).append(record)
    stale = fresh = 0
    for record in workload.records:
        changes = cdc_of.get(_key(record.table, record.read.row)) if record.kind == "refresh" else None
        if changes and any(first[record.index] > first[c.index] for c in changes):
            if record.index < changes[0].index:
                stale += 1
            else:
                fresh += 1
    assert stale >= 2 and fresh >= 2


def test_batches_and_files(workload):
    assert len(workload.batches) == 3
    assert all(1 <= len(batch) <= 3 for batch in workload.batches)
    names = [file.name for batch in workload.batches for file in batch]
    assert names == sorted(names) and len(set(names)) == len(names)
    for number, batch in enumerate(workload.batches, start=1):
        for part, file in enumerate(batch):
            assert file.name == f"batch{number}-part{part}.jsonl" and file.lines


def test_landing_reader_gives_one_record_per_line(workload, tmp_path):
    for batch in workload.batches:
        for file in batch:
            path = file.write(tmp_path)
            records = list(read_landing_file(str(path)))
            assert [text for _number, text, _error in records] == file.lines
            assert all(error is None for _number, _text, error in records)


def test_workload_is_reproducible(workload):
    again = build_workload(workload.seed)
    assert [r.line for r in again.records] == [r.line for r in workload.records]
    assert deliver(workload.records, workload.seed) == workload.batches
    assert [[(f.name, f.content()) for f in batch] for batch in again.batches] == [
        [(f.name, f.content()) for f in batch] for batch in workload.batches]
    assert again.expected == workload.expected
    assert build_workload(workload.seed + 1000).batches != workload.batches


# ---------------------------------------------------------------------------------------------
# The parser on every delivered line, and a second reading of the oracle from its output
# ---------------------------------------------------------------------------------------------


def _parsed(workload) -> list[tuple[object, dict]]:
    out = []
    for _n, _f, record, line in _delivered(workload):
        (parsed,) = parse_qlik(line)
        out.append((record, parsed))
    return out


def test_every_delivered_line_parses_without_quarantine(workload):
    for record, parsed in _parsed(workload):
        assert parsed["kind"] != "quarantine", (parsed["reason"], parsed["detail"], record.line[:300])
        if record.kind == "metadata":
            assert parsed["kind"] == "control" and parsed["control_type"] == "table_version"
            assert parsed["schema_ref"] == record.version.schema_id
            assert parsed["source_table"] == record.table.qualified
            assert parsed["column_order"] == list(record.table.names)
            continue
        assert parsed["kind"] == "change"
        assert parsed["schema_ref"] in (None, record.version.schema_id)
        assert parsed["source_table"] in (None, record.table.qualified)
        assert parsed["column_order"] == list(record.table.names)
        assert parsed["kafka_topic"] == record.topic
        if record.kind == "refresh":
            assert parsed["vendor_op"] == "REFRESH" and parsed["position"] is None
        else:
            change = record.change
            assert parsed["vendor_op"] == change.operation
            position = parsed["position"]
            number = int(position["change_sequence_high"]) * 10**18 + int(position["change_sequence_low"])
            assert number == int(change.change_sequence)
            assert position["transaction_event_counter"] == str(change.event_counter)
            assert parsed["captured_ordinals"] == _ordinals(record.table, change.captured)
            assert parsed["changed_ordinals"] == _ordinals(record.table, change.changed)


def test_parsed_lines_replay_to_the_oracle(workload):
    """A second, independent reading: fold the parser's output the way the SQL is to (table from
    the message, else the schema id's metadata, else the topic; keys and ordinals from the
    metadata; dedupe by position or content; full-load rows first) and get the oracle."""
    parsed = [p for _record, p in _parsed(workload)]
    registry = {}
    for p in parsed:
        if p["kind"] == "control":
            document = json.loads(p["control_json"])
            names = {c["ordinal"]: c["name"] for c in document["columns"]}
            key = [c["name"] for c in sorted(document["columns"], key=lambda c: c["primary_key_position"])
                   if c["primary_key_position"] > 0]
            registry[p["schema_ref"]] = (document["source_table"], names, key)
    by_table = {table: (table, names, key) for table, names, key in registry.values()}
    events: dict[tuple, tuple] = {}
    for p in parsed:
        if p["kind"] != "change":
            continue
        table = p["source_table"] or (registry[p["schema_ref"]][0] if p["schema_ref"] in registry
                                      else p["kafka_topic"])
        _table, names, key_columns = registry.get(p["schema_ref"]) or by_table[table]
        if p["position"] is None:
            order, identity = (0,), (table, p["content_hash"])
        else:
            parts = ("change_sequence_high", "change_sequence_low", "transaction_event_counter")
            order = (1, *(int(p["position"][part]) for part in parts))
            identity = (table, p["vendor_op"], order)
        captured = (p["column_order"] if p["captured_ordinals"] is None
                    else [names[ordinal] for ordinal in p["captured_ordinals"]])
        events[identity] = (table, order, p, key_columns, captured)
    per_key: dict[tuple, list] = {}

    def add(table, order, op, image, key_columns, captured):
        pk = canonical_json({c: image[c] for c in key_columns})
        per_key.setdefault((table, pk), []).append((order, op, image, captured))

    ops = {"INSERT": "insert", "UPDATE": "update", "REFRESH": "snapshot"}
    for table, order, p, key_columns, captured in events.values():
        after = None if p["after"] is None else {c: json.loads(v) for c, v in p["after"].items()}
        before = None if p["before"] is None else {c: json.loads(v) for c, v in p["before"].items()}
        if p["vendor_op"] == "DELETE":
            add(table, order, "delete", before, key_columns, [])
            continue
        if before is not None and any(before[c] != after[c] for c in key_columns):
            add(table, order, "delete", before, key_columns, [])
        add(table, order, ops[p["vendor_op"]], after, key_columns, captured)
    current, history = {}, {}
    for key, items in per_key.items():
        alive, versions = None, []
        for _order, op, image, captured in sorted(items, key=lambda item: item[0]):
            if op == "delete":
                if alive is not None:
                    versions.append(("delete", True, canonical_json(alive)))
                alive = None
            else:
                alive = {**(alive or {}), **{c: image[c] for c in captured}}
                versions.append((op, False, canonical_json(alive)))
        if versions:
            history[key] = versions
        if alive is not None:
            current[key] = canonical_json(alive)
    assert current == workload.expected.current
    assert history == workload.expected.history


# ---------------------------------------------------------------------------------------------
# Oracle
# ---------------------------------------------------------------------------------------------


def test_oracle_current_is_the_last_live_version_of_each_key(workload):
    current, history = workload.expected
    assert current == {key: versions[-1][2] for key, versions in history.items() if not versions[-1][1]}


def test_oracle_current_is_the_source_at_the_end(workload):
    final = {_key(TABLES_BY_NAME[name], row): canonical_json(row)
             for name, rows in workload.history.final.items() for row in rows.values()}
    assert workload.expected.current == final


def test_oracle_rows_are_canonical_full_and_typed(workload):
    python_types = {"INT2": int, "INT4": int, "INT8": int, "REAL8": float, "WSTRING": str, "STRING": str,
                    "DATE": str, "DATETIME": str, "NUMERIC": str}
    for (table_name, pk), versions in workload.expected.history.items():
        table = TABLES_BY_NAME[table_name]
        assert pk == canonical_json(json.loads(pk)) and set(json.loads(pk)) == set(table.key)
        for op, _is_deleted, row_json in versions:
            assert op in {"snapshot", "insert", "update", "delete"}
            row = json.loads(row_json)
            assert row_json == canonical_json(row) and set(row) == set(table.names)
            for column in table.columns:
                value = row[column.name]
                assert (value is None and column.nullable) or type(value) is python_types[column.type], (
                    column.name, value)


def test_oracle_full_load_rows_come_first_and_lose_to_cdc(workload):
    history = workload.expected.history
    snapshots = [(key, versions) for key, versions in history.items() if versions[0][0] == "snapshot"]
    assert len(snapshots) == len(workload.history.full_load)
    assert all(op != "snapshot" for versions in history.values() for op, _d, _r in versions[1:])
    stale = [key for key, versions in snapshots
             if len(versions) > 1 and versions[0][2] != versions[-1][2] and not versions[-1][1]]
    assert stale and all(workload.expected.current[key] == history[key][-1][2] for key in stale)


def test_oracle_partial_updates_keep_the_columns_left_out(workload):
    history = workload.expected.history
    checked = 0
    for change in _changes(workload):
        if not change.partial:
            continue
        versions = history[_key(change.table, change.after)]
        rows = [json.loads(row) for op, _d, row in versions if op == "update"]
        # the source row after the change is a version: the columns left out kept their values
        assert change.after in rows
        checked += 1
    assert checked > 10


def test_oracle_key_change_is_delete_plus_update(workload):
    history = workload.expected.history
    read = {_key(r.table, r.row) for r in workload.history.full_load}
    known = set(read)
    deletes = 0
    for change in _changes(workload):
        table = change.table
        if change.kind == "key_change":
            assert ("update", False, canonical_json(change.after)) in history[_key(table, change.after)]
            old_key = _key(table, change.before)
            if old_key in known:
                assert ("delete", True, canonical_json(change.before)) in history[old_key]
                deletes += 1
        known.update(_key(table, row) for row in (change.before, change.after) if row)
    assert deletes > 0


def test_oracle_versions_alternate_between_alive_and_deleted(workload):
    for versions in workload.expected.history.values():
        for (_op, deleted, row), (next_op, next_deleted, next_row) in pairwise(versions):
            if next_deleted:
                assert not deleted and next_row == row, "a delete ends a live key and keeps its last row"
            if deleted:
                assert not next_deleted and next_op in ("insert", "update"), "an insert or a key change revives"


def test_timeline_entries():
    history = build_workload(WORKLOAD_SEED).history
    kinds = Counter(type(entry) for entry in history.timeline)
    assert kinds[Transaction] >= 150 and kinds[FullLoadRead] > 20 and kinds[Ddl] == 1

# The project against the oracle: tests/pytest/test_workloads_end_to_end.py (all vendors at once).
