"""A landing file larger than the var cdc_landing_whole_file_bytes is read line by line, split
across tasks, so memory does not grow with the file (DECISIONLOG D63): one file of 140 MB read by a
Spark driver of 1 GB, where the file as one row (the whole-file route, Spark's `binaryFile`) and
its copies as text would not fit. The var's checks are rendered with plain Jinja."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import PROJECT_DIR
from macro_rendering import macro_environment, macro_source

PROJECT_VARS = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text(encoding="utf-8"))["vars"]
RECORDS = 170_000


@pytest.mark.spark
def test_a_file_larger_than_the_whole_file_limit_is_read_line_by_line_on_a_small_driver(isolated_project):
    project = isolated_project
    project.env["CDC_SPARK_DRIVER_MEMORY"] = "1g"
    folder = project.landing_dir / "debezium"
    folder.mkdir()
    path = folder / "snapshot-dump.jsonl"
    padding = "p" * 600
    with path.open("w", encoding="utf-8") as handle:
        for number in range(RECORDS):
            handle.write(json.dumps({
                "op": "r", "after": {"id": number, "padding": padding},
                "source": {"connector": "mysql", "db": "shop", "table": "orders", "file": "mysql-bin.000001",
                           "pos": 4 + number, "row": 0, "snapshot": "true"},
                "ts_ms": 1_700_000_000_000}) + "\n")
    assert path.stat().st_size > PROJECT_VARS["cdc_landing_whole_file_bytes"], "the file must take the line route"

    project.run("run", "--select", "base_debezium__landing_records")
    [counts] = project.sql(
        "select count_if(record_no > 0) as records, count_if(record_no = 0) as files, "
        "count(read_error) as errors, min(record_no) as first, max(record_no) as last, "
        # each record is the line of its number: the position written into line n is 3 + n
        "count_if(record_no > 0 and get_json_object(raw, '$.source.pos') != cast(3 + record_no as string)) as misplaced "
        "from cdc_staging.base_debezium__landing_records")
    assert counts == {"records": RECORDS, "files": 1, "errors": 0, "first": 0, "last": RECORDS, "misplaced": 0}


def _whole_file_bytes(value):
    errors = []

    def raise_compiler_error(message):
        errors.append(message)
        raise RuntimeError(message)

    env = macro_environment({"var": {"cdc_landing_whole_file_bytes": value}.get,
                             "exceptions": type("E", (), {"raise_compiler_error": staticmethod(raise_compiler_error)})})
    source = macro_source("macros/cdc/landing_records.sql", "cdc_landing_whole_file_bytes")
    try:
        env.from_string(source + "{{ cdc_landing_whole_file_bytes() }}").render()
    except RuntimeError:
        return errors[0]
    except Exception as returned:  # noqa: BLE001 - the stand-in of dbt's return
        return returned.value
    return None


def test_the_whole_file_limit_is_a_whole_number_of_bytes():
    assert _whole_file_bytes(PROJECT_VARS["cdc_landing_whole_file_bytes"]) == 134_217_728
    assert _whole_file_bytes(4096) == 4096
    for wrong in ("4096", 4096.5, 100, True, None, -1):
        message = _whole_file_bytes(wrong)
        assert isinstance(message, str) and "cdc_landing_whole_file_bytes must be a whole number" in message, wrong
