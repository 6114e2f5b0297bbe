"""A Delta state table is compacted once its merges have left many small files (DECISIONLOG D61).

`cdc_compact_when_fragmented` (macros/materializations/cdc_merge.sql) is rendered with plain Jinja
and stand-ins for dbt's `var` (dbt_project.yml's vars), `run_query` (the table's `describe detail`), `log`, `statement` and
the compiler error. test_workloads_end_to_end.py runs it in Spark, where the oracles read the
tables after `optimize`.
"""

from __future__ import annotations

import types

import pytest
import yaml
from conftest import PROJECT_DIR
from macro_rendering import macro_environment, macro_source

MACRO = macro_source("macros/materializations/cdc_merge.sql", "cdc_compact_when_fragmented")
# what the project ships: 16 buckets, compaction past 10 files per bucket
PROJECT_VARS = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text(encoding="utf-8"))["vars"]


class CompilerError(Exception):
    pass


class Relation:
    identifier = "int_cdc__history_merged"

    def __str__(self) -> str:
        return "cdc_intermediate.int_cdc__history_merged"


def compact(files: int, file_format: str = "delta", **project_vars) -> dict:
    """Renders the macro for a table of `files` files; returns what it sent to Spark and logged."""
    sent = {"queries": [], "statements": [], "logs": []}
    settings = {**PROJECT_VARS, **project_vars}

    def var(name):
        return settings[name]

    def run_query(sql):
        sent["queries"].append(sql)
        return types.SimpleNamespace(columns={"numFiles": types.SimpleNamespace(values=lambda: (files,))})

    def statement(name, caller):
        sent["statements"].append((name, " ".join(caller().split())))
        return ""

    def raise_compiler_error(message):
        raise CompilerError(message)

    env = macro_environment({
        "var": var, "run_query": run_query, "statement": statement,
        "log": lambda message, info=False: sent["logs"].append(message) or "",
        "exceptions": types.SimpleNamespace(raise_compiler_error=raise_compiler_error),
    })
    env.from_string(MACRO + "{{ cdc_compact_when_fragmented(target, file_format) }}").render(
        target=Relation(), file_format=file_format)
    return sent


def test_a_table_with_more_than_ten_files_per_bucket_is_optimized():
    sent = compact(files=161)
    assert sent["queries"] == ["describe detail cdc_intermediate.int_cdc__history_merged"]
    assert sent["statements"] == [("cdc_compact", "optimize cdc_intermediate.int_cdc__history_merged")]
    logged = "cdc_merge: int_cdc__history_merged: 161 files, more than 10 per bucket: compacting it (optimize)"
    assert sent["logs"] == [logged]


def test_a_table_with_at_most_ten_files_per_bucket_is_left_alone():
    sent = compact(files=160)
    assert sent["queries"] and sent["statements"] == [] and sent["logs"] == []


def test_the_var_and_the_buckets_set_the_threshold():
    assert compact(files=9, cdc_compact_files_per_bucket=2, cdc_buckets=4)["statements"]
    assert not compact(files=8, cdc_compact_files_per_bucket=2, cdc_buckets=4)["statements"]


@pytest.mark.parametrize("file_format", ["parquet", "iceberg", "hudi"])
def test_other_formats_are_not_looked_at(file_format):
    assert compact(files=10_000, file_format=file_format) == {"queries": [], "statements": [], "logs": []}


def test_zero_turns_compaction_off():
    assert compact(files=10_000, cdc_compact_files_per_bucket=0) == {"queries": [], "statements": [], "logs": []}


@pytest.mark.parametrize("value", ["10", -1, 2.5, True, None])
def test_a_var_that_is_not_a_whole_number_of_files_is_refused(value):
    with pytest.raises(CompilerError, match="cdc_compact_files_per_bucket must be a whole number"):
        compact(files=1, cdc_compact_files_per_bucket=value)
