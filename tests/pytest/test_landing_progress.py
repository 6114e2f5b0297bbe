"""The progress line of a landing model (`cdc_log_landing_progress`, macros/cdc/progress.sql).

The post-hook is rendered with plain Jinja and stand-ins for dbt's `log`, `run_query`, `var` and
`exceptions`; the lines it would log are collected. `_cdc_counted` returns, so the post-hook calls
it through a stand-in that renders it on its own (see macro_rendering).
"""

from __future__ import annotations

import types

from macro_rendering import macro_environment, macro_source, render_macro

PROGRESS = "macros/cdc/progress.sql"
NOTHING_NEW = "-- cdc_append: nothing new upstream"
LANDING = "/data/landing"


def counted(count, noun: str) -> str:
    return render_macro(macro_source(PROGRESS, "_cdc_counted"), "_cdc_counted(count, noun)", {}, count=count, noun=noun)


def progress(sql: str, counts: tuple | None = None) -> tuple[list[str], list[str]]:
    """The lines the post-hook logs and the warnings it raises, for a model whose SQL is `sql`;
    `counts` is the row of its count query (files now, records now, files so far, records so far)."""
    logged, warned, queries = [], [], []

    def run_query(query):
        queries.append(query)
        return types.SimpleNamespace(rows=[counts])

    env = macro_environment({
        "log": lambda message, info=False: logged.append(message) or "",
        "run_query": run_query,
        "var": {"cdc_landing_dir": LANDING}.__getitem__,
        "exceptions": types.SimpleNamespace(warn=lambda message: warned.append(message)),
        "cdc_nothing_new_marker": lambda: NOTHING_NEW,
        "_cdc_counted": counted,
        "execute": True, "invocation_id": "run-1", "this": "cdc_staging.base_debezium__landing_records",
    })
    macros = macro_source(PROGRESS, "cdc_log_landing_progress") + macro_source(PROGRESS, "_cdc_warn_no_landing_file")
    env.from_string(macros + "{{ cdc_log_landing_progress('debezium') }}").render(sql=sql)
    assert len(queries) == (0 if counts is None else 1)
    return logged, warned


def test_a_count_takes_the_plural_unless_it_is_one():
    assert counted(1, "new file") == "1 new file"
    assert counted(0, "file") == "0 files"
    assert counted(2, "record") == "2 records"
    assert counted(1030000, "record") == "1030000 records"


def test_a_run_that_read_files_logs_this_run_and_the_totals():
    sql = "-- cdc_landing_records: 13 files listed\nwith new_files as (select 1)"
    logged, warned = progress(sql, counts=(1, 10000, 13, 1030000))
    assert logged == [(
        f"cdc progress: debezium: read 1 new file, 10000 records in this run; 13 files, 1030000 records so far "
        f"({LANDING}/debezium)"
    )]
    assert warned == []
    logged, _ = progress(sql, counts=(2, 1, 2, 1))
    assert logged[0].startswith("cdc progress: debezium: read 2 new files, 1 record in this run; 2 files, 1 record so far")


def test_a_run_that_read_nothing_names_the_folder_without_a_query():
    logged, warned = progress(f"-- cdc_landing_records: 1 files listed\n{NOTHING_NEW}\nselect 1")
    assert logged == [f"cdc progress: debezium: no new file ({LANDING}/debezium holds 1 file, all read before)"]
    assert warned == []
    logged, _ = progress(f"-- cdc_landing_records: 4 files listed\n{NOTHING_NEW}\nselect 1")
    assert logged == [f"cdc progress: debezium: no new file ({LANDING}/debezium holds 4 files, all read before)"]


def test_an_empty_folder_warns():
    logged, warned = progress(f"-- cdc_landing_records: 0 files listed\n{NOTHING_NEW}\nselect 1")
    assert logged == [f"cdc progress: debezium: no new file ({LANDING}/debezium holds 0 files)"]
    assert len(warned) == 1 and f"{LANDING}/debezium holds no landing file" in warned[0]
    logged, warned = progress("-- cdc_landing_records: 0 files listed\nselect 1", counts=(0, 0, 0, 0))
    assert logged[0].startswith("cdc progress: debezium: read 0 new files, 0 records in this run; 0 files")
    assert len(warned) == 1
