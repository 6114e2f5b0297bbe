"""Throughput of the CDC pipeline per vendor, side by side in one run (a script, not a test).

    .venv/bin/python benchmarks/vendor_benchmark.py --events 1000000 [--vendors qlik,datahub] [--work-dir DIR]

For each vendor (Debezium always, as the reference), in a sub-folder of its own (its own
CDC_LANDING_DIR holding only that vendor's folder, its own CDC_SPARK_DIR, dbt target and logs):

 1. N events of one source table `shop.orders` in that vendor's format, the same source history
    for every vendor (the generator of benchmarks/run_benchmark.py: every key inserted first, then
    updates, deletes and re-inserts over N/10 keys, ~5 % exact duplicate lines, positions only
    growing, files of 100k lines shuffled within each file)
 2. cdc-dbt seed
 3. cdc-dbt run --select staging.<vendor>+ --vars '{cdc_vendors: [<vendor>]}'   full build, timed
 4. a 1 % batch as a new file, the same run again: the incremental run, timed
 5. cdc-dbt show: rows in cdc_current / cdc_history, change events and quarantined records,
    against what the generator expects

Prints one line per vendor (events/s of the full build and of the batch, each as a ratio
Debezium / vendor: at most 3 meets the target) and dbt's time per model of each full build;
writes the figures to <work>/vendor_benchmark.json. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import base64
import functools
import hashlib
import json
import os
import platform
import random
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from run_benchmark import (
    BATCH_SHARE,
    BINLOG_FILES,
    CDC_DBT,
    DUPLICATE_SHARE,
    START_TS_MS,
    Feed,
    Runner,
    StepFailed,
    benchmark_env,
    generate_batch,
    generate_initial,
    prepare_work_dir,
    print_model_breakdown,
    print_run_conditions,
    project_fingerprint,
    rate,
    write_file,
)

from python_udfs.qlik_masks import encode_hex_mask
from python_udfs.runner import delta_jars

PROG = "vendor_benchmark"
REFERENCE = "debezium"
ALL_VENDORS = ("datastream", "spanner", "debezium", "qlik", "datahub")
TARGET_RATIO = 3.0  # Debezium's events/s over the vendor's: at most this meets the target
STEPS_PER_VENDOR = 4  # seed, full build, incremental run, counts
BATCH_FILE = "orders-incremental-0001.jsonl"

# The source table every vendor carries: shop.orders, the columns of run_benchmark.ROW in order.
COLUMNS = ("id", "customer_id", "status", "amount", "currency", "note", "updated_at", "version")


@functools.lru_cache(maxsize=4)
def _utc_second(seconds: int, layout: str) -> str:
    return time.strftime(layout, time.gmtime(seconds))


def iso_ms(ms: int, zone: str = "Z") -> str:
    """`2024-06-01T00:00:00.123Z` (Datastream); without the zone as Qlik writes its header time."""
    seconds, millis = divmod(ms, 1000)
    return f"{_utc_second(seconds, '%Y-%m-%dT%H:%M:%S')}.{millis:03d}{zone}"


def _uuid(number: int) -> str:
    """A version-4 UUID from a counter (no random draws: every vendor replays the same history)."""
    return str(uuid.UUID(int=number * 0x9E3779B97F4A7C15F39CC0605CEDC835 % (1 << 128), version=4))


# ---------------------------------------------------------------------------------------------
# Datastream: MySQL CDC events as JSONL, keys in source_metadata.primary_keys, binlog position.

DATASTREAM_STREAM = "projects/482915307761/locations/europe-west1/streams/shop-mysql-cdc"
DATASTREAM_EVENT = (
    '{"uuid":"%s","read_timestamp":"%s","source_timestamp":"%s","object":"shop_orders",'
    '"read_method":"mysql-cdc-binlog","stream_name":"' + DATASTREAM_STREAM + '",'
    '"schema_key":"' + hashlib.sha1(b"shop-mysql-cdc/shop.orders").hexdigest() + '",'
    '"sort_keys":[%d,"mysql-bin.%06d",%d],"source_metadata":{"table":"orders","database":"shop",'
    '"primary_keys":["id"],"log_file":"mysql-bin.%06d","log_position":%d,"change_type":"%s",'
    '"is_deleted":%s},"payload":%s}'
)
# MySQL writes an update's new row as UPDATE-INSERT; a delete's payload is the deleted row
DATASTREAM_CHANGE_TYPES = {"c": "INSERT", "u": "UPDATE-INSERT", "d": "DELETE"}


class DatastreamFeed(Feed):
    def event(self, key: int) -> str:
        op, before, after = self.change(key)
        return DATASTREAM_EVENT % (
            _uuid(self.written), iso_ms(self.ts_ms + 250), iso_ms(self.ts_ms), self.ts_ms, self.file_no, self.pos,
            self.file_no, self.pos, DATASTREAM_CHANGE_TYPES[op], "true" if op == "d" else "false", after or before)


# ---------------------------------------------------------------------------------------------
# Spanner: Beam/Dataflow DataChangeRecord JSON (keysJson / newValuesJson as JSON text, INT64 and
# NUMERIC values as strings, rowType), one transaction per change: commit timestamp + record
# sequence order it. NEW_ROW capture: an update carries every column, a delete only its key.

SPANNER_TYPES = {"id": "INT64", "customer_id": "INT64", "status": "STRING", "amount": "NUMERIC",
                 "currency": "STRING", "note": "STRING", "updated_at": "INT64", "version": "INT64"}
SPANNER_ROW_TYPE = json.dumps(
    [{"name": name, "type": {"code": json.dumps({"code": SPANNER_TYPES[name]}, separators=(",", ":"))},
      "isPrimaryKey": name == "id", "ordinalPosition": position}
     for position, name in enumerate(COLUMNS, start=1)], separators=(",", ":"))
SPANNER_RECORD = (
    '{"partitionToken":"__8BAYEGtbaGNAAAAAGp7bGQAAABgAAAAA","commitTimestamp":{"seconds":%d,"nanos":%d},'
    '"serverTransactionId":"%s","isLastRecordInTransactionInPartition":true,"recordSequence":"00000000",'
    '"tableName":"orders","rowType":' + SPANNER_ROW_TYPE + ','
    '"mods":[{"keysJson":"{\\"id\\":\\"%d\\"}","oldValuesJson":"{}","newValuesJson":"%s"}],'
    '"modType":"%s","valueCaptureType":"NEW_ROW","numberOfRecordsInTransaction":1,'
    '"numberOfPartitionsInTransaction":1,"transactionTag":"","isSystemTransaction":false}'
)
SPANNER_MOD_TYPES = {"c": "INSERT", "u": "UPDATE", "d": "DELETE"}


class SpannerFeed(Feed):
    # the key is in keysJson, not in the new values (`%.0s` drops the id); INT64, NUMERIC as strings
    row_template = ('%.0s{"customer_id":"%d","status":"%s","amount":"%d.%02d","currency":"EUR","note":%s,'
                    '"updated_at":"%d","version":"%d"}')

    def event(self, key: int) -> str:
        op, _before, after = self.change(key)
        new_values = after.replace('"', '\\"') if after else "{}"
        seconds, millis = divmod(self.ts_ms, 1000)
        transaction = base64.b64encode(b"%020d" % self.written).decode()
        return SPANNER_RECORD % (seconds, millis * 1_000_000, transaction, key, new_values, SPANNER_MOD_TYPES[op])


# ---------------------------------------------------------------------------------------------
# Qlik Replicate: atMSG data messages; the key comes from the table's metadata message
# (primaryKeyPosition), written once as a file of its own before the data. changeSequence: commit
# time to the microsecond and a task-wide counter (35 digits); columnMask / changeMask as hex.

QLIK_COLUMN_TYPES = {  # (Replicate type, length, precision, scale, nullable)
    "id": ("INT4", 10, 0, 0, False), "customer_id": ("INT4", 10, 0, 0, False),
    "status": ("STRING", 16, 0, 0, False), "amount": ("NUMERIC", 0, 12, 2, False),
    "currency": ("STRING", 3, 0, 0, False), "note": ("WSTRING", 100, 0, 0, True),
    "updated_at": ("INT8", 19, 0, 0, False), "version": ("INT4", 10, 0, 0, False)}
QLIK_SCHEMA_ID = hashlib.md5(b"shop.orders/1").hexdigest().upper()
QLIK_FIRST_COUNTER = 381_240_000_000
QLIK_DATA = (
    '{"magic":"atMSG","type":"DT","headers":null,"messageSchemaId":"' + QLIK_SCHEMA_ID + '","messageSchema":null,'
    '"message":{"data":%s,"beforeData":%s,"headers":{"operation":"%s","changeSequence":"%s%06d%015d",'
    '"timestamp":"%s","streamPosition":"mysql-bin.%06d:%010d","transactionId":"%032X","changeMask":"%s",'
    '"columnMask":"%s","externalSchemaId":null,"transactionEventCounter":1,"transactionLastEvent":true}}}'
)
_ALL_COLUMNS = encode_hex_mask(range(1, len(COLUMNS) + 1))
_KEY_COLUMNS = encode_hex_mask([1])
_UPDATED_COLUMNS = encode_hex_mask([COLUMNS.index(name) + 1 for name in
                                    ("status", "amount", "note", "updated_at", "version")])
# op -> (operation, changeMask, columnMask); a delete's masks set the key's bits only
QLIK_OPERATIONS = {"c": ("INSERT", _ALL_COLUMNS, _ALL_COLUMNS), "u": ("UPDATE", _UPDATED_COLUMNS, _ALL_COLUMNS),
                   "d": ("DELETE", _KEY_COLUMNS, _KEY_COLUMNS)}


def qlik_metadata_message() -> str:
    """The metadata message (type MD) of shop.orders, table version 1 (as published/Metadata.json)."""
    columns = {name: {"ordinal": ordinal, "type": kind, "length": length, "precision": precision, "scale": scale,
                      "primaryKeyPosition": 1 if name == "id" else 0, "nullable": nullable}
               for ordinal, name in enumerate(COLUMNS, start=1)
               for kind, length, precision, scale, nullable in [QLIK_COLUMN_TYPES[name]]}
    avro = {"INT4": "int", "INT8": "long"}
    data_schema = {"type": "record", "name": "DataRecord", "fields": [
        {"name": "data", "type": {"type": "record", "name": "Data", "fields": [
            {"name": name, "type": ["null", avro.get(QLIK_COLUMN_TYPES[name][0], "string")]} for name in COLUMNS]}},
        {"name": "beforeData", "type": ["null", "Data"]}]}
    return json.dumps({
        "magic": "atMSG", "type": "MD", "headers": None, "messageSchemaId": QLIK_SCHEMA_ID, "messageSchema": None,
        "message": {
            "schemaId": QLIK_SCHEMA_ID,
            "lineage": {"server": "replicate-01.example.com", "task": "shop-to-kafka", "schema": "shop",
                        "table": "orders", "tableVersion": 1, "timestamp": iso_ms(START_TS_MS, zone="")},
            "tableStructure": {"tableColumns": columns},
            "dataSchema": json.dumps(data_schema, separators=(",", ":")),
        },
    }, separators=(",", ":"))


class QlikFeed(Feed):
    def event(self, key: int) -> str:
        op, before, after = self.change(key)
        operation, change_mask, column_mask = QLIK_OPERATIONS[op]
        seconds, millis = divmod(self.ts_ms, 1000)
        return QLIK_DATA % (
            after or "null", before or "null", operation, _utc_second(seconds, "%Y%m%d%H%M%S"), millis * 1000,
            QLIK_FIRST_COUNTER + self.written, iso_ms(self.ts_ms, zone=""), self.file_no, self.pos,
            self.written, change_mask, column_mask)


def qlik_prelude(folder: Path, rng: random.Random) -> int:
    write_file(folder / "metadata-0000.jsonl", [qlik_metadata_message()], rng)  # one line: no draw
    return 1


# ---------------------------------------------------------------------------------------------
# Alibaba DataHub: Blob records (schema.dataColumn / primaryKey, payload before / after), an
# update as one UPDATE_AFTER record carrying both images (as the published sample does);
# sequenceId: a millisecond time times 10^6 plus a counter.

DATAHUB_TYPES = {"id": "LONG", "customer_id": "LONG", "status": "STRING", "amount": "DOUBLE",
                 "currency": "STRING", "note": "STRING", "updated_at": "LONG", "version": "LONG"}
DATAHUB_SCHEMA = json.dumps({
    "dataColumn": [{"name": name, "type": DATAHUB_TYPES[name]} for name in COLUMNS], "primaryKey": ["id"],
    "source": {"dbType": "MySQL", "dbName": "shop", "tableName": "orders"}}, separators=(",", ":"))
DATAHUB_RECORD = (
    '{"schema":' + DATAHUB_SCHEMA + ',"payload":{"before":%s,"after":%s,"sequenceId":"%d",'
    '"timestamp":{"eventTime":%d,"systemTime":%d,"checkpointTime":%d},"op":"%s","ddl":null},"version":"0.0.1"}'
)
DATAHUB_OPS = {"c": "INSERT", "u": "UPDATE_AFTER", "d": "DELETE"}


class DatahubFeed(Feed):
    def event(self, key: int) -> str:
        op, before, after = self.change(key)
        return DATAHUB_RECORD % (
            '{"dataColumn":' + before + "}" if before else "null", '{"dataColumn":' + after + "}" if after else "null",
            self.ts_ms * 1_000_000 + self.written % 1_000_000, self.ts_ms, self.ts_ms + 250, self.ts_ms,
            DATAHUB_OPS[op])


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Vendor:
    feed: type[Feed]
    form: str  # what one line is, for the progress lines
    # lines written before the events that are not events (Qlik's metadata message)
    prelude: Callable[[Path, random.Random], int] | None = None


VENDORS = {
    "datastream": Vendor(DatastreamFeed, "Datastream MySQL CDC events (JSONL), source_metadata.primary_keys"),
    "spanner": Vendor(SpannerFeed, "Spanner DataChangeRecords (Beam JSON: keysJson, NEW_ROW)"),
    "debezium": Vendor(Feed, "Debezium MySQL messages, bare payload (as run_benchmark.py; key: the id fallback)"),
    "qlik": Vendor(QlikFeed, "Qlik atMSG data messages + one metadata message (key: primaryKeyPosition)",
                   qlik_prelude),
    "datahub": Vendor(DatahubFeed, "DataHub Blob records (schema.primaryKey, sequenceId)"),
}


def counts_sql(vendor: str) -> str:
    return f"""
select
    (select count(*) from {{{{ ref('cdc_current') }}}} where source_vendor = '{vendor}') as current_rows,
    (select count(*) from {{{{ ref('cdc_history') }}}} where source_vendor = '{vendor}') as history_rows,
    (select count(*) from {{{{ ref('int_cdc__change_events') }}}}) as change_events,
    (select count(*) from {{{{ ref('int_cdc__quarantine') }}}}) as quarantined_records
"""


def run_vendor(vendor: str, args: argparse.Namespace, work: Path, runner: Runner) -> dict:
    """Generate, build, add the batch, count: the figures of one vendor (`error` set on a failure)."""
    spec = VENDORS[vendor]
    events, keys = args.events, args.keys
    batch_events = max(1, round(events * BATCH_SHARE))
    unique = max(keys, round(events / (1 + DUPLICATE_SHARE)))
    folder = work / "landing" / vendor
    folder.mkdir(parents=True)
    (work / "logs").mkdir()
    # the same seed for every vendor: the same keys, operations and rows in each format
    feed = spec.feed(keys=keys, rng=random.Random(args.seed), rotate_every=max(1, -(-unique // BINLOG_FILES)))

    print(f"== {vendor}: generating {events:,} events over {keys:,} keys into {folder} ({spec.form}) ...", flush=True)
    started = time.perf_counter()
    prelude_lines = spec.prelude(folder, feed.rng) if spec.prelude else 0
    files = generate_initial(feed, events, folder)
    generation_seconds = time.perf_counter() - started
    initial_counts = dict(feed.counts)
    print(f"{vendor}: generated {files} files in {generation_seconds:.1f} s (inserts {initial_counts['c']:,}, "
          f"updates {initial_counts['u']:,}, deletes {initial_counts['d']:,}, re-inserts "
          f"{initial_counts['reinsert']:,}, duplicates {events - unique:,}"
          + (f", {prelude_lines} metadata line" if prelude_lines else "") + ")", flush=True)

    figures: dict = {
        "events": events, "batch_events": batch_events, "keys": keys, "duplicates": events - unique,
        "landing_files": files, "extra_landing_lines": prelude_lines, "form": spec.form,
        "generation_seconds": round(generation_seconds, 2), "generator": {"initial": initial_counts},
        "work_dir": str(work), "error": None,
    }
    selection = ["--select", f"staging.{vendor}+", "--vars", f"{{cdc_vendors: [{vendor}]}}"]
    first_step = runner.step_no
    try:
        seconds, _ = runner.cdc_dbt(f"{vendor} seed", ["seed", "--vars", f"{{cdc_vendors: [{vendor}]}}"])
        figures["seed_seconds"] = round(seconds, 2)
        seconds, _ = runner.cdc_dbt(f"{vendor} full build", ["run", *selection])
        figures["full_build"] = {"seconds": round(seconds, 2), "events_per_s": round(rate(events, seconds), 1)}

        generate_batch(feed, batch_events, folder / BATCH_FILE)
        print(f"{vendor}: wrote a {batch_events:,}-event batch", flush=True)
        seconds, _ = runner.cdc_dbt(f"{vendor} incremental run", ["run", *selection])
        figures["incremental_1pct"] = {"seconds": round(seconds, 2),
                                       "events_per_s": round(rate(batch_events, seconds), 1)}
        _, counts = runner.show(f"{vendor} counts", counts_sql(vendor))
    except StepFailed as failed:
        print(f"{PROG}: {vendor}: {failed}", file=sys.stderr, flush=True)
        figures["error"] = str(failed).splitlines()[0]
        runner.step_no = first_step + STEPS_PER_VENDOR  # the numbering goes on with the next vendor
        counts = None
    figures["generator"]["total"] = dict(feed.counts)
    figures["correctness"] = {
        # every generated change is valid (no delete of a dead key), so each unique one is a version
        "expected_live_keys": sum(feed.alive),
        "cdc_current_rows": counts["current_rows"] if counts else None,
        "expected_history_versions": unique + batch_events,
        "cdc_history_rows": counts["history_rows"] if counts else None,
        "expected_change_events": events + batch_events,
        "change_events": counts["change_events"] if counts else None,
        "quarantined_records": counts["quarantined_records"] if counts else None,
    }
    figures["model_seconds"] = {"full build": runner.model_seconds(f"{vendor} full build"),
                                "incremental": runner.model_seconds(f"{vendor} incremental run")}
    return figures


# ---------------------------------------------------------------------------------------------
# Report


def add_ratios(results: dict[str, dict]) -> None:
    """Debezium's events/s over each vendor's, per step (from the seconds, not the rounded rates);
    at most TARGET_RATIO meets the target."""
    reference = results.get(REFERENCE, {})
    for figures in results.values():
        for step, events in (("full_build", "events"), ("incremental_1pct", "batch_events")):
            if step not in figures:
                continue
            value = None
            if step in reference:
                base = rate(reference[events], reference[step]["seconds"])
                value = base / rate(figures[events], figures[step]["seconds"])
            figures[step]["ratio_to_debezium"] = round(value, 3) if value is not None else None
            figures[step]["met"] = value <= TARGET_RATIO if value is not None else None


def _cell(figures: dict, step: str, key: str, spec: str) -> str:
    value = figures.get(step, {}).get(key)
    return "-" if value is None else format(value, spec)


def _met(figures: dict, step: str) -> str:
    met = figures.get(step, {}).get("met")
    return "" if met is None else "ok" if met else "NOT met"


def print_report(report: dict) -> None:
    results = report["vendors"]
    print()
    print(f"== Vendor benchmark: {report['events']:,} events per vendor over {report['keys']:,} keys "
          f"(+ a {report['batch_events']:,}-event 1 % batch), {report['machine']['cpus']} CPUs, state tables "
          f"{report['state_table_format']}; ratio = Debezium events/s / vendor events/s, target <= "
          f"{TARGET_RATIO:g} ==")
    header = (f"{'vendor':<11} {'events':>10} {'full s':>8} {'events/s':>9} {'ratio':>6} {'':<7} "
              f"{'1% batch s':>10} {'events/s':>9} {'ratio':>6} {'':<7} {'live keys exp/act':>19}")
    print(header)
    print("-" * len(header))
    for vendor, figures in results.items():
        check = figures["correctness"]
        actual = "-" if check["cdc_current_rows"] is None else f"{check['cdc_current_rows']:,}"
        keys = f"{check['expected_live_keys']:,} / {actual}"
        print(f"{vendor:<11} {figures['events']:>10,} {_cell(figures, 'full_build', 'seconds', '.1f'):>8} "
              f"{_cell(figures, 'full_build', 'events_per_s', ',.0f'):>9} "
              f"{_cell(figures, 'full_build', 'ratio_to_debezium', '.2f'):>6} {_met(figures, 'full_build'):<7} "
              f"{_cell(figures, 'incremental_1pct', 'seconds', '.1f'):>10} "
              f"{_cell(figures, 'incremental_1pct', 'events_per_s', ',.1f'):>9} "
              f"{_cell(figures, 'incremental_1pct', 'ratio_to_debezium', '.2f'):>6} "
              f"{_met(figures, 'incremental_1pct'):<7} {keys:>19}"
              + (f"  FAILED: {figures['error']}" if figures["error"] else ""))
    print("-" * len(header))

    print()
    print("correctness (expected by the generator / found):")
    print(f"  {'vendor':<11} {'live keys (cdc_current)':>25} {'versions (cdc_history)':>25} "
          f"{'change events':>21} {'quarantined':>12}  all as expected")
    for vendor, figures in results.items():
        check = figures["correctness"]
        if check["cdc_current_rows"] is None:
            print(f"  {vendor:<11} (no counts: the run failed)")
            continue
        pairs = [(check["expected_live_keys"], check["cdc_current_rows"]),
                 (check["expected_history_versions"], check["cdc_history_rows"]),
                 (check["expected_change_events"], check["change_events"]), (0, check["quarantined_records"])]
        cells = [f"{expected:,} / {found:,}" for expected, found in pairs[:3]]
        fine = all(expected == found for expected, found in pairs)
        print(f"  {vendor:<11} {cells[0]:>25} {cells[1]:>25} {cells[2]:>21} {check['quarantined_records']:>12,}  "
              f"{'yes' if fine else 'NO'}")

    print()
    print_run_conditions(report, label_width=50, value_width=8)
    print(f"{'generation of the landing files, all vendors (s)':<50} "
          f"{sum(f['generation_seconds'] for f in results.values()):>8.1f}")
    breakdown = {vendor: figures["model_seconds"]["full build"] for vendor, figures in results.items()}
    if any(breakdown.values()):
        print()
        print("full build of each vendor, one column each:")
        print_model_breakdown(breakdown)


# ---------------------------------------------------------------------------------------------
# Main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000, help="events in each vendor's initial load")
    parser.add_argument("--vendors", default=",".join(ALL_VENDORS),
                        help=f"comma-separated vendors (default: all five; {REFERENCE} is always run, as the reference)")
    parser.add_argument("--work-dir", type=Path, default=None,
                        help="empty or new folder for landing files, Spark state and logs (default: a fresh temp dir)")
    parser.add_argument("--seed", type=int, default=20240601, help="random seed of the generator (same for every vendor)")
    args = parser.parse_args(argv)
    if args.events < 1:
        parser.error("--events must be at least 1")
    args.keys = max(1, args.events // 10)
    vendors = [name.strip().lower() for name in args.vendors.split(",") if name.strip()]
    unknown = [name for name in vendors if name not in VENDORS]
    if unknown:
        parser.error(f"--vendors: unknown {', '.join(unknown)}; choose from {', '.join(ALL_VENDORS)}")
    if REFERENCE not in vendors:
        vendors.insert(0, REFERENCE)
    args.vendor_list = list(dict.fromkeys(vendors))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not CDC_DBT.exists():
        raise SystemExit(f"{PROG}: {CDC_DBT} not found; set up the project first (make setup)")
    work = prepare_work_dir(args.work_dir, prog=PROG)
    on_delta = bool(delta_jars())
    vendors = args.vendor_list
    print(f"work folder: {work}; vendors: {', '.join(vendors)}; state tables on {'delta' if on_delta else 'parquet'}",
          flush=True)

    results: dict[str, dict] = {}
    load_averages: list[float] = []
    changed_during: list[str] = []
    fingerprint = project_fingerprint()  # carried from vendor to vendor: a change between them shows
    step_no = 0
    for vendor in vendors:
        vendor_work = work / vendor
        runner = Runner(work=vendor_work, env=benchmark_env(vendor_work), step_no=step_no,
                        total_steps=STEPS_PER_VENDOR * len(vendors), fingerprint=fingerprint)
        results[vendor] = run_vendor(vendor, args, vendor_work, runner)
        step_no, fingerprint = runner.step_no, runner.fingerprint
        load_averages += runner.load_averages
        changed_during += runner.changed_during
    add_ratios(results)

    first = next(iter(results.values()))
    report = {
        "events": args.events,
        "keys": args.keys,
        "batch_events": first["batch_events"],
        "reference": REFERENCE,
        "target_ratio": TARGET_RATIO,
        "state_table_format": "delta" if on_delta else "parquet",
        "work_dir": str(work),
        "seed": args.seed,
        "vendors": results,
        "project_files_changed_during": changed_during,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                    "load_average_1min_after_steps": load_averages,
                    "max_load_average_1min": max(load_averages, default=0.0)},
    }
    print_report(report)
    out = work / "vendor_benchmark.json"
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nfigures written to {out}")
    failed = [vendor for vendor, figures in results.items() if figures["error"]]
    if failed:
        print(f"{PROG}: failed for {', '.join(failed)}; each step's output is in <work>/<vendor>/logs/",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
