"""How long Spark takes to plan each model's compiled SQL, phase by phase, in one session.

    .venv/bin/python benchmarks/plan_time.py [--target target] [--rounds 3] MODEL [MODEL ...]

Reads `<target>/compiled/**/MODEL.sql` (a `cdc-dbt compile` or run against the state in
CDC_SPARK_DIR, whose tables the SQL names), starts the session cdc-dbt starts (same settings, the
project's Python functions registered), and for each round and model times: analysis, optimisation,
physical planning, and execution into Spark's `noop` sink (whole-stage code generation, the
subqueries and the rows the SQL reads). The first round runs on a new JVM (what a `cdc-dbt run` in
a new process pays); later rounds on a warm one (what a running `cdc-spark-server` pays). A
benchmark, not a test: it prints the figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]


def compiled_sql(target: Path, model: str) -> str:
    found = [path for path in target.glob(f"compiled/*/models/**/{model}.sql")]
    if len(found) != 1:
        raise SystemExit(f"plan_time: {len(found)} compiled files named {model}.sql under {target}/compiled: "
                         "run `cdc-dbt compile` (or a run) first, with the same DBT_TARGET_PATH")
    return found[0].read_text(encoding="utf-8")


def time_phases(spark, sql: str) -> dict[str, float]:
    marks = [time.perf_counter()]
    frame = spark.sql(sql)
    execution = frame._jdf.queryExecution()
    for phase in (execution.analyzed, execution.optimizedPlan, execution.executedPlan):
        phase()
        marks.append(time.perf_counter())
    frame.write.format("noop").mode("overwrite").save()
    marks.append(time.perf_counter())
    names = ("analysis", "optimisation", "planning", "execution")
    return {name: marks[index + 1] - marks[index] for index, name in enumerate(names)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+")
    parser.add_argument("--target", type=Path, default=Path(os.environ.get("DBT_TARGET_PATH", PROJECT_DIR / "target")))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if "CDC_SPARK_DIR" not in os.environ:
        raise SystemExit("plan_time: set CDC_SPARK_DIR to the state the compiled SQL was compiled against")
    texts = {model: compiled_sql(args.target, model) for model in args.models}
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the Python functions run in this venv
    sys.path.insert(0, str(PROJECT_DIR))
    from python_udfs.registration import register_all
    from python_udfs.runner import build_spark_session

    spark = build_spark_session()
    register_all(spark)
    print(f"{'round':>5}  {'model':<34} {'bytes':>8} {'analysis':>9} {'optimise':>9} {'planning':>9} "
          f"{'execution':>10} {'total':>7}")
    for round_number in range(1, args.rounds + 1):
        for model, sql in texts.items():
            phases = time_phases(spark, sql)
            print(f"{round_number:>5}  {model:<34} {len(sql.encode()):>8,} {phases['analysis']:>9.2f} "
                  f"{phases['optimisation']:>9.2f} {phases['planning']:>9.2f} {phases['execution']:>10.2f} "
                  f"{sum(phases.values()):>7.2f}", flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
