"""The differential check between a vendor's SQL flattening and its Python parser, while both exist.

Every conformance file of the vendor and every landing file of a generated workload go into one
landing folder; `cdc-dbt run` builds the vendor's staging models up to `base_<vendor>__parsed`
(the SQL path); the Python parser is then called on the very records the SQL read
(`base_<vendor>__landing_records.raw`), and the two outputs must agree record by record.

Column values are JSON text on both sides; they are compared as JSON values (`3.50` and `3.5`
are one number), everything else exactly but the fields in NOT_COMPARED.
"""

from __future__ import annotations

import importlib
import json
import shutil
from collections import defaultdict

from conftest import CONFORMANCE_DIR

from python_udfs.contract import PARSED_FIELDS, quarantine

SHOW = 8
JSON_MAPS = ("key", "before", "after")
JSON_TEXTS = ("control_json",)
# Compared only for presence: a quarantine detail is prose, and content_hash is a hash of the
# canonical payload, whose numbers Spark writes in its own way (5.0 as 5): both sides are stable
# for identical text, which is all event_id needs (DECISIONLOG D4, D10).
NOT_COMPARED = ("detail", "content_hash")


def land_conformance_and_workloads(project, vendor: str, workloads: list) -> None:
    """Copy the vendor's conformance files and write every batch of the given workloads."""
    folder = project.landing_dir / vendor
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(p for p in (CONFORMANCE_DIR / vendor).rglob("*") if p.is_file()):
        shutil.copy(path, folder / f"conformance-{path.parent.name}-{path.name}")
    for number, workload in enumerate(workloads):
        for batch_no, batch in enumerate(workload.batches):
            for landing_file in batch:
                if hasattr(landing_file, "write"):
                    landing_file.write(folder)
                else:
                    name, lines = landing_file
                    project.write_landing_file(vendor, f"w{number}-b{batch_no}-{name}", lines)


def parity_problems(project, vendors: tuple[str, ...]) -> tuple[dict[str, int], list[str]]:
    """(records compared per vendor, differences) between base_<vendor>__parsed and the Python
    parser, for each vendor, after one dbt run that builds them all."""
    project.run("run", "--select", *(f"+base_{vendor}__parsed" for vendor in vendors))
    compared, problems = {}, []
    for vendor in vendors:
        records = project.sql(
            f"select _source_file, record_no, raw, read_error from cdc_staging.base_{vendor}__landing_records "
            "where record_no > 0")
        sql_rows = defaultdict(list)
        for row in project.sql(f"select * from cdc_staging.base_{vendor}__parsed"):
            sql_rows[(row["_source_file"], row["record_no"])].append(row)
        parse = _oracle(getattr(importlib.import_module(f"parsers.{vendor}"), f"parse_{vendor}"))
        for record in records:
            where = (record["_source_file"], record["record_no"])
            expected = [_normal(parsed) for parsed in parse(record.get("raw"), record.get("read_error"))]
            got = [_normal(row) for row in sorted(sql_rows.pop(where, []), key=lambda row: row["record_index"])]
            if got != expected:
                problems.append(f"{vendor}: " + _describe(where, record.get("raw"), expected, got))
        problems += [f"{vendor}: SQL rows for a record the landing model does not have: {where}" for where in sql_rows]
        compared[vendor] = len(records)
    return compared, problems


def _oracle(parse):
    """The Python parser as the old UDF ran it: a record the landing could not read is
    `unreadable_file`; a parser never raises (it quarantines)."""

    def run(raw, read_error=None):
        return [quarantine("unreadable_file", read_error)] if read_error is not None else parse(raw)

    return run


def assert_parity(project, vendors: tuple[str, ...]) -> None:
    compared, problems = parity_problems(project, vendors)
    assert all(compared.values()), f"no records were read for some vendor: {compared}"
    assert not problems, (f"SQL and Python disagree on {len(problems)} of {sum(compared.values())} records "
                          f"({compared}); first {SHOW}:\n" + "\n".join(problems[:SHOW]))


def _normal(record: dict) -> dict:
    normal = {}
    for name in PARSED_FIELDS:
        value = record.get(name)
        if name in NOT_COMPARED:
            value = value is not None
        elif name in JSON_MAPS and value is not None:
            value = {column: _json(text) for column, text in value.items()}
        elif name in JSON_TEXTS and value is not None:
            value = _json(value)
        normal[name] = value
    return normal


def _json(text):
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return ("not JSON", text)


def _describe(where, raw, expected: list[dict], got: list[dict]) -> str:
    lines = [f"{where[0].rsplit('/', 1)[-1]} record {where[1]}: {(raw or '')[:200]}"]
    if len(expected) != len(got):
        lines.append(f"    python gives {len(expected)} rows, SQL {len(got)}")
    for index, (want, have) in enumerate(zip(expected, got, strict=False)):
        for name in PARSED_FIELDS:
            if want[name] != have[name]:
                lines.append(f"    [{index}] {name}: python {want[name]!r}\n{' ' * (8 + len(str(index)))}sql    {have[name]!r}")
    return "\n".join(lines)


def landing_problems(project, vendors: tuple[str, ...], whole_file_bytes: int | None = None,
                     full_refresh: bool = False) -> tuple[dict[str, int], list[str]]:
    """(files compared per vendor, differences) between the SQL landing split
    (base_<vendor>__landing_records) and the Python reader landing_split.read_landing_file,
    file by file (DECISIONLOG D8), after one dbt run that reads every vendor's folder. Records are
    compared as JSON values where both parse (an array element is re-serialised). With
    `whole_file_bytes`, the run sets the var cdc_landing_whole_file_bytes to it, and so does the
    Python reader; with `full_refresh`, every file is read again."""
    from landing_split import WHOLE_FILE_BYTES, read_landing_file

    extra = ["--vars", f"{{cdc_landing_whole_file_bytes: {whole_file_bytes}}}"] if whole_file_bytes else []
    extra += ["--full-refresh"] if full_refresh else []
    project.run("run", "--select", *(f"base_{vendor}__landing_records" for vendor in vendors), *extra)
    compared, problems = {}, []
    for vendor in vendors:
        sql_files = defaultdict(list)
        for row in project.sql(f"select _source_file, record_no, raw, read_error "
                               f"from cdc_staging.base_{vendor}__landing_records where record_no > 0"):
            sql_files[row["_source_file"].removeprefix("file:")].append(row)
        folder = project.landing_dir / vendor
        # every file Spark lists: not an empty one, nor one whose name starts with . or _
        paths = sorted(str(p.resolve()) for p in folder.rglob("*")
                       if p.is_file() and not p.name.startswith((".", "_")) and p.stat().st_size > 0)
        for path in paths:
            want = [(number, _record(raw), error is not None)
                    for number, raw, error in read_landing_file(path, whole_file_bytes or WHOLE_FILE_BYTES)]
            got = [(row["record_no"], _record(row.get("raw")), row.get("read_error") is not None)
                   for row in sorted(sql_files.pop(path, []), key=lambda row: row["record_no"])]
            if got != want:
                first = next((pair for pair in zip(want, got, strict=False) if pair[0] != pair[1]), None)
                problems.append(f"{path}: python {len(want)} records, SQL {len(got)}; first difference {first}")
        problems += [f"SQL read a file the Python reader skips: {path}" for path in sql_files]
        compared[vendor] = len(paths)
    return compared, problems


def _record(raw):
    if raw is None:
        return None
    try:
        return ("json", json.loads(raw))
    except ValueError:
        return ("text", raw)
