"""A seeded Qlik Replicate workload: source history, Kafka messages, delivery, oracle.

The same four steps as :mod:`workloads.debezium`, each a pure function of its inputs and a seed:

1. :func:`generate_history` simulates one Replicate task over two tables: ``hr.employees``
   (key ``emp_no``, 12 columns, so column masks take two bytes) and ``sales.order_lines``
   (composite key ``order_id`` + ``line_no``). The full load (``REFRESH`` rows) scans both
   tables in key order while CDC already runs, so some keys change before the scan reaches them
   and some after. Then transactions of 1–4 changes across both tables: inserts, updates with
   every column captured or only some (a column whose ``columnMask`` bit is 0 carries null in
   ``data`` and keeps its value), primary-key changes (one ``UPDATE`` whose ``beforeData`` has
   the old key), deletes and re-inserts. Halfway, a DDL widens a column of ``hr.employees``:
   table version 2 with a new schema id. Every change has a ``changeSequence`` of 35 digits
   (commit time to the microsecond, then a task-wide counter: monotonic across the task and far
   past 2**63) and ``transactionEventCounter`` / ``transactionLastEvent``.
2. :func:`render` turns it into the Kafka messages Replicate writes: one metadata message
   (``"type": "MD"``) per table version first, then the full-load rows and changes, each in one
   of three forms: the ``atMSG`` wrapper (``"type": "DT"``, ``messageSchemaId``) as a line; a
   bare data message ``{"data", "beforeData", "headers"}`` in a Kafka record wrapper whose topic
   is the table's name; the ``atMSG`` wrapper in a Kafka record wrapper on a topic shared by
   all tables (so only the schema id names the table).
3. :func:`deliver` delivers them at least once and out of order: exact copies, copies re-sent
   with new Kafka coordinates, shuffled, 3 batches with some messages held back, full-load rows
   of contested keys pushed behind the CDC changes of their key; every metadata message in the
   first batch; each batch written as 1–3 JSONL files.
4. :func:`oracle` replays the *source history* (never the messages) and says what
   ``cdc_current`` and ``cdc_history`` must contain.

Oracle conventions (what the SQL side must do to match):

- Per key ``(source_table, pk_json)`` — ``source_table`` is ``schema.table``, key columns those
  with ``primaryKeyPosition > 0`` — full-load rows (op ``snapshot``) come before every CDC change
  of the key, whenever they were read or arrived (DECISIONLOG D3); CDC changes follow in
  ``(changeSequence, transactionEventCounter)`` order, compared as numbers.
- D5 fold: a snapshot, insert or update is a version whose row is the prior row (if the key is
  alive) with the *captured* columns (``columnMask`` bit 1) laid over it; a delete of a live key
  is a deleted version holding the last row; a delete of a key that is not alive gives no version.
- A primary-key change (``UPDATE`` whose ``beforeData`` key differs from its ``data`` key) is a
  delete of the old key plus an ``update`` of the new key (the op of the new key's first version
  is ``update``, as Datastream's ``UPDATE-INSERT``); the generator always captures every column
  of a key change, so the new key's row is complete even when the key was never seen.
- Partial captures are only generated for keys whose whole row the pipeline already has (read by
  the full load, or written in full by CDC), so every version's row holds every column.

:func:`build_workload` runs all four.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from python_udfs.contract import canonical_json
from python_udfs.qlik_masks import encode_hex_mask
from workloads import KeyedTable
from workloads.debezium import Expected, Key, Version

VENDOR = "qlik"
SERVER = "replicate-01.example.com"
TASK = "oltp-to-kafka"
METADATA_TOPIC = "qlik.metadata"
SHARED_TOPIC = "qlik.all-tables"  # the atMSG-in-Kafka form: one topic for every table
START_US = 1_714_554_000 * 10**6  # 2024-05-01T09:00:00Z
FIRST_COUNTER = 381_240_000_000  # the task-wide part of changeSequence (15 digits)
FORMS = ("atmsg", "kafka_bare", "kafka_atmsg")
FORM_WEIGHTS = (4, 3, 3)
PARTIAL_SHARE = 0.45  # of updates of keys whose row is known: only some columns captured
OWN_NAMES_SHARE = 0.25  # atMSG data messages that also name their schema and table
EXTERNAL_ID_SHARE = 0.5  # bare data messages whose headers carry externalSchemaId
VALUE_AS_TEXT_SHARE = 0.3  # Kafka record values written as JSON text


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # Replicate's data type name
    length: int
    precision: int
    scale: int
    pk_position: int  # 0: not in the primary key
    nullable: bool


@dataclass(frozen=True)
class Table(KeyedTable):
    schema: str
    name: str
    key: tuple[str, ...]  # in primary-key position order
    columns: tuple[Column, ...]  # in ordinal order: ordinal is index + 1

    @property
    def qualified(self) -> str:
        """The name the contract uses: ``schema.table``."""
        return f"{self.schema}.{self.name}"

    @property
    def topic(self) -> str:
        """The Kafka topic of the table in the bare form: its name."""
        return self.qualified

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(column.name for column in self.columns)

    @property
    def non_key(self) -> tuple[str, ...]:
        return tuple(name for name in self.names if name not in self.key)

    def column(self, name: str) -> Column:
        return next(column for column in self.columns if column.name == name)

    def ordinal(self, name: str) -> int:
        return self.names.index(name) + 1

    @property
    def mask_bytes(self) -> int:
        return (len(self.columns) + 7) // 8


def _col(name: str, kind: str, length: int = 0, pk: int = 0, nullable: bool = False,
         precision: int = 0, scale: int = 0) -> Column:
    return Column(name, kind, length, precision, scale, pk, nullable)


EMPLOYEES = Table("hr", "employees", ("emp_no",), (
    _col("emp_no", "INT4", 10, pk=1),
    _col("first_name", "WSTRING", 30),
    _col("last_name", "WSTRING", 30),
    _col("email", "STRING", 100, nullable=True),
    _col("birth_date", "DATE"),
    _col("hire_date", "DATE"),
    _col("department", "WSTRING", 20),
    _col("title", "WSTRING", 50, nullable=True),
    _col("salary", "INT4", 10),
    _col("bonus", "NUMERIC", 0, nullable=True, precision=10, scale=2),
    _col("manager_no", "INT4", 10, nullable=True),
    _col("updated_at", "DATETIME", 0, scale=6),
))
ORDER_LINES = Table("sales", "order_lines", ("order_id", "line_no"), (
    _col("order_id", "INT4", 10, pk=1),
    _col("line_no", "INT2", 5, pk=2),
    _col("product", "WSTRING", 60),
    _col("quantity", "INT4", 10),
    _col("unit_price", "REAL8", 0),
    _col("note", "WSTRING", 200, nullable=True),
    _col("sku", "INT8", 19),
))
TABLES = (EMPLOYEES, ORDER_LINES)
TABLES_BY_NAME = {table.qualified: table for table in TABLES}
# the DDL halfway through: hr.employees.title is widened (table version 2, same columns)
WIDENED = ("title", 100)

# Values: non-ASCII, JSON escapes, a newline and a 4-byte character, so encoding bugs show up in `row`.
FIRST_NAMES = ("Georgi", "Bezalel", "Zoë", "José", "Łukasz", "李雷", "O'Neil", 'Dwayne "Rock"', "Søren",
               "Ann\nMarie", "Noor")
LAST_NAMES = ("Facello", "Simmel", "Müller", "Nakamura", "Back\\slash", "Smith", "Ōtani", "Dubois")
DEPARTMENTS = ("Sales", "R&D", "Finance", "Support", "Légal", "Ops")
TITLES = ("Engineer", "Senior Engineer", "Staff", "Manager", "Technique Leader", "Assistant <temp>")
PRODUCTS = ("scooter", "car battery", "12-pack drill bits", "hammer", "café beans", "🎁 gift box", "TEA/GREEN")
NOTES = ("leave at door", "fragile — handle with care", 'say "hi"', "tab\there", "n/a")
INITIAL_EMPLOYEES = 16
INITIAL_ORDERS = 7  # with 1–3 lines each
MIN_ALIVE = 3
OP_WEIGHTS = {"insert": 26, "update": 44, "delete": 11, "reinsert": 8, "key_change": 8}


@dataclass(frozen=True)
class TableVersion:
    """One metadata message: a table's structure from some point on."""

    table: Table
    version: int
    schema_id: str
    columns: tuple[Column, ...]
    at_us: int


# ---------------------------------------------------------------------------------------------
# 1. Source history
# ---------------------------------------------------------------------------------------------


@dataclass
class Change:
    """One row change as Replicate captured it.

    ``kind`` is 'insert', 'reinsert', 'update', 'key_change' or 'delete'. ``before`` / ``after``
    are full source rows. ``changed`` are the columns whose value changed (every column for an
    insert, the key for a delete: what ``changeMask`` says); ``captured`` the columns the message
    carries (``columnMask``: every column, or for a partial update the key, the changed columns
    and maybe some more; the key for a delete).
    """

    kind: str
    table: Table
    before: dict | None
    after: dict | None
    changed: tuple[str, ...]
    captured: tuple[str, ...]
    version: TableVersion
    change_sequence: str = ""
    event_counter: int = 0
    last_in_transaction: bool = False

    @property
    def operation(self) -> str:
        return {"insert": "INSERT", "reinsert": "INSERT", "update": "UPDATE", "key_change": "UPDATE",
                "delete": "DELETE"}[self.kind]

    @property
    def row(self) -> dict:
        return self.after if self.after is not None else self.before

    @property
    def partial(self) -> bool:
        return self.kind == "update" and set(self.captured) != set(self.table.names)


@dataclass
class Transaction:
    index: int
    transaction_id: str
    commit_us: int
    changes: list[Change] = field(default_factory=list)


@dataclass
class FullLoadRead:
    """One row the full load read (a REFRESH message), with the source row at that moment."""

    index: int
    table: Table
    row: dict
    read_us: int
    after_transactions: int  # CDC transactions committed when the row was read
    version: TableVersion


@dataclass
class Ddl:
    version: TableVersion
    after_transactions: int


@dataclass
class SourceHistory:
    seed: int
    initial: dict[str, list[dict]]  # table -> rows that existed when the task started
    versions: list[TableVersion]
    timeline: list[Transaction | FullLoadRead | Ddl]
    final: dict[str, dict[tuple, dict]]  # table -> key -> row, the source at the end

    @property
    def transactions(self) -> list[Transaction]:
        return [entry for entry in self.timeline if isinstance(entry, Transaction)]

    @property
    def full_load(self) -> list[FullLoadRead]:
        return [entry for entry in self.timeline if isinstance(entry, FullLoadRead)]

    def changes(self) -> list[Change]:
        return [change for txn in self.transactions for change in txn.changes]


def _schema_id(seed: int, table: Table, version: int) -> str:
    return hashlib.md5(f"{seed}/{table.qualified}/{version}".encode()).hexdigest().upper()


def change_sequence(commit_us: int, counter: int) -> str:
    """35 digits: the commit time to the microsecond (20), then the task-wide counter (15)."""
    moment = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=commit_us)
    return moment.strftime("%Y%m%d%H%M%S") + f"{commit_us % 1_000_000:06d}{counter:015d}"


class _Simulator:
    """Applies random operations to an in-memory source database and logs them as changes."""

    def __init__(self, rng: random.Random, seed: int) -> None:
        self.rng = rng
        self.seed = seed
        self.alive: dict[str, dict[tuple, dict]] = {t.qualified: {} for t in TABLES}
        # dicts as ordered sets, so choices do not depend on set iteration order
        self.dead: dict[str, dict[tuple, None]] = {t.qualified: {} for t in TABLES}
        # keys whose whole row the pipeline holds (full-load read or a full CDC image): only
        # these may get an update that captures some columns only
        self.known: dict[str, dict[tuple, None]] = {t.qualified: {} for t in TABLES}
        self.next_emp_no = 10001
        self.order_lines: dict[int, int] = {}  # order id -> highest line number used
        self.next_order_id = 5001
        self.clock_us = START_US
        self.counter = FIRST_COUNTER
        self.timeline: list[Transaction | FullLoadRead | Ddl] = []
        self.txn: Transaction | None = None
        self.in_full_load = True
        self.cursor: dict[str, tuple | None] = {t.qualified: None for t in TABLES}
        self.scan_done: dict[str, bool] = {t.qualified: False for t in TABLES}
        self.versions = [TableVersion(t, 1, _schema_id(seed, t, 1), t.columns, START_US) for t in TABLES]
        self.reads = 0

    def version_of(self, table: Table) -> TableVersion:
        return [v for v in self.versions if v.table is table][-1]

    # -- values ------------------------------------------------------------------------------

    def _date(self, first_year: int, last_year: int) -> str:
        start = dt.date(first_year, 1, 1)
        return (start + dt.timedelta(days=self.rng.randint(0, (last_year - first_year) * 365))).isoformat()

    def _value(self, column: str) -> Any:
        rng = self.rng
        if column in ("email", "title", "bonus", "manager_no", "note") and rng.random() < 0.25:
            return None
        makers = {
            "first_name": lambda: rng.choice(FIRST_NAMES),
            "last_name": lambda: rng.choice(LAST_NAMES),
            "email": lambda: f"user{rng.randint(1, 99_999)}@exämple.org",
            "birth_date": lambda: self._date(1952, 2000),
            "hire_date": lambda: self._date(1985, 2024),
            "department": lambda: rng.choice(DEPARTMENTS),
            "title": lambda: rng.choice(TITLES),
            "salary": lambda: rng.randint(38_000, 158_000),
            # NUMERIC as Replicate's JSON writes it: text, so no digit is lost
            "bonus": lambda: f"{rng.randint(0, 2_500_000) / 100:.2f}",
            "manager_no": lambda: rng.randint(10001, 10040),
            "updated_at": lambda: (dt.datetime(2024, 1, 1) + dt.timedelta(
                microseconds=rng.randint(0, 10**13))).strftime("%Y-%m-%d %H:%M:%S.%f"),
            "product": lambda: rng.choice(PRODUCTS),
            "quantity": lambda: rng.randint(1, 40),
            "unit_price": lambda: round(rng.uniform(0.5, 999), 2),
            "note": lambda: rng.choice(NOTES),
            # INT8 beyond a double's 2**53 now and then
            "sku": lambda: rng.randint(2**53 + 1, 2**63 - 1) if rng.random() < 0.15 else rng.randint(1, 10**6),
        }
        return makers[column]()

    def _changed_value(self, column: str, old: Any) -> Any:
        for _ in range(100):
            value = self._value(column)
            if value != old:
                return value
        raise RuntimeError(f"no new value for {column}")

    def _new_row(self, table: Table, key: dict) -> dict:
        return {name: key[name] if name in key else self._value(name) for name in table.names}

    def _fresh_key(self, table: Table) -> dict:
        if table is EMPLOYEES:
            self.next_emp_no += 1
            return {"emp_no": self.next_emp_no - 1}
        if not self.order_lines or self.rng.random() < 0.4:
            order_id, self.next_order_id = self.next_order_id, self.next_order_id + 1
        else:
            order_id = self.rng.choice(list(self.order_lines))
        return self._next_line(order_id)

    def _next_line(self, order_id: int) -> dict:
        line_no = self.order_lines.get(order_id, 0) + 1
        self.order_lines[order_id] = line_no
        return {"order_id": order_id, "line_no": line_no}

    def _unread(self, table: Table, keys: list[tuple]) -> list[tuple]:
        cursor = self.cursor[table.qualified]
        done = self.scan_done[table.qualified]
        return [] if done else [k for k in keys if cursor is None or k > cursor]

    def _pick_alive(self, table: Table) -> tuple:
        keys = list(self.alive[table.qualified])
        # while the full load runs, prefer keys it has not read yet: the CDC change comes first
        unread = self._unread(table, keys) if self.in_full_load else []
        if unread and self.rng.random() < 0.5:
            return self.rng.choice(unread)
        return self.rng.choice(keys)

    # -- operations --------------------------------------------------------------------------

    def _log(self, kind: str, table: Table, before: dict | None, after: dict | None,
             changed: tuple[str, ...], captured: tuple[str, ...]) -> Change:
        order = table.names
        change = Change(kind, table, before, after, tuple(c for c in order if c in changed),
                        tuple(c for c in order if c in captured), self.version_of(table))
        self.txn.changes.append(change)
        return change

    def _know(self, table: Table, key: tuple) -> None:
        self.known[table.qualified][key] = None

    def insert(self, table: Table, key: dict | None = None, kind: str = "insert") -> Change:
        row = self._new_row(table, key or self._fresh_key(table))
        key_tuple = table.key_tuple(row)
        self.alive[table.qualified][key_tuple] = row
        self._know(table, key_tuple)
        return self._log(kind, table, None, row, table.names, table.names)

    def reinsert(self, table: Table) -> Change:
        key = self.rng.choice(list(self.dead[table.qualified]))
        del self.dead[table.qualified][key]
        return self.insert(table, dict(zip(table.key, key, strict=True)), kind="reinsert")

    def update(self, table: Table, key: tuple | None = None) -> Change:
        rng = self.rng
        key = key or self._pick_alive(table)
        before = self.alive[table.qualified][key]
        count = rng.choice((1, 1, 2, 2, 3))
        changed = rng.sample(table.non_key, count)
        if table is EMPLOYEES and rng.random() < 0.3:
            # make sure the second mask byte (ordinals 9-12) is exercised
            changed = list(dict.fromkeys([*changed, rng.choice(table.names[8:])]))
        after = dict(before)
        for column in changed:
            column_spec = table.column(column)
            if column_spec.nullable and before[column] is not None and rng.random() < 0.3:
                after[column] = None  # set to NULL: captured, unlike a column left out
            else:
                after[column] = self._changed_value(column, before[column])
        captured = table.names
        if key in self.known[table.qualified] and rng.random() < PARTIAL_SHARE:
            others = [c for c in table.non_key if c not in changed and rng.random() < 0.3]
            captured = tuple(c for c in table.names if c in table.key or c in changed or c in others)
        self.alive[table.qualified][key] = after
        if captured == table.names:
            self._know(table, key)
        return self._log("update", table, before, after, tuple(changed), captured)

    def delete(self, table: Table) -> Change:
        key = self._pick_alive(table)
        before = self.alive[table.qualified].pop(key)
        self.dead[table.qualified][key] = None
        self.known[table.qualified].pop(key, None)
        return self._log("delete", table, before, None, table.key, table.key)

    def key_change(self, table: Table) -> Change:
        rng = self.rng
        old_key = self._pick_alive(table)
        before = self.alive[table.qualified].pop(old_key)
        self.known[table.qualified].pop(old_key, None)
        dead = self.dead[table.qualified]
        if dead and not self.in_full_load and rng.random() < 0.3:
            # the new key is one deleted earlier: its history resumes
            resurrected = rng.choice(list(dead))
            del dead[resurrected]
            new_key = dict(zip(table.key, resurrected, strict=True))
        elif table is ORDER_LINES and rng.random() < 0.5:
            new_key = self._next_line(before["order_id"])  # renumbered within its order
        else:
            new_key = self._fresh_key(table)
        after = {**before, **new_key}
        if rng.random() < 0.5:  # the same UPDATE may set other columns too
            column = rng.choice(table.non_key)
            after[column] = self._changed_value(column, before[column])
        dead[old_key] = None
        new_tuple = table.key_tuple(after)
        self.alive[table.qualified][new_tuple] = after
        self._know(table, new_tuple)
        changed = tuple(c for c in table.names if after[c] != before[c])
        return self._log("key_change", table, before, after, changed, table.names)

    def random_change(self) -> Change:
        table = self.rng.choice(TABLES)
        kind = self.rng.choices(list(OP_WEIGHTS), weights=list(OP_WEIGHTS.values()))[0]
        alive = len(self.alive[table.qualified])
        # keep each table populated, and only pick what the current state allows
        if (kind in ("update", "key_change") and alive == 0) or (kind == "delete" and alive < MIN_ALIVE):
            kind = "insert"
        # no re-insert while the full load runs: a key it reads later would have had a delete
        # before its (class 0) full-load row, which the D5 fold cannot place
        if kind == "reinsert" and (not self.dead[table.qualified] or self.in_full_load):
            kind = "insert"
        return getattr(self, kind)(table)

    # -- transactions ------------------------------------------------------------------------

    def begin(self) -> None:
        rng = self.rng
        self.clock_us += rng.randint(1, 300_000) if rng.random() < 0.4 else rng.randint(1_000_000, 40_000_000)
        self.txn = Transaction(len(self.transactions_so_far()), f"{rng.getrandbits(128):032X}", self.clock_us)

    def commit(self) -> None:
        changes = self.txn.changes
        for number, change in enumerate(changes, start=1):
            self.counter += self.rng.randint(1, 3)
            change.change_sequence = change_sequence(self.txn.commit_us, self.counter)
            change.event_counter = number
            change.last_in_transaction = number == len(changes)
        self.timeline.append(self.txn)
        self.txn = None

    def transactions_so_far(self) -> list[Transaction]:
        return [entry for entry in self.timeline if isinstance(entry, Transaction)]

    def ddl(self, table: Table) -> None:
        """Widen a column: a new table version (new schema id) with the same columns and ordinals."""
        name, length = WIDENED
        old = self.version_of(table)
        columns = tuple(Column(c.name, c.type, length if c.name == name else c.length, c.precision, c.scale,
                               c.pk_position, c.nullable) for c in old.columns)
        self.clock_us += self.rng.randint(1_000, 500_000)
        version = TableVersion(table, old.version + 1, _schema_id(self.seed, table, old.version + 1), columns,
                               self.clock_us)
        self.versions.append(version)
        self.timeline.append(Ddl(version, len(self.transactions_so_far())))

    # -- full load ---------------------------------------------------------------------------

    def seed_initial_rows(self) -> dict[str, list[dict]]:
        for _ in range(INITIAL_EMPLOYEES):
            row = self._new_row(EMPLOYEES, self._fresh_key(EMPLOYEES))
            self.alive[EMPLOYEES.qualified][EMPLOYEES.key_tuple(row)] = row
        for _ in range(INITIAL_ORDERS):
            order_id, self.next_order_id = self.next_order_id, self.next_order_id + 1
            for _line in range(self.rng.randint(1, 3)):
                row = self._new_row(ORDER_LINES, self._next_line(order_id))
                self.alive[ORDER_LINES.qualified][ORDER_LINES.key_tuple(row)] = row
        return {name: [dict(row) for row in rows.values()] for name, rows in self.alive.items()}

    def read_next(self, table: Table) -> None:
        """The full load reads the next row of ``table`` in key order, as it is right now."""
        unread = self._unread(table, list(self.alive[table.qualified]))
        if not unread:
            self.scan_done[table.qualified] = True
            return
        key = min(unread)
        self.cursor[table.qualified] = key
        self.clock_us += self.rng.randint(0, 25_000)
        self._know(table, key)
        self.timeline.append(FullLoadRead(self.reads, table, dict(self.alive[table.qualified][key]), self.clock_us,
                                          len(self.transactions_so_far()), self.version_of(table)))
        self.reads += 1

    def full_load_step(self) -> None:
        for table in self.rng.sample(TABLES, len(TABLES)):
            for _ in range(self.rng.choice((0, 0, 1, 1, 2))):
                self.read_next(table)

    def finish_full_load(self) -> None:
        for table in TABLES:
            while not self.scan_done[table.qualified]:
                self.read_next(table)
        self.in_full_load = False


def generate_history(seed: int, transactions: int = 180, full_load_window: int = 30) -> SourceHistory:
    """A random but reproducible source history: a full load that overlaps the first
    ``full_load_window`` of ``transactions`` CDC transactions (1–4 changes each), and one DDL."""
    if transactions < 40 or not 1 <= full_load_window < transactions // 2:
        raise ValueError("need >= 40 transactions and a full-load window of 1 to half of them")
    rng = random.Random(f"{seed}/history")
    sim = _Simulator(rng, seed)
    initial = sim.seed_initial_rows()
    ddl_at = rng.randint(transactions // 2, transactions * 3 // 4)
    for index in range(transactions):
        if index < full_load_window:
            sim.full_load_step()
        elif index == full_load_window:
            sim.finish_full_load()
        if index == ddl_at:
            sim.ddl(EMPLOYEES)
        sim.begin()
        size = rng.randint(1, 4)
        while len(sim.txn.changes) < size:
            sim.random_change()
        sim.commit()
    final = {name: {key: dict(row) for key, row in rows.items()} for name, rows in sim.alive.items()}
    return SourceHistory(seed, initial, sim.versions, sim.timeline, final)


# ---------------------------------------------------------------------------------------------
# 2. Rendering as Replicate Kafka messages
# ---------------------------------------------------------------------------------------------


def iso_ms(us: int) -> str:
    """Replicate's header timestamp: UTC, milliseconds, no zone (``2018-04-13T20:13:58.289``)."""
    moment = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=us)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{us // 1000 % 1000:03d}"


def _avro_type(column: Column) -> str:
    return {"INT2": "int", "INT4": "int", "INT8": "long", "REAL8": "double"}.get(column.type, "string")


def data_schema(version: TableVersion) -> str:
    """The Avro schema of the table's data messages, as the metadata message's ``dataSchema`` text."""
    image = {"type": "record", "name": "Data", "fields": [
        {"name": c.name, "type": [{"type": "null"}, {"type": _avro_type(c)}]} for c in version.columns]}
    header_names = ("changeSequence", "timestamp", "streamPosition", "transactionId")
    headers = {"type": "record", "name": "Headers", "fields": [
        {"name": "operation", "type": {"type": "enum", "name": "operation",
                                       "symbols": ["INSERT", "UPDATE", "DELETE", "REFRESH"]}},
        *({"name": name, "type": {"type": "string"}} for name in header_names),
        {"name": "changeMask", "type": [{"type": "null"}, {"type": "bytes"}]},
        {"name": "columnMask", "type": [{"type": "null"}, {"type": "bytes"}]},
    ]}
    return json.dumps({"type": "record", "name": "DataRecord", "fields": [
        {"name": "data", "type": image}, {"name": "beforeData", "type": [{"type": "null"}, "Data"]},
        {"name": "headers", "type": headers}]}, separators=(",", ":"))


def metadata_message(version: TableVersion) -> dict:
    """The ``atMSG`` metadata message of one table version (shaped like published/Metadata.json)."""
    table = version.table
    columns = {c.name: {"ordinal": ordinal, "type": c.type, "length": c.length, "precision": c.precision,
                        "scale": c.scale, "primaryKeyPosition": c.pk_position, "nullable": c.nullable}
               for ordinal, c in enumerate(version.columns, start=1)}
    return {
        "magic": "atMSG", "type": "MD", "headers": None, "messageSchemaId": version.schema_id,
        "messageSchema": None,
        "message": {
            "schemaId": version.schema_id,
            "lineage": {"server": SERVER, "task": TASK, "schema": table.schema, "table": table.name,
                        "tableVersion": version.version, "timestamp": iso_ms(version.at_us)},
            "tableStructure": {"tableColumns": columns},
            "dataSchema": data_schema(version),
        },
    }


@dataclass(eq=False)
class Record:
    """One Kafka message as it lands in a file: ``message`` is the JSON document of one line."""

    index: int  # position in the task's output
    kind: str  # 'metadata', 'refresh' or 'change'
    form: str  # 'atmsg', 'kafka_bare' or 'kafka_atmsg'
    table: Table
    version: TableVersion
    message: dict
    change: Change | None = None
    read: FullLoadRead | None = None
    topic: str | None = None  # Kafka coordinates when the form has a Kafka wrapper
    offset: int | None = None

    @property
    def line(self) -> str:
        return _dump(self.message)


def _dump(document: Any) -> str:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def _mask(table: Table, columns: tuple[str, ...], rng: random.Random) -> str:
    """Hex, little-endian bytes; usually as wide as the table, now and then without zero high bytes."""
    ordinals = [table.ordinal(c) for c in columns]
    width = None if rng.random() < 0.2 else table.mask_bytes
    return encode_hex_mask(ordinals, width)


def _image(table: Table, row: dict, columns: tuple[str, ...]) -> dict:
    """A row image in ordinal order; a column not captured carries null."""
    return {name: row[name] if name in columns else None for name in table.names}


class _Renderer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.records: list[Record] = []
        self.offsets: dict[str, int] = {}
        self.stream_position = 1_000_000

    def _next_offset(self, topic: str) -> int:
        offset = self.offsets.get(topic, 0)
        self.offsets[topic] = offset + 1
        return offset

    def _emit(self, kind: str, table: Table, version: TableVersion, data_message: dict | None,
              at_us: int, change: Change | None = None, read: FullLoadRead | None = None,
              form: str | None = None, document: dict | None = None) -> None:
        rng = self.rng
        form = form or rng.choices(FORMS, weights=FORM_WEIGHTS)[0]
        if document is None:
            if form == "kafka_bare":
                if rng.random() < EXTERNAL_ID_SHARE:
                    data_message["headers"]["externalSchemaId"] = version.schema_id
                document = data_message
            else:
                if rng.random() < OWN_NAMES_SHARE:
                    data_message = {"schemaName": table.schema, "tableName": table.name, **data_message}
                document = {"magic": "atMSG", "type": "DT", "headers": None, "messageSchemaId": version.schema_id,
                            "messageSchema": None, "message": data_message}
        topic = offset = None
        message = document
        if form != "atmsg":
            topic = METADATA_TOPIC if kind == "metadata" else table.topic if form == "kafka_bare" else SHARED_TOPIC
            offset = self._next_offset(topic)
            row = (change.row if change else read.row if read else None)
            key = None if row is None else "+".join(str(row[c]) for c in table.key)
            value: Any = _dump(document) if rng.random() < VALUE_AS_TEXT_SHARE else document
            message = {"topic": topic, "partition": 0, "offset": offset,
                       "timestamp": at_us // 1000 + rng.randint(5, 2_000), "key": key, "value": value}
        self.records.append(Record(len(self.records), kind, form, table, version, message, change, read,
                                   topic, offset))

    def metadata(self, version: TableVersion) -> None:
        form = self.rng.choice(("atmsg", "kafka_atmsg"))
        self._emit("metadata", version.table, version, None, version.at_us, form=form,
                   document=metadata_message(version))

    def refresh(self, read: FullLoadRead) -> None:
        headers = {"operation": "REFRESH", "changeSequence": "", "timestamp": "", "streamPosition": "",
                   "transactionId": "", "changeMask": None, "columnMask": None, "externalSchemaId": None}
        message = {"data": _image(read.table, read.row, read.table.names), "beforeData": None, "headers": headers}
        self._emit("refresh", read.table, read.version, message, read.read_us, read=read)

    def change(self, change: Change, txn: Transaction) -> None:
        rng, table = self.rng, change.table
        self.stream_position += rng.randint(40, 900)
        headers = {
            "operation": change.operation,
            "changeSequence": change.change_sequence,
            "timestamp": iso_ms(txn.commit_us),
            "streamPosition": f"mysql-bin.000042:{self.stream_position:010d}",
            "transactionId": txn.transaction_id,
            "changeMask": _mask(table, change.changed, rng),
            "columnMask": _mask(table, change.captured, rng),
            "externalSchemaId": None,
            "transactionEventCounter": change.event_counter,
            "transactionLastEvent": change.last_in_transaction,
        }
        if change.kind == "delete":
            # the deleted row: whole or only its key, in beforeData or (as published too) in data
            shown = table.names if rng.random() < 0.5 else table.key
            image = _image(table, change.before, shown)
            data, before = (None, image) if rng.random() < 0.6 else (image, None)
        else:
            data = _image(table, change.after, change.captured)
            before = None
            if change.kind == "key_change" or (change.kind == "update" and rng.random() < 0.5):
                before = _image(table, change.before, change.captured)
        message = {"data": data, "beforeData": before, "headers": headers}
        self._emit("change", table, change.version, message, txn.commit_us, change=change)


def render(history: SourceHistory, seed: int) -> list[Record]:
    """The task's output, in order: metadata messages first, then full-load rows and changes."""
    renderer = _Renderer(random.Random(f"{seed}/render"))
    for version in history.versions:
        renderer.metadata(version)
    for entry in history.timeline:
        if isinstance(entry, FullLoadRead):
            renderer.refresh(entry)
        elif isinstance(entry, Transaction):
            for change in entry.changes:
                renderer.change(change, entry)
    return renderer.records


def unwrap(line: str) -> tuple[dict | None, dict | None, dict]:
    """``(Kafka wrapper, atMSG wrapper, inner message)`` of a delivered line (None where absent)."""
    document = json.loads(line)
    wrapper = None
    if "value" in document and "topic" in document:
        wrapper, document = document, document["value"]
        if isinstance(document, str):
            document = json.loads(document)
    if document.get("magic") == "atMSG":
        return wrapper, document, document["message"]
    return wrapper, None, document


# ---------------------------------------------------------------------------------------------
# 3. At-least-once, out-of-order delivery
# ---------------------------------------------------------------------------------------------


@dataclass
class LandingFile:
    name: str
    records: list[Record]  # what each line is a copy of
    lines: list[str]

    def content(self) -> bytes:
        return "".join(line + "\n" for line in self.lines).encode("utf-8")

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / self.name
        path.write_bytes(self.content())
        return path


Batch = list[LandingFile]


def _resent(record: Record, next_offset: dict[str, int], rng: random.Random) -> str:
    """The same message sent again after a restart: new Kafka offset and timestamp, same value."""
    message = copy.deepcopy(record.message)
    message["offset"] = next_offset[record.topic]
    next_offset[record.topic] += 1
    message["timestamp"] += rng.randint(60_000, 3_600_000)
    return _dump(message)


def _first_cdc(records: list[Record]) -> dict[Key, int]:
    """Key -> index of the first CDC message that names it (either side of a key change)."""
    first: dict[Key, int] = {}
    for record in records:
        if record.kind == "change":
            for row in (record.change.before, record.change.after):
                if row is not None:
                    first.setdefault((record.table.qualified, record.table.pk_json(row)), record.index)
    return first


def _refresh_key(record: Record) -> Key:
    return record.table.qualified, record.table.pk_json(record.read.row)


def _contested_refresh(records: list[Record]) -> tuple[list[Record], list[Record]]:
    """Full-load rows of keys that also have CDC changes: those read before the key's first CDC
    change (stale once it applies) and those read after it."""
    first_cdc = _first_cdc(records)
    stale, fresh = [], []
    for record in records:
        if record.kind == "refresh":
            key = _refresh_key(record)
            if key in first_cdc:
                (stale if record.index < first_cdc[key] else fresh).append(record)
    return stale, fresh


def deliver(records: list[Record], seed: int, batches: int = 3, duplicate_rate: float = 0.1,
            resend_rate: float = 0.05, holdback_rate: float = 0.1, late_refresh_share: float = 0.4) -> list[Batch]:
    """``records`` as batches of JSONL files; every record at least once.

    ``duplicate_rate`` of the records come twice (exact copies), ``resend_rate`` of those in a
    Kafka wrapper once more with a new offset and timestamp. All are shuffled and cut into
    ``batches`` runs; ``holdback_rate`` of each run moves to a random later batch. Metadata
    messages (every copy) go to the first batch. For ``late_refresh_share`` of the keys that have
    both a full-load row and CDC changes (at least 2 stale and 2 fresh ones, where they exist),
    every copy of the full-load row goes to the last batch and one copy of the key's first CDC
    change to the first. Each batch becomes 1–3 files ``batch<n>-part<p>.jsonl``.
    """
    rng = random.Random(f"{seed}/deliver")
    next_offset: dict[str, int] = {}
    for record in records:
        if record.topic is not None:
            next_offset[record.topic] = max(next_offset.get(record.topic, 0), record.offset + 1)
    copies: list[tuple[Record, str]] = []
    for record in records:
        copies.append((record, record.line))
        if rng.random() < duplicate_rate:
            copies.append((record, record.line))
        if record.topic is not None and rng.random() < resend_rate:
            copies.append((record, _resent(record, next_offset, rng)))
    rng.shuffle(copies)
    batch_of: list[int] = []
    for position, (record, _line) in enumerate(copies):
        number = position * batches // len(copies)
        if record.kind == "metadata":
            number = 0
        elif number < batches - 1 and rng.random() < holdback_rate:
            number = rng.randint(number + 1, batches - 1)
        batch_of.append(number)

    if batches > 1:
        first_cdc = _first_cdc(records)
        delayed: list[Record] = []
        for group in _contested_refresh(records):
            count = min(len(group), max(2, round(late_refresh_share * len(group))))
            delayed.extend(rng.sample(group, count))
        late = {record.index for record in delayed}
        early = {first_cdc[_refresh_key(record)] for record in delayed}
        for position, (record, _line) in enumerate(copies):
            if record.index in late:
                batch_of[position] = batches - 1
            elif record.index in early:
                batch_of[position] = 0
                early.discard(record.index)  # one copy early is enough

    per_batch: list[list[tuple[Record, str]]] = [[] for _ in range(batches)]
    for item, number in zip(copies, batch_of, strict=True):
        per_batch[number].append(item)
    result = []
    for number, items in enumerate(per_batch, start=1):
        if not items:
            raise ValueError(f"batch {number} is empty: too few records for the batch count")
        rng.shuffle(items)  # held-back messages mix with the batch's own
        parts = min(rng.randint(1, 3), len(items))
        cuts = [0, *sorted(rng.sample(range(1, len(items)), parts - 1)), len(items)]
        result.append([LandingFile(f"batch{number}-part{p}.jsonl", [r for r, _l in items[cuts[p]:cuts[p + 1]]],
                                   [line for _r, line in items[cuts[p]:cuts[p + 1]]])
                       for p in range(parts)])
    return result


# ---------------------------------------------------------------------------------------------
# 4. Oracle
# ---------------------------------------------------------------------------------------------


def contract_events(change: Change) -> list[tuple[str, dict, tuple[str, ...]]]:
    """``(op, row, captured columns)`` of the contract events one source change becomes."""
    if change.kind in ("insert", "reinsert"):
        return [("insert", change.after, change.captured)]
    if change.kind == "update":
        return [("update", change.after, change.captured)]
    if change.kind == "delete":
        return [("delete", change.before, ())]
    if change.kind == "key_change":
        # one UPDATE whose before key differs: delete of the old key, update of the new one
        return [("delete", change.before, ()), ("update", change.after, change.captured)]
    raise ValueError(change.kind)


def oracle(history: SourceHistory) -> Expected:
    """Expected ``cdc_current`` rows and ``cdc_history`` versions, from the source history alone.

    Per key, the full-load row (class 0) comes before every CDC change of the key, which follow
    in ``(changeSequence, transactionEventCounter)`` order; folded by D5 with partial rows: a
    snapshot, insert or update is a version whose row is the prior row (when the key is alive)
    with the captured columns laid over it; a delete of a live key is a deleted version with the
    last row; a delete of a key that is not alive gives no version.
    """
    per_key: dict[Key, list[tuple[tuple[int, ...], str, dict, tuple[str, ...]]]] = {}
    for read in history.full_load:
        key = (read.table.qualified, read.table.pk_json(read.row))
        assert key not in per_key, f"the full load read {key} twice"
        per_key[key] = [((0,), "snapshot", read.row, read.table.names)]
    for change in history.changes():
        order = (1, int(change.change_sequence), change.event_counter)
        for op, row, captured in contract_events(change):
            key = (change.table.qualified, change.table.pk_json(row))
            per_key.setdefault(key, []).append((order, op, row, captured))
    current: dict[Key, str] = {}
    versions_of: dict[Key, list[Version]] = {}
    for key, events in per_key.items():
        table = TABLES_BY_NAME[key[0]]
        alive: dict | None = None
        versions: list[Version] = []
        for _order, op, row, captured in sorted(events, key=lambda item: item[0]):
            if op == "delete":
                if alive is not None:
                    # the fold must reach the source's row before a delete, or the workload is wrong
                    assert alive == row, f"delete of {key}: the folded row is not the deleted row"
                    versions.append(("delete", True, canonical_json(alive)))
                    alive = None
                continue
            merged = {**(alive or {}), **{column: row[column] for column in captured}}
            assert set(merged) == set(table.names), f"{op} of {key}: columns unknown to the pipeline"
            alive = merged
            versions.append((op, False, canonical_json(merged)))
        if versions:
            versions_of[key] = versions
        if alive is not None:
            current[key] = canonical_json(alive)
    truth = {(name, TABLES_BY_NAME[name].pk_json(row)): canonical_json(row)
             for name, rows in history.final.items() for row in rows.values()}
    assert current == truth, "the fold does not end in the source's final state"
    return Expected(current, versions_of)


# ---------------------------------------------------------------------------------------------


@dataclass
class Workload:
    seed: int
    history: SourceHistory
    records: list[Record]
    batches: list[Batch]
    expected: Expected


def build_workload(seed: int, transactions: int = 180, **delivery: Any) -> Workload:
    history = generate_history(seed, transactions)
    records = render(history, seed)
    return Workload(seed, history, records, deliver(records, seed, **delivery), oracle(history))
