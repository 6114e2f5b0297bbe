"""Many small batches in a row, with and without the compaction of the Delta state tables
(DECISIONLOG D61), side by side in one run (a script, not a test).

    .venv/bin/python benchmarks/batch_series.py --events 200000 --batches 30 --batch-events 2000

Two copies of one state, each in its own folder with its own `cdc-spark-server`: `off` runs with
`cdc_compact_files_per_bucket: 0` (no compaction), `on` with the project's setting. Both get the
same generated Debezium files (run_benchmark.py's feed): the initial load, built by a full
`cdc-dbt run`, then `--batches` batches of `--batch-events` events, each landed in both folders and
merged by a `cdc-dbt run` through each side's warm server, the two sides taking turns so that the
machine's load falls on both alike. Each run's wall time and dbt's times of the two state models are
printed as they come, a run that compacted marked `*`; at the end, the mean of each third of the
series per side, the last third being what a schedule that has run for a while pays. Needs the
Delta jars (`make delta`): the parquet state tables rewrite their buckets whole and gain no files.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import time
from pathlib import Path

from run_benchmark import (
    BINLOG_FILES,
    DUPLICATE_SHARE,
    Feed,
    Runner,
    SparkServer,
    StepFailed,
    benchmark_env,
    generate_batch,
    generate_initial,
    prepare_work_dir,
)

from python_udfs.runner import delta_jars

STATE_MODELS = ("int_cdc__history_merged", "int_cdc__current_state")
COMPACTED = "compacting it (optimize)"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="batch_series", description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=200_000, help="events of the initial load (default 200000)")
    parser.add_argument("--keys", type=int, default=None, help="distinct keys (default events / 10)")
    parser.add_argument("--batches", type=int, default=30, help="batches after the load (default 30)")
    parser.add_argument("--batch-events", type=int, default=2_000, help="events per batch (default 2000)")
    parser.add_argument("--work-dir", type=Path, default=None, help="new or empty folder (default: a temp dir)")
    parser.add_argument("--seed", type=int, default=20240601, help="generator seed")
    parser.add_argument("--files-per-bucket", type=int, default=None,
                        help="cdc_compact_files_per_bucket of the `on` side (default: the project's setting)")
    args = parser.parse_args(argv)
    args.keys = args.keys or max(1, args.events // 10)
    if min(args.events, args.keys, args.batches, args.batch_events) < 1:
        parser.error("--events, --keys, --batches and --batch-events must be at least 1")
    if args.files_per_bucket is not None and args.files_per_bucket < 1:
        parser.error("--files-per-bucket must be at least 1 (the `off` side is the one without compaction)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not delta_jars():
        raise SystemExit("batch_series: the Delta Lake jars are missing (run `make delta`): parquet state tables "
                         "gain no files, so there is nothing to compare")
    # the dbt arguments of each side
    sides = {"off": ["--vars", "{cdc_compact_files_per_bucket: 0}"],
             "on": [] if args.files_per_bucket is None
             else ["--vars", f"{{cdc_compact_files_per_bucket: {args.files_per_bucket}}}"]}
    work = prepare_work_dir(args.work_dir, prog="batch_series")
    print(f"work folder: {work}", flush=True)
    unique = max(args.keys, round(args.events / (1 + DUPLICATE_SHARE)))
    feed = Feed(keys=args.keys, rng=random.Random(args.seed), rotate_every=max(1, -(-unique // BINLOG_FILES)))
    runners, servers = {}, {}
    for side in sides:
        folder = work / side
        (folder / "landing" / "debezium").mkdir(parents=True)
        (folder / "logs").mkdir()
        runners[side] = Runner(work=folder, env=benchmark_env(folder), total_steps=2 * (args.batches + 2))
    generate_initial(feed, args.events, work / "off" / "landing" / "debezium")
    for path in sorted((work / "off" / "landing" / "debezium").iterdir()):
        shutil.copyfile(path, work / "on" / "landing" / "debezium" / path.name)
    try:
        for side, runner in runners.items():
            runner.cdc_dbt(f"{side} seed", ["seed"])
            servers[side] = SparkServer(runner)
            servers[side].start()
            runner.cdc_dbt(f"{side} full build", ["run", *sides[side]], remote=servers[side].url)
        rows = []
        print(f"\n{'run':>4} " + " ".join(f"{side + ' ' + what:>14}" for side in sides
                                          for what in ("run s", "history s", "current s")), flush=True)
        for number in range(1, args.batches + 1):
            name = f"series-{number:04d}.jsonl"
            generate_batch(feed, args.batch_events, work / "off" / "landing" / "debezium" / name)
            shutil.copyfile(work / "off" / "landing" / "debezium" / name, work / "on" / "landing" / "debezium" / name)
            row = {}
            for side, runner in runners.items():
                seconds, output = runner.cdc_dbt(f"{side} batch {number}", ["run", *sides[side]],
                                                 remote=servers[side].url)
                models = runner.model_seconds(f"{side} batch {number}")
                row[side] = (seconds, *(models.get(model, 0.0) for model in STATE_MODELS), COMPACTED in output)
            rows.append(row)
            print(f"{number:>4} " + " ".join(
                f"{row[side][0]:>13.1f}{'*' if row[side][3] else ' '}{row[side][1]:>15.1f}{row[side][2]:>15.1f}"
                for side in sides), flush=True)
    except StepFailed as failure:
        print(failure, file=sys.stderr)
        return 1
    finally:
        for server in servers.values():
            server.stop()
    print_summary(rows)
    return 0


def print_summary(rows: list[dict]) -> None:
    third = max(1, len(rows) // 3)
    parts = [("first third", rows[:third]), ("middle", rows[third:-third] or rows[:third]), ("last third", rows[-third:])]
    print("\nmean seconds of a run (history, current state):", flush=True)
    for label, part in parts:
        means = {side: [sum(row[side][column] for row in part) / len(part) for column in range(3)] for side in rows[0]}
        print(f"  {label:<12} " + "   ".join(
            f"{side}: {means[side][0]:.1f} ({means[side][1]:.1f}, {means[side][2]:.1f})" for side in means))
    compactions = sum(row["on"][3] for row in rows)
    print(f"  runs that compacted (on): {compactions} of {len(rows)}; marked * above", flush=True)


if __name__ == "__main__":
    started = time.perf_counter()
    code = main()
    print(f"batch_series: {time.perf_counter() - started:.0f} s in all", flush=True)
    sys.exit(code)
