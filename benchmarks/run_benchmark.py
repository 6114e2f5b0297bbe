"""Throughput benchmark of the CDC pipeline on a synthetic Debezium MySQL feed (a script, not a test).

    .venv/bin/python benchmarks/run_benchmark.py --events 1000000 [--keys 100000] [--work-dir DIR]

Every step is a subprocess timed by wall clock, with CDC_LANDING_DIR / CDC_SPARK_DIR (and dbt's
target and log folders) inside the work folder, so the project's own `.spark` is never used.

First N events are generated into <work>/landing/debezium/*.jsonl (~100k lines a file), then:

 1. cdc-dbt seed
 2. bare Spark start: python_udfs.runner's session without the project's class archive (what
    starting Spark costs anyone), `select 1`, exit; then the same with the archive, for comparison
 3. hand-written PySpark job (benchmarks/handwritten_job.py) over the N events
 4. cdc-dbt run                   full build over the N events
 5. cdc-dbt run                   again, no new file: the no-op run
 6. a 1 % batch as a new file, cdc-dbt run: the incremental run (state tables on Delta when
    `make delta` fetched the jars, else parquet)
 7. counts and fingerprints of cdc_current / cdc_history (cdc-dbt show)
    The same project on a Spark that stays up (cdc-spark-server --connect-port, DECISIONLOG D55;
    leave out with --no-server):
 8. cdc-spark-server started on the same state, then through it (CDC_SPARK_REMOTE): a no-op run
    (the server's first), a 1 % batch (its first batch), another 1 % batch (warm), a no-op run
    (warm), counts and fingerprints, a full refresh (warm) and its counts and fingerprints; the
    server stopped
    With Delta, the same on parquet, side by side:
 9. cdc-dbt run --vars '{cdc_file_format: parquet}'   the state tables rebuilt as parquet
10. another 1 % batch, cdc-dbt run (parquet): the incremental run on parquet
11. counts and fingerprints again
12. cdc-dbt run --full-refresh    everything rebuilt from the landing files (default format)
13. hand-written job again over N + batches
14. comparison (cdc-dbt show): incremental == full refresh (so Delta == parquet), cdc_current ==
    the job's output; and from step 8: the runs through the server == its full refresh

Prints a table, three ratios against their targets, correctness lines and dbt's time per model;
writes the figures to <work>/benchmark.json. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from jvm_cpu import JvmCpuSampler

from python_udfs.runner import delta_jars

PROJECT_DIR = Path(__file__).resolve().parents[1]
VENV_PYTHON = PROJECT_DIR / ".venv" / "bin" / "python"
CDC_DBT = PROJECT_DIR / ".venv" / "bin" / "cdc-dbt"
CDC_SPARK_SERVER = PROJECT_DIR / ".venv" / "bin" / "cdc-spark-server"
SERVER_START_TIMEOUT = 180
HANDWRITTEN_JOB = Path(__file__).resolve().with_name("handwritten_job.py")
LINES_PER_FILE = 100_000
DUPLICATE_SHARE = 0.05  # share of the landed lines that are exact copies of another line
DELETE_SHARE = 0.05  # share of the changes to a live key that delete it
BINLOG_FILES = 3  # the initial load spans this many binlog files (so the file number rolls over)
BATCH_SHARE = 0.01
STATUSES = ("pending", "paid", "packed", "shipped", "delivered", "returned")
START_TS_MS = 1_717_200_000_000  # 2024-06-01T00:00:00Z

# The session cdc-dbt builds (same settings, same CDC_SPARK_DIR), one trivial query, exit; run with
# CDC_CLASS_ARCHIVE off (the baseline) and on.
BARE_SPARK_START = (
    "from python_udfs.runner import build_spark_session, configure_environment\n"
    "configure_environment()\n"
    "build_spark_session().sql('select 1').collect()\n"
)
# (figure, numerator step, denominator step, target: the ratio must not exceed it, what it aims at)
RATIOS = (
    ("full build / hand-written job", "full_build", "handwritten_job", 2.0, "the aim is parity, 1.0"),
    ("no-op run / bare Spark start", "noop_run", "bare_spark_start", 3.0, ""),
    ("1 % batch / full build", "incremental_1pct", "full_build", 0.15, ""),
)
# with the Delta jars: the issue-15 target for the Delta state tables, and parquet beside it
DELTA_RATIOS = (
    ("1 % batch on Delta / full build", "incremental_1pct", "full_build", 0.10, ""),
    ("1 % batch on parquet / full build", "incremental_1pct_parquet", "full_build", 0.15, "for comparison"),
)
# through a running cdc-spark-server (D55): the same targets, the JVM already warm
SERVER_RATIOS = (
    ("no-op run, warm server / bare start", "noop_server_warm", "bare_spark_start", 3.0, "on a running server"),
    ("1 % batch, warm server / full build", "incremental_1pct_server_warm", "full_build", 0.15,
     "on a running server"),
)

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

    row_template: ClassVar[str] = ROW  # a subclass may render the row's values its own way
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
        return self.row_template % (key, 1 + key * 7919 % 50_000, STATUSES[version % len(STATUSES)],
                                    cents // 100, cents % 100, note, self.ts_ms, version)

    def _advance(self) -> None:
        """Next binlog position: positions only grow; the file number rolls over every so often."""
        self.written += 1
        if self.written % self.rotate_every == 0:
            self.file_no += 1
            self.pos = 4
        draw = self.rng.random()
        self.pos += 180 + int(draw * 720)
        self.ts_ms += 1 + int(draw * 19)

    def change(self, key: int) -> tuple[str, str | None, str | None]:
        """The next change of `key` as (op, row before, row after), rows as JSON text or None: insert
        ("c") if unknown or deleted, else mostly update ("u"), some deletes ("d"). Positions advanced;
        benchmarks/vendor_benchmark.py renders it in the other vendors' formats."""
        self._advance()
        before = self.rows[key]
        if not self.alive[key]:
            op = "c"
            self.counts["reinsert" if before is not None else "c"] += 1
            before = None
        elif self.rng.random() < DELETE_SHARE:
            op = "d"
            self.counts["d"] += 1
        else:
            op = "u"
            self.counts["u"] += 1
        if op == "d":
            self.alive[key] = 0
            return op, before, None
        self.versions[key] += 1
        after = self._row(key)
        self.rows[key] = after
        self.alive[key] = 1
        return op, before, after

    def event(self, key: int) -> str:
        """The next change of `key` as a Debezium message."""
        op, before, after = self.change(key)
        return MESSAGE % (before or "null", after or "null", self.ts_ms, self.file_no, self.pos, 1 + key % 16,
                          op, self.ts_ms + 250)

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
# Running the steps (one subprocess each)


def project_fingerprint() -> str:
    """Hash of the files that decide what a run does: a change mid-benchmark makes steps incomparable."""
    digest = hashlib.sha256()
    paths = [PROJECT_DIR / "dbt_project.yml", PROJECT_DIR / "profiles.yml", *sorted(
        path for folder in ("models", "macros", "seeds", "python_udfs")
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
    jvm_cpu: dict = field(default_factory=dict)  # step label -> CPU seconds of its JVM by kind of thread

    def run(self, label: str, command: list[str], shown: str, env: dict | None = None) -> tuple[float, str]:
        """Run one subprocess; returns (wall-clock seconds, stdout). Its output goes to a log file."""
        self.step_no += 1
        prefix = f"[{self.step_no}/{self.total_steps}] {label}"
        print(f"{prefix}: {shown} ...", flush=True)
        log = self.work / "logs" / f"{self.step_no:02d}-{label.replace(' ', '_').replace('/', '_')}.log"
        results = self.work / "dbt-target" / "run_results.json"
        results.unlink(missing_ok=True)
        started = time.perf_counter()
        with subprocess.Popen(command, cwd=PROJECT_DIR, env={**self.env, **(env or {})}, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) as process:
            sampler = JvmCpuSampler(process.pid)
            sampler.start()
            stdout, stderr = process.communicate()
            sampler.stop()
        seconds = time.perf_counter() - started
        done = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
        self.jvm_cpu[label] = sampler.seconds()
        self.load_averages.append(round(os.getloadavg()[0], 2))  # other processes on the machine skew times
        fingerprint = project_fingerprint()
        if fingerprint != self.fingerprint:
            self.changed_during.append(label)
            self.fingerprint = fingerprint
            print(f"{prefix}: warning: project files changed while it ran (or since the step before)", flush=True)
        log.write_text(f"$ {shown}\n# exit {done.returncode}, {seconds:.1f} s\n"
                       f"## stdout\n{done.stdout}\n## stderr\n{done.stderr}", encoding="utf-8")
        if done.returncode != 0:
            output = (done.stdout + done.stderr).strip().splitlines()
            # dbt's summary names the failing model and its error; otherwise the last lines
            start = next((i for i, line in enumerate(output) if "Completed with" in line), len(output) - 25)
            tail = "\n".join(line[:300] for line in output[max(0, start):max(0, start) + 25])
            raise StepFailed(f"{prefix} failed (exit {done.returncode}); full output in {log}\n{tail}")
        print(f"{prefix}: {seconds:.1f} s", flush=True)
        if results.exists():
            results.rename(log.with_suffix(".run_results.json"))
        return seconds, done.stdout

    def cdc_dbt(self, label: str, args: list[str], remote: str | None = None) -> tuple[float, str]:
        """cdc-dbt with `args`; `remote`: through that Spark Connect server (CDC_SPARK_REMOTE)."""
        shown = ["<sql>" if previous == "--inline" else arg for previous, arg in zip(["", *args], args)]
        prefix = f"CDC_SPARK_REMOTE={remote} " if remote else ""
        return self.run(label, [str(CDC_DBT), *args], f"{prefix}cdc-dbt {' '.join(shown)}",
                        env={"CDC_SPARK_REMOTE": remote} if remote else None)

    def bare_spark_start(self, label: str, class_archive: bool) -> float:
        """The JVM maps the class archive `make setup` wrote only when asked (python_udfs/class_archive.py)."""
        setting = "on" if class_archive else "off"
        seconds, _ = self.run(label, [str(VENV_PYTHON), "-c", BARE_SPARK_START],
                              f"CDC_CLASS_ARCHIVE={setting} python -c 'build_spark_session().sql(\"select 1\")'",
                              env={"CDC_CLASS_ARCHIVE": setting})
        return seconds

    def handwritten_job(self, label: str, landing: Path, output: Path) -> float:
        seconds, _ = self.run(label, [str(VENV_PYTHON), str(HANDWRITTEN_JOB), str(landing), str(output)],
                              f"python benchmarks/{HANDWRITTEN_JOB.name} {landing} {output}")
        return seconds

    def model_seconds(self, label: str) -> dict[str, float]:
        """dbt's own execution time per model for the step of that label (from its run_results.json)."""
        found = sorted((self.work / "logs").glob(f"*-{label.replace(' ', '_')}.run_results.json"))
        if not found:
            return {}
        results = json.loads(found[-1].read_text(encoding="utf-8")).get("results", [])
        return {item["unique_id"].split(".")[-1]: round(item.get("execution_time") or 0.0, 2)
                for item in results if item.get("unique_id", "").startswith("model.")}

    def show(self, label: str, sql: str, remote: str | None = None) -> tuple[float, dict]:
        """One row of an inline query through `cdc-dbt show` (its JSON output)."""
        seconds, stdout = self.cdc_dbt(label, ["show", "--inline", sql, "--output", "json", "--quiet"], remote)
        rows = _show_rows(stdout)
        if not rows:
            raise StepFailed(f"{label}: no rows in the output of cdc-dbt show:\n{stdout[-2000:]}")
        return seconds, rows[0]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SparkServer:
    """`cdc-spark-server --connect-port` on the benchmark's state, in its own process group; the
    local steps cannot run while it holds the metastore, so stop() comes before them."""

    def __init__(self, runner: Runner):
        self.runner = runner
        self.log = runner.work / "logs" / "cdc-spark-server.log"
        self.process: subprocess.Popen | None = None
        self.url = ""

    def start(self) -> float:
        port, connect_port = _free_port(), _free_port()
        self.url = f"sc://127.0.0.1:{connect_port}"
        print(f"cdc-spark-server --port {port} --connect-port {connect_port} ...", flush=True)
        started = time.perf_counter()
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [str(CDC_SPARK_SERVER), "--port", str(port), "--connect-port", str(connect_port)],
                cwd=PROJECT_DIR, env=self.runner.env, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True)
        while "Spark Connect listening on" not in self.log.read_text(errors="replace"):
            if self.process.poll() is not None or time.perf_counter() - started > SERVER_START_TIMEOUT:
                self.stop()
                tail = "\n".join(self.log.read_text(errors="replace").splitlines()[-20:])
                raise StepFailed(f"cdc-spark-server did not start; its log is {self.log}\n{tail}")
            time.sleep(0.5)
        seconds = time.perf_counter() - started
        print(f"cdc-spark-server: Spark Connect on {self.url} in {seconds:.1f} s", flush=True)
        return seconds

    def stop(self) -> None:
        """SIGTERM (the server stops Spark cleanly), then SIGKILL to whatever is left of its group."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.wait()
        self.process = None


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


COUNT_COLUMNS = """
    (select count(*) from {{ ref('cdc_current') }}) as current_rows,
    (select count(*) from {{ ref('cdc_history') }}) as history_rows,
    (select coalesce(bit_xor(xxhash64(source_vendor, source_table, pk, row, sequence, last_event_id)), 0)
        from {{ ref('cdc_current') }}) as current_fingerprint,
    (select coalesce(bit_xor(xxhash64(source_vendor, source_table, pk, row, op, is_deleted, is_current,
                                      valid_from, valid_to, valid_from_sequence, valid_to_sequence,
                                      event_id)), 0)
        from {{ ref('cdc_history') }}) as history_fingerprint"""


def counts_sql() -> str:
    """Row counts and order-independent fingerprints of the two marts."""
    return "select" + COUNT_COLUMNS + "\n"


def comparison_sql(job_output: Path) -> str:
    """The counts, plus cdc_current against the hand-written job's parquet: keys on each side and
    rows that differ (a key on one side only, or a different row as a sorted string map)."""
    path = str(job_output).replace("`", "``")
    return f"""
with current_rows as (
    select
        source_table,
        from_json(pk, 'map<string, string>')['id'] as id,
        to_json(map_from_entries(array_sort(map_entries(from_json(row, 'map<string, string>'))))) as row
    from {{{{ ref('cdc_current') }}}}
    where source_vendor = 'debezium'
),

job_rows as (
    select
        concat(db, '.', `table`) as source_table,
        id,
        to_json(map_from_entries(array_sort(map_entries(after)))) as row
    from parquet.`{path}`
)

select{COUNT_COLUMNS},
    (select count(*) from current_rows) as current_keys,
    (select count(*) from job_rows) as job_keys,
    (select count(*)
        from current_rows
        full outer join job_rows
            on current_rows.source_table = job_rows.source_table and current_rows.id = job_rows.id
        where current_rows.row is null or job_rows.row is null or current_rows.row != job_rows.row
    ) as differing_rows
"""


# ---------------------------------------------------------------------------------------------
# Report


def rate(events: int, seconds: float) -> float:
    return events / seconds if seconds > 0 else float("nan")


def print_run_conditions(figures: dict, label_width: int, value_width: int) -> None:
    """The lines that say whether a run's times can be trusted: the machine's load and whether the
    project's files changed while it ran (shared with vendor_benchmark.py)."""
    load, cpus = figures["machine"]["max_load_average_1min"], figures["machine"]["cpus"]
    note = "  (busier than the CPUs: other processes inflate the times)" if cpus and load > cpus + 0.5 else ""
    print(f"{'highest 1-min load average after a step':<{label_width}} {load:>{value_width}.2f}{note}")
    changed = figures["project_files_changed_during"]
    print(f"{'project files unchanged during the run':<{label_width}} {not changed!s:>{value_width}}"
          + (f"  (changed by: {', '.join(changed)}; steps before and after ran different code)" if changed else ""))


def print_report(figures: dict) -> None:
    steps = figures["steps"]
    print()
    print(f"== CDC benchmark: {figures['events']:,} events over {figures['keys']:,} keys "
          f"(+ {figures['batch_events']:,}-event incremental batch), {figures['machine']['cpus']} CPUs ==")
    header = f"{'step':<42} {'events':>12} {'seconds':>9} {'events/s':>11}"
    print(header)
    print("-" * len(header))
    for step in steps.values():
        events = f"{step['events']:,}" if step["events"] is not None else "-"
        per_s = f"{step['events_per_s']:,.0f}" if step["events_per_s"] is not None else "-"
        print(f"{step['label']:<42} {events:>12} {step['seconds']:>9.1f} {per_s:>11}")
    print("-" * len(header))
    print()
    width = max(len(ratio["name"]) for ratio in figures["ratios"])
    print(f"{'ratio':<{width}} {'value':>7} {'target':>8}  met")
    for ratio in figures["ratios"]:
        note = f"  ({ratio['aim']})" if ratio["aim"] else ""
        print(f"{ratio['name']:<{width}} {ratio['value']:>7.2f} {'<= ' + format(ratio['target'], 'g'):>8}  "
              f"{'met' if ratio['met'] else 'NOT met'}{note}")
    print()
    print_run_conditions(figures, label_width=62, value_width=11)
    print(f"{'generation of the landing files (s)':<62} {figures['generation_seconds']:>11.1f}")
    rows = figures["rows"]
    print(f"{'rows in cdc_current':<62} {rows['cdc_current']:>11,}")
    print(f"{'rows in cdc_history':<62} {rows['cdc_history']:>11,}")
    check = figures["correctness"]
    print(f"{'keys in the hand-written job / in cdc_current':<50} {check['handwritten_keys']:>11,} / "
          f"{check['cdc_current_keys']:,}")
    print(f"{'rows differing (job vs cdc_current, expected 0)':<62} {check['differing_rows']:>11,}")
    print(f"{'incremental result == full refresh (fingerprints)':<62} "
          f"{check['incremental_equals_full_refresh']!s:>11}")
    if check["server_runs_equal_full_refresh"] is not None:
        print(f"{'runs through the server == its full refresh (fingerprints)':<62} "
              f"{check['server_runs_equal_full_refresh']!s:>11}")
    print(f"{'expected live keys (generator)':<62} {check['expected_live_keys']:>11,}")
    print_model_breakdown({name: figures["model_seconds"].get(name, {}) for name in (
        "full build", "no-op run", "incremental", "incremental parquet", "batch, warm server")})
    print_jvm_cpu(figures["jvm_cpu_seconds"])


def print_jvm_cpu(jvm_cpu: dict[str, dict | None]) -> None:
    """CPU seconds of each step's JVM by kind of thread (jvm_cpu.py); nothing where /proc is missing."""
    columns = [name for name, kinds in jvm_cpu.items() if kinds]
    if not columns:
        return
    print()
    print("JVM CPU seconds by kind of thread (read from /proc every 0.5 s; benchmarks/jvm_cpu.py):")
    print(f"  {'thread':<34}" + "".join(f" {name:>16}" for name in columns))
    for kind in jvm_cpu[columns[0]]:
        print(f"  {kind:<34}" + "".join(f" {jvm_cpu[name][kind]:>16.1f}" for name in columns))


# benchmark.json name -> step label, for the JVM CPU table
JVM_CPU_STEPS = (("bare Spark start", "bare Spark start"), ("hand-written job", "hand-written job"),
                 ("full build", "full build"), ("no-op run", "no-op run"), ("incremental", "incremental run"))


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
    parser.add_argument("--no-server", dest="server", action="store_false",
                        help="leave out the runs through a running cdc-spark-server (step 8)")
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


def prepare_work_dir(work_dir: Path | None, prog: str = "run_benchmark") -> Path:
    if work_dir is None:
        return Path(tempfile.mkdtemp(prefix="cdc-benchmark-")).resolve()
    work_dir = work_dir.resolve()
    if work_dir.exists() and any(work_dir.iterdir()):
        raise SystemExit(f"{prog}: --work-dir {work_dir} is not empty; give a new or empty folder")
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
    # the local target, the default schema and a Spark of the benchmark's own, whatever the caller's
    # shell says (the server steps name their server themselves)
    for name in ("CDC_DBT_TARGET", "CDC_SCHEMA", "CDC_SPARK_REMOTE"):
        env.pop(name, None)
    return env


def server_steps(runner: Runner, feed: Feed, batch_events: int, debezium_dir: Path, record,
                 total: int) -> tuple[dict, dict]:
    """Step 8: the project through a running cdc-spark-server (D55). Its first no-op run and
    first batch pay the new JVM's warm-up once; the second batch and no-op run are what a server
    that stays up costs. Then a full refresh through it, of the `total` events landed: the same
    state rebuilt from scratch, and a full build on a warm JVM. Returns the counts and fingerprints
    after the incremental runs and after that full refresh."""
    server = SparkServer(runner)
    try:
        record("server_start", "cdc-spark-server start (not a run)", server.start(), None)
        seconds, _ = runner.cdc_dbt("no-op run on a new server", ["run"], remote=server.url)
        record("noop_server_first", "no-op run, new server", seconds, 0)
        for number, (name, label, step) in enumerate((
                ("incremental_1pct_server_first", "1 % batch, new server", "incremental run on a new server"),
                ("incremental_1pct_server_warm", "1 % batch, warm server", "incremental run on a warm server")),
                start=1):
            generate_batch(feed, batch_events, debezium_dir / f"orders-incremental-server-{number}.jsonl")
            seconds, _ = runner.cdc_dbt(step, ["run"], remote=server.url)
            record(name, label, seconds, batch_events)
        seconds, _ = runner.cdc_dbt("no-op run on a warm server", ["run"], remote=server.url)
        record("noop_server_warm", "no-op run, warm server", seconds, 0)
        _, after_runs = runner.show("counts after the server's runs", counts_sql(), remote=server.url)
        seconds, _ = runner.cdc_dbt("full refresh on a warm server", ["run", "--full-refresh"], remote=server.url)
        record("full_refresh_server_warm", "full refresh, warm server", seconds, total)
        _, after_refresh = runner.show("counts after the server's full refresh", counts_sql(), remote=server.url)
    finally:
        server.stop()
    return after_runs, after_refresh


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not CDC_DBT.exists():
        raise SystemExit(f"run_benchmark: {CDC_DBT} not found; set up the project first (make setup)")
    work = prepare_work_dir(args.work_dir)
    debezium_dir = work / "landing" / "debezium"
    debezium_dir.mkdir(parents=True)
    (work / "logs").mkdir()
    on_delta = bool(delta_jars())
    runner = Runner(work=work, env=benchmark_env(work),
                    total_steps=(14 if on_delta else 11) + (7 if args.server else 0))
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

    def record(name: str, label: str, seconds: float, step_events: int | None) -> None:
        steps[name] = {"label": label, "seconds": round(seconds, 2), "events": step_events,
                       "events_per_s": round(rate(step_events, seconds), 1) if step_events else None}

    total = events + batch_events
    job_output = work / "handwritten" / "current"
    try:
        seed_seconds, _ = runner.cdc_dbt("seed", ["seed"])
        record("bare_spark_start", "bare Spark start (session + select 1)",
               runner.bare_spark_start("bare Spark start", class_archive=False), None)
        record("bare_spark_start_archived", "bare Spark start with the class archive",
               runner.bare_spark_start("bare Spark start with the class archive", class_archive=True), None)
        record("handwritten_job", "hand-written PySpark job",
               runner.handwritten_job("hand-written job", debezium_dir, job_output), events)
        seconds, _ = runner.cdc_dbt("full build", ["run"])
        record("full_build", "full build (cdc-dbt run)", seconds, events)
        seconds, _ = runner.cdc_dbt("no-op run", ["run"])
        record("noop_run", "no-op run (cdc-dbt run, nothing new)", seconds, 0)

        generate_batch(feed, batch_events, debezium_dir / "orders-incremental-0001.jsonl")
        print(f"wrote a {batch_events:,}-event batch (positions up to mysql-bin.{feed.file_no:06d}:{feed.pos})",
              flush=True)
        seconds, _ = runner.cdc_dbt("incremental run", ["run"])
        record("incremental_1pct", f"incremental 1 % batch ({'Delta' if on_delta else 'parquet'})",
               seconds, batch_events)
        _, after_incremental = runner.show("counts after incremental", counts_sql())

        server_counts = None
        if args.server:
            total += 2 * batch_events
            server_counts = server_steps(runner, feed, batch_events, debezium_dir, record, total)
            after_incremental = server_counts[0]  # the incremental state the final check compares

        if on_delta:  # the same batch size on parquet state tables, side by side
            parquet = ["--vars", "{cdc_file_format: parquet}"]
            seconds, _ = runner.cdc_dbt("state tables to parquet", ["run", *parquet])
            record("parquet_rebuild", "state tables rebuilt as parquet", seconds, total)
            generate_batch(feed, batch_events, debezium_dir / "orders-incremental-0002.jsonl")
            seconds, _ = runner.cdc_dbt("incremental run on parquet", ["run", *parquet])
            record("incremental_1pct_parquet", "incremental 1 % batch (parquet)", seconds, batch_events)
            _, after_incremental = runner.show("counts after incremental on parquet", counts_sql())
            total += batch_events

        seconds, _ = runner.cdc_dbt("full refresh", ["run", "--full-refresh"])
        record("full_refresh", "full refresh (--full-refresh)", seconds, total)
        record("handwritten_job_total", "hand-written PySpark job (N + batches)",
               runner.handwritten_job("hand-written job again", debezium_dir, job_output), total)
        _, final = runner.show("comparison", comparison_sql(job_output))
    except StepFailed as failed:
        print(f"run_benchmark: {failed}", file=sys.stderr)
        return 1

    def same_state(left: dict, right: dict) -> bool:
        return all(left[name] == right[name] for name in (
            "current_rows", "history_rows", "current_fingerprint", "history_fingerprint"))

    incremental_equal = same_state(after_incremental, final)
    ratios = []
    for name, numerator, denominator, target, aim in (
            RATIOS + (DELTA_RATIOS if on_delta else ()) + (SERVER_RATIOS if args.server else ())):
        value = steps[numerator]["seconds"] / steps[denominator]["seconds"]
        ratios.append({"name": name, "value": round(value, 4), "target": target, "met": value <= target,
                       "aim": aim})
    figures = {
        "events": events,
        "keys": keys,
        "batch_events": batch_events,
        "state_table_format": "delta" if on_delta else "parquet",
        "landing_files": len(list(debezium_dir.glob("*.jsonl"))),
        "work_dir": str(work),
        "generation_seconds": round(generation_seconds, 2),
        "seed_seconds": round(seed_seconds, 2),
        "steps": steps,
        "ratios": ratios,
        "rows": {"cdc_current": final["current_rows"], "cdc_history": final["history_rows"],
                 "after_incremental": {"cdc_current": after_incremental["current_rows"],
                                       "cdc_history": after_incremental["history_rows"]}},
        "correctness": {
            "handwritten_keys": final["job_keys"],
            "cdc_current_keys": final["current_keys"],
            "differing_rows": final["differing_rows"],
            "incremental_equals_full_refresh": incremental_equal,
            # the runs through the server (and the new process's batch before them) against the
            # server's own full refresh of the same files; None without the server steps
            "server_runs_equal_full_refresh": same_state(*server_counts) if server_counts else None,
            "expected_live_keys": sum(feed.alive),
        },
        "model_seconds": {name: runner.model_seconds(label) for name, label in (
            ("full build", "full build"), ("no-op run", "no-op run"), ("incremental", "incremental run"),
            ("incremental parquet", "incremental run on parquet"), ("full refresh", "full refresh"),
            ("batch, warm server", "incremental run on a warm server"),
            ("full refresh, warm server", "full refresh on a warm server"))},
        "jvm_cpu_seconds": {name: runner.jvm_cpu.get(label) for name, label in JVM_CPU_STEPS},
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
