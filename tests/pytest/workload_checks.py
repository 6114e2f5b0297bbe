"""The end-to-end check every vendor's workload shares: deliver the batches to the landing
folder, `cdc-dbt run` after each, then `run --full-refresh`, and after both compare the
project's `cdc_current` and `cdc_history` (and its quarantine) with each generator's oracle.

The oracle's `expected.current` maps (source_table, pk) to the canonical row JSON and
`expected.history` maps it to the versions [(op, is_deleted, row JSON), ...] in order.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from itertools import pairwise

from python_udfs.contract import canonical_json

SHOW = 5  # mismatches printed per check


# The marts as the default CDC_SCHEMA names them, queried through the project's Spark session
# (project.sql), not `dbt show`, which parses the project again for every query.
CURRENT = "cdc_marts.cdc_current"
HISTORY = "cdc_marts.cdc_history"
QUARANTINE = "cdc_intermediate.int_cdc__quarantine"
CURRENT_COLUMNS = {"source_vendor": "source_vendor", "source_table": "source_table", "pk": "pk", "row": "row"}
HISTORY_COLUMNS = {
    "source_vendor": "source_vendor", "source_table": "source_table", "pk": "pk", "op": "op",
    "is_deleted": "is_deleted", "is_current": "is_current", "row": "row",
    # sequences as JSON text: 19-digit parts must not become floats, which tie
    "valid_from_sequence": "to_json(valid_from_sequence)", "valid_to_sequence": "to_json(valid_to_sequence)",
}
QUARANTINE_COLUMNS = {"source_vendor": "source_vendor", "reason": "reason", "detail": "detail", "raw": "raw"}


def _rows_by_vendor(project, table: str, columns: dict[str, str], vendors: list[str]) -> dict[str, list[dict]]:
    """The table's rows of these vendors, every column (a null one as None: Spark's JSON rows
    leave nulls out), grouped by vendor: one query for every vendor of a run."""
    listed = ", ".join(f"{expression} as {name}" for name, expression in columns.items())
    wanted = ", ".join(f"'{vendor}'" for vendor in vendors)
    grouped: dict[str, list[dict]] = {vendor: [] for vendor in vendors}
    for row in project.sql(f"select {listed} from {table} where source_vendor in ({wanted})"):
        grouped[row["source_vendor"]].append({name: row.get(name) for name in columns})
    return grouped


@dataclass
class Case:
    """One vendor's workload in a shared end-to-end run."""

    vendor: str
    workload: object
    seed: int
    extra_problems: Callable[[object], list[str]] | None = None


def run_end_to_end(project, cases: list[Case], run_args: tuple[str, ...] = ()) -> None:
    """Every vendor's batches land together, a run after each batch index, then a full refresh;
    every vendor's oracle must hold after both. One project for all vendors: each run costs
    Spark's and dbt's fixed start once, not once per vendor. `run_args`: more arguments of the
    runs after each batch (not of the full refresh)."""
    project.run("seed")
    for index in range(max(len(case.workload.batches) for case in cases)):
        for case in cases:
            for landing_file in case.workload.batches[index] if index < len(case.workload.batches) else []:
                if hasattr(landing_file, "write"):
                    landing_file.write(project.landing_dir / case.vendor)
                else:  # (name, lines)
                    project.write_landing_file(case.vendor, *landing_file)
        project.run("run", *run_args)
    for stage in ("the incremental runs", "a full refresh"):
        if stage == "a full refresh":
            project.run("run", "--full-refresh")
        assert_oracles_hold(project, cases, stage)


def assert_oracles_hold(project, cases: list[Case], stage: str) -> None:
    vendors = [case.vendor for case in cases]
    quarantined = _rows_by_vendor(project, QUARANTINE, QUARANTINE_COLUMNS, vendors)
    current = _rows_by_vendor(project, CURRENT, CURRENT_COLUMNS, vendors)
    history = _rows_by_vendor(project, HISTORY, HISTORY_COLUMNS, vendors)
    failures = []
    for case in cases:
        # quarantined records first: they usually explain the mismatches that follow
        problems = (quarantine_problems(quarantined[case.vendor])
                    + (case.extra_problems(project) if case.extra_problems else [])
                    + current_problems(current[case.vendor], case.workload.expected)
                    + history_problems(history[case.vendor], case.workload.expected))
        if problems:
            failures.append(f"{case.vendor} after {stage}: {len(problems)} problems (replay with "
                            f"CDC_WORKLOAD_SEED={case.seed}); first {SHOW}:\n" + "\n".join(problems[:SHOW]))
    assert not failures, "\n\n".join(failures)


def quarantine_problems(rows: list[dict]) -> list[str]:
    return [f"quarantined: {row['reason']}: {row['detail']}\n    {(row['raw'] or '')[:300]}" for row in rows]


def current_problems(rows: list[dict], expected) -> list[str]:
    actual: dict[tuple, dict] = {}
    problems = []
    for row in rows:
        if _key(row) in actual:
            problems.append(f"current: key {_key(row)} appears twice")
        actual[_key(row)] = json.loads(row["row"])
    want = {key: json.loads(row) for key, row in expected.current.items()}
    for key in sorted(want.keys() | actual.keys()):
        if key not in actual:
            problems.append(f"current: missing {key}\n    expected {want[key]}")
        elif key not in want:
            problems.append(f"current: unexpected {key}\n    got {actual[key]}")
        elif want[key] != actual[key]:
            problems.append(f"current: {key}\n    expected {want[key]}\n    got      {actual[key]}")
    return problems


def history_problems(rows: list[dict], expected) -> list[str]:
    actual: dict[tuple, list[dict]] = {}
    for row in rows:
        actual.setdefault(_key(row), []).append(row)
    problems = []
    for key in sorted(expected.history.keys() | actual.keys()):
        versions = sorted(actual.get(key, []), key=lambda v: _sequence(v["valid_from_sequence"]) or ())
        got = [(v["op"], _flag(v["is_deleted"]), json.loads(v["row"])) for v in versions]
        want = [(op, deleted, json.loads(row)) for op, deleted, row in expected.history.get(key, [])]
        if got != want:
            problems.append(f"history: {key}\n    expected {_brief(want)}\n    got      {_brief(got)}")
        if versions:
            problems.extend(_version_chain_problems(key, versions))
    return problems


def _version_chain_problems(key, versions: list[dict]) -> list[str]:
    problems = []
    if [_flag(v["is_current"]) for v in versions] != [False] * (len(versions) - 1) + [True]:
        problems.append(f"history: {key} is_current is not exactly its last version")
    for version, following in pairwise(versions):
        if _sequence(version["valid_to_sequence"]) != _sequence(following["valid_from_sequence"]):
            problems.append(f"history: {key} valid_to {version['valid_to_sequence']} "
                            f"!= next valid_from {following['valid_from_sequence']}")
    if versions[-1]["valid_to_sequence"] is not None:
        problems.append(f"history: {key} last version has valid_to {versions[-1]['valid_to_sequence']}")
    return problems


def _key(row: dict) -> tuple[str, str]:
    return row["source_table"], canonical_json(json.loads(row["pk"]))


def _flag(value) -> bool:
    return value if isinstance(value, bool) else str(value).lower() == "true"


def _sequence(value) -> tuple[Decimal, ...] | None:
    """A sequence as numbers, whether it comes as a list or as text such as '[1, 9999851, 0]'."""
    if value is None:
        return None
    if isinstance(value, str):
        value = json.loads(value, parse_float=Decimal)
    return tuple(Decimal(str(part)) for part in value)


def _brief(versions: list[tuple]) -> str:
    return "\n             ".join(f"{op:<8} deleted={deleted!s:<5} {row}" for op, deleted, row in versions)
