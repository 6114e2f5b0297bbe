"""The Alibaba DataHub workload: the generator and oracle themselves, then the project against them.

Replay a failure with the seed it names: ``CDC_WORKLOAD_SEED=<seed> pytest -k datahub_workload``.
"""

from __future__ import annotations

import csv
import json
import os
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest
from landing_split import read_landing_file
from parsers.datahub import parse_datahub
from workloads.datahub import (
    ACCOUNTS,
    ADDED_COLUMN,
    ALTER_TEXT,
    FULL_LOAD_SEQUENCE,
    ORDER_ITEMS,
    PRIMARY_KEY_SEED_ROWS,
    TABLES,
    VENDOR,
    Record,
    Transaction,
    build_workload,
    contract_row,
    deliver,
    message_identity,
)

from python_udfs.contract import canonical_json
from python_udfs.java_serialization import decode_ddl_meta

WORKLOAD_SEED = int(os.environ.get("CDC_WORKLOAD_SEED", "7"))
# the generator's guarantees must hold for any seed, not just the one the end-to-end test uses
UNIT_SEEDS = sorted({WORKLOAD_SEED, 1, 2, 3, 4})
PROJECT_DIR = Path(__file__).resolve().parents[2]
PRIMARY_KEY_SEED = PROJECT_DIR / "seeds" / "cdc_primary_keys.csv"
TABLE_BY_NAME = {table.qualified: table for table in TABLES}
# the contract op of each vendor_op the parser gives for data (the op-code seed must agree)
CONTRACT_OPS = {"INSERT": "insert", "UPDATE_AFTER": "update", "DELETE": "delete", "FULL_LOAD": "snapshot",
                "TRUNCATE": "truncate"}


@pytest.fixture(scope="module", params=UNIT_SEEDS, ids=lambda seed: f"seed{seed}")
def workload(request):
    return build_workload(request.param)


def _delivered(workload) -> list[tuple[int, str, int, str]]:
    """(batch number from 0, file name, record index, line) of every delivered line."""
    return [(number, file.name, index, line) for number, batch in enumerate(workload.batches)
            for file in batch for index, line in file.items]


def _first_batch(workload) -> dict[int, int]:
    first: dict[int, int] = {}
    for number, _name, index, _line in _delivered(workload):
        first.setdefault(index, number)
    return first


def _last_batch(workload) -> dict[int, int]:
    return {index: number for number, _name, index, _line in _delivered(workload)}


def _pairs(workload) -> list[tuple[Record, Record]]:
    halves: dict[int, dict[str, Record]] = {}
    for record in workload.records:
        if record.half in ("before", "after"):
            halves.setdefault(record.change, {})[record.half] = record
    return [(h["before"], h["after"]) for h in halves.values()]


def _data_image(record: Record) -> dict:
    """The row of a data record as the contract holds it (values typed as the parser types them)."""
    message = record.message
    if record.form == "tuple":
        return {k: v for k, v in message.items() if not (k.startswith("_") and k.endswith("_"))}
    payload = message["payload"]
    block = payload["before"] if record.half == "before" or record.op == "DELETE" else payload["after"]
    types = {c["name"]: c["type"] for c in message["schema"]["dataColumn"]}
    row = {}
    for column, value in block["dataColumn"].items():
        if value is not None and types[column] == "LONG":
            value = int(value)
        elif value is not None and types[column] == "DOUBLE":
            value = float(value)
        row[column] = value
    return contract_row(ACCOUNTS, row)


# ---------------------------------------------------------------------------------------------
# Source history
# ---------------------------------------------------------------------------------------------


def test_history_has_150_to_250_changes_in_small_transactions(workload):
    changes = workload.history.changes()
    assert 150 <= len(changes) + len(workload.history.full_load) <= 250
    assert all(1 <= len(txn.changes) <= 3 for txn in workload.history.transactions)
    sequences = [change.sequence for change in changes]
    assert sequences == sorted(sequences) and len(set(sequences)) == len(sequences)
    assert all(len(str(sequence)) == 19 for sequence in sequences)


def test_every_kind_of_change_occurs_on_both_tables(workload):
    kinds = Counter((change.table.name, change.kind) for change in workload.history.changes())
    for table in TABLES:
        for kind in ("insert", "update", "delete", "key_change"):
            assert kinds[(table.name, kind)] > 0, f"no {kind} of {table.name} in seed {workload.seed}"
    assert sum(kinds[(table.name, "reinsert")] for table in TABLES) > 0


def test_full_load_overlaps_the_first_changes(workload):
    """Some keys change before the full load reads them (it reads the changed row), some after
    (its row is stale); the full load ends before the ALTER."""
    reads = workload.history.full_load
    assert len(reads) >= 12 and {read.table for read in reads} == {ACCOUNTS}
    assert any(read.after_transactions > 0 for read in reads)
    changed_at: dict[str, list[int]] = {}
    transactions = workload.history.transactions
    for number, txn in enumerate(transactions):
        for change in txn.changes:
            if change.table is ACCOUNTS:
                for row in (change.before, change.after):
                    if row:
                        changed_at.setdefault(ACCOUNTS.pk_json(row), []).append(number)
    read_after_a_change = read_before_a_change = 0
    for read in reads:
        numbers = changed_at.get(ACCOUNTS.pk_json(read.row), [])
        read_after_a_change += any(n < read.after_transactions for n in numbers)
        read_before_a_change += any(n >= read.after_transactions for n in numbers)
    assert read_after_a_change >= 1 and read_before_a_change >= 1
    timeline = workload.history.timeline
    assert max(timeline.index(read) for read in reads) < timeline.index(workload.history.ddl)


def test_alter_adds_a_column_mid_stream(workload):
    timeline = workload.history.timeline
    ddl_at = timeline.index(workload.history.ddl)
    transactions = [entry for entry in timeline if isinstance(entry, Transaction)]
    before = [entry for entry in timeline[:ddl_at] if isinstance(entry, Transaction)]
    assert 0.3 * len(transactions) < len(before) < 0.8 * len(transactions)
    for number, txn in enumerate(transactions):
        for change in txn.changes:
            if change.table is ACCOUNTS:
                images = [row for row in (change.before, change.after) if row]
                has_tier = [ADDED_COLUMN[0] in row for row in images]
                assert has_tier == [number >= len(before)] * len(images)


# ---------------------------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------------------------


def test_update_pairs_share_a_sequence_id_and_key_changes_are_pairs(workload):
    pairs = _pairs(workload)
    assert pairs
    for before, after in pairs:
        assert before.sequence == after.sequence
        if before.form == "blob":
            assert (before.op, after.op) == ("UPDATE_BEFOR", "UPDATE_AFTER")
            assert set(before.message["payload"]) >= {"before"} and not before.message["payload"].get("after")
        else:
            assert (before.op, after.op) == ("U", "U")
            assert (before.message["_before_image_"], before.message["_after_image_"]) == ("Y", "N")
            assert (after.message["_before_image_"], after.message["_after_image_"]) == ("N", "Y")
    key_changes = {change_index for change_index, change in enumerate(workload.history.changes())
                   if change.kind == "key_change"}
    paired = {before.change for before, _after in pairs}
    assert key_changes <= paired
    assert {before.form for before, _after in pairs if before.change in key_changes} == {"blob", "tuple"}


def test_some_blob_updates_carry_both_images_in_one_record(workload):
    merged = [record for record in workload.records if record.half == "both"]
    assert merged
    for record in merged:
        payload = record.message["payload"]
        assert record.op == "UPDATE_AFTER" and payload["before"] and payload["after"]
        before, after = (int(payload[b]["dataColumn"]["account_id"]) for b in ("before", "after"))  # LONG, maybe text
        assert before == after, "key changes are always sent as pairs"


def test_full_load_rows_are_inserts_with_sequence_minus_one(workload):
    rows = [record for record in workload.records if record.full_load]
    assert len(rows) == len(workload.history.full_load)
    for record in rows:
        payload = record.message["payload"]
        assert (payload["op"], payload["sequenceId"]) == ("INSERT", FULL_LOAD_SEQUENCE)
        assert payload["timestamp"]["eventTime"] == -1 and payload["timestamp"]["systemTime"] > 0


def test_controls_are_rendered(workload):
    ops = Counter(record.op for record in workload.records)
    assert ops["MHEARTBEAT"] >= 5
    assert ops["TRANSACTION_BEGIN"] == ops["TRANSACTION_END"] > 0
    assert ops["ALTER"] == 1


def test_ddl_record_holds_a_java_serialized_statement(workload):
    (record,) = [record for record in workload.records if record.op == "ALTER"]
    ddl = record.message["payload"]["ddl"]
    assert ddl["text"] == ALTER_TEXT
    meta = decode_ddl_meta(ddl["ddlMeta"])
    assert meta.error is None and meta.text == ALTER_TEXT
    assert (meta.operation, meta.table) == ("ALTER", "accounts")
    assert meta.added_columns == ({"name": "tier", "type": "varchar(16)"},)
    assert meta.class_name == "com.alibaba.di.plugin.center.meta.DDLMeta"


def test_blob_values_are_written_as_datahub_writes_them(workload):
    doubles_as_text = longs_as_text = 0
    for record in workload.records:
        if record.form != "blob" or record.table is not ACCOUNTS or record.op == "ALTER":
            continue
        message = record.message
        types = {c["name"]: c["type"] for c in message["schema"]["dataColumn"]}
        assert (ADDED_COLUMN[0] in types) == (record.sequence != FULL_LOAD_SEQUENCE
                                              and int(record.sequence) > workload.history.ddl.sequence)
        for block in ("before", "after"):
            image = message["payload"].get(block)
            for column, value in (image or {}).get("dataColumn", {}).items():
                doubles_as_text += types[column] == "DOUBLE" and isinstance(value, str)
                longs_as_text += types[column] == "LONG" and isinstance(value, str)
                if types[column] == "DATE" and value is not None:
                    assert isinstance(value, int) and len(str(value)) == 13
    assert doubles_as_text > 0 and longs_as_text > 0


def test_tuple_records_have_the_metadata_columns(workload):
    tuples = [record.message for record in workload.records if record.form == "tuple"]
    assert tuples and {m["_operation_type_"] for m in tuples} == {"I", "U", "D"}
    for message in tuples:
        assert message["_source_table_"] == ORDER_ITEMS.qualified
        assert message["_sequence_id_"].isdigit() and len(str(message["_excute_time_"])) == 13


# ---------------------------------------------------------------------------------------------
# Delivery
# ---------------------------------------------------------------------------------------------


def test_delivery_has_every_record_duplicates_and_resent_copies(workload):
    delivered = _delivered(workload)
    counts = Counter(index for _n, _name, index, _line in delivered)
    assert set(counts) == {record.index for record in workload.records}
    lines = Counter(line for _n, _name, _index, line in delivered)
    assert any(count > 1 for count in lines.values()), "no exact copies"
    resent = [(index, line) for _n, _name, index, line in delivered if line != workload.records[index].line]
    assert resent
    for index, line in resent:
        assert message_identity(line) == message_identity(workload.records[index].line)
    halves = {record.index for pair in _pairs(workload) for record in pair}
    assert any(counts[index] > 1 for index in halves), "no update half delivered twice"


def test_an_update_half_arrives_alone_in_a_later_batch(workload):
    """One pair's before half comes in the last batch, after its after half came in the first;
    another pair the other way round. The first is a key change."""
    first, last = _first_batch(workload), _last_batch(workload)
    final = len(workload.batches) - 1
    before_late = [(b, a) for b, a in _pairs(workload) if last[a.index] == 0 and first[b.index] == final]
    after_late = [(b, a) for b, a in _pairs(workload) if last[b.index] == 0 and first[a.index] == final]
    assert before_late and after_late
    changes = workload.history.changes()
    assert any(changes[b.change].kind == "key_change" for b, _a in before_late)


def test_changes_of_a_key_arrive_late(workload):
    first = _first_batch(workload)
    latest: dict[tuple, int] = {}
    late = 0
    for record in workload.records:
        if record.change is None:
            continue
        change = workload.history.changes()[record.change]
        key = (change.table.name, change.table.pk_json(change.after or change.before))
        late += first[record.index] < latest.get(key, -1)
        latest[key] = max(latest.get(key, -1), first[record.index])
    assert late > 0


def test_batches_and_files(workload, tmp_path):
    assert len(workload.batches) == 3
    assert all(1 <= len(batch) <= 3 for batch in workload.batches)
    names = [file.name for batch in workload.batches for file in batch]
    assert names == sorted(names) and len(set(names)) == len(names)
    for number, batch in enumerate(workload.batches, start=1):
        for part, file in enumerate(batch):
            assert file.name == f"batch{number}-part{part}.jsonl" and file.items
            path = file.write(tmp_path)
            records = list(read_landing_file(str(path)))
            assert [text for _number, text, _error in records] == file.lines
            assert all(error is None for _number, _text, error in records)


def test_workload_is_reproducible(workload):
    again = build_workload(workload.seed)
    assert [r.line for r in again.records] == [r.line for r in workload.records]
    assert deliver(workload.records, workload.seed) == workload.batches
    assert again.batches == workload.batches and again.expected == workload.expected


# ---------------------------------------------------------------------------------------------
# Parsing every delivered line
# ---------------------------------------------------------------------------------------------


def _parsed(workload) -> list[tuple[Record, dict]]:
    parsed = []
    for _number, _name, index, line in _delivered(workload):
        records = parse_datahub(line)
        assert len(records) == 1, records
        parsed.append((workload.records[index], records[0]))
    return parsed


def test_every_delivered_line_parses_without_quarantine(workload):
    parsed = _parsed(workload)
    assert [(r.line, p["reason"], p["detail"]) for r, p in parsed if p["kind"] == "quarantine"] == []
    for record, output in parsed:
        if record.op == "MHEARTBEAT":
            assert output["control_type"] == "heartbeat" and output["committed_at_us"]
        elif record.op.startswith("TRANSACTION_"):
            assert output["control_type"] == "transaction"
        elif record.op == "ALTER":
            content = json.loads(output["control_json"])
            assert output["control_type"] == "ddl" and content["matches_text"] is True
            assert content["added_columns"] == [{"name": "tier", "type": "varchar(16)"}]
        elif record.half == "before":
            assert output["control_type"] == "update_before_image"
            assert output["position"] == {"sequence_id": record.sequence, "image_rank": "0"}
            assert {k: json.loads(v) for k, v in output["before"].items()} == _data_image(record)
        else:
            assert output["kind"] == "change" and output["vendor_op"] in CONTRACT_OPS
            image = output["before"] if output["vendor_op"] == "DELETE" else output["after"]
            assert {k: json.loads(v) for k, v in image.items()} == _data_image(record)
            if record.full_load:
                assert output["vendor_op"] == "FULL_LOAD" and output["position"] is None
            else:
                assert output["position"] == {"sequence_id": record.sequence, "image_rank": "1"}
        expected_table = None if record.table is None or record.op == "MHEARTBEAT" else record.table.qualified
        assert output["source_table"] == expected_table


def _replay_parsed(workload) -> tuple[dict, dict]:
    """A second, independent reading: fold the parsed delivered records by the rules the SQL
    applies (dedupe; FULL_LOAD is a class-0 snapshot; order by sequence id then image rank; an
    UPDATE_AFTER whose before image, in itself or in its UPDATE_BEFOR, has another key also
    deletes that key; D5 folding)."""
    seed_keys = {table: columns.split("|") for vendor, table, columns in PRIMARY_KEY_SEED_ROWS if vendor == VENDOR}
    unique: dict[str, dict] = {}
    for _record, output in _parsed(workload):
        identity = {k: output[k] for k in ("kind", "control_type", "vendor_op", "source_table", "position",
                                           "key", "before", "after")}
        unique.setdefault(canonical_json(identity), output)
    before_halves = {(o["source_table"], o["position"]["sequence_id"]): o for o in unique.values()
                     if o["control_type"] == "update_before_image"}

    def key_of(output: dict, image: dict[str, str]) -> str:
        columns = list(output["key"]) if output["key"] else seed_keys[output["source_table"]]
        return canonical_json({column: json.loads(image[column]) for column in columns})

    per_key: dict[tuple, list] = {}
    for output in unique.values():
        if output["kind"] != "change":
            continue
        op = CONTRACT_OPS[output["vendor_op"]]
        image = output["before"] if op == "delete" else output["after"]
        row = {column: json.loads(value) for column, value in image.items()}
        position = output["position"]
        order = (0, 0, 0) if position is None else (1, int(position["sequence_id"]), int(position["image_rank"]))
        table = output["source_table"]
        per_key.setdefault((table, key_of(output, image)), []).append((order, op, row))
        if op == "update":
            half = before_halves.get((table, position["sequence_id"]))
            before = output["before"] or (half and half["before"])
            if before and key_of(output, before) != key_of(output, image):
                old_row = {column: json.loads(value) for column, value in before.items()}
                per_key.setdefault((table, key_of(output, before)), []).append((order[:2] + (0,), "delete", old_row))
    current, history = {}, {}
    for key, events in per_key.items():
        alive, versions = None, []
        for _order, op, row in sorted(events, key=lambda event: event[0]):
            if op == "delete":
                if alive is not None:
                    versions.append(("delete", True, canonical_json(alive)))
                alive = None
            else:
                alive = {**alive, **row} if alive is not None else row
                versions.append((op, False, canonical_json(alive)))
        if versions:
            history[key] = versions
        if alive is not None:
            current[key] = canonical_json(alive)
    return current, history


def test_parsed_records_replay_to_the_oracle(workload):
    current, history = _replay_parsed(workload)
    assert current == workload.expected.current
    assert history == workload.expected.history


# ---------------------------------------------------------------------------------------------
# Oracle
# ---------------------------------------------------------------------------------------------


def test_oracle_current_is_the_last_live_version_of_each_key(workload):
    current, history = workload.expected
    assert current == {key: versions[-1][2] for key, versions in history.items() if not versions[-1][1]}


def test_oracle_rows_are_canonical_and_typed(workload):
    for (table_name, pk), versions in workload.expected.history.items():
        table = TABLE_BY_NAME[table_name]
        assert pk == canonical_json(json.loads(pk)) and set(json.loads(pk)) == set(table.key)
        columns = {name for name, _kind, _nullable in table.columns}
        for op, _is_deleted, row in versions:
            assert op in {"insert", "update", "delete", "snapshot"}
            values = json.loads(row)
            assert row == canonical_json(values)
            assert set(values) - columns <= ({ADDED_COLUMN[0]} if table is ACCOUNTS else set())
            assert columns <= set(values)
            if table is ACCOUNTS and values["opened_at"] is not None:
                assert values["opened_at"].endswith("Z")


def test_oracle_rows_not_changed_since_the_alter_keep_the_old_columns(workload):
    current = {key: json.loads(row) for key, row in workload.expected.current.items() if key[0] == ACCOUNTS.qualified}
    with_tier = [row for row in current.values() if ADDED_COLUMN[0] in row]
    assert with_tier and len(with_tier) < len(current)


def test_oracle_full_load_rows_come_first_and_lose(workload):
    history = workload.expected.history
    snapshots = {key: versions for key, versions in history.items() if versions[0][0] == "snapshot"}
    assert snapshots
    assert all(op != "snapshot" for versions in history.values() for op, _d, _r in versions[1:])
    assert any(len(versions) > 1 for versions in snapshots.values())


def test_oracle_key_change_is_delete_plus_update(workload):
    history = workload.expected.history
    deletes = 0
    for change in workload.history.changes():
        if change.kind != "key_change":
            continue
        table = change.table
        new = history[(table.qualified, table.pk_json(change.after))]
        assert ("update", False, canonical_json(contract_row(table, change.after))) in new
        old = history.get((table.qualified, table.pk_json(change.before)), [])
        deletes += any(op == "delete" for op, _d, _r in old)
    assert deletes > 0


def test_oracle_versions_alternate_between_alive_and_deleted(workload):
    for versions in workload.expected.history.values():
        for (_op, deleted, _row), (next_op, next_deleted, _next_row) in pairwise(versions):
            if deleted:
                assert not next_deleted and next_op != "snapshot"


def _missing_seed_rows() -> list[tuple]:
    with PRIMARY_KEY_SEED.open(newline="", encoding="utf-8") as handle:
        rows = {(r["source_vendor"].strip(), r["source_table"].strip(), r["key_columns"].strip())
                for r in csv.DictReader(handle)}
    return [row for row in PRIMARY_KEY_SEED_ROWS if row not in rows]


def test_primary_key_seed_has_the_workload_rows():
    if not PRIMARY_KEY_SEED.exists() or _missing_seed_rows():
        pytest.skip(f"{PRIMARY_KEY_SEED.name} lacks {PRIMARY_KEY_SEED_ROWS} (the end-to-end test requires it)")
    assert _missing_seed_rows() == []

# The project against the oracle: tests/pytest/test_workloads_end_to_end.py (all vendors at once).
