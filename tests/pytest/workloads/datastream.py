"""A seeded Google Datastream workload: source history, events, delivery, oracle.

The same four steps as :mod:`workloads.debezium`, each a pure function of its inputs and a seed:

1. :func:`generate_history` simulates two source databases read by two streams: a MySQL table
   ``shop.customers`` (key ``id``) and a PostgreSQL table ``app.public.orders`` (key
   ``order_id`` + ``line``). Datastream's backfill scans both tables in key order while CDC is
   already running, so some keys change before the scan reaches them (the backfill reads the
   changed row) and some after (the backfill row is stale). Then transactions of 1–4 changes:
   inserts, full-row updates, deletes, re-inserts and primary-key changes. The MySQL binlog
   rotates from ``mysql-bin.000009`` to ``000010`` and beyond (positions restart lower), the
   PostgreSQL LSN climbs from ``9/FFFFFF00`` past ``A/…`` to ``10/…`` (text order is wrong).
2. :func:`render` turns it into the events Datastream writes: generic metadata
   (``uuid``, ``read_timestamp``, ``source_timestamp``, ``object``, ``read_method``,
   ``stream_name``, ``schema_key``, ``sort_keys``), ``source_metadata`` per engine and the
   full row as ``payload``. A key change is ``UPDATE-DELETE`` (old key, old row) +
   ``UPDATE-INSERT`` (new key) at one position.
3. :func:`deliver` delivers them at least once and out of order: exact copies, copies re-sent
   with a new ``uuid`` (same position and payload), shuffled, 3 batches with some events held
   back, backfill rows of contested keys pushed behind the CDC changes of their key, and each
   batch written as 1–3 files in three formats: JSONL, JSON array, Avro object container.
4. :func:`oracle` folds the source history by DECISIONLOG D3/D5 (backfill rows are class 0,
   before every CDC change of their key, whatever their arrival) and says what
   ``cdc_current`` and ``cdc_history`` must contain.

:func:`build_workload` runs all four.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import random
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import fastavro

from python_udfs.contract import canonical_json
from workloads import KeyedTable
from workloads.debezium import Expected, Key, Version

VENDOR = "datastream"
START_MS = 1_718_000_000_000  # 2024-06-10T06:13:20Z
STREAM_PREFIX = "projects/482915307761/locations/europe-west1/streams"

# MySQL binlog: the stream starts late in file 9; a file rotates once it passes ROTATE_AT bytes.
FIRST_BINLOG_FILE = 9
FIRST_BINLOG_POSITION = 24_000
BINLOG_ROTATE_AT = 40_000
# PostgreSQL WAL: the first change is at 9/FFFFFF00; the LSN crosses A/00000000 at once and
# 10/00000000 about halfway through the PostgreSQL transactions.
FIRST_LSN = 0x9_FFFF_FF00
LSN_BOUNDARIES = (0xA_0000_0000, 0x10_0000_0000)

# Contract op of each Datastream change_type. 'UPDATE-INSERT' is MySQL's code for the new row of
# any UPDATE (real samples) and also the new key of a key change: see `update_insert_op`.
CHANGE_TYPE_OPS = {"INSERT": "insert", "UPDATE": "update", "UPDATE-INSERT": "update",
                   "UPDATE-DELETE": "delete", "DELETE": "delete"}
FORMATS = ("jsonl", "json", "avro")


@dataclass(frozen=True)
class Table(KeyedTable):
    engine: str  # 'mysql' or 'postgresql'
    database: str
    schema: str | None  # MySQL has none
    name: str
    key: tuple[str, ...]
    # (column, Avro type, nullable) in table order
    columns: tuple[tuple[str, str, bool], ...]
    stream: str

    @property
    def qualified(self) -> str:
        """The name the contract uses: non-empty parts of database, schema, table."""
        return ".".join(part for part in (self.database, self.schema, self.name) if part)

    @property
    def object_name(self) -> str:
        """Datastream's ``object``: ``<database>_<table>`` for MySQL, ``<schema>_<table>`` for PostgreSQL."""
        return f"{self.schema or self.database}_{self.name}"

    @property
    def stream_name(self) -> str:
        return f"{STREAM_PREFIX}/{self.stream}"

    @property
    def schema_key(self) -> str:
        return hashlib.sha1(f"{self.stream}/{self.qualified}".encode()).hexdigest()

    @property
    def non_key(self) -> tuple[str, ...]:
        return tuple(column for column, _type, _nullable in self.columns if column not in self.key)


CUSTOMERS = Table(
    "mysql", "shop", None, "customers", ("id",),
    (("id", "int", False), ("name", "string", False), ("email", "string", True), ("visits", "int", False)),
    "shop-mysql-cdc",
)
ORDERS = Table(
    "postgresql", "app", "public", "orders", ("order_id", "line"),
    (("order_id", "int", False), ("line", "int", False), ("sku", "string", False), ("qty", "int", False),
     ("note", "string", True)),
    "app-postgresql-cdc",
)
TABLES = (CUSTOMERS, ORDERS)
TABLE_BY_ENGINE = {table.engine: table for table in TABLES}
READ_METHODS = {  # (backfill, CDC)
    "mysql": ("mysql-backfill-fulldump", "mysql-cdc-binlog"),
    "postgresql": ("postgresql-backfill", "postgresql-cdc"),
}

# Values: non-ASCII, JSON escapes, a newline and a 4-byte character, so encoding bugs show up in `row`.
NAMES = ("Anne", "Zoë", "José", "Łukasz", "李雷", "O'Neil", 'Dwayne "Rock"', "Back\\slash", "Ann\nMarie",
         "Søren", "Noor")
DOMAINS = ("example.com", "exämple.org", "mail.test")
SKUS = ("SKU-0001", "SKU-0042", "SKU-1337", "GIFT-CARD", "CAFÉ-BEANS", "TEA/GREEN", "KIT<3>")
NOTES = ("leave at door", "fragile — handle with care", "🎁 gift wrap", 'say "hi"', "tab\there", "n/a")
INITIAL_CUSTOMERS = 15
INITIAL_ORDERS = 6  # with 1–3 lines each

OP_WEIGHTS = {"insert": 28, "update": 40, "delete": 12, "reinsert": 8, "key_change": 8}


# ---------------------------------------------------------------------------------------------
# 1. Source history
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """Where a change is in its source log: binlog file + offset (MySQL) or LSN (PostgreSQL)."""

    log_file: str | None = None
    log_position: int | None = None
    lsn: int | None = None

    @property
    def lsn_text(self) -> str | None:
        """PostgreSQL's ``X/YYYYYYYY``: two hex numbers, high part unpadded."""
        return None if self.lsn is None else f"{self.lsn >> 32:X}/{self.lsn & 0xFFFF_FFFF:08X}"

    def order(self) -> tuple[int, ...]:
        if self.lsn is not None:
            return (self.lsn,)
        return (int(self.log_file.rsplit(".", 1)[1]), self.log_position)


@dataclass
class Change:
    """One row change as the source logged it.

    ``kind`` is 'insert', 'reinsert', 'update', 'delete' or 'key_change' (one UPDATE that sets
    the key: ``before`` is the old row, ``after`` the row under its new key). Rows are full.
    """

    kind: str
    table: Table
    before: dict | None
    after: dict | None
    position: Position


@dataclass
class Transaction:
    index: int
    engine: str
    tx_id: int | None  # PostgreSQL only
    commit_ms: int
    changes: list[Change] = field(default_factory=list)


@dataclass
class BackfillRead:
    """One row the backfill read, with the source state at that moment."""

    table: Table
    row: dict
    read_ms: int
    # how many CDC transactions had committed when the row was read
    after_transactions: int


@dataclass
class SourceHistory:
    seed: int
    initial: dict[str, list[dict]]  # table name -> rows that existed when the stream started
    # the order things happened: BackfillRead and Transaction entries
    timeline: list[BackfillRead | Transaction]

    @property
    def transactions(self) -> list[Transaction]:
        return [entry for entry in self.timeline if isinstance(entry, Transaction)]

    @property
    def backfill(self) -> list[BackfillRead]:
        return [entry for entry in self.timeline if isinstance(entry, BackfillRead)]

    def changes(self) -> list[Change]:
        return [change for txn in self.transactions for change in txn.changes]


class _Simulator:
    """Applies random operations to two in-memory databases and logs them with their positions."""

    def __init__(self, rng: random.Random, transactions: int) -> None:
        self.rng = rng
        self.alive: dict[str, dict[tuple, dict]] = {t.name: {} for t in TABLES}
        # dicts as ordered sets, so choices do not depend on set iteration order
        self.dead: dict[str, dict[tuple, None]] = {t.name: {} for t in TABLES}
        self.next_customer_id = 101
        self.order_lines: dict[int, int] = {}  # order id -> highest line number used
        self.next_order_id = 7001
        self.clock_ms = START_MS
        self.timeline: list[BackfillRead | Transaction] = []
        self.txn: Transaction | None = None
        # backfill scan: last key read per table (None: not started); done when it passed the end
        self.in_backfill = True
        self.cursor: dict[str, tuple | None] = {t.name: None for t in TABLES}
        self.scan_done: dict[str, bool] = {t.name: False for t in TABLES}
        # MySQL binlog
        self.binlog_file = FIRST_BINLOG_FILE
        self.binlog_position = FIRST_BINLOG_POSITION
        self.just_rotated = False
        self.last_customer: tuple | None = None
        # PostgreSQL WAL: a transaction starts about lsn_step after the previous one
        self.lsn: int | None = None
        self.lsn_step = (LSN_BOUNDARIES[1] - LSN_BOUNDARIES[0]) // max(1, transactions // 4)
        self.lsn_jump: int | None = None  # where the second change of a straddling transaction goes
        self.next_tx_id = 48_211

    # -- values ------------------------------------------------------------------------------

    def _value(self, column: str) -> Any:
        rng = self.rng
        if column == "name":
            return rng.choice(NAMES)
        if column == "email":
            return None if rng.random() < 0.3 else f"user{rng.randint(1, 9999)}@{rng.choice(DOMAINS)}"
        if column == "visits":
            return rng.randint(0, 500)
        if column == "sku":
            return rng.choice(SKUS)
        if column == "qty":
            return rng.randint(1, 50)
        if column == "note":
            return None if rng.random() < 0.4 else rng.choice(NOTES)
        raise KeyError(column)

    def _new_row(self, table: Table, key: dict) -> dict:
        return {column: key[column] if column in key else self._value(column)
                for column, _type, _nullable in table.columns}

    def _fresh_key(self, table: Table) -> dict:
        if table is CUSTOMERS:
            self.next_customer_id += 1
            return {"id": self.next_customer_id - 1}
        if not self.order_lines or self.rng.random() < 0.4:
            order_id, self.next_order_id = self.next_order_id, self.next_order_id + 1
        else:
            order_id = self.rng.choice(list(self.order_lines))
        return self._next_line(order_id)

    def _next_line(self, order_id: int) -> dict:
        line = self.order_lines.get(order_id, 0) + 1
        self.order_lines[order_id] = line
        return {"order_id": order_id, "line": line}

    def _unread(self, table: Table, keys: list[tuple]) -> list[tuple]:
        cursor = self.cursor[table.name]
        return [] if self.scan_done[table.name] else [k for k in keys if cursor is None or k > cursor]

    def _pick_alive(self, table: Table) -> tuple:
        keys = list(self.alive[table.name])
        # while the backfill runs, prefer keys it has not read yet: the CDC change comes first
        unread = self._unread(table, keys) if self.in_backfill else []
        if unread and self.rng.random() < 0.5:
            return self.rng.choice(unread)
        return self.rng.choice(keys)

    # -- positions ---------------------------------------------------------------------------

    def begin(self, engine: str) -> Transaction:
        """Start a transaction: its commit time, binlog rotation (MySQL) or tx_id (PostgreSQL)."""
        rng = self.rng
        # commits share a millisecond now and then: then only the log position orders them
        self.clock_ms += 0 if rng.random() < 0.12 else rng.randint(1, 4_000)
        tx_id = None
        if engine == "mysql":
            if self.binlog_position > BINLOG_ROTATE_AT:
                self.binlog_file += 1
                self.binlog_position = rng.randint(126, 200)  # after the new file's header events
                self.just_rotated = True
            self.binlog_position += rng.randint(80, 300)  # GTID, BEGIN, TABLE_MAP
        else:
            tx_id = self.next_tx_id
            self.next_tx_id += rng.randint(1, 40)
        self.txn = Transaction(len(self.transactions_so_far()), engine, tx_id, self.clock_ms)
        return self.txn

    def transactions_so_far(self) -> list[Transaction]:
        return [entry for entry in self.timeline if isinstance(entry, Transaction)]

    def pg_start(self) -> bool:
        """Place a PostgreSQL transaction in the WAL; True if its changes must straddle a boundary."""
        if self.lsn is None:
            self.lsn, self.lsn_jump = FIRST_LSN, LSN_BOUNDARIES[0] + 0x10
            return True
        start = self.lsn + self.rng.randint(self.lsn_step // 2, self.lsn_step * 3 // 2)
        boundary = LSN_BOUNDARIES[1]
        if self.lsn < boundary <= start + 0x1000:
            # the first transaction to reach 10/00000000 starts just below it and ends above it
            self.lsn = boundary - self.rng.randint(0x40, 0x200)
            self.lsn_jump = boundary + self.rng.randint(0x8, 0x80)
            return True
        self.lsn = start
        return False

    def _position(self, table: Table) -> Position:
        rng = self.rng
        if table.engine == "mysql":
            self.binlog_position += rng.randint(60, 900)
            return Position(log_file=f"mysql-bin.{self.binlog_file:06d}", log_position=self.binlog_position)
        if not self.txn.changes:
            return Position(lsn=self.lsn)  # the transaction's first change is where it starts
        if self.lsn_jump is not None:
            self.lsn, self.lsn_jump = self.lsn_jump, None
        else:
            self.lsn += rng.randint(0x28, 0x300)
        return Position(lsn=self.lsn)

    def _log(self, kind: str, table: Table, before: dict | None, after: dict | None) -> Change:
        change = Change(kind, table, before, after, self._position(table))
        self.txn.changes.append(change)
        if table is CUSTOMERS:
            self.last_customer = table.key_tuple(after or before)
        return change

    # -- operations --------------------------------------------------------------------------

    def insert(self, table: Table, key: dict | None = None, kind: str = "insert") -> Change:
        row = self._new_row(table, key or self._fresh_key(table))
        self.alive[table.name][table.key_tuple(row)] = row
        return self._log(kind, table, None, row)

    def reinsert(self, table: Table) -> Change:
        key = self.rng.choice(list(self.dead[table.name]))
        del self.dead[table.name][key]
        return self.insert(table, dict(zip(table.key, key)), kind="reinsert")

    def update(self, table: Table, key: tuple | None = None) -> Change:
        key = key or self._pick_alive(table)
        before = self.alive[table.name][key]
        after = dict(before)
        while after == before:  # an UPDATE that changes nothing is not logged
            for column in self.rng.sample(table.non_key, self.rng.randint(1, 2)):
                after[column] = self._value(column)
        self.alive[table.name][key] = after
        return self._log("update", table, before, after)

    def delete(self, table: Table) -> Change:
        key = self._pick_alive(table)
        before = self.alive[table.name].pop(key)
        self.dead[table.name][key] = None
        return self._log("delete", table, before, None)

    def key_change(self, table: Table) -> Change:
        old_key = self._pick_alive(table)
        before = self.alive[table.name].pop(old_key)
        dead = self.dead[table.name]
        if dead and not self.in_backfill and self.rng.random() < 0.3:
            # the new key is one deleted earlier: its history resumes
            resurrected = self.rng.choice(list(dead))
            del dead[resurrected]
            new_key = dict(zip(table.key, resurrected))
        elif table is ORDERS and self.rng.random() < 0.5:
            new_key = self._next_line(before["order_id"])  # renumbered within its order
        else:
            new_key = self._fresh_key(table)
        after = {**before, **new_key}
        if self.rng.random() < 0.5:  # the same UPDATE may set other columns too
            column = self.rng.choice(table.non_key)
            after[column] = self._value(column)
        dead[old_key] = None
        self.alive[table.name][table.key_tuple(after)] = after
        return self._log("key_change", table, before, after)

    def random_change(self, table: Table) -> Change:
        kind = self.rng.choices(list(OP_WEIGHTS), weights=list(OP_WEIGHTS.values()))[0]
        alive = len(self.alive[table.name])
        # keep each table populated, and only pick what the current state allows
        if (kind in ("update", "key_change") and alive == 0) or (kind == "delete" and alive < 3):
            kind = "insert"
        # no re-insert while the backfill runs: a key it reads later would have had a delete
        # before its (class 0) backfill row, which D5 cannot place
        if kind == "reinsert" and (not self.dead[table.name] or self.in_backfill):
            kind = "insert"
        return getattr(self, kind)(table)

    def straddle(self, table: Table) -> None:
        """Two changes of one key whose LSNs are on either side of a boundary (same timestamp)."""
        keys = list(self.alive[table.name])
        if keys and self.rng.random() < 0.6:
            key = self.rng.choice(keys)
            self.update(table, key)
        else:
            key = table.key_tuple(self.insert(table).after)
        self.update(table, key)

    def commit(self) -> None:
        self.timeline.append(self.txn)
        self.txn = None

    # -- backfill ----------------------------------------------------------------------------

    def seed_initial_rows(self) -> dict[str, list[dict]]:
        for _ in range(INITIAL_CUSTOMERS):
            row = self._new_row(CUSTOMERS, self._fresh_key(CUSTOMERS))
            self.alive[CUSTOMERS.name][CUSTOMERS.key_tuple(row)] = row
        for _ in range(INITIAL_ORDERS):
            order_id, self.next_order_id = self.next_order_id, self.next_order_id + 1
            for _line in range(self.rng.randint(1, 3)):
                row = self._new_row(ORDERS, self._next_line(order_id))
                self.alive[ORDERS.name][ORDERS.key_tuple(row)] = row
        return {name: [dict(row) for row in rows.values()] for name, rows in self.alive.items()}

    def read_next(self, table: Table) -> None:
        """The backfill reads the next row of ``table`` in key order, as it is right now."""
        unread = self._unread(table, list(self.alive[table.name]))
        if not unread:
            self.scan_done[table.name] = True
            return
        key = min(unread)
        self.cursor[table.name] = key
        self.clock_ms += self.rng.randint(0, 25)
        self.timeline.append(BackfillRead(table, dict(self.alive[table.name][key]), self.clock_ms,
                                          len(self.transactions_so_far())))

    def backfill_step(self) -> None:
        for table in self.rng.sample(TABLES, len(TABLES)):
            for _ in range(self.rng.choice((0, 0, 1, 1, 2))):
                self.read_next(table)

    def finish_backfill(self) -> None:
        for table in TABLES:
            while not self.scan_done[table.name]:
                self.read_next(table)
        self.in_backfill = False


def generate_history(seed: int, transactions: int = 180, backfill_window: int = 30) -> SourceHistory:
    """A random but reproducible source history: a backfill that overlaps the first
    ``backfill_window`` of ``transactions`` CDC transactions (1–4 changes each)."""
    if transactions < 40 or not 1 <= backfill_window < transactions // 2:
        raise ValueError("need >= 40 transactions and a backfill window of 1 to half of them")
    rng = random.Random(f"{seed}/history")
    sim = _Simulator(rng, transactions)
    initial = sim.seed_initial_rows()
    for index in range(transactions):
        if index < backfill_window:
            sim.backfill_step()
        elif index == backfill_window:
            sim.finish_backfill()
        engine = rng.choice(("mysql", "postgresql"))
        table = TABLE_BY_ENGINE[engine]
        sim.begin(engine)
        if engine == "postgresql" and sim.pg_start():
            sim.straddle(table)
        else:
            if engine == "mysql" and sim.just_rotated:
                # the key changed last in the old binlog file changes again in the new one
                sim.just_rotated = False
                if sim.last_customer in sim.alive[table.name]:
                    sim.update(table, sim.last_customer)
            size = rng.randint(1, 4)
            while len(sim.txn.changes) < size:
                sim.random_change(table)
        sim.commit()
    return SourceHistory(seed, initial, sim.timeline)


# ---------------------------------------------------------------------------------------------
# 2. Rendering as Datastream events
# ---------------------------------------------------------------------------------------------


def iso_ms(ms: int) -> str:
    """Datastream JSON's timestamp text, e.g. ``2024-06-10T06:13:20.000Z``."""
    moment = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _utc(ms: int) -> dt.datetime:
    return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(milliseconds=ms)


@dataclass(frozen=True)
class Event:
    """One Datastream event. ``index`` is its place in the stream; a re-sent copy keeps it."""

    index: int
    table: Table
    uuid: str
    read_ms: int
    source_ms: int
    backfill: bool
    change_type: str
    is_deleted: bool
    payload: dict
    position: Position
    tx_id: int | None

    @property
    def read_method(self) -> str:
        return READ_METHODS[self.table.engine][0 if self.backfill else 1]

    @property
    def sort_keys(self) -> list:
        if self.table.engine == "mysql":
            return [self.source_ms, self.position.log_file or "", self.position.log_position or 0]
        return [self.source_ms, self.position.lsn_text or ""]

    def source_metadata(self) -> dict:
        table, position = self.table, self.position
        if table.engine == "mysql":
            return {"table": table.name, "database": table.database, "primary_keys": list(table.key),
                    "log_file": position.log_file, "log_position": position.log_position,
                    "change_type": self.change_type, "is_deleted": self.is_deleted}
        return {"schema": table.schema, "table": table.name, "database": table.database,
                "is_deleted": self.is_deleted, "change_type": self.change_type, "tx_id": self.tx_id,
                "lsn": position.lsn_text, "primary_keys": list(table.key)}

    def document(self) -> dict:
        """The event as Datastream's JSON format writes it (timestamps as ISO text)."""
        return {"uuid": self.uuid, "read_timestamp": iso_ms(self.read_ms),
                "source_timestamp": iso_ms(self.source_ms), "object": self.table.object_name,
                "read_method": self.read_method, "stream_name": self.table.stream_name,
                "schema_key": self.table.schema_key, "sort_keys": self.sort_keys,
                "source_metadata": self.source_metadata(), "payload": dict(self.payload)}

    def avro_datum(self) -> dict:
        return {**self.document(), "read_timestamp": _utc(self.read_ms), "source_timestamp": _utc(self.source_ms)}

    @property
    def identity(self) -> str:
        """What makes two events the same source change: everything but uuid and read time."""
        document = self.document()
        del document["uuid"], document["read_timestamp"]
        return canonical_json(document)


def _nullable(avro_type: Any) -> list:
    return ["null", avro_type]


def avro_schema(table: Table) -> dict:
    """An Avro schema shaped like the published files': generic fields, source_metadata, payload."""
    if table.engine == "mysql":
        metadata = [
            {"name": "table", "type": "string"}, {"name": "database", "type": "string"},
            {"name": "primary_keys", "type": {"type": "array", "items": "string"}},
            {"name": "log_file", "type": _nullable("string")}, {"name": "log_position", "type": _nullable("long")},
            {"name": "change_type", "type": _nullable("string")}, {"name": "is_deleted", "type": _nullable("boolean")},
        ]
    else:
        metadata = [
            {"name": "schema", "type": "string"}, {"name": "table", "type": "string"},
            {"name": "database", "type": "string"},
            {"name": "is_deleted", "type": _nullable("boolean")}, {"name": "change_type", "type": _nullable("string")},
            {"name": "tx_id", "type": _nullable("long")}, {"name": "lsn", "type": _nullable("string")},
            {"name": "primary_keys", "type": _nullable({"type": "array", "items": "string"})},
        ]
    payload = [{"name": column, "type": _nullable(avro_type), "default": None} if nullable
               else {"name": column, "type": avro_type}
               for column, avro_type, nullable in table.columns]
    timestamp = {"type": "long", "logicalType": "timestamp-millis"}
    return {
        "type": "record",
        "name": table.object_name,
        "fields": [
            {"name": "uuid", "type": "string"}, {"name": "read_timestamp", "type": timestamp},
            {"name": "source_timestamp", "type": timestamp}, {"name": "object", "type": "string"},
            {"name": "read_method", "type": "string"}, {"name": "stream_name", "type": "string"},
            {"name": "schema_key", "type": "string"},
            {"name": "sort_keys", "type": {"type": "array", "items": ["string", "long"]}},
            {"name": "source_metadata", "type": {"type": "record", "name": "source_metadata", "fields": metadata}},
            {"name": "payload", "type": {"type": "record", "name": "payload", "fields": payload}},
        ],
    }


def change_events(change: Change) -> list[tuple[str, dict, bool]]:
    """``(change_type, payload, is_deleted)`` of the events one source change becomes."""
    mysql = change.table.engine == "mysql"
    if change.kind in ("insert", "reinsert"):
        return [("INSERT", change.after, False)]
    if change.kind == "update":
        # MySQL writes an UPDATE's new row as UPDATE-INSERT (published samples), PostgreSQL as UPDATE
        return [("UPDATE-INSERT" if mysql else "UPDATE", change.after, False)]
    if change.kind == "delete":
        return [("DELETE", change.before, True)]
    if change.kind == "key_change":
        return [("UPDATE-DELETE", change.before, True), ("UPDATE-INSERT", change.after, False)]
    raise ValueError(change.kind)


def _new_uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def render(history: SourceHistory, seed: int) -> list[Event]:
    """The events of both streams in the order Datastream produced them."""
    rng = random.Random(f"{seed}/render")
    events: list[Event] = []

    def emit(table: Table, source_ms: int, read_ms: int, backfill: bool, change_type: str, payload: dict,
             is_deleted: bool, position: Position, tx_id: int | None) -> None:
        events.append(Event(len(events), table, _new_uuid(rng), read_ms, source_ms, backfill, change_type,
                            is_deleted, dict(payload), position, tx_id))

    for entry in history.timeline:
        if isinstance(entry, BackfillRead):
            # a backfill row has no log position: MySQL writes '' and 0, PostgreSQL no LSN
            position = Position("", 0) if entry.table.engine == "mysql" else Position()
            emit(entry.table, entry.read_ms, entry.read_ms + rng.randint(0, 400), True, "INSERT", entry.row,
                 False, position, None)
            continue
        for change in entry.changes:
            read_ms = entry.commit_ms + rng.randint(200, 90_000)
            for change_type, payload, is_deleted in change_events(change):
                emit(change.table, entry.commit_ms, read_ms, False, change_type, payload, is_deleted,
                     change.position, entry.tx_id)
    return events


# ---------------------------------------------------------------------------------------------
# 3. At-least-once, out-of-order delivery
# ---------------------------------------------------------------------------------------------


@dataclass
class LandingFile:
    name: str
    format: str  # 'jsonl', 'json' or 'avro'
    events: list[Event]
    codec: str = "null"  # Avro only

    def content(self) -> bytes:
        if self.format == "jsonl":
            return "".join(json.dumps(e.document(), ensure_ascii=False) + "\n" for e in self.events).encode()
        if self.format == "json":
            return (json.dumps([e.document() for e in self.events], ensure_ascii=False, indent=2) + "\n").encode()
        tables = {event.table for event in self.events}
        if len(tables) != 1:
            raise ValueError(f"{self.name}: an Avro file holds one table, not {len(tables)}")
        buffer = io.BytesIO()
        schema = fastavro.parse_schema(avro_schema(tables.pop()))
        # a sync marker from the content (not random), so the same workload gives the same bytes
        marker = hashlib.md5("".join(event.uuid for event in self.events).encode()).digest()
        fastavro.writer(buffer, schema, [event.avro_datum() for event in self.events], codec=self.codec,
                        sync_marker=marker)
        return buffer.getvalue()

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / self.name
        path.write_bytes(self.content())
        return path


Batch = list[LandingFile]


def _resent(event: Event, rng: random.Random) -> Event:
    """The same change sent again (after a restart): new uuid and read time, same everything else."""
    return replace(event, uuid=_new_uuid(rng), read_ms=event.read_ms + rng.randint(60_000, 3_600_000))


def _contested_backfill(events: list[Event]) -> tuple[list[Event], list[Event]]:
    """Backfill events of keys that also have CDC events: those read before the key's first CDC
    change (stale once it applies) and those read after it."""
    first_cdc: dict[tuple, int] = {}
    for event in events:
        if not event.backfill:
            first_cdc.setdefault((event.table.name, event.table.pk_json(event.payload)), event.index)
    stale, after = [], []
    for event in events:
        key = (event.table.name, event.table.pk_json(event.payload))
        if event.backfill and key in first_cdc:
            (stale if event.index < first_cdc[key] else after).append(event)
    return stale, after


def _split_files(number: int, items: list[Event], rng: random.Random) -> Batch:
    """1–3 files of one batch; an Avro file holds the events of one table."""
    formats = [rng.choice(FORMATS) for _ in range(rng.randint(1, 3))]
    if all(f == "avro" for f in formats):
        formats[0] = rng.choice(("jsonl", "json"))
    present = sorted({event.table.name for event in items})
    avro_parts = [p for p, f in enumerate(formats) if f == "avro"]
    owner: dict[int, str] = {}
    for part, table_name in zip(avro_parts, rng.sample(present, len(present))):
        owner[part] = table_name
    formats = [f if f != "avro" or p in owner else "jsonl" for p, f in enumerate(formats)]
    parts: list[list[Event]] = [[] for _ in formats]
    for event in items:
        eligible = [p for p, f in enumerate(formats) if f != "avro" or owner[p] == event.table.name]
        parts[rng.choice(eligible)].append(event)
    files = []
    for p, (fmt, part) in enumerate((f, part) for f, part in zip(formats, parts) if part):
        codec = rng.choice(("null", "deflate")) if fmt == "avro" else "null"
        files.append(LandingFile(f"batch{number}-part{p}.{fmt}", fmt, part, codec))
    return files


def deliver(events: list[Event], seed: int, batches: int = 3, duplicate_rate: float = 0.1,
            resend_rate: float = 0.05, holdback_rate: float = 0.1, late_backfill_share: float = 0.4) -> list[Batch]:
    """``events`` as batches of files; every event at least once.

    ``duplicate_rate`` of the events come twice (exact copies), ``resend_rate`` of the CDC events
    once more with a new ``uuid`` and read time (a backfill row is only ever copied exactly: it
    has no position that would tell a re-sent copy from a second read). All are shuffled and cut
    into ``batches`` runs; ``holdback_rate`` of each run moves to a random later batch. Then, for
    ``late_backfill_share`` of the keys that have both a backfill row and CDC changes (at least 2
    of those read before the key's first change and 2 of those read after, where they exist),
    every copy of the backfill row goes to the last batch and the key's first CDC change is
    delivered in the first. Each batch becomes 1–3 files, named in delivery order; across the
    delivery all three formats occur.
    """
    rng = random.Random(f"{seed}/deliver")
    copies: list[Event] = []
    for event in events:
        copies.append(event)
        if rng.random() < duplicate_rate:
            copies.append(event)
        if not event.backfill and rng.random() < resend_rate:
            copies.append(_resent(event, rng))
    rng.shuffle(copies)
    batch_of: list[int] = []
    for position in range(len(copies)):
        number = position * batches // len(copies)
        if number < batches - 1 and rng.random() < holdback_rate:
            number = rng.randint(number + 1, batches - 1)
        batch_of.append(number)

    if batches > 1:
        first_cdc: dict[tuple, int] = {}
        for event in events:
            if not event.backfill:
                first_cdc.setdefault((event.table.name, event.table.pk_json(event.payload)), event.index)
        delayed: list[Event] = []
        for group in _contested_backfill(events):
            count = min(len(group), max(2, round(late_backfill_share * len(group))))
            delayed.extend(rng.sample(group, count))
        late = {event.index for event in delayed}
        early = {first_cdc[(event.table.name, event.table.pk_json(event.payload))] for event in delayed}
        for position, copy in enumerate(copies):
            if copy.index in late:
                batch_of[position] = batches - 1
            elif copy.index in early:
                batch_of[position] = 0
                early.discard(copy.index)  # one copy early is enough

    per_batch: list[list[Event]] = [[] for _ in range(batches)]
    for copy, number in zip(copies, batch_of):
        per_batch[number].append(copy)
    for number, items in enumerate(per_batch, start=1):
        if not items:
            raise ValueError(f"batch {number} is empty: too few events for the batch count")
        rng.shuffle(items)  # held-back events mix with the batch's own
    for _attempt in range(100):
        result = [_split_files(number, items, rng) for number, items in enumerate(per_batch, start=1)]
        if {f.format for batch in result for f in batch} == set(FORMATS):
            return result
    raise ValueError("could not place all three file formats")


# ---------------------------------------------------------------------------------------------
# 4. Oracle
# ---------------------------------------------------------------------------------------------


def contract_op(change_type: str, update_insert_op: str = "update") -> str:
    """The contract op of a change type; ``update_insert_op`` is what 'UPDATE-INSERT' means."""
    return update_insert_op if change_type == "UPDATE-INSERT" else CHANGE_TYPE_OPS[change_type]


def oracle(history: SourceHistory, update_insert_op: str = "update") -> Expected:
    """Expected ``cdc_current`` rows and ``cdc_history`` versions, from the source history alone.

    Per key (``(source_table, pk_json)``), the backfill row (class 0, D3) comes before every CDC
    change of the key, which follow in log order, whenever each was read or arrived. Folded by
    D5: a backfill row (op 'snapshot'), insert or update is a version with the full row; a
    delete (also the ``UPDATE-DELETE`` of a key change) of a live key is a deleted version with
    its last row, of a key not alive no version. The new key of a key change
    (``UPDATE-INSERT``) gets the op ``update_insert_op`` says, like every ``UPDATE-INSERT``.
    """
    per_key: dict[Key, list[tuple[tuple[int, int], str, dict]]] = {}
    for read in history.backfill:
        key = (read.table.qualified, read.table.pk_json(read.row))
        assert key not in per_key, f"the backfill read {key} twice"
        per_key[key] = [((0, 0), "snapshot", read.row)]
    for sequence, change in enumerate(history.changes(), start=1):
        for change_type, row, _is_deleted in change_events(change):
            key = (change.table.qualified, change.table.pk_json(row))
            per_key.setdefault(key, []).append(((1, sequence), contract_op(change_type, update_insert_op), row))
    current: dict[Key, str] = {}
    versions_of: dict[Key, list[Version]] = {}
    for key, events in per_key.items():
        alive: dict | None = None
        versions: list[Version] = []
        for _order, op, row in sorted(events, key=lambda item: item[0]):
            if op == "delete":
                if alive is not None:
                    # the simulator keeps deletes consistent with the folded state, or D5 is ambiguous
                    assert alive == row, f"delete of {key}: payload disagrees with the last version"
                    versions.append(("delete", True, canonical_json(alive)))
                    alive = None
            else:
                alive = row
                versions.append((op, False, canonical_json(row)))
        if versions:
            versions_of[key] = versions
        if alive is not None:
            current[key] = canonical_json(alive)
    return Expected(current, versions_of)


# ---------------------------------------------------------------------------------------------


@dataclass
class Workload:
    seed: int
    history: SourceHistory
    events: list[Event]
    batches: list[Batch]
    expected: Expected
    update_insert_op: str


def build_workload(seed: int, transactions: int = 180, update_insert_op: str = "update",
                   **delivery: Any) -> Workload:
    history = generate_history(seed, transactions)
    events = render(history, seed)
    return Workload(seed, history, events, deliver(events, seed, **delivery),
                    oracle(history, update_insert_op), update_insert_op)
