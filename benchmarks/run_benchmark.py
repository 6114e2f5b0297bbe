"""Throughput benchmark of the CDC pipeline on a synthetic Debezium MySQL feed (not a test).

    .venv/bin/python benchmarks/run_benchmark.py --events 1000000 [--keys 100000] [--work-dir DIR]

Steps, each a `cdc-dbt` subprocess timed by wall clock, with CDC_LANDING_DIR / CDC_SPARK_DIR (and
dbt's target and log folders) inside the work folder, so the project's own `.spark` is never used:

 1. generate N events into <work>/landing/debezium/*.jsonl (~100k lines a file)
 2. cdc-dbt seed
 3. cdc-dbt run                   full build over the N events
 4. cdc-dbt run                   again, no new file: the fixed Spark + dbt cost of a run
    (and `cdc-dbt run` selecting nothing: the process start alone)
 5. a 1 % batch as a new file, cdc-dbt run: the incremental run
 6. cdc-dbt run --full-refresh    everything rebuilt from the landing files
 7. cdc-dbt run --select bench_naive_current: the hand-written dedupe baseline
 8. the same dedupe straight from the raw landing files (cdc-dbt show), skipping the pipeline
 9. row counts and a comparison of bench_naive_current with cdc_current (cdc-dbt show)

Figures are printed as a table and written to <work>/benchmark.json. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
CDC_DBT = PROJECT_DIR / ".venv" / "bin" / "cdc-dbt"
LINES_PER_FILE = 100_000
DUPLICATE_SHARE = 0.05  # share of the landed lines that are exact copies of another line
DELETE_SHARE = 0.05  # share of the changes to a live key that delete it
BINLOG_FILES = 3  # the initial load spans this many binlog files (so the file number rolls over)
BATCH_SHARE = 0.01
BENCH_VARS = "{cdc_benchmark: true}"
STATUSES = ("pending", "paid", "packed", "shipped", "delivered", "returned")
START_TS_MS = 1_717_200_000_000  # 2024-06-01T00:00:00Z

# One Debezium MySQL message value, bare payload form (JSON converter with schemas disabled);
# %-formatting because it is the fastest way to build a million of them in Python.
MESSAGE = (
    '{"before":%s,"after":%s,"source":{"version":"2.7.0.Final","connector":"mysql",'
    '"name":"shop","ts_ms":%d,"snapshot":"false","db":"shop","sequence":null,"table":"orders",'
    '"server_id":223344,"gtid":null,"file":"mysql-bin.%06d","pos":%d,"row":0,"thread":%d,'
    '"query":null},"op":"%s","ts_ms":%d,"transaction":null}'
)
ROW = (
    '{"id":%d,"customer_id":%d,"status":"%s","amount":"%d.%02d",'
    '"currency":"EUR","note":%s,"updated_at":%d,"version":%d}'
)


# ---------------------------------------------------------------------------------------------
# Event generation


@dataclass
class Feed:
    """State of the synthetic source table and of its binlog, so batches continue where it stopped."""

    keys: int
    rng: random.Random
    rotate_every: int
    file_no: int = 12
    pos: int = 4
    ts_ms: int = START_TS_MS
    written: int = 0
    alive: bytearray = field(default_factory=bytearray)
    rows: list = field(default_factory=list)
    versions: list = field(default_factory=list)
    counts: dict = field(default_factory=lambda: {"c": 0, "u": 0, "d": 0, "reinsert": 0})

    def __post_init__(self) -> None:
        self.alive = bytearray(self.keys + 1)
        self.rows = [None] * (self.keys + 1)
        self.versions = [0] * (self.keys + 1)

    def _row(self, key: int) -> str:
        draw = self.rng.random()  # one draw for amount and note
        cents = 100 + int(draw * 199_900)
        version = self.versions[key]
        note = '"gift wrap"' if draw < 0.1 else "null"
        return ROW % (key, 1 + key * 7919 % 50_000, STATUSES[version % len(STATUSES)], cents // 100, cents % 100,
                      note, self.ts_ms, version)

    def _advance(self) -> None:
        """Next binlog position: positions only grow; the file number rolls over every so often."""
        self.written += 1
        if self.written % self.rotate_every == 0:
            self.file_no += 1
            self.pos = 4
        draw = self.rng.random()
        self.pos += 180 + int(draw * 720)
        self.ts_ms += 1 + int(draw * 19)

    def event(self, key: int) -> str:
        """The next change of `key`: insert if unknown or deleted, else mostly update, some deletes."""
        self._advance()
        before = self.rows[key]
        if not self.alive[key]:
            op = "c"
            self.counts["reinsert" if before is not None else "c"] += 1
            before_text = "null"
        elif self.rng.random() < DELETE_SHARE:
            op = "d"
            self.counts["d"] += 1
            before_text = before
        else:
            op = "u"
            self.counts["u"] += 1
            before_text = before
        if op == "d":
            self.alive[key] = 0
            after_text = "null"
        else:
            self.versions[key] += 1
            after_text = self._row(key)
            self.rows[key] = after_text
            self.alive[key] = 1
        return MESSAGE % (before_text, after_text, self.ts_ms, self.file_no, self.pos, 1 + key % 16, op,
                          self.ts_ms + 250)

    def random_key(self) -> int:
        return 1 + int(self.rng.random() * self.keys)


def write_file(path: Path, lines: list[str], rng: random.Random) -> None:
    rng.shuffle(lines)  # arrival order within a file says nothing; the binlog position orders
    tmp = path.with_name("_" + path.name)  # the landing reader skips `_` files until renamed
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.rename(path)


def generate_initial(feed: Feed, events: int, folder: Path) -> int:
    """Write `events` lines: every key inserted first, then changes, ~5 % exact duplicates."""
    rng = feed.rng
    unique = max(feed.keys, round(events / (1 + DUPLICATE_SHARE)))
    duplicated = set(rng.sample(range(unique), events - unique)) if events > unique else set()
    buffer: list[str] = []
    files = 0
    for index in range(unique):
        key = index + 1 if index < feed.keys else feed.random_key()
        line = feed.event(key)
        buffer.append(line)
        if index in duplicated:
            buffer.append(line)  # a re-delivered copy (connector restart), byte for byte
        if len(buffer) >= LINES_PER_FILE:
            write_file(folder / f"orders-{files:04d}.jsonl", buffer, rng)
            files += 1
            buffer = []
    if buffer:
        write_file(folder / f"orders-{files:04d}.jsonl", buffer, rng)
        files += 1
    return files


def generate_batch(feed: Feed, events: int, path: Path) -> None:
    """A later batch: changes of existing keys, positions after everything written before."""
    lines = [feed.event(feed.random_key()) for _ in range(events)]
    write_file(path, lines, feed.rng)


# ---------------------------------------------------------------------------------------------
# Running cdc-dbt


def project_fingerprint() -> str:
    """Hash of the files that decide what a run does: a change mid-benchmark makes steps incomparable."""
    digest = hashlib.sha256()
    paths = [PROJECT_DIR / "dbt_project.yml", *sorted(
        path for folder in ("models", "macros", "seeds", "python_udfs", "profiles")
        for path in (PROJECT_DIR / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts)]
    for path in paths:
        digest.update(str(path.relative_to(PROJECT_DIR)).encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:  # removed between listing and reading: the hash changes anyway
            digest.update(b"missing")
    return digest.hexdigest()


class StepFailed(RuntimeError):
    pass


@dataclass
class Runner:
    work: Path
    env: dict
    step_no: int = 0
    total_steps: int = 0
    load_averages: list = field(default_factory=list)
    fingerprint: str = field(default_factory=project_fingerprint)
    changed_during: list = field(default_factory=list)

    def cdc_dbt(self, label: str, args: list[str]) -> tuple[float, str]:
        """Run one cdc-dbt command; returns (wall-clock seconds, stdout). Output goes to a log file."""
        self.step_no += 1
        prefix = f"[{self.step_no}/{self.total_steps}] {label}"
        shown = ["<sql>" if previous == "--inline" else arg for previous, arg in zip(["", *args], args)]
        print(f"{prefix}: cdc-dbt {' '.join(shown)} ...", flush=True)
        log = self.work / "logs" / f"{self.step_no:02d}-{label.replace(' ', '_').replace('/', '_')}.log"
        results = self.work / "dbt-target" / "run_results.json"
        results.unlink(missing_ok=True)
        started = time.perf_counter()
        done = subprocess.run([str(CDC_DBT), *args], cwd=PROJECT_DIR, env=self.env,
                              capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - started
        self.load_averages.append(round(os.getloadavg()[0], 2))  # other processes on the machine skew times
        fingerprint = project_fingerprint()
        if fingerprint != self.fingerprint:
            self.changed_during.append(label)
            self.fingerprint = fingerprint
            print(f"{prefix}: warning: project files changed while it ran (or since the step before)", flush=True)
        log.write_text(f"$ cdc-dbt {' '.join(args)}\n# exit {done.returncode}, {seconds:.1f} s\n"
                       f"## stdout\n{done.stdout}\n## stderr\n{done.stderr}", encoding="utf-8")
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-25:])
            raise StepFailed(f"{prefix} failed (exit {done.returncode}); full output in {log}\n{tail}")
        print(f"{prefix}: {seconds:.1f} s", flush=True)
        if results.exists():
            results.rename(log.with_suffix(".run_results.json"))
        return seconds, done.stdout

    def model_seconds(self, label: str) -> dict[str, float]:
        """dbt's own execution time per model for the step of that label (from its run_results.json)."""
        found = sorted((self.work / "logs").glob(f"*-{label.replace(' ', '_')}.run_results.json"))
        if not found:
            return {}
        results = json.loads(found[-1].read_text(encoding="utf-8")).get("results", [])
        return {item["unique_id"].split(".")[-1]: round(item.get("execution_time") or 0.0, 2)
                for item in results if item.get("unique_id", "").startswith("model.")}

    def show(self, label: str, sql: str, extra: list[str] | None = None) -> tuple[float, dict]:
        """One row of an inline query through `cdc-dbt show` (its JSON output)."""
        args = ["show", "--inline", sql, "--output", "json", "--quiet", *(extra or [])]
        seconds, stdout = self.cdc_dbt(label, args)
        rows = _show_rows(stdout)
        if not rows:
            raise StepFailed(f"{label}: no rows in the output of cdc-dbt show:\n{stdout[-2000:]}")
        return seconds, rows[0]


def _show_rows(stdout: str) -> list[dict]:
    decoder = json.JSONDecoder()
    start = stdout.find("{")
    while start != -1:
        try:
            value, _end = decoder.raw_decode(stdout, start)
        except ValueError:
            value = None
        if isinstance(value, dict) and isinstance(value.get("show"), list):
            return value["show"]
        start = stdout.find("{", start + 1)
    return []


def counts_sql() -> str:
    """Row counts and order-independent fingerprints of the two marts."""
    return """
select
    (select count(*) from {{ ref('cdc_current') }}) as current_rows,
    (select count(*) from {{ ref('cdc_history') }}) as history_rows,
    (select coalesce(bit_xor(xxhash64(source_vendor, source_table, pk, row, sequence, last_event_id)), 0)
        from {{ ref('cdc_current') }}) as current_fingerprint,
    (select coalesce(bit_xor(xxhash64(source_vendor, source_table, pk, row, op, is_deleted, is_current,
                                      valid_from, valid_to, valid_from_sequence, valid_to_sequence,
                                      event_id)), 0)
        from {{ ref('cdc_history') }}) as history_fingerprint
"""


def comparison_sql() -> str:
    """bench_naive_current against cdc_current: keys on each side and rows that differ."""
    return counts_sql().rstrip() + """,
    (select count(*) from {{ ref('bench_naive_current') }}) as naive_rows,
    (select count(*)
        from (
            select source_vendor, source_table, pk, {{ cdc_json_object('after') }} as row
            from {{ ref('bench_naive_current') }}
        ) as naive
        full outer join {{ ref('cdc_current') }} as current_rows
            on naive.source_vendor = current_rows.source_vendor
            and naive.source_table = current_rows.source_table
            and naive.pk = current_rows.pk
        where naive.row is null or current_rows.row is null or naive.row != current_rows.row
    ) as differing_rows
"""


def raw_naive_sql(debezium_dir: Path) -> str:
    """The naive dedupe written straight against the landing files: no parser, no contract."""
    path = str(debezium_dir).replace("`", "``")
    return f"""
with raw_events as (
    select from_json(
        value,
        'before map<string, string>, after map<string, string>, op string,
         source struct<db: string, `table`: string, file: string, pos: bigint, `row`: bigint>'
    ) as event
    from text.`{path}`
),

keyed_events as (
    select
        event.op as op,
        event.after as after,
        row_number() over (
            partition by event.source.db, event.source.`table`, coalesce(event.after['id'], event.before['id'])
            order by cast(regexp_extract(event.source.file, '([0-9]+)$', 1) as bigint) desc,
                event.source.pos desc, event.source.`row` desc
        ) as version_rank
    from raw_events
)

select
    count(*) as naive_rows,
    coalesce(bit_xor(xxhash64(to_json(after))), 0) as after_fingerprint
from keyed_events
where version_rank = 1 and op != 'd'
"""


# ---------------------------------------------------------------------------------------------
# Report


def rate(events: int, seconds: float) -> float:
    return events / seconds if seconds > 0 else float("nan")


def print_report(figures: dict) -> None:
    steps = figures["steps"]
    print()
    print(f"== CDC benchmark: {figures['events']:,} events over {figures['keys']:,} keys "
          f"(+ {figures['batch_events']:,}-event incremental batch), {figures['machine']['cpus']} CPUs ==")
    header = f"{'step':<38} {'events':>12} {'keys':>10} {'seconds':>9} {'events/s':>11}"
    print(header)
    print("-" * len(header))
    for name in ("full_build", "incremental_1pct", "full_refresh", "naive_baseline", "naive_from_raw"):
        step = steps.get(name)
        if step is None:
            continue
        print(f"{step['label']:<38} {step['events']:>12,} {figures['keys']:>10,} {step['seconds']:>9.1f} "
              f"{step['events_per_s']:>11,.0f}")
    print("-" * len(header))
    print(f"{'fixed start cost (no-op cdc-dbt run)':<62} {figures['fixed_start_seconds']:>9.1f} s")
    print(f"{'  of which process start (cdc-dbt run, empty selection)':<62} "
          f"{figures['process_start_seconds']:>9.1f} s")
    print(f"{'incremental / full-refresh time':<62} {figures['incremental_to_full_refresh_ratio']:>11.3f}")
    load, cpus = figures["machine"]["max_load_average_1min"], figures["machine"]["cpus"]
    note = "  (busier than the CPUs: other processes inflate the times)" if cpus and load > cpus + 0.5 else ""
    print(f"{'highest 1-min load average after a step':<62} {load:>11.2f}{note}")
    changed = figures["project_files_changed_during"]
    print(f"{'project files unchanged during the run':<62} {not changed!s:>11}"
          + (f"  (changed by: {', '.join(changed)}; steps before and after ran different code)" if changed else ""))
    print(f"{'generation of the landing files':<62} {figures['generation_seconds']:>9.1f} s")
    rows = figures["rows"]
    print(f"{'rows in cdc_current':<62} {rows['cdc_current']:>11,}")
    print(f"{'rows in cdc_history':<62} {rows['cdc_history']:>11,}")
    check = figures["correctness"]
    print(f"{'keys in bench_naive_current / in cdc_current':<50} {check['naive_keys']:>11,} / "
          f"{check['cdc_current_keys']:,}")
    print(f"{'rows differing (naive vs cdc_current, expected 0)':<62} {check['differing_rows']:>11,}")
    if check.get("raw_naive_keys") is not None:
        print(f"{'keys in the naive dedupe of the raw files':<62} {check['raw_naive_keys']:>11,}")
    print(f"{'incremental result == full refresh (fingerprints)':<62} "
          f"{check['incremental_equals_full_refresh']!s:>11}")
    print(f"{'expected live keys (generator)':<62} {check['expected_live_keys']:>11,}")
    print_model_breakdown(figures["model_seconds"])


def print_model_breakdown(model_seconds: dict[str, dict[str, float]]) -> None:
    """dbt's execution time per model and run (excludes process start and dbt's own overhead)."""
    columns = [name for name, models in model_seconds.items() if models]
    if not columns:
        return
    models = list(dict.fromkeys(model for name in columns for model in model_seconds[name]))
    print()
    print("seconds per model (dbt execution_time):")
    print(f"  {'model':<34}" + "".join(f" {name:>16}" for name in columns))
    for model in models:
        cells = "".join(f" {model_seconds[name][model]:>16.1f}" if model in model_seconds[name] else f" {'-':>16}"
                        for name in columns)
        print(f"  {model:<34}{cells}")


# ---------------------------------------------------------------------------------------------
# Main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000, help="events in the initial load")
    parser.add_argument("--keys", type=int, default=None, help="distinct primary keys (default: events / 10)")
    parser.add_argument("--work-dir", type=Path, default=None,
                        help="empty or new folder for landing files, Spark state and logs (default: a fresh temp dir)")
    parser.add_argument("--seed", type=int, default=20240601, help="random seed of the generator")
    parser.add_argument("--skip-raw-naive", action="store_true",
                        help="do not time the naive dedupe straight from the raw landing files")
    args = parser.parse_args(argv)
    if args.events < 1:
        parser.error("--events must be at least 1")
    if args.keys is None:
        args.keys = max(1, args.events // 10)
    if args.keys < 1:
        parser.error("--keys must be at least 1")
    if args.keys > args.events:
        parser.error("--keys cannot exceed --events (every key is inserted once first)")
    return args


def prepare_work_dir(work_dir: Path | None) -> Path:
    if work_dir is None:
        return Path(tempfile.mkdtemp(prefix="cdc-benchmark-")).resolve()
    work_dir = work_dir.resolve()
    if work_dir.exists() and any(work_dir.iterdir()):
        raise SystemExit(f"run_benchmark: --work-dir {work_dir} is not empty; give a new or empty folder")
    work_dir.mkdir(parents=True, exist_ok=True)
    return work_dir


def benchmark_env(work: Path) -> dict:
    env = dict(os.environ)
    env.update({
        "CDC_LANDING_DIR": str(work / "landing"),
        "CDC_SPARK_DIR": str(work / "spark"),
        # keep dbt's compiled SQL, run results and logs out of the project tree
        "DBT_TARGET_PATH": str(work / "dbt-target"),
        "DBT_LOG_PATH": str(work / "dbt-logs"),
    })
    for name in ("CDC_DBT_TARGET", "CDC_SCHEMA"):
        env.pop(name, None)  # the local target and default schema, whatever the caller's shell says
    return env


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not CDC_DBT.exists():
        raise SystemExit(f"run_benchmark: {CDC_DBT} not found; set up the project first (make setup)")
    work = prepare_work_dir(args.work_dir)
    debezium_dir = work / "landing" / "debezium"
    debezium_dir.mkdir(parents=True)
    (work / "logs").mkdir()
    runner = Runner(work=work, env=benchmark_env(work), total_steps=9 if args.skip_raw_naive else 10)
    print(f"work folder: {work}", flush=True)

    events, keys = args.events, args.keys
    batch_events = max(1, round(events * BATCH_SHARE))
    unique = max(keys, round(events / (1 + DUPLICATE_SHARE)))
    feed = Feed(keys=keys, rng=random.Random(args.seed), rotate_every=max(1, -(-unique // BINLOG_FILES)))

    print(f"generating {events:,} events over {keys:,} keys into {debezium_dir} ...", flush=True)
    started = time.perf_counter()
    files = generate_initial(feed, events, debezium_dir)
    generation_seconds = time.perf_counter() - started
    initial_counts = dict(feed.counts)
    print(f"generated {files} files in {generation_seconds:.1f} s "
          f"(inserts {initial_counts['c']:,}, updates {initial_counts['u']:,}, deletes {initial_counts['d']:,}, "
          f"re-inserts {initial_counts['reinsert']:,}, duplicates {events - unique:,}, "
          f"binlog files mysql-bin.000012..{feed.file_no:06d})", flush=True)

    steps: dict[str, dict] = {}

    def record(name: str, label: str, seconds: float, step_events: int) -> None:
        steps[name] = {"label": label, "seconds": round(seconds, 2), "events": step_events,
                       "events_per_s": round(rate(step_events, seconds), 1)}

    try:
        seed_seconds, _ = runner.cdc_dbt("seed", ["seed"])
        seconds, _ = runner.cdc_dbt("full build", ["run"])
        record("full_build", "full build (cdc-dbt run)", seconds, events)
        fixed_seconds, _ = runner.cdc_dbt("no-op run", ["run"])
        # selects nothing (the model is disabled without the var): JVM, Spark session and dbt parse only
        start_seconds, _ = runner.cdc_dbt("start only", ["run", "--select", "bench_naive_current"])

        generate_batch(feed, batch_events, debezium_dir / "orders-incremental-0001.jsonl")
        print(f"wrote a {batch_events:,}-event batch (positions up to mysql-bin.{feed.file_no:06d}:{feed.pos})",
              flush=True)
        seconds, _ = runner.cdc_dbt("incremental run", ["run"])
        record("incremental_1pct", "incremental 1 % batch (cdc-dbt run)", seconds, batch_events)
        _, after_incremental = runner.show("counts after incremental", counts_sql())

        total = events + batch_events
        seconds, _ = runner.cdc_dbt("full refresh", ["run", "--full-refresh"])
        record("full_refresh", "full refresh (--full-refresh)", seconds, total)

        seconds, _ = runner.cdc_dbt("naive baseline", ["run", "--select", "bench_naive_current",
                                                       "--vars", BENCH_VARS])
        record("naive_baseline", "naive baseline (bench_naive_current)", seconds, total)

        raw_naive = None
        if not args.skip_raw_naive:
            seconds, raw_naive = runner.show("naive from raw files", raw_naive_sql(debezium_dir))
            record("naive_from_raw", "naive dedupe from raw files (show)", seconds, total)

        _, final = runner.show("counts and comparison", comparison_sql(), ["--vars", BENCH_VARS])
    except StepFailed as failed:
        print(f"run_benchmark: {failed}", file=sys.stderr)
        return 1

    incremental_equal = (after_incremental["current_fingerprint"] == final["current_fingerprint"]
                         and after_incremental["history_fingerprint"] == final["history_fingerprint"]
                         and after_incremental["current_rows"] == final["current_rows"]
                         and after_incremental["history_rows"] == final["history_rows"])
    figures = {
        "events": events,
        "keys": keys,
        "batch_events": batch_events,
        "landing_files": files + 1,
        "work_dir": str(work),
        "generation_seconds": round(generation_seconds, 2),
        "seed_seconds": round(seed_seconds, 2),
        "fixed_start_seconds": round(fixed_seconds, 2),
        "process_start_seconds": round(start_seconds, 2),
        "steps": steps,
        "incremental_to_full_refresh_ratio": round(steps["incremental_1pct"]["seconds"]
                                                   / steps["full_refresh"]["seconds"], 4),
        "rows": {"cdc_current": final["current_rows"], "cdc_history": final["history_rows"],
                 "after_incremental": {"cdc_current": after_incremental["current_rows"],
                                       "cdc_history": after_incremental["history_rows"]}},
        "correctness": {
            "naive_keys": final["naive_rows"],
            "cdc_current_keys": final["current_rows"],
            "differing_rows": final["differing_rows"],
            "raw_naive_keys": raw_naive["naive_rows"] if raw_naive else None,
            "incremental_equals_full_refresh": incremental_equal,
            "expected_live_keys": sum(feed.alive),
        },
        "model_seconds": {name: runner.model_seconds(label) for name, label in (
            ("full build", "full build"), ("no-op run", "no-op run"), ("incremental", "incremental run"),
            ("full refresh", "full refresh"), ("naive", "naive baseline"))},
        "generator": {"seed": args.seed, "initial": initial_counts,
                      "total": dict(feed.counts), "duplicates": events - unique},
        "project_files_changed_during": runner.changed_during,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(), "load_average_1min_after_steps": runner.load_averages,
                    "max_load_average_1min": max(runner.load_averages)},
    }
    print_report(figures)
    out = work / "benchmark.json"
    out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(f"\nfigures written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
