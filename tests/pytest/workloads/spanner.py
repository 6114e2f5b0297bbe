"""A seeded Spanner change-streams workload: source history, change records, delivery, oracle.

The same four steps as :mod:`workloads.debezium`, each a pure function of its inputs and a seed:

1. :func:`generate_history` simulates a Spanner database with two tables watched by one change
   stream: ``Singers`` captured with ``NEW_VALUES`` (an update carries only the columns it set)
   and ``Albums`` (composite key) captured with ``NEW_ROW`` (an update carries every tracked
   column). Transactions of 1–4 mods: inserts, partial updates (some setting a nullable column
   to NULL), deletes and re-inserts of deleted keys; no key updates (Spanner forbids them) and
   no truncate. Between transactions the reader sees heartbeats and partition splits/merges.
2. :func:`render` turns it into the rows a change-stream reader writes: GoogleSQL rows
   ``{"data_change_record": [...]}`` (one record per run of mods with the same table, mod type
   and written columns, as Spanner groups them), ``heartbeat_record`` and
   ``child_partitions_record`` rows, and some data change records in the Dataflow/Beam
   ``DataChangeRecord`` JSON form.
3. :func:`deliver` delivers them at least once and out of order: exact copies (a reader that
   re-reads a partition after a restart gets byte-identical rows), then the shuffle, batches,
   hold-back and files of :func:`workloads.debezium.deliver`.
4. :func:`oracle` replays the *source history* (never the records) and says what
   ``cdc_current`` and ``cdc_history`` must contain (DECISIONLOG D5).

:func:`build_workload` runs all four.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import random
import string
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, NamedTuple

from python_udfs.contract import canonical_json
from workloads import KeyedTable, debezium
from workloads.debezium import Batch, Expected, Key, Version

VENDOR = "spanner"
STREAM = "SingersAlbumsStream"
START_NS = 1_714_554_000 * 10**9  # 2024-05-01T09:00:00Z
NS = 10**9
BEAM_SHARE = 0.2  # data change records written in the Dataflow/Beam form
RECORD_FIELDS = ("data_change_record", "heartbeat_record", "child_partitions_record")


@dataclass(frozen=True)
class Table(KeyedTable):
    name: str
    key: tuple[str, ...]
    # (column, Spanner type code, nullable) in schema order: ordinal_position is index + 1
    columns: tuple[tuple[str, str, bool], ...]
    value_capture_type: str

    @property
    def non_key(self) -> tuple[str, ...]:
        return tuple(column for column, _code, _nullable in self.columns if column not in self.key)

    def code(self, column: str) -> str:
        return next(code for name, code, _nullable in self.columns if name == column)

    def nullable(self, column: str) -> bool:
        return next(nullable for name, _code, nullable in self.columns if name == column)


SINGERS = Table(
    "Singers",
    ("SingerId",),
    (("SingerId", "INT64", False), ("FirstName", "STRING", False), ("LastName", "STRING", False),
     ("Rating", "FLOAT64", True), ("Info", "JSON", True)),
    "NEW_VALUES",
)
ALBUMS = Table(
    "Albums",
    ("SingerId", "AlbumId"),
    (("SingerId", "INT64", False), ("AlbumId", "INT64", False), ("Title", "STRING", False),
     ("Sales", "INT64", False), ("ReleaseDate", "DATE", True)),
    "NEW_ROW",
)
TABLES = (SINGERS, ALBUMS)
TABLES_BY_NAME = {table.name: table for table in TABLES}

# Values: non-ASCII, JSON escapes and the characters Gson escapes (= < > & ') so encoding bugs show.
FIRST_NAMES = ("Marc", "Catalina", "Alice", "Lea", "David", "Zoë", "José", "Björk", "李", 'Dwayne "Rock"')
LAST_NAMES = ("Richards", "Smith", "Trentor", "Martin", "Lomond", "O'Brien", "Müller", "Nakamura", "Back\\slash")
TITLES = ("Total Junk", "Go, Go, Go", "Green", "Nevermind", "Café del Mar", "東京 Nights",
          'The "White" Album', "50/50 & more <live>", "x=y")
WORDS = {"FirstName": FIRST_NAMES, "LastName": LAST_NAMES, "Title": TITLES}
NULL_SHARE = {"Rating": 0.2, "Info": 0.25, "ReleaseDate": 0.2}  # of inserted values
GENRES = ("rock", "jazz", "pop", "fado", "k-pop", "música popular")
LABELS = ("Sub Pop", "Blue Note", "Motown", "Ryko & Co")
TAGS = ("app=catalog,env=prod,action=import", "app=royalties,action=update", "app=admin")


# ---------------------------------------------------------------------------------------------
# 1. Source history
# ---------------------------------------------------------------------------------------------


@dataclass
class Mod:
    """One row change as Spanner commits it.

    ``kind`` is 'insert', 'reinsert' (an insert of a key deleted earlier), 'update' or 'delete'.
    ``columns`` are the non-key columns the statement wrote: all of them for an insert, the 1–2
    it set for an update, none for a delete. ``before`` / ``after`` are full rows.
    """

    kind: str
    table: Table
    before: dict | None
    after: dict | None
    columns: tuple[str, ...]

    @property
    def mod_type(self) -> str:
        return {"insert": "INSERT", "reinsert": "INSERT", "update": "UPDATE", "delete": "DELETE"}[self.kind]

    @property
    def row(self) -> dict:
        return self.after if self.after is not None else self.before


@dataclass
class Transaction:
    index: int
    server_transaction_id: str
    commit_ns: int
    # digits of the fraction in commit_timestamp (6–9); commit_ns is a multiple of the last digit
    fraction_digits: int
    tag: str
    mods: list[Mod]


@dataclass
class Control:
    """A reader-side record between transactions: 'heartbeat' or 'child_partitions'."""

    kind: str
    at_ns: int
    # child partitions: (token, parent tokens); the first record of a stream has no parents
    children: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass
class SourceHistory:
    seed: int
    events: list[Transaction | Control]  # in the order the reader sees them

    @property
    def transactions(self) -> list[Transaction]:
        return [event for event in self.events if isinstance(event, Transaction)]

    @property
    def controls(self) -> list[Control]:
        return [event for event in self.events if isinstance(event, Control)]

    def mods(self) -> list[Mod]:
        return [mod for txn in self.transactions for mod in txn.mods]


OP_WEIGHTS = {"insert": 30, "update": 40, "delete": 15, "reinsert": 10}
MIN_ALIVE = 3  # deletes keep this many rows per table, so updates always find one


def _bit_reversed(number: int) -> int:
    """What a Spanner bit-reversed sequence hands out: large INT64 keys beyond a double's precision."""
    return int(f"{number:063b}"[::-1], 2)


class _Simulator:
    """Applies random mods to an in-memory database and commits them as transactions."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.alive: dict[str, dict[tuple, dict]] = {t.name: {} for t in TABLES}
        # dicts as ordered sets, so choices do not depend on set iteration order
        self.dead: dict[str, dict[tuple, None]] = {t.name: {} for t in TABLES}
        self.singers_created = 0
        self.last_album_id: dict[int, int] = {}
        self.pending: list[Mod] = []
        self.clock_us = START_NS // 1000
        self.min_gap_us = 1
        self.tokens: list[str] = []

    # -- values ------------------------------------------------------------------------------

    def _rating(self) -> float:
        rating = round(self.rng.uniform(0, 10), 2)
        return rating + 0.25 if rating == int(rating) else rating

    def _info(self) -> Any:
        """A JSON document: mostly an object, sometimes an array or a scalar."""
        rng = self.rng
        shape = rng.random()
        if shape < 0.7:
            info: dict[str, Any] = {"genres": rng.sample(GENRES, rng.randint(1, 3)), "awards": rng.randint(0, 12)}
            if rng.random() < 0.5:
                info["label"] = {"name": rng.choice(LABELS), "since": rng.randint(1970, 2024),
                                 "active": rng.random() < 0.5}
            if rng.random() < 0.2:
                info["website"] = None
            return info
        if shape < 0.9:
            return rng.sample(GENRES, rng.randint(0, 3))
        return rng.choice(("unsigned", 'says "hi"', 42))

    def _sales(self) -> int:
        # now and then more than 2**53: INT64 arrives as a JSON string to keep such values exact
        rng = self.rng
        return rng.randint(2**53 + 1, 2**63 - 1) if rng.random() < 0.1 else rng.randint(0, 5_000_000)

    def _release_date(self) -> str:
        return (dt.date(1960, 1, 1) + dt.timedelta(days=self.rng.randint(0, 23_700))).isoformat()

    def _value(self, column: str, allow_null: bool = True) -> Any:
        if allow_null and column in NULL_SHARE and self.rng.random() < NULL_SHARE[column]:
            return None
        if column in WORDS:
            return self.rng.choice(WORDS[column])
        makers = {"Rating": self._rating, "Info": self._info, "Sales": self._sales,
                  "ReleaseDate": self._release_date}
        return makers[column]()

    def _changed_value(self, table: Table, column: str, old: Any) -> Any:
        if table.nullable(column) and old is not None and self.rng.random() < 0.4:
            return None
        while True:
            value = self._value(column, allow_null=False)
            if value != old:
                return value

    # -- keys --------------------------------------------------------------------------------

    def _fresh_key(self, table: Table) -> dict:
        if table is SINGERS:
            self.singers_created += 1
            number = self.singers_created
            return {"SingerId": _bit_reversed(number) if number % 3 == 0 else number}
        singers = [key[0] for key in self.alive[SINGERS.name]] or [1]
        singer_id = self.rng.choice(singers)
        album_id = self.last_album_id.get(singer_id, 0) + 1
        self.last_album_id[singer_id] = album_id
        return {"SingerId": singer_id, "AlbumId": album_id}

    def _choose(self, table: Table, pool: dict[tuple, Any]) -> tuple | None:
        """A key of ``pool`` this transaction has not touched yet (Spanner folds several writes of
        one row in a transaction into one mod; the workload keeps to one mod per row instead)."""
        touched = {table.key_tuple(mod.row) for mod in self.pending if mod.table is table}
        keys = [key for key in pool if key not in touched]
        return self.rng.choice(keys) if keys else None

    # -- mods --------------------------------------------------------------------------------

    def insert(self, table: Table, key: dict | None = None, kind: str = "insert") -> None:
        row = dict(key or self._fresh_key(table))
        for column in table.non_key:
            row[column] = self._value(column)
        self.alive[table.name][table.key_tuple(row)] = row
        self.pending.append(Mod(kind, table, None, row, table.non_key))

    def reinsert(self, table: Table) -> bool:
        key = self._choose(table, self.dead[table.name])
        if key is None:
            return False
        del self.dead[table.name][key]
        self.insert(table, dict(zip(table.key, key, strict=True)), kind="reinsert")
        return True

    def update(self, table: Table, columns: tuple[str, ...] | None = None) -> bool:
        key = self._choose(table, self.alive[table.name])
        if key is None:
            return False
        if columns is None:
            chosen = self.rng.sample(table.non_key, self.rng.randint(1, 2))
            columns = tuple(column for column in table.non_key if column in chosen)
        before = self.alive[table.name][key]
        after = {**before, **{column: self._changed_value(table, column, before[column]) for column in columns}}
        self.alive[table.name][key] = after
        self.pending.append(Mod("update", table, before, after, columns))
        return True

    def delete(self, table: Table) -> bool:
        if len(self.alive[table.name]) <= MIN_ALIVE:
            return False
        key = self._choose(table, self.alive[table.name])
        if key is None:
            return False
        before = self.alive[table.name].pop(key)
        self.dead[table.name][key] = None
        self.pending.append(Mod("delete", table, before, None, ()))
        return True

    def random_mod(self) -> None:
        table = self.rng.choice(TABLES)
        kind = self.rng.choices(list(OP_WEIGHTS), weights=list(OP_WEIGHTS.values()))[0]
        if kind == "insert" or not getattr(self, kind)(table):
            self.insert(table)

    def bulk(self, size: int) -> None:
        """One statement over several rows: same table, mod type and columns, so Spanner writes
        them as one multi-mod record."""
        table = self.rng.choice(TABLES)
        kind = self.rng.choice(("insert", "update", "delete"))
        chosen = self.rng.sample(table.non_key, self.rng.randint(1, 2))
        columns = tuple(column for column in table.non_key if column in chosen)
        for _ in range(size):
            done = kind != "insert" and (self.update(table, columns) if kind == "update" else self.delete(table))
            if not done:
                self.insert(table)

    # -- transactions and reader records -----------------------------------------------------

    def commit(self, index: int) -> Transaction:
        rng = self.rng
        # often within the same second as the last commit, never in the same microsecond
        gap_us = rng.randint(1, 300_000) if rng.random() < 0.4 else rng.randint(1_000_000, 90_000_000)
        self.clock_us += max(gap_us, self.min_gap_us)
        self.min_gap_us = 1
        digits = rng.choice((6, 7, 8, 9))
        sub_ns = 0 if digits == 6 else rng.randrange(0, 1000, 10 ** (9 - digits))  # below the microsecond
        server_transaction_id = base64.b64encode(f"{rng.randint(10**15, 10**16 - 1)}{index:04d}".encode()).decode()
        tag = rng.choice(TAGS) if rng.random() < 0.3 else ""
        txn = Transaction(index, server_transaction_id, self.clock_us * 1000 + sub_ns, digits, tag, self.pending)
        self.pending = []
        return txn

    def _control_time(self) -> int:
        """A second after the last commit; the next commit comes at least a second later still."""
        self.min_gap_us = 2_000_000
        return (self.clock_us + 1_000_000) * 1000

    def heartbeat(self) -> Control:
        return Control("heartbeat", self._control_time())

    def _token(self) -> str:
        return "__8BAYEG" + "".join(self.rng.choices(string.ascii_letters + string.digits + "-_", k=56))

    def child_partitions(self) -> Control:
        """The first record of a stream names the initial partitions (no parents); later ones
        split a partition in two, merge two into one, or move one."""
        rng = self.rng
        if not self.tokens:
            at_ns = START_NS
            children = tuple((self._token(), ()) for _ in range(2))
        else:
            at_ns = self._control_time()
            if len(self.tokens) >= 3 and rng.random() < 0.4:
                children = ((self._token(), tuple(rng.sample(self.tokens, 2))),)
            else:
                parent = rng.choice(self.tokens)
                children = tuple((self._token(), (parent,)) for _ in range(rng.randint(1, 2)))
        ended = {parent for _token, parents in children for parent in parents}
        self.tokens = [token for token in self.tokens if token not in ended] + [t for t, _p in children]
        return Control("child_partitions", at_ns, children)


def generate_history(seed: int, transactions: int = 180) -> SourceHistory:
    """A random but reproducible history of ``transactions`` transactions (1–4 mods each)."""
    if transactions < 10:
        raise ValueError("need at least 10 transactions")
    rng = random.Random(f"{seed}/history")
    sim = _Simulator(rng)
    events: list[Transaction | Control] = [sim.child_partitions()]
    for index in range(transactions):
        if index > 5 and rng.random() < 0.3:
            sim.bulk(rng.randint(2, 4))
        else:
            size = rng.randint(1, 4)
            while len(sim.pending) < size:
                sim.random_mod()
        events.append(sim.commit(index))
        roll = rng.random()
        kind = "heartbeat" if roll < 0.1 else "child_partitions" if roll < 0.17 else None
        if index == transactions // 3:
            kind = "heartbeat"
        elif index == 2 * transactions // 3:
            kind = "child_partitions"
        if kind == "heartbeat":
            events.append(sim.heartbeat())
        elif kind == "child_partitions":
            events.append(sim.child_partitions())
    return SourceHistory(seed, events)


# ---------------------------------------------------------------------------------------------
# 2. Rendering as change-stream rows
# ---------------------------------------------------------------------------------------------


@dataclass(eq=False)
class Record:
    """One change-stream row as it lands in a file: ``line`` is its text."""

    index: int  # position in the reader's output
    kind: str  # 'data_change', 'heartbeat' or 'child_partitions'
    form: str  # 'googlesql' or 'beam'
    message: dict
    line: str
    transaction: int | None = None  # Transaction.index of a data change record

    # what workloads.debezium.deliver reads of a record besides its line
    @property
    def topic(self) -> str:
        return STREAM

    @property
    def offset(self) -> int:
        return self.index


def timestamp_text(ns: int, digits: int = 6) -> str:
    """RFC 3339 in UTC with ``digits`` fraction digits (what is cut off must be zeros)."""
    seconds, nanos = divmod(ns, NS)
    if nanos % 10 ** (9 - digits):
        raise ValueError(f"{ns} has more than {digits} fraction digits")
    whole = dt.datetime.fromtimestamp(seconds, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{whole}.{nanos:09d}"[: len(whole) + 1 + digits] + "Z"


def parse_timestamp(text: str) -> int:
    """Nanoseconds since the epoch of a UTC RFC 3339 timestamp as this workload writes them."""
    whole, _, fraction = text.removesuffix("Z").partition(".")
    seconds = int(dt.datetime.fromisoformat(whole).replace(tzinfo=dt.UTC).timestamp())
    return seconds * NS + int(fraction.ljust(9, "0"))


def _compact(document: Any) -> str:
    """JSON text as Spanner writes a JSON value: no whitespace, UTF-8 as is."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def _encode(table: Table, column: str, value: Any) -> Any:
    """A column value as a change-stream mod carries it: INT64 as a decimal string, JSON as its
    (normalised) text, DATE as 'YYYY-MM-DD', FLOAT64 as a number, NULL as null."""
    code = table.code(column)
    if value is None:
        return None
    if code == "INT64":
        return str(value)
    if code == "JSON":
        return canonical_json(value)  # Spanner normalises a JSON value: keys sorted, no whitespace
    return value


def _written(mod: Mod) -> tuple[str, ...]:
    """The non-key columns a mod's ``new_values`` holds under its table's value capture type."""
    if mod.kind == "delete":
        return ()
    return mod.table.non_key if mod.table.value_capture_type == "NEW_ROW" else mod.columns


def _records_of(mods: list[Mod]) -> list[list[Mod]]:
    """Runs of consecutive mods with the same table, mod type and written columns: one data
    change record each."""
    runs: list[list[Mod]] = []
    for mod in mods:
        previous = runs[-1][-1] if runs else None
        if previous and (previous.table, previous.mod_type, _written(previous)) == (
                mod.table, mod.mod_type, _written(mod)):
            runs[-1].append(mod)
        else:
            runs.append([mod])
    return runs


def _column_types(table: Table, written: tuple[str, ...]) -> list[dict]:
    """``NEW_ROW`` names every tracked column; ``NEW_VALUES`` the key and the columns written."""
    names = set(table.key) | set(table.non_key if table.value_capture_type == "NEW_ROW" else written)
    return [{"name": name, "type": {"code": code}, "is_primary_key": name in table.key, "ordinal_position": position}
            for position, (name, code, _nullable) in enumerate(table.columns, start=1) if name in names]


def _data_change_record(txn: Transaction, mods: list[Mod], *, sequence: int, records: int, partitions: int,
                        last_in_partition: bool) -> dict:
    table, written = mods[0].table, _written(mods[0])
    return {
        "commit_timestamp": timestamp_text(txn.commit_ns, txn.fraction_digits),
        "record_sequence": f"{sequence:08d}",
        "server_transaction_id": txn.server_transaction_id,
        "is_last_record_in_transaction_in_partition": last_in_partition,
        "table_name": table.name,
        "column_types": _column_types(table, written),
        "mods": [{"keys": {c: _encode(table, c, mod.row[c]) for c in table.key},
                  "new_values": {c: _encode(table, c, mod.after[c]) for c in written},
                  "old_values": {}}  # neither NEW_VALUES nor NEW_ROW captures old values
                 for mod in mods],
        "mod_type": mods[0].mod_type,
        "value_capture_type": table.value_capture_type,
        "number_of_records_in_transaction": records,
        "number_of_partitions_in_transaction": partitions,
        "transaction_tag": txn.tag,
        "is_system_transaction": False,
    }


def _beam_record(record: dict, commit_ns: int, partition_token: str) -> dict:
    """The same record as Beam's ``DataChangeRecord`` serialised to JSON (Gson field names).

    ``commitTimestamp`` is a ``com.google.cloud.Timestamp``; each ``rowType`` entry's
    ``type.code`` holds the Spanner type as JSON text (Beam's ``TypeCode``); each mod keeps
    ``keys`` / ``new_values`` / ``old_values`` as JSON text.
    """
    seconds, nanos = divmod(commit_ns, NS)
    return {
        "partitionToken": partition_token,
        "commitTimestamp": {"seconds": seconds, "nanos": nanos},
        "serverTransactionId": record["server_transaction_id"],
        "isLastRecordInTransactionInPartition": record["is_last_record_in_transaction_in_partition"],
        "recordSequence": record["record_sequence"],
        "tableName": record["table_name"],
        "rowType": [{"name": column["name"], "type": {"code": _compact(column["type"])},
                     "isPrimaryKey": column["is_primary_key"], "ordinalPosition": column["ordinal_position"]}
                    for column in record["column_types"]],
        "mods": [{"keysJson": _compact(mod["keys"]), "oldValuesJson": _compact(mod["old_values"]),
                  "newValuesJson": _compact(mod["new_values"])} for mod in record["mods"]],
        "modType": record["mod_type"],
        "valueCaptureType": record["value_capture_type"],
        "numberOfRecordsInTransaction": record["number_of_records_in_transaction"],
        "numberOfPartitionsInTransaction": record["number_of_partitions_in_transaction"],
        "transactionTag": record["transaction_tag"],
        "isSystemTransaction": record["is_system_transaction"],
    }


# Gson (which Dataflow templates write JSON with) escapes these characters as \u00XX; none can
# occur outside a string in compact JSON, so replacing them in the text is exact.
_GSON_ESCAPES = {ord(character): f"\\u{ord(character):04x}" for character in "<>&='"}


def _googlesql_line(message: dict) -> str:
    return json.dumps(message, ensure_ascii=False)


def _beam_line(message: dict) -> str:
    return _compact(message).translate(_GSON_ESCAPES)


class _Renderer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.records: list[Record] = []
        self.tokens: list[str] = []  # partitions the reader is reading

    def _append(self, kind: str, form: str, message: dict, line: str, transaction: int | None = None) -> None:
        self.records.append(Record(len(self.records), kind, form, message, line, transaction))

    def _change_record_row(self, field: str, record: dict) -> dict:
        """A GoogleSQL ``ChangeRecord`` row: the one array that holds the record; sometimes the
        other two written out as well, empty or null, as the read function returns them."""
        if self.rng.random() < 0.25:
            empty = [] if self.rng.random() < 0.5 else None
            return {name: [record] if name == field else empty for name in RECORD_FIELDS}
        return {field: [record]}

    def control(self, control: Control) -> None:
        if control.kind == "heartbeat":
            record: dict = {"timestamp": timestamp_text(control.at_ns)}
        else:
            record = {"start_timestamp": timestamp_text(control.at_ns), "record_sequence": "00000001",
                      "child_partitions": [{"token": token, "parent_partition_tokens": list(parents)}
                                           for token, parents in control.children]}
            parents = {parent for _token, parent_tokens in control.children for parent in parent_tokens}
            self.tokens = [t for t in self.tokens if t not in parents] + [t for t, _p in control.children]
        message = self._change_record_row(f"{control.kind}_record", record)
        self._append(control.kind, "googlesql", message, _googlesql_line(message))

    def _partitions(self, records: int) -> list[str]:
        """The partition each record of a transaction is read from: usually one, sometimes two
        (the transaction's rows lie in two key ranges)."""
        if records >= 2 and len(self.tokens) >= 2 and self.rng.random() < 0.3:
            first, second = self.rng.sample(self.tokens, 2)
            tokens = [self.rng.choice((first, second)) for _ in range(records)]
            if len(set(tokens)) == 1:
                tokens[-1] = second if tokens[0] == first else first
            return tokens
        return [self.rng.choice(self.tokens)] * records

    def transaction(self, txn: Transaction) -> None:
        runs = _records_of(txn.mods)
        tokens = self._partitions(len(runs))
        last_of = {token: position for position, token in enumerate(tokens)}
        for position, mods in enumerate(runs):
            record = _data_change_record(txn, mods, sequence=position, records=len(runs),
                                         partitions=len(set(tokens)),
                                         last_in_partition=last_of[tokens[position]] == position)
            if self.rng.random() < BEAM_SHARE:
                message = _beam_record(record, txn.commit_ns, tokens[position])
                self._append("data_change", "beam", message, _beam_line(message), txn.index)
            else:
                message = self._change_record_row("data_change_record", record)
                self._append("data_change", "googlesql", message, _googlesql_line(message), txn.index)


def render(history: SourceHistory, seed: int) -> list[Record]:
    """The reader's output, in order: one row per change-stream record, in a (seeded) random form."""
    renderer = _Renderer(random.Random(f"{seed}/render"))
    for event in history.events:
        if isinstance(event, Transaction):
            renderer.transaction(event)
        else:
            renderer.control(event)
    return renderer.records


class DataChange(NamedTuple):
    """A data change record in either form, with the fields the tests look at."""

    form: str
    commit_ns: int
    server_transaction_id: str
    record_sequence: str
    is_last_in_partition: bool
    table_name: str
    column_codes: dict[str, str]  # column -> Spanner type code, in ordinal order
    key_columns: tuple[str, ...]
    mods: list[tuple[dict, dict, dict]]  # (keys, new_values, old_values) as the record wrote them
    mod_type: str
    value_capture_type: str
    records_in_transaction: int
    partitions_in_transaction: int


def read_data_change(line: str) -> DataChange | None:
    """The data change record of a delivered line (None for heartbeats and child partitions)."""
    message = json.loads(line)
    if "commitTimestamp" in message:
        seconds_nanos = message["commitTimestamp"]
        row_type = sorted(message["rowType"], key=itemgetter("ordinalPosition"))
        return DataChange(
            "beam", seconds_nanos["seconds"] * NS + seconds_nanos["nanos"], message["serverTransactionId"],
            message["recordSequence"], message["isLastRecordInTransactionInPartition"], message["tableName"],
            {c["name"]: json.loads(c["type"]["code"])["code"] for c in row_type},
            tuple(c["name"] for c in row_type if c["isPrimaryKey"]),
            [(json.loads(m["keysJson"]), json.loads(m["newValuesJson"]), json.loads(m["oldValuesJson"]))
             for m in message["mods"]],
            message["modType"], message["valueCaptureType"], message["numberOfRecordsInTransaction"],
            message["numberOfPartitionsInTransaction"])
    if not message.get("data_change_record"):
        return None
    (record,) = message["data_change_record"]
    column_types = sorted(record["column_types"], key=itemgetter("ordinal_position"))
    return DataChange(
        "googlesql", parse_timestamp(record["commit_timestamp"]), record["server_transaction_id"],
        record["record_sequence"], record["is_last_record_in_transaction_in_partition"], record["table_name"],
        {c["name"]: c["type"]["code"] for c in column_types},
        tuple(c["name"] for c in column_types if c["is_primary_key"]),
        [(m["keys"], m["new_values"], m["old_values"]) for m in record["mods"]],
        record["mod_type"], record["value_capture_type"], record["number_of_records_in_transaction"],
        record["number_of_partitions_in_transaction"])


# ---------------------------------------------------------------------------------------------
# 3. At-least-once, out-of-order delivery
# ---------------------------------------------------------------------------------------------


def deliver(records: list[Record], seed: int, batches: int = 3, duplicate_rate: float = 0.1,
            holdback_rate: float = 0.1) -> list[Batch]:
    """Lines of ``records`` as batches of files ``(name, lines)``; every record at least once.

    ``duplicate_rate`` of the records are delivered twice, byte for byte; the rest (shuffle,
    ``batches`` runs, ``holdback_rate`` moved to a later batch, 1–3 files per batch) is
    :func:`workloads.debezium.deliver`, with its own re-delivery (which rewrites Debezium
    processing times) turned off.
    """
    rng = random.Random(f"{seed}/duplicate")
    stream: list[Record] = []
    for record in records:
        stream.append(record)
        if rng.random() < duplicate_rate:
            stream.append(record)
    return debezium.deliver(stream, seed, batches=batches, duplicate_rate=0.0, holdback_rate=holdback_rate)


# ---------------------------------------------------------------------------------------------
# 4. Oracle
# ---------------------------------------------------------------------------------------------


def oracle(history: SourceHistory) -> Expected:
    """Expected ``cdc_current`` rows and ``cdc_history`` versions, from the source history alone.

    Keys are ``(table name, pk_json)``. An update's row is the prior row with the columns the
    statement set laid over it (D5): whatever the capture type sends, the result is the full row.
    A delete is a deleted version with the last row; a re-insert starts from a fresh row.
    """
    alive: dict[Key, dict] = {}
    history_versions: dict[Key, list[Version]] = {}
    for mod in history.mods():
        table = mod.table
        key = (table.name, table.pk_json(mod.row))
        # the simulator's images must agree with the replayed state, or the workload is wrong
        assert alive.get(key) == mod.before, f"{mod.kind} of {key}: before image disagrees with state"
        if mod.kind == "delete":
            version: Version = ("delete", True, canonical_json(alive.pop(key)))
        elif mod.kind == "update":
            row = {**alive[key], **{column: mod.after[column] for column in mod.columns}}
            assert row == mod.after, f"update of {key}: changed columns do not make the after image"
            alive[key] = row
            version = ("update", False, canonical_json(row))
        else:
            alive[key] = dict(mod.after)
            version = ("insert", False, canonical_json(mod.after))
        history_versions.setdefault(key, []).append(version)
    return Expected({key: canonical_json(row) for key, row in alive.items()}, history_versions)


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
