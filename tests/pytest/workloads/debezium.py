"""A seeded Debezium (Oracle connector) workload: source history, records, delivery, oracle.

Four steps, each a pure function of its inputs and a seed, so any failure can be replayed:

1. :func:`generate_history` simulates a source database: an initial snapshot of ``CUSTOMERS``
   and then transactions of inserts, updates, deletes, re-inserts of deleted keys, primary-key
   changes and one ``TRUNCATE`` of ``ORDER_LINES``.
2. :func:`render` turns that history into the Debezium messages the Oracle connector would
   emit (``r``/``c``/``u``/``d``/``t``, tombstones, key change as delete + tombstone + create),
   each in one of three envelopes: Kafka record wrapper, ``schema``/``payload``, bare payload.
3. :func:`deliver` delivers them at least once and out of order: duplicated, shuffled, split
   into batches with some records held back, each batch split into files.
4. :func:`oracle` replays the *source history* (never the messages) and says what
   ``cdc_current`` and ``cdc_history`` must contain (DECISIONLOG D5, D6).

:func:`build_workload` runs all four.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from python_udfs.contract import canonical_json
from workloads import KeyedTable

VENDOR = "debezium"
CONNECTOR_VERSION = "2.7.0.Final"
SERVER = "server1"
DATABASE = "ORCLPDB1"
SCHEMA = "INVENTORY"
# 7 digits; a few hundred changes later SCNs have 8, so text order != numeric order.
FIRST_SCN = 9_999_850
SNAPSHOT_ROWS = 10
START_MS = 1_718_000_000_000


@dataclass(frozen=True)
class Table(KeyedTable):
    name: str
    key: tuple[str, ...]
    # (column, Kafka Connect type, optional) in table order
    columns: tuple[tuple[str, str, bool], ...]

    @property
    def qualified(self) -> str:
        """The name the contract uses: non-empty parts of database, schema, table."""
        return f"{DATABASE}.{SCHEMA}.{self.name}"

    @property
    def topic(self) -> str:
        return f"{SERVER}.{SCHEMA}.{self.name}"


CUSTOMERS = Table(
    "CUSTOMERS",
    ("ID",),
    (("ID", "int32", False), ("FIRST_NAME", "string", False), ("LAST_NAME", "string", False),
     ("EMAIL", "string", True), ("VISITS", "int32", False), ("SCORE", "double", True)),
)
ORDER_LINES = Table(
    "ORDER_LINES",
    ("ORDER_ID", "LINE_NO"),
    (("ORDER_ID", "int32", False), ("LINE_NO", "int32", False), ("PRODUCT", "string", False),
     ("QUANTITY", "int32", False), ("NOTE", "string", True), ("UNIT_PRICE", "double", False)),
)
TABLES = (CUSTOMERS, ORDER_LINES)

# What seeds/cdc_primary_keys.csv must hold for this workload (source_vendor, source_table,
# key_columns). CUSTOMERS needs no row: the Kafka key or its `ID` column identifies it (D7).
PRIMARY_KEY_SEED_ROWS = ((VENDOR, ORDER_LINES.qualified, "|".join(ORDER_LINES.key)),)

# Values: a few non-ASCII and JSON-escaped characters so encoding bugs show up in `row`.
FIRST_NAMES = ("Anne", "Sally", "George", "Edward", "Zoë", "José", "Łukasz", "李", 'Dwayne "Rock"')
LAST_NAMES = ("Kretchmar", "Thomas", "Bailey", "Walker", "O'Neil", "Müller", "Nakamura")
PRODUCTS = ("scooter", "car battery", "12-pack drill bits", "hammer", "rocks", "jacket", "spare tire")
NOTES = ("gift wrap", "leave at door", "fragile — handle with care", "back\\order", "n/a")


# ---------------------------------------------------------------------------------------------
# 1. Source history
# ---------------------------------------------------------------------------------------------


@dataclass
class Change:
    """One row change as the source database logged it.

    ``kind`` is 'snapshot', 'insert', 'reinsert', 'update', 'delete', 'key_change' or
    'truncate'. A key change is one source change (one SCN) with the old row as ``before``
    and the new row, under a new key, as ``after``.
    """

    kind: str
    table: Table
    before: dict | None
    after: dict | None
    scn: int
    rs_id: str | None
    ssn: int


@dataclass
class Transaction:
    tx_id: str | None
    commit_scn: int | None
    commit_ms: int
    changes: list[Change] = field(default_factory=list)


@dataclass
class SourceHistory:
    seed: int
    # the rows that existed before streaming started, read by the connector's snapshot
    snapshot: Transaction
    transactions: list[Transaction]

    def changes(self) -> list[Change]:
        return [c for txn in [self.snapshot, *self.transactions] for c in txn.changes]


OP_WEIGHTS = {"insert": 30, "update": 35, "delete": 12, "reinsert": 8, "key_change": 8}


class _Simulator:
    """Applies random operations to an in-memory source database and logs them as changes."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.alive: dict[str, dict[tuple, dict]] = {t.name: {} for t in TABLES}
        # dicts as ordered sets, so choices do not depend on set iteration order
        self.dead: dict[str, dict[tuple, None]] = {t.name: {} for t in TABLES}
        self.next_customer_id = 1001
        self.order_lines: dict[int, int] = {}  # order id -> highest line number used
        self.next_order_id = 5001
        self.scn = FIRST_SCN
        self.clock_ms = START_MS
        self.redo_block = 0x12345
        self.pending: list[Change] = []

    # -- positions ---------------------------------------------------------------------------

    def _next_position(self) -> tuple[int, str]:
        self.scn += self.rng.randint(1, 3)
        self.redo_block += self.rng.randint(1, 40)
        log_sequence = 0xA1 + (self.scn - FIRST_SCN) // 1000
        return self.scn, f" 0x{log_sequence:06x}.{self.redo_block:08x}.{0x10:04x} "

    def _log(self, kind: str, table: Table, before: dict | None, after: dict | None) -> Change:
        scn, rs_id = self._next_position()
        change = Change(kind, table, before, after, scn, rs_id, ssn=len(self.pending))
        self.pending.append(change)
        return change

    # -- values ------------------------------------------------------------------------------

    def _value(self, table: Table, column: str, row: dict) -> Any:
        rng = self.rng
        if column == "FIRST_NAME":
            return rng.choice(FIRST_NAMES)
        if column == "LAST_NAME":
            return rng.choice(LAST_NAMES)
        if column == "EMAIL":
            return None if rng.random() < 0.25 else f"user{rng.randint(1, 9999)}@example.com"
        if column == "VISITS":
            return rng.randint(0, 500)
        if column == "SCORE":
            return None if rng.random() < 0.15 else round(rng.uniform(0, 100), 2)
        if column == "PRODUCT":
            return rng.choice(PRODUCTS)
        if column == "QUANTITY":
            return rng.randint(1, 20)
        if column == "NOTE":
            return None if rng.random() < 0.4 else rng.choice(NOTES)
        if column == "UNIT_PRICE":
            return round(rng.uniform(0.5, 999), 2)
        raise KeyError(f"{table.name}.{column}")

    def _new_row(self, table: Table, key: dict) -> dict:
        row = dict(key)
        for column, _type, _optional in table.columns:
            if column not in key:
                row[column] = self._value(table, column, row)
        return row

    def _fresh_key(self, table: Table) -> dict:
        if table is CUSTOMERS:
            self.next_customer_id += 1
            return {"ID": self.next_customer_id - 1}
        if not self.order_lines or self.rng.random() < 0.4:
            order_id, self.next_order_id = self.next_order_id, self.next_order_id + 1
        else:
            order_id = self.rng.choice(list(self.order_lines))
        return self._next_line(order_id)

    def _next_line(self, order_id: int) -> dict:
        line_no = self.order_lines.get(order_id, 0) + 1
        self.order_lines[order_id] = line_no
        return {"ORDER_ID": order_id, "LINE_NO": line_no}

    def _pick(self, keys: dict) -> tuple:
        return self.rng.choice(list(keys))

    # -- operations --------------------------------------------------------------------------

    def insert(self, table: Table, key: dict | None = None, kind: str = "insert") -> Change:
        row = self._new_row(table, key or self._fresh_key(table))
        self.alive[table.name][table.key_tuple(row)] = row
        return self._log(kind, table, None, row)

    def reinsert(self, table: Table, key: tuple | None = None) -> Change:
        key = key or self._pick(self.dead[table.name])
        del self.dead[table.name][key]
        return self.insert(table, dict(zip(table.key, key)), kind="reinsert")

    def update(self, table: Table) -> Change:
        key = self._pick(self.alive[table.name])
        before = self.alive[table.name][key]
        after = dict(before)
        non_key = [c for c, _t, _o in table.columns if c not in table.key]
        while after == before:  # an update that changes nothing would not be logged
            for column in self.rng.sample(non_key, self.rng.randint(1, 3)):
                after[column] = self._value(table, column, after)
        self.alive[table.name][key] = after
        return self._log("update", table, before, after)

    def delete(self, table: Table) -> Change:
        key = self._pick(self.alive[table.name])
        before = self.alive[table.name].pop(key)
        self.dead[table.name][key] = None
        return self._log("delete", table, before, None)

    def key_change(self, table: Table) -> Change:
        old_key = self._pick(self.alive[table.name])
        before = self.alive[table.name].pop(old_key)
        dead = self.dead[table.name]
        if dead and self.rng.random() < 0.3:
            # the new key is one deleted earlier: its history resumes
            resurrected = self._pick(dead)
            del dead[resurrected]
            new_key = dict(zip(table.key, resurrected))
        elif table is ORDER_LINES and self.rng.random() < 0.5:
            new_key = self._next_line(before["ORDER_ID"])  # renumbered within its order
        else:
            new_key = self._fresh_key(table)
        after = {**before, **new_key}
        if self.rng.random() < 0.5:  # the same UPDATE may set other columns too
            column = self.rng.choice([c for c, _t, _o in table.columns if c not in table.key])
            after[column] = self._value(table, column, after)
        dead[old_key] = None
        self.alive[table.name][table.key_tuple(after)] = after
        return self._log("key_change", table, before, after)

    def truncate(self, table: Table) -> Change:
        for key in self.alive[table.name]:
            self.dead[table.name][key] = None
        self.alive[table.name].clear()
        return self._log("truncate", table, None, None)

    def random_change(self) -> Change:
        table = self.rng.choice(TABLES)
        kind = self.rng.choices(list(OP_WEIGHTS), weights=list(OP_WEIGHTS.values()))[0]
        alive = len(self.alive[table.name])
        # keep each table populated, and only pick what the current state allows
        if (kind in ("update", "key_change") and alive == 0) or (kind == "delete" and alive < 3):
            kind = "insert"
        if kind == "reinsert" and not self.dead[table.name]:
            kind = "insert"
        return getattr(self, kind)(table)

    # -- transactions ------------------------------------------------------------------------

    def commit(self, tx_id: str | None) -> Transaction:
        self.scn += self.rng.randint(1, 3)
        self.clock_ms += self.rng.randint(1, 5_000)
        txn = Transaction(tx_id, self.scn, self.clock_ms, self.pending)
        self.pending = []
        return txn

    def snapshot(self) -> Transaction:
        """Rows that exist before streaming starts, read by the connector at one SCN."""
        for _ in range(SNAPSHOT_ROWS):
            self.insert(CUSTOMERS, kind="snapshot")
        for change in self.pending:
            change.scn, change.rs_id, change.ssn = FIRST_SCN, None, 0
        self.scn = FIRST_SCN
        txn = Transaction(None, None, self.clock_ms, self.pending)
        self.pending = []
        return txn


def generate_history(seed: int, transactions: int = 200) -> SourceHistory:
    """A random but reproducible source history of ``transactions`` transactions (1–4 changes)."""
    if transactions < 8:
        raise ValueError("need at least 8 transactions to place the truncate after the middle")
    rng = random.Random(f"{seed}/history")
    sim = _Simulator(rng)
    snapshot = sim.snapshot()
    truncate_at = rng.randint(transactions // 2 + 1, transactions * 3 // 4)
    truncated: list[tuple] = []
    txns = []
    for index in range(transactions):
        tx_id = f"{0x0A000000 + index:08x}{rng.getrandbits(32):08x}"
        if index == truncate_at:
            # TRUNCATE is DDL: a transaction of its own
            truncated = list(sim.alive[ORDER_LINES.name])
            sim.truncate(ORDER_LINES)
        else:
            if index == truncate_at + 1 and truncated:
                sim.reinsert(ORDER_LINES, rng.choice(truncated))  # a truncated key comes right back
            size = rng.randint(1, 4)
            while len(sim.pending) < size:
                sim.random_change()
        txns.append(sim.commit(tx_id))
    return SourceHistory(seed, snapshot, txns)


# ---------------------------------------------------------------------------------------------
# 2. Rendering as Debezium messages
# ---------------------------------------------------------------------------------------------


@dataclass(eq=False)
class Record:
    """One message as it lands in a file: ``message`` is the JSON document of one line."""

    index: int  # position in the connector's output stream
    topic: str
    kind: str  # Debezium op ('r', 'c', 'u', 'd', 't') or 'tombstone'
    envelope: str  # 'kafka', 'schema' or 'bare'
    offset: int  # Kafka offset in its topic (only written when envelope == 'kafka')
    message: dict

    @property
    def line(self) -> str:
        return _dump(self.message)


def _dump(document: Any) -> str:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def _source_block(change: Change, txn: Transaction, snapshot: str) -> dict:
    return {
        "version": CONNECTOR_VERSION, "connector": "oracle", "name": SERVER, "ts_ms": txn.commit_ms,
        "snapshot": snapshot, "db": DATABASE, "schema": SCHEMA, "table": change.table.name,
        "txId": txn.tx_id, "scn": str(change.scn),
        "commit_scn": None if txn.commit_scn is None else str(txn.commit_scn),
        "rs_id": change.rs_id, "ssn": change.ssn,
        # snapshot reads come from a query, not from the redo log
        "redo_thread": None if txn.tx_id is None else 1,
    }


def _field(connect_type: str, field_name: str, optional: bool = True, **extra: Any) -> dict:
    return {"type": connect_type, "optional": optional, "field": field_name, **extra}


SOURCE_SCHEMA = {
    "type": "struct",
    "fields": [
        _field("string", "version", False), _field("string", "connector", False),
        _field("string", "name", False), _field("int64", "ts_ms", False),
        _field("string", "snapshot", name="io.debezium.data.Enum", version=1,
               parameters={"allowed": "true,last,false,incremental"}, default="false"),
        _field("string", "db", False), _field("string", "schema", False),
        _field("string", "table", False), _field("string", "txId"), _field("string", "scn"),
        _field("string", "commit_scn"), _field("string", "rs_id"), _field("int64", "ssn"),
        _field("int32", "redo_thread"),
    ],
    "optional": False,
    "name": "io.debezium.connector.oracle.Source",
    "field": "source",
}


def connect_schema(table: Table) -> dict:
    """The Kafka Connect value schema the JSON converter writes with ``schemas.enable``."""
    columns = [_field(t, name, optional) for name, t, optional in table.columns]

    def image(name: str) -> dict:
        return {"type": "struct", "fields": columns, "optional": True,
                "name": f"{table.topic}.Value", "field": name}

    return {
        "type": "struct",
        "fields": [image("before"), image("after"), SOURCE_SCHEMA,
                   _field("string", "op", False), _field("int64", "ts_ms")],
        "optional": False,
        "name": f"{table.topic}.Envelope",
        "version": 1,
    }


class _Renderer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.records: list[Record] = []
        self.offsets: dict[str, int] = {}
        self.last_ts_ms = START_MS

    def _append(self, table: Table, kind: str, key: dict | None, payload: dict | None) -> None:
        offset = self.offsets.get(table.topic, 0)
        self.offsets[table.topic] = offset + 1
        # a tombstone only exists as a Kafka record (its value is null)
        envelope = "kafka" if payload is None else self.rng.choices(
            ["kafka", "schema", "bare"], weights=[4, 3, 3])[0]
        value: dict | None = payload
        if payload is not None and envelope != "bare" and (envelope == "schema" or self.rng.random() < 0.3):
            value = {"schema": connect_schema(table), "payload": payload}
        if envelope == "kafka":
            timestamp = payload["ts_ms"] if payload else self.last_ts_ms
            message = {"topic": table.topic, "partition": 0, "offset": offset, "timestamp": timestamp,
                       "key": key, "value": value}
        else:
            message = value
        self.records.append(Record(len(self.records), table.topic, kind, envelope, offset, message))

    def _payload(self, op: str, change: Change, txn: Transaction, before: dict | None,
                 after: dict | None, snapshot: str = "false") -> dict:
        # ts_ms of the payload is when the connector processed the change, after the commit
        self.last_ts_ms = txn.commit_ms + self.rng.randint(5, 1_500)
        return {"before": before, "after": after, "source": _source_block(change, txn, snapshot),
                "op": op, "ts_ms": self.last_ts_ms}

    def change(self, change: Change, txn: Transaction, last_of_snapshot: bool = False) -> None:
        table, before, after = change.table, change.before, change.after
        if change.kind == "snapshot":
            flag = "last" if last_of_snapshot else "true"
            self._append(table, "r", table.key_of(after), self._payload("r", change, txn, None, after, flag))
        elif change.kind in ("insert", "reinsert"):
            self._append(table, "c", table.key_of(after), self._payload("c", change, txn, None, after))
        elif change.kind == "update":
            self._append(table, "u", table.key_of(after), self._payload("u", change, txn, before, after))
        elif change.kind == "delete":
            self._append(table, "d", table.key_of(before), self._payload("d", change, txn, before, None))
            self._append(table, "tombstone", table.key_of(before), None)
        elif change.kind == "key_change":
            # Debezium splits a primary-key UPDATE: delete old key, tombstone, create new key
            self._append(table, "d", table.key_of(before), self._payload("d", change, txn, before, None))
            self._append(table, "tombstone", table.key_of(before), None)
            self._append(table, "c", table.key_of(after), self._payload("c", change, txn, None, after))
        elif change.kind == "truncate":
            self._append(table, "t", None, self._payload("t", change, txn, None, None))
        else:
            raise ValueError(change.kind)


def render(history: SourceHistory, seed: int) -> list[Record]:
    """The connector's output stream, in order, each record in a (seeded) random envelope."""
    renderer = _Renderer(random.Random(f"{seed}/render"))
    snapshot = history.snapshot.changes
    for position, change in enumerate(snapshot):
        renderer.change(change, history.snapshot, last_of_snapshot=position == len(snapshot) - 1)
    for txn in history.transactions:
        for change in txn.changes:
            renderer.change(change, txn)
    return renderer.records


def payload_of(message: dict) -> dict | None:
    """The Debezium payload inside any of the three envelopes (None for a tombstone)."""
    if "topic" in message and "value" in message:
        message = message["value"]
        if message is None:
            return None
    if "schema" in message and "payload" in message:
        return message["payload"]
    return message


def message_identity(line: str) -> str:
    """What makes two lines the same source change: op, source block and images.

    Not the envelope, Kafka offset or processing time, so a re-delivered copy has the identity
    of its original. Tombstones carry nothing but a key, so their offset identifies them.
    """
    message = json.loads(line)
    payload = payload_of(message)
    if payload is None:
        return canonical_json(["tombstone", message["topic"], message["key"], message["offset"]])
    return canonical_json([payload["op"], payload["source"], payload["before"], payload["after"]])


# ---------------------------------------------------------------------------------------------
# 3. At-least-once, out-of-order delivery
# ---------------------------------------------------------------------------------------------

Batch = list[tuple[str, list[str]]]


def _redelivered(record: Record, next_offset: dict[str, int], rng: random.Random) -> str:
    """The same change sent again after a connector restart: new processing time (and offset)."""
    message = copy.deepcopy(record.message)
    payload = payload_of(message)
    payload["ts_ms"] += rng.randint(60_000, 3_600_000)
    if record.envelope == "kafka":
        message["offset"] = next_offset[record.topic]
        message["timestamp"] = payload["ts_ms"]
        next_offset[record.topic] += 1
    return _dump(message)


def _with_duplicates(records: list[Record], rng: random.Random, rate: float) -> list[str]:
    next_offset: dict[str, int] = {}
    for record in records:
        next_offset[record.topic] = max(next_offset.get(record.topic, 0), record.offset + 1)
    lines = []
    for record in records:
        lines.append(record.line)
        if rng.random() < rate:
            exact = record.kind == "tombstone" or rng.random() < 0.5
            lines.append(record.line if exact else _redelivered(record, next_offset, rng))
    return lines


def _split_files(batch_number: int, width: int, lines: list[str], rng: random.Random) -> Batch:
    if not lines:
        raise ValueError(f"batch {batch_number} is empty: too few records for the batch count")
    parts = min(rng.randint(1, 3), len(lines))
    cuts = [0, *sorted(rng.sample(range(1, len(lines)), parts - 1)), len(lines)]
    return [(f"batch{batch_number:0{width}d}-part{p}.jsonl", lines[cuts[p]:cuts[p + 1]])
            for p in range(len(cuts) - 1)]


def deliver(records: list[Record], seed: int, batches: int = 3, duplicate_rate: float = 0.1,
            holdback_rate: float = 0.1) -> list[Batch]:
    """Lines of ``records`` as batches of files ``(name, lines)``; every record at least once.

    Some records are duplicated (exact copies, or re-sent with a later payload ``ts_ms``), all
    are shuffled and cut into ``batches`` equal runs, and ``holdback_rate`` of each batch's lines
    move to a random later batch. Each batch is split into 1–3 files whose names sort in
    delivery order.
    """
    rng = random.Random(f"{seed}/deliver")
    lines = _with_duplicates(records, rng, duplicate_rate)
    rng.shuffle(lines)
    per_batch: list[list[str]] = [[] for _ in range(batches)]
    for position, line in enumerate(lines):
        number = position * batches // len(lines)
        if number < batches - 1 and rng.random() < holdback_rate:
            number = rng.randint(number + 1, batches - 1)
        per_batch[number].append(line)
    width = len(str(batches))
    result = []
    for number, batch_lines in enumerate(per_batch, start=1):
        rng.shuffle(batch_lines)  # held-back lines mix with the batch's own
        result.append(_split_files(number, width, batch_lines, rng))
    return result


# ---------------------------------------------------------------------------------------------
# 4. Oracle
# ---------------------------------------------------------------------------------------------

Key = tuple[str, str]  # (source_table, pk_json)
Version = tuple[str, bool, str]  # (op, is_deleted, row_json)


class Expected(NamedTuple):
    current: dict[Key, str]
    history: dict[Key, list[Version]]


class _Replay:
    def __init__(self) -> None:
        self.alive: dict[Key, dict] = {}
        self.history: dict[Key, list[Version]] = {}

    def _version(self, key: Key, op: str, is_deleted: bool, row: dict) -> None:
        self.history.setdefault(key, []).append((op, is_deleted, canonical_json(row)))

    def upsert(self, table: Table, op: str, before: dict | None, after: dict) -> None:
        key = (table.qualified, table.pk_json(after))
        # the generator's images must agree with the replayed state, or the workload is wrong
        assert self.alive.get(key) == before, f"{op} of {key}: before image disagrees with state"
        self.alive[key] = after
        self._version(key, op, False, after)

    def delete(self, table: Table, before: dict, op: str = "delete") -> None:
        key = (table.qualified, table.pk_json(before))
        if key in self.alive:  # deleting a key that is not alive gives no version (D5)
            self._version(key, op, True, self.alive.pop(key))

    def truncate(self, table: Table) -> None:
        for key in [k for k in self.alive if k[0] == table.qualified]:
            self._version(key, "truncate", True, self.alive.pop(key))

    def apply(self, change: Change) -> None:
        table = change.table
        if change.kind == "snapshot":
            self.upsert(table, "snapshot", None, change.after)
        elif change.kind in ("insert", "reinsert"):
            self.upsert(table, "insert", None, change.after)
        elif change.kind == "update":
            self.upsert(table, "update", change.before, change.after)
        elif change.kind == "delete":
            self.delete(table, change.before)
        elif change.kind == "key_change":
            self.delete(table, change.before)
            self.upsert(table, "insert", None, change.after)
        elif change.kind == "truncate":
            self.truncate(table)
        else:
            raise ValueError(change.kind)


def oracle(history: SourceHistory) -> Expected:
    """Expected ``cdc_current`` rows and ``cdc_history`` versions, from the source history alone."""
    replay = _Replay()
    for change in history.changes():
        replay.apply(change)
    current = {key: canonical_json(row) for key, row in replay.alive.items()}
    return Expected(current, replay.history)


# ---------------------------------------------------------------------------------------------


@dataclass
class Workload:
    seed: int
    history: SourceHistory
    records: list[Record]
    batches: list[Batch]
    expected: Expected


def build_workload(seed: int, transactions: int = 200, **delivery: Any) -> Workload:
    history = generate_history(seed, transactions)
    records = render(history, seed)
    return Workload(seed, history, records, deliver(records, seed, **delivery), oracle(history))
