"""A seeded Alibaba DataHub workload: source history, messages, delivery, oracle.

The same four steps as :mod:`workloads.datastream`, each a pure function of its inputs and a seed:

1. :func:`generate_history` simulates one MySQL database replicated into two DataHub topics:
   ``fin_db.accounts`` into a **Blob** topic (the JSON document with ``schema`` / ``payload``,
   typed columns, ``primaryKey``) and ``shop_db.order_items`` into a **Tuple** topic (flat
   records with ``_sequence_id_`` ... and untyped data columns; the key is registered in
   ``seeds/cdc_primary_keys.csv``). The accounts table exists before the stream starts: its
   full load (``sequenceId`` ``-1``) scans it in key order while changes already flow, so some
   keys change before the scan reads them and some after. Transactions of 1–3 changes:
   inserts, updates, deletes, re-inserts and primary-key changes; some Blob transactions are
   framed by ``TRANSACTION_BEGIN`` / ``TRANSACTION_END``; ``MHEARTBEAT`` records now and then.
   Once the full load is done, ``ALTER TABLE accounts ADD COLUMN tier`` (a DDL record whose
   ``ddlMeta`` is a genuine Java-serialized ``DDLMeta`` written by :class:`JavaStreamWriter`):
   later images carry ``tier``, rows that never change again keep the old columns.
2. :func:`render` writes the messages: an update is an ``UPDATE_BEFOR`` + ``UPDATE_AFTER``
   pair with one sequence id (always so in the Tuple topic and for key changes), or, in the
   Blob topic, one ``UPDATE_AFTER`` that carries both images (as the published sample does).
   Values as DataHub writes them: DOUBLE mostly as text (``"1.100000"``), LONG sometimes as
   text, DATE as epoch milliseconds, BYTES as base64.
3. :func:`deliver` delivers them at least once and out of order: exact copies, Blob copies
   re-sent with a later ``systemTime``, shuffled, 3 batches with some records held back, one
   update pair whose before half comes two batches after its after half and one the other way
   round, and each batch written as 1–3 ``.jsonl`` files.
4. :func:`oracle` folds the source history (never the messages) by DECISIONLOG D3/D5 and the
   DataHub rules: full-load rows are snapshots that lose to any change of their key; per key
   the order is the sequence id, then the image rank; a key change deletes the old key and
   updates the new one.

:func:`build_workload` runs all four.
"""

from __future__ import annotations

import base64
import copy
import json
import random
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from python_udfs.contract import canonical_json, iso_from_epoch
from workloads import KeyedTable
from workloads.debezium import Expected, Key, Version

VENDOR = "datahub"
START_MS = 1_718_600_000_000  # 2024-06-17T04:53:20Z
# DataHub sequence ids are a millisecond time times 10^6 plus a counter (seed: 1605339516000000004)
SEQUENCE_BASE = START_MS * 1_000_000
FULL_LOAD_SEQUENCE = "-1"
FORMAT_VERSION = "0.0.1"


@dataclass(frozen=True)
class Table(KeyedTable):
    database: str
    name: str
    key: tuple[str, ...]
    # (column, DataHub type, nullable) in table order
    columns: tuple[tuple[str, str, bool], ...]
    format: str  # 'blob' or 'tuple'

    @property
    def qualified(self) -> str:
        return f"{self.database}.{self.name}"

    def type_of(self, column: str) -> str:
        return next(kind for name, kind, _nullable in (*self.columns, ADDED_COLUMN) if name == column)


ACCOUNTS = Table(
    "fin_db", "accounts", ("account_id",),
    (("account_id", "LONG", False), ("owner", "STRING", False), ("balance", "DOUBLE", False),
     ("visits", "LONG", False), ("active", "BOOLEAN", False), ("avatar", "BYTES", True),
     ("opened_at", "DATE", True)),
    "blob",
)
ORDER_ITEMS = Table(
    "shop_db", "order_items", ("order_id", "line_no"),
    (("order_id", "LONG", False), ("line_no", "LONG", False), ("sku", "STRING", False), ("qty", "LONG", False),
     ("price", "DOUBLE", False), ("note", "STRING", True)),
    "tuple",
)
TABLES = (ACCOUNTS, ORDER_ITEMS)
# the column the mid-stream ALTER adds to accounts: (name, DataHub type, nullable), and its SQL type
ADDED_COLUMN = ("tier", "STRING", True)
ADDED_COLUMN_SQL_TYPE = "varchar(16)"
ALTER_TEXT = "ALTER TABLE `accounts` ADD COLUMN `tier` varchar(16) NULL COMMENT 'loyalty tier'"
# the Tuple topic names no key: the project's seed must (D7)
PRIMARY_KEY_SEED_ROWS = ((VENDOR, ORDER_ITEMS.qualified, "|".join(ORDER_ITEMS.key)),)

OWNERS = ("Anne", "Zoë", "José", "Łukasz", "李雷", "O'Neil", 'Dwayne "Rock"', "Back\\slash", "Ann\nMarie",
          "Søren", "山田 太郎", "🙂 Smiley")
SKUS = ("SKU-0001", "SKU-0042", "GIFT-CARD", "CAFÉ-BEANS", "TEA/GREEN", "KIT<3>", "茶-001")
NOTES = ("leave at door", "fragile — handle with care", "🎁 gift wrap", 'say "hi"', "tab\there")
TIERS = ("bronze", "silver", "gold", "platinum")
INITIAL_ACCOUNTS = 12
FIRST_ACCOUNT_ID = 1001
FIRST_ORDER_ID = 50_001
MIN_ALIVE = 3
OP_WEIGHTS = {"insert": 26, "update": 40, "delete": 12, "reinsert": 8, "key_change": 10}


# ---------------------------------------------------------------------------------------------
# A small Java Object Serialization Stream writer (for ddlMeta)
# ---------------------------------------------------------------------------------------------

SC_WRITE_METHOD, SC_SERIALIZABLE, SC_ENUM = 0x01, 0x02, 0x10
_PRIMITIVE_FORMATS = {"B": ">b", "C": ">H", "D": ">d", "F": ">f", "I": ">i", "J": ">q", "S": ">h", "Z": ">?"}


@dataclass(frozen=True)
class JavaClass:
    """A class descriptor: fields as (type code, name, type signature or None), in stream order
    (Java writes primitives first, then objects, each sorted by name)."""

    name: str
    suid: int
    fields: tuple[tuple[str, str, str | None], ...] = ()
    flags: int = SC_SERIALIZABLE
    superclass: JavaClass | None = None


@dataclass
class JavaObject:
    cls: JavaClass
    values: dict[str, Any] = field(default_factory=dict)
    # writeObject data after the fields (classes with SC_WRITE_METHOD): bytes are block data
    annotation: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class JavaEnum:
    cls: JavaClass
    constant: str


def modified_utf8(text: str) -> bytes:
    """Java's modified UTF-8: U+0000 as C0 80, characters beyond U+FFFF as two 3-byte surrogates."""
    out = bytearray()
    for unit in struct.unpack(f">{len(text.encode('utf-16-be')) // 2}H", text.encode("utf-16-be", "surrogatepass")):
        if 0 < unit < 0x80:
            out.append(unit)
        elif unit < 0x800:
            out += bytes((0xC0 | unit >> 6, 0x80 | unit & 0x3F))
        else:
            out += bytes((0xE0 | unit >> 12, 0x80 | unit >> 6 & 0x3F, 0x80 | unit & 0x3F))
    return bytes(out)


class JavaStreamWriter:
    """Writes objects by the Java Object Serialization Stream Protocol (version 5): class
    descriptors once, then back references (also for repeated strings and type signatures)."""

    BASE_WIRE_HANDLE = 0x7E0000

    def __init__(self) -> None:
        self.out = bytearray(struct.pack(">HH", 0xACED, 5))
        self.handles: dict[tuple, int] = {}
        self.next_handle = 0

    def _new_handle(self, identity: tuple | None) -> None:
        if identity is not None:
            self.handles[identity] = self.next_handle
        self.next_handle += 1

    def _reference(self, identity: tuple) -> bool:
        handle = self.handles.get(identity)
        if handle is None:
            return False
        self.out += b"\x71" + struct.pack(">i", self.BASE_WIRE_HANDLE + handle)
        return True

    def _utf(self, text: str) -> None:
        data = modified_utf8(text)
        self.out += struct.pack(">H", len(data)) + data

    def string(self, text: str) -> None:
        if self._reference(("string", text)):
            return
        data = modified_utf8(text)
        if len(data) > 0xFFFF:
            self.out += b"\x7c" + struct.pack(">q", len(data)) + data
        else:
            self.out += b"\x74" + struct.pack(">H", len(data)) + data
        self._new_handle(("string", text))

    def class_desc(self, cls: JavaClass | None) -> None:
        if cls is None:
            self.out += b"\x70"
            return
        if self._reference(("class", cls.name)):
            return
        self.out += b"\x72"
        self._utf(cls.name)
        self.out += struct.pack(">q", cls.suid)
        self._new_handle(("class", cls.name))
        self.out += bytes((cls.flags,)) + struct.pack(">H", len(cls.fields))
        for code, name, signature in cls.fields:
            self.out += code.encode("ascii")
            self._utf(name)
            if signature is not None:
                self.string(signature)
        self.out += b"\x78"  # no class annotation
        self.class_desc(cls.superclass)

    def value(self, value: Any) -> None:
        if value is None:
            self.out += b"\x70"
        elif isinstance(value, str):
            self.string(value)
        elif isinstance(value, JavaEnum):
            self.out += b"\x7e"
            self.class_desc(value.cls)
            self._new_handle(None)
            self.string(value.constant)
        elif isinstance(value, JavaObject):
            self.object(value)
        elif isinstance(value, (bytes, bytearray)):
            self.out += b"\x77" + bytes((len(value),)) + bytes(value)
        else:
            raise TypeError(f"cannot write {type(value).__name__}")

    def object(self, obj: JavaObject) -> None:
        self.out += b"\x73"
        self.class_desc(obj.cls)
        self._new_handle(None)
        hierarchy = []
        cls: JavaClass | None = obj.cls
        while cls is not None:
            hierarchy.append(cls)
            cls = cls.superclass
        for level in reversed(hierarchy):
            for code, name, _signature in level.fields:
                if code in _PRIMITIVE_FORMATS:
                    self.out += struct.pack(_PRIMITIVE_FORMATS[code], obj.values.get(name, 0))
                else:
                    self.value(obj.values.get(name))
            if level.flags & SC_WRITE_METHOD:
                for item in obj.annotation:
                    self.value(item)
                self.out += b"\x78"

    def getvalue(self) -> bytes:
        return bytes(self.out)


_STRING = "Ljava/lang/String;"
_LIST = "Ljava/util/List;"
_SQL_EXPR = "Lcom/alibaba/fastsql/sql/ast/SQLExpr;"
_SQL_NAME = "Lcom/alibaba/fastsql/sql/ast/SQLName;"
_FASTSQL = "com.alibaba.fastsql.sql.ast."
ENUM_BASE = JavaClass("java.lang.Enum", 0, flags=SC_SERIALIZABLE | SC_ENUM)
DB_TYPE = JavaClass("com.alibaba.fastsql.DbType", 0, flags=SC_SERIALIZABLE | SC_ENUM, superclass=ENUM_BASE)
ARRAY_LIST = JavaClass("java.util.ArrayList", 8683452581122892189, (("I", "size", None),),
                       flags=SC_SERIALIZABLE | SC_WRITE_METHOD)
NUMBER = JavaClass("java.lang.Number", -8742448824652078965)
INTEGER = JavaClass("java.lang.Integer", 1360826667806852920, (("I", "value", None),), superclass=NUMBER)
SQL_OBJECT = JavaClass(_FASTSQL + "SQLObjectImpl", -1964321547385907887,
                       (("I", "sourceColumn", None), ("I", "sourceLine", None),
                        ("L", "parent", "Lcom/alibaba/fastsql/sql/ast/SQLObject;")))
SQL_STATEMENT = JavaClass(_FASTSQL + "SQLStatementImpl", 4877014034025100038,
                          (("Z", "afterSemi", None), ("L", "dbType", "Lcom/alibaba/fastsql/DbType;")),
                          superclass=SQL_OBJECT)
SQL_EXPR = JavaClass(_FASTSQL + "SQLExprImpl", 7844290839291621549, superclass=SQL_OBJECT)
IDENTIFIER = JavaClass(_FASTSQL + "expr.SQLIdentifierExpr", -2579834427296335351,
                       (("J", "hashCode64", None), ("L", "name", _STRING)), superclass=SQL_EXPR)
INTEGER_EXPR = JavaClass(_FASTSQL + "expr.SQLIntegerExpr", 1, (("L", "number", "Ljava/lang/Number;"),),
                         superclass=SQL_EXPR)
DATA_TYPE = JavaClass(_FASTSQL + "SQLDataTypeImpl", 5011434566834668613,
                      (("Z", "unsigned", None), ("L", "arguments", _LIST), ("L", "name", _STRING)),
                      superclass=SQL_OBJECT)
COLUMN = JavaClass(_FASTSQL + "statement.SQLColumnDefinition", -3781637932493918163,
                   (("L", "comment", _SQL_EXPR), ("L", "dataType", "Lcom/alibaba/fastsql/sql/ast/SQLDataType;"),
                    ("L", "name", _SQL_NAME)), superclass=SQL_OBJECT)
ADD_COLUMN = JavaClass(_FASTSQL + "statement.SQLAlterTableAddColumn", 2730404440424079364,
                       (("Z", "first", None), ("L", "columns", _LIST)), superclass=SQL_OBJECT)
TABLE_SOURCE = JavaClass(_FASTSQL + "statement.SQLExprTableSource", 4931006826420869836,
                         (("L", "expr", _SQL_EXPR),), superclass=SQL_OBJECT)
ALTER_TABLE = JavaClass(_FASTSQL + "statement.SQLAlterTableStatement", 1445389829880536476,
                        (("L", "items", _LIST),
                         ("L", "tableSource", "Lcom/alibaba/fastsql/sql/ast/statement/SQLExprTableSource;")),
                        superclass=SQL_STATEMENT)
DDL_META = JavaClass("com.alibaba.di.plugin.center.meta.DDLMeta", 205838138316039661,
                     (("L", "ddlText", _STRING), ("L", "statement", "Lcom/alibaba/fastsql/sql/ast/SQLStatement;")))


def _array_list(items: list) -> JavaObject:
    return JavaObject(ARRAY_LIST, {"size": len(items)}, [struct.pack(">i", max(len(items), 10)), *items])


def _identifier(name: str) -> JavaObject:
    return JavaObject(IDENTIFIER, {"hashCode64": 0, "name": name})


def alter_add_column_meta(ddl_text: str, table: str, column: str, type_name: str,
                          type_arguments: tuple[int, ...] = ()) -> str:
    """base64 of a serialized ``DDLMeta`` (``ddlText`` + a FastSQL ``SQLAlterTableStatement``
    for ``ALTER TABLE <table> ADD COLUMN <column> <type>(<arguments>)``), shaped like the seed's."""
    data_type = JavaObject(DATA_TYPE, {"unsigned": False, "name": type_name, "arguments": _array_list(
        [JavaObject(INTEGER_EXPR, {"number": JavaObject(INTEGER, {"value": argument})})
         for argument in type_arguments])})
    definition = JavaObject(COLUMN, {"name": _identifier(column), "dataType": data_type, "comment": None})
    statement = JavaObject(ALTER_TABLE, {
        "afterSemi": False, "dbType": JavaEnum(DB_TYPE, "mysql"),
        "tableSource": JavaObject(TABLE_SOURCE, {"expr": _identifier(table)}),
        "items": _array_list([JavaObject(ADD_COLUMN, {"first": False, "columns": _array_list([definition])})]),
    })
    writer = JavaStreamWriter()
    writer.object(JavaObject(DDL_META, {"ddlText": ddl_text, "statement": statement}))
    return base64.b64encode(writer.getvalue()).decode("ascii")


# ---------------------------------------------------------------------------------------------
# 1. Source history
# ---------------------------------------------------------------------------------------------


@dataclass
class Change:
    """One row change. ``kind``: 'insert', 'reinsert', 'update', 'delete' or 'key_change' (an
    UPDATE that sets the key: ``before`` under the old key, ``after`` under the new). Rows are
    full source rows (DATE as epoch ms); one sequence id per change (both halves of an update)."""

    kind: str
    table: Table
    before: dict | None
    after: dict | None
    sequence: int
    event_ms: int


@dataclass
class Transaction:
    index: int
    commit_ms: int
    changes: list[Change] = field(default_factory=list)
    # Blob TRANSACTION_BEGIN / TRANSACTION_END sequence ids, when the transaction is framed
    markers: tuple[int, int] | None = None


@dataclass
class FullLoadRead:
    table: Table
    row: dict
    read_ms: int
    after_transactions: int  # how many transactions had committed when the row was read


@dataclass
class Ddl:
    table: Table
    text: str
    sequence: int
    event_ms: int


@dataclass
class Heartbeat:
    at_ms: int


@dataclass
class SourceHistory:
    seed: int
    initial: list[dict]  # accounts rows that existed when the stream started
    timeline: list[Transaction | FullLoadRead | Ddl | Heartbeat]

    @property
    def transactions(self) -> list[Transaction]:
        return [entry for entry in self.timeline if isinstance(entry, Transaction)]

    @property
    def full_load(self) -> list[FullLoadRead]:
        return [entry for entry in self.timeline if isinstance(entry, FullLoadRead)]

    @property
    def ddl(self) -> Ddl:
        (ddl,) = [entry for entry in self.timeline if isinstance(entry, Ddl)]
        return ddl

    def changes(self) -> list[Change]:
        return [change for txn in self.transactions for change in txn.changes]


class _Simulator:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.alive: dict[str, dict[tuple, dict]] = {t.name: {} for t in TABLES}
        self.dead: dict[str, dict[tuple, None]] = {t.name: {} for t in TABLES}  # ordered sets
        self.next_account = FIRST_ACCOUNT_ID
        self.next_order = FIRST_ORDER_ID
        self.order_lines: dict[int, int] = {}
        self.clock_ms = START_MS
        self.counter = 0
        self.altered = False
        self.timeline: list[Transaction | FullLoadRead | Ddl | Heartbeat] = []
        self.txn: Transaction | None = None
        self.cursor: tuple | None = None
        self.scan_done = False
        # an account the ALTER leaves alone: its row keeps the old columns to the end
        self.untouched: tuple | None = None

    # -- values ------------------------------------------------------------------------------

    def next_sequence(self) -> int:
        self.counter += self.rng.randint(1, 3)
        return SEQUENCE_BASE + self.counter

    def _value(self, table: Table, column: str) -> Any:
        rng = self.rng
        if column == "owner":
            return rng.choice(OWNERS)
        if column == "balance":
            return round(rng.uniform(-500, 25_000), rng.choice((0, 1, 2)))
        if column == "visits":
            # now and then beyond 2**53: exact only as text or a big integer
            return rng.randint(2**53 + 1, 2**63 - 1) if rng.random() < 0.15 else rng.randint(0, 900)
        if column == "active":
            return rng.random() < 0.7
        if column == "avatar":
            return None if rng.random() < 0.3 else base64.b64encode(rng.randbytes(rng.randint(1, 12))).decode()
        if column == "opened_at":
            return None if rng.random() < 0.2 else START_MS - rng.randint(0, 3 * 10**11)
        if column == "tier":
            return None if rng.random() < 0.3 else rng.choice(TIERS)
        if column == "sku":
            return rng.choice(SKUS)
        if column == "qty":
            return rng.randint(1, 40)
        if column == "price":
            return round(rng.uniform(0.5, 300), 2)
        if column == "note":
            return None if rng.random() < 0.4 else rng.choice(NOTES)
        raise KeyError(column)

    def columns(self, table: Table) -> list[str]:
        names = [name for name, _kind, _nullable in table.columns]
        return names + [ADDED_COLUMN[0]] if table is ACCOUNTS and self.altered else names

    def _new_row(self, table: Table, key: dict) -> dict:
        return {column: key[column] if column in key else self._value(table, column) for column in self.columns(table)}

    def _fresh_key(self, table: Table) -> dict:
        if table is ACCOUNTS:
            self.next_account += 1
            return {"account_id": self.next_account - 1}
        if not self.order_lines or self.rng.random() < 0.4:
            order_id, self.next_order = self.next_order, self.next_order + 1
        else:
            order_id = self.rng.choice(list(self.order_lines))
        return self._next_line(order_id)

    def _next_line(self, order_id: int) -> dict:
        line = self.order_lines.get(order_id, 0) + 1
        self.order_lines[order_id] = line
        return {"order_id": order_id, "line_no": line}

    def _pick_alive(self, table: Table) -> tuple:
        keys = [key for key in self.alive[table.name] if key != self.untouched] or list(self.alive[table.name])
        if table is ACCOUNTS and not self.scan_done and self.rng.random() < 0.5:
            unread = [key for key in keys if self.cursor is None or key > self.cursor]
            if unread:
                return self.rng.choice(unread)  # a change the full load has not read yet
        return self.rng.choice(keys)

    # -- changes -----------------------------------------------------------------------------

    def _log(self, kind: str, table: Table, before: dict | None, after: dict | None) -> None:
        self.txn.changes.append(Change(kind, table, before, after, self.next_sequence(), self.clock_ms))

    def insert(self, table: Table, key: dict | None = None, kind: str = "insert") -> None:
        row = self._new_row(table, key or self._fresh_key(table))
        self.alive[table.name][table.key_tuple(row)] = row
        self._log(kind, table, None, row)

    def reinsert(self, table: Table) -> bool:
        if not self.dead[table.name]:
            return False
        key = self.rng.choice(list(self.dead[table.name]))
        del self.dead[table.name][key]
        self.insert(table, dict(zip(table.key, key, strict=True)), "reinsert")
        return True

    def update(self, table: Table) -> bool:
        if not self.alive[table.name]:
            return False
        key = self._pick_alive(table)
        before = self.alive[table.name][key]
        non_key = [c for c in self.columns(table) if c not in table.key]
        after = dict(before)
        for column in self.rng.sample(non_key, self.rng.randint(1, min(3, len(non_key)))):
            after[column] = self._value(table, column)
        self.alive[table.name][key] = after
        self._log("update", table, before, after)
        return True

    def delete(self, table: Table) -> bool:
        if len(self.alive[table.name]) <= MIN_ALIVE:
            return False
        key = self._pick_alive(table)
        before = self.alive[table.name].pop(key)
        self.dead[table.name][key] = None
        self._log("delete", table, before, None)
        return True

    def key_change(self, table: Table) -> bool:
        if not self.alive[table.name]:
            return False
        key = self._pick_alive(table)
        before = self.alive[table.name].pop(key)
        self.dead[table.name][key] = None
        new_key = self._fresh_key(table) if table is ACCOUNTS else self._next_line(before["order_id"])
        after = {**before, **new_key}
        if self.rng.random() < 0.5:
            column = self.rng.choice([c for c in self.columns(table) if c not in table.key])
            after[column] = self._value(table, column)
        self.alive[table.name][table.key_tuple(after)] = after
        self._log("key_change", table, before, after)
        return True

    def random_change(self) -> None:
        table = self.rng.choice(TABLES)
        kind = self.rng.choices(list(OP_WEIGHTS), weights=list(OP_WEIGHTS.values()))[0]
        if kind == "insert" or not getattr(self, kind)(table):
            self.insert(table)

    # -- transactions, full load, DDL, heartbeats ---------------------------------------------

    def transaction(self, index: int) -> None:
        self.clock_ms += self.rng.randint(200, 6_000)
        self.txn = Transaction(index, self.clock_ms)
        framed = self.rng.random() < 0.2
        begin = self.next_sequence() if framed else None
        for _ in range(self.rng.choices((1, 2, 3), weights=(5, 3, 2))[0]):
            self.random_change()
        if framed and any(change.table is ACCOUNTS for change in self.txn.changes):
            self.txn.markers = (begin, self.next_sequence())
        self.timeline.append(self.txn)

    def seed_initial_rows(self) -> list[dict]:
        rows = [self._new_row(ACCOUNTS, self._fresh_key(ACCOUNTS)) for _ in range(INITIAL_ACCOUNTS)]
        for row in rows:
            self.alive[ACCOUNTS.name][ACCOUNTS.key_tuple(row)] = row
        return [dict(row) for row in rows]

    def read_next(self) -> bool:
        keys = sorted(key for key in self.alive[ACCOUNTS.name] if self.cursor is None or key > self.cursor)
        if not keys:
            return False
        self.cursor = keys[0]
        self.clock_ms += self.rng.randint(1, 50)
        done = sum(isinstance(entry, Transaction) for entry in self.timeline)
        self.timeline.append(FullLoadRead(ACCOUNTS, dict(self.alive[ACCOUNTS.name][keys[0]]), self.clock_ms, done))
        return True

    def finish_full_load(self) -> None:
        while self.read_next():
            pass
        self.scan_done = True

    def alter(self) -> None:
        self.clock_ms += self.rng.randint(1_000, 5_000)
        self.timeline.append(Ddl(ACCOUNTS, ALTER_TEXT, self.next_sequence(), self.clock_ms))
        self.altered = True
        # existing rows get the column's default (new dicts: logged images stay as they were)
        self.alive[ACCOUNTS.name] = {key: {**row, ADDED_COLUMN[0]: None}
                                     for key, row in self.alive[ACCOUNTS.name].items()}
        self.untouched = self.rng.choice(list(self.alive[ACCOUNTS.name]))

    def heartbeat(self) -> None:
        self.timeline.append(Heartbeat(self.clock_ms + self.rng.randint(1, 900)))


def generate_history(seed: int, transactions: int = 100, full_load_window: int = 25) -> SourceHistory:
    """``transactions`` transactions of 1–3 changes (~170 with the default); the full
    load of accounts runs during the first ``full_load_window``; the ALTER comes after it."""
    rng = random.Random(f"{seed}/history")
    sim = _Simulator(rng)
    initial = sim.seed_initial_rows()
    alter_at = max(full_load_window + 1, int(transactions * 0.55))
    next_heartbeat = rng.randint(5, 9)
    for index in range(transactions):
        if index < full_load_window:
            for _ in range(rng.choice((0, 1, 1, 2))):
                sim.read_next()
        elif not sim.scan_done:
            sim.finish_full_load()
        if index == alter_at:
            sim.alter()
        sim.transaction(index)
        if index == next_heartbeat:
            sim.heartbeat()
            next_heartbeat += rng.randint(5, 10)
    if not sim.scan_done:
        sim.finish_full_load()
    if not sim.altered:
        sim.alter()
    return SourceHistory(seed, initial, sim.timeline)


# ---------------------------------------------------------------------------------------------
# 2. Messages
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """One DataHub message. ``op`` as written (Blob op or Tuple ``I``/``U``/``D``); ``half``
    'before' / 'after' for the two records of an update pair, 'both' for a one-record update;
    ``change`` the index of the source change in :meth:`SourceHistory.changes`."""

    index: int
    form: str  # 'blob' or 'tuple'
    op: str
    table: Table | None
    sequence: str | None
    line: str
    change: int | None = None
    half: str | None = None

    @property
    def message(self) -> dict:
        return json.loads(self.line)

    @property
    def full_load(self) -> bool:
        return self.sequence == FULL_LOAD_SEQUENCE


def blob_columns(row: dict) -> list[dict]:
    return [{"name": column, "type": ACCOUNTS.type_of(column)} for column in row]


def _dump(message: dict) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


class _Renderer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.records: list[Record] = []

    def _append(self, form: str, op: str, table: Table | None, sequence: str | None, message: dict,
                change: int | None = None, half: str | None = None) -> None:
        self.records.append(Record(len(self.records), form, op, table, sequence, _dump(message), change, half))

    # -- Blob --------------------------------------------------------------------------------

    def _blob_value(self, column: str, value: Any) -> Any:
        kind = ACCOUNTS.type_of(column)
        if value is None:
            return None
        if kind == "DOUBLE":
            return f"{value:.6f}" if self.rng.random() < 0.7 else value  # real files write text
        if kind == "LONG" and (value > 2**53 or self.rng.random() < 0.15):
            return str(value)
        return value

    def _image(self, row: dict | None) -> dict | None:
        if row is None:
            return None
        columns = list(row)
        self.rng.shuffle(columns)  # writers do not keep the table order (the insert sample does not)
        return {"dataColumn": {column: self._blob_value(column, row[column]) for column in columns}}

    def _blob(self, op: str, sequence: str, event_ms: int, *, row_for_schema: dict | None,
              before: dict | None = None, after: dict | None = None, ddl: dict | None = None,
              table: bool = True) -> dict:
        source = {"dbType": "MySQL", "dbName": ACCOUNTS.database}
        if table:
            source["tableName"] = ACCOUNTS.name
        schema: dict = {"source": source}
        if row_for_schema is not None:
            schema = {"dataColumn": blob_columns(row_for_schema), "primaryKey": list(ACCOUNTS.key), "source": source}
        full_load = sequence == FULL_LOAD_SEQUENCE
        timestamp = {"eventTime": -1 if full_load else event_ms,
                     "systemTime": event_ms + self.rng.randint(150, 4_000),
                     "checkpointTime": -1 if full_load else event_ms}
        payload = {"before": self._image(before), "after": self._image(after), "sequenceId": sequence,
                   "timestamp": timestamp, "op": op, "ddl": ddl}
        if self.rng.random() < 0.5:  # the seed's examples leave absent parts out; real files write null
            payload = {k: v for k, v in payload.items() if v is not None}
        if self.rng.random() < 0.5:
            return {"schema": schema, "payload": payload, "version": FORMAT_VERSION}
        return {"payload": dict(sorted(payload.items())), "schema": schema, "version": FORMAT_VERSION}

    def full_load(self, read: FullLoadRead) -> None:
        message = self._blob("INSERT", FULL_LOAD_SEQUENCE, read.read_ms, row_for_schema=read.row, after=read.row)
        message["payload"]["timestamp"]["systemTime"] = read.read_ms
        self._append("blob", "INSERT", ACCOUNTS, FULL_LOAD_SEQUENCE, message)

    def blob_change(self, index: int, change: Change) -> None:
        sequence = str(change.sequence)
        row = change.after or change.before
        if change.kind in ("insert", "reinsert"):
            self._append("blob", "INSERT", ACCOUNTS, sequence,
                         self._blob("INSERT", sequence, change.event_ms, row_for_schema=row, after=change.after), index)
        elif change.kind == "delete":
            self._append("blob", "DELETE", ACCOUNTS, sequence,
                         self._blob("DELETE", sequence, change.event_ms, row_for_schema=row, before=change.before),
                         index)
        elif change.kind == "update" and self.rng.random() < 0.35:
            message = self._blob("UPDATE_AFTER", sequence, change.event_ms, row_for_schema=row,
                                 before=change.before, after=change.after)
            self._append("blob", "UPDATE_AFTER", ACCOUNTS, sequence, message, index, "both")
        else:  # a pair; always so for key changes
            before = self._blob("UPDATE_BEFOR", sequence, change.event_ms, row_for_schema=change.before,
                                before=change.before)
            after = self._blob("UPDATE_AFTER", sequence, change.event_ms, row_for_schema=row, after=change.after)
            after["payload"]["timestamp"] = dict(before["payload"]["timestamp"])
            self._append("blob", "UPDATE_BEFOR", ACCOUNTS, sequence, before, index, "before")
            self._append("blob", "UPDATE_AFTER", ACCOUNTS, sequence, after, index, "after")

    def marker(self, op: str, sequence: int, at_ms: int) -> None:
        self._append("blob", op, None, str(sequence),
                     self._blob(op, str(sequence), at_ms, row_for_schema=None, table=False))

    def ddl(self, ddl: Ddl) -> None:
        meta = alter_add_column_meta(ddl.text, ACCOUNTS.name, ADDED_COLUMN[0], "varchar", (16,))
        message = self._blob("ALTER", str(ddl.sequence), ddl.event_ms, row_for_schema=None,
                             ddl={"text": ddl.text, "ddlMeta": meta})
        self._append("blob", "ALTER", ACCOUNTS, str(ddl.sequence), message)

    def heartbeat(self, heartbeat: Heartbeat) -> None:
        message = {"schema": {}, "payload": {"op": "MHEARTBEAT", "timestamp": {
            "eventTime": heartbeat.at_ms, "checkpointTime": heartbeat.at_ms}}, "version": FORMAT_VERSION}
        self._append("blob", "MHEARTBEAT", None, None, message)

    # -- Tuple -------------------------------------------------------------------------------

    def _tuple(self, op: str, sequence: int, event_ms: int, before_image: bool, row: dict) -> dict:
        return {"_sequence_id_": str(sequence), "_operation_type_": op, "_excute_time_": event_ms,
                "_source_table_": ORDER_ITEMS.qualified, "_before_image_": "Y" if before_image else "N",
                "_after_image_": "N" if before_image else "Y", **row}

    def tuple_change(self, index: int, change: Change) -> None:
        sequence, at = change.sequence, change.event_ms
        if change.kind in ("insert", "reinsert"):
            self._append("tuple", "I", ORDER_ITEMS, str(sequence), self._tuple("I", sequence, at, False, change.after),
                         index)
        elif change.kind == "delete":
            self._append("tuple", "D", ORDER_ITEMS, str(sequence), self._tuple("D", sequence, at, True, change.before),
                         index)
        else:
            self._append("tuple", "U", ORDER_ITEMS, str(sequence), self._tuple("U", sequence, at, True, change.before),
                         index, "before")
            self._append("tuple", "U", ORDER_ITEMS, str(sequence), self._tuple("U", sequence, at, False, change.after),
                         index, "after")


def render(history: SourceHistory, seed: int) -> list[Record]:
    """The messages of both topics, in source order."""
    renderer = _Renderer(random.Random(f"{seed}/render"))
    index = 0
    for entry in history.timeline:
        if isinstance(entry, FullLoadRead):
            renderer.full_load(entry)
        elif isinstance(entry, Ddl):
            renderer.ddl(entry)
        elif isinstance(entry, Heartbeat):
            renderer.heartbeat(entry)
        else:
            if entry.markers:
                renderer.marker("TRANSACTION_BEGIN", entry.markers[0], entry.commit_ms)
            for change in entry.changes:
                if change.table is ACCOUNTS:
                    renderer.blob_change(index, change)
                else:
                    renderer.tuple_change(index, change)
                index += 1
            if entry.markers:
                renderer.marker("TRANSACTION_END", entry.markers[1], entry.commit_ms)
    return renderer.records


def message_identity(line: str) -> str:
    """What makes two delivered lines the same message: everything but the Blob ``systemTime``
    (a re-sent copy is processed again) and the key order."""
    message = json.loads(line)
    timestamp = message.get("payload", {}).get("timestamp")
    if isinstance(timestamp, dict):
        timestamp.pop("systemTime", None)
    return canonical_json(message)


# ---------------------------------------------------------------------------------------------
# 3. At-least-once, out-of-order delivery
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LandingFile:
    name: str
    items: tuple[tuple[int, str], ...]  # (record index, delivered line)

    @property
    def lines(self) -> list[str]:
        return [line for _index, line in self.items]

    def content(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / self.name
        path.write_text(self.content(), encoding="utf-8")
        return path


Batch = list[LandingFile]


def _resent(record: Record, rng: random.Random) -> str:
    message = copy.deepcopy(record.message)
    message["payload"]["timestamp"]["systemTime"] += rng.randint(60_000, 3_600_000)
    return _dump(message)


def _pairs(records: list[Record]) -> list[tuple[Record, Record]]:
    halves: dict[int, dict[str, Record]] = {}
    for record in records:
        if record.half in ("before", "after"):
            halves.setdefault(record.change, {})[record.half] = record
    return [(h["before"], h["after"]) for h in halves.values()]


def deliver(records: list[Record], seed: int, batches: int = 3, duplicate_rate: float = 0.1,
            resend_rate: float = 0.05, holdback_rate: float = 0.1) -> list[Batch]:
    """``records`` as batches of ``.jsonl`` files; every record at least once.

    ``duplicate_rate`` of the records come twice (exact copies; at least one half of an update
    pair among them), ``resend_rate`` of the Blob records once more with a later ``systemTime``.
    All are shuffled and cut into ``batches`` runs; ``holdback_rate`` of each run moves to a
    random later batch. Then (``batches`` > 2) one update pair (a key change where there is one)
    has its after half in the first batch and every copy of its before half in the last, and
    another pair the other way round. Each batch becomes 1–3 files named in delivery order.
    """
    rng = random.Random(f"{seed}/deliver")
    pairs = _pairs(records)
    forced_copy = rng.choice(pairs)[rng.randrange(2)].index if pairs else None
    copies: list[tuple[int, str]] = []
    for record in records:
        copies.append((record.index, record.line))
        if record.index == forced_copy or rng.random() < duplicate_rate:
            copies.append((record.index, record.line))
        if record.form == "blob" and record.op != "MHEARTBEAT" and rng.random() < resend_rate:
            copies.append((record.index, _resent(record, rng)))
    rng.shuffle(copies)
    batch_of = []
    for position in range(len(copies)):
        number = position * batches // len(copies)
        if number < batches - 1 and rng.random() < holdback_rate:
            number = rng.randint(number + 1, batches - 1)
        batch_of.append(number)
    if batches > 2 and len(pairs) >= 2:
        key_changes = [pair for pair in pairs if _is_key_change(pair)]
        first = rng.choice(key_changes or pairs)
        second = rng.choice([pair for pair in pairs if pair is not first])
        late = {first[0].index: batches - 1, first[1].index: 0, second[1].index: batches - 1, second[0].index: 0}
        for position, (index, _line) in enumerate(copies):
            if index in late:
                batch_of[position] = late[index]
    per_batch: list[list[tuple[int, str]]] = [[] for _ in range(batches)]
    for item, number in zip(copies, batch_of, strict=True):
        per_batch[number].append(item)
    result = []
    for number, items in enumerate(per_batch, start=1):
        if not items:
            raise ValueError(f"batch {number} is empty: too few records for the batch count")
        rng.shuffle(items)
        parts = min(rng.randint(1, 3), len(items))
        cuts = [0, *sorted(rng.sample(range(1, len(items)), parts - 1)), len(items)]
        result.append([LandingFile(f"batch{number}-part{p}.jsonl", tuple(items[cuts[p]:cuts[p + 1]]))
                       for p in range(parts)])
    return result


def _is_key_change(pair: tuple[Record, Record]) -> bool:
    before, after = (_image_of(record) for record in pair)
    table = pair[0].table
    return table.key_of(before) != table.key_of(after)


def _image_of(record: Record) -> dict:
    """The row a data record carries (Blob: its after image, else its before image; Tuple: its
    data columns), values as written."""
    message = record.message
    if record.form == "tuple":
        return {k: v for k, v in message.items() if not (k.startswith("_") and k.endswith("_"))}
    payload = message["payload"]
    image = payload.get("after") or payload.get("before")
    if record.half == "before":
        image = payload["before"]
    values = image["dataColumn"]
    return {k: int(v) if ACCOUNTS.type_of(k) == "LONG" and isinstance(v, str) else v for k, v in values.items()}


# ---------------------------------------------------------------------------------------------
# 4. Oracle
# ---------------------------------------------------------------------------------------------


def row_value(table: Table, column: str, value: Any) -> Any:
    """A source value as the contract's row holds it: DATE epoch ms as ISO-8601 UTC text."""
    if value is not None and table.format == "blob" and table.type_of(column) == "DATE":
        return iso_from_epoch(value, "ms")
    return value


def contract_row(table: Table, row: dict) -> dict:
    return {column: row_value(table, column, value) for column, value in row.items()}


def oracle(history: SourceHistory) -> Expected:
    """Expected ``cdc_current`` rows and ``cdc_history`` versions, from the source history alone.

    Per key (``(source_table, pk_json)``): the full-load row (class 0, op 'snapshot') before
    every change of the key, which follow by sequence id, then image rank (0 for the delete of
    a key change's old key, 1 otherwise). Folded by D5: snapshot / insert / update give a
    version whose row is the prior row (if alive) with the image laid over it; a delete of a
    live key gives a deleted version with its last row, of a key not alive none. A key change is
    a delete of the old key and an 'update' of the new key. DataHub images are full rows, so
    a row is the columns of its last image: rows not changed since the ALTER lack ``tier``.
    """
    per_key: dict[Key, list[tuple[tuple[int, int, int], str, dict]]] = {}

    def add(table: Table, order: tuple[int, int, int], op: str, row: dict) -> None:
        per_key.setdefault((table.qualified, table.pk_json(row)), []).append((order, op, contract_row(table, row)))

    for read in history.full_load:
        key = (read.table.qualified, read.table.pk_json(read.row))
        assert key not in per_key, f"the full load read {key} twice"
        add(read.table, (0, 0, 0), "snapshot", read.row)
    for change in history.changes():
        table, sequence = change.table, change.sequence
        if change.kind in ("insert", "reinsert"):
            add(table, (1, sequence, 1), "insert", change.after)
        elif change.kind == "update":
            add(table, (1, sequence, 1), "update", change.after)
        elif change.kind == "delete":
            add(table, (1, sequence, 1), "delete", change.before)
        else:
            add(table, (1, sequence, 0), "delete", change.before)
            add(table, (1, sequence, 1), "update", change.after)
    current: dict[Key, str] = {}
    versions_of: dict[Key, list[Version]] = {}
    for key, events in per_key.items():
        alive: dict | None = None
        versions: list[Version] = []
        for _order, op, row in sorted(events, key=lambda item: item[0]):
            if op == "delete":
                if alive is not None:
                    # the last known row, which need not be the delete's image: a full-load row
                    # read after a delete and re-insert sorts before that delete
                    versions.append(("delete", True, canonical_json(alive)))
                    alive = None
            else:
                alive = {**alive, **row} if alive is not None else dict(row)
                versions.append((op, False, canonical_json(alive)))
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
    records: list[Record]
    batches: list[Batch]
    expected: Expected


def build_workload(seed: int, transactions: int = 100, **delivery: Any) -> Workload:
    history = generate_history(seed, transactions)
    records = render(history, seed)
    return Workload(seed, history, records, deliver(records, seed, **delivery), oracle(history))
