"""The SQL the cdc_merge materialization publishes with: rendered from the macros, parsed by Spark.

Spark's SQL parser proves the statement is well formed without any table format's jars (a typo
in a branch fails here, not on a cluster); the MERGE runs on Delta in the workload tests.
"""

from __future__ import annotations

import jinja2
import pytest
from conftest import PROJECT_DIR

MACROS = (PROJECT_DIR / "macros" / "cdc" / "merge_sql.sql").read_text(encoding="utf-8")
COLUMNS = ["source_vendor", "source_table", "pk", "row", "op", "is_deleted", "sequence", "_bucket"]


def render(macro: str, **arguments) -> str:
    template = jinja2.Environment(extensions=["jinja2.ext.do"]).from_string(MACROS)
    return getattr(template.module, macro)(**arguments)


@pytest.fixture(scope="module")
def spark_parser():
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[1]").appName("merge-sql-parse")
             .config("spark.ui.enabled", "false").getOrCreate())
    yield spark._jsparkSession.sessionState().sqlParser()


def test_merge_into_has_a_delete_branch_and_a_sequence_guard():
    sql = render("cdc_merge_into_sql", target="cdc_intermediate.int_cdc__current_state",
                 staging="cdc_intermediate.int_cdc__current_state__cdc_staging", columns=COLUMNS,
                 unique_key=["source_vendor", "source_table", "pk"], sequence_column="sequence")
    assert "when matched and source._cdc_delete then delete" in sql
    assert "when matched and source.sequence >= target.sequence\n" in sql
    # a row is rewritten only when a column changed: every column but the matched key is compared,
    # null-safe
    compared = [column for column in COLUMNS if column not in ("source_vendor", "source_table", "pk")]
    assert ("and not (" + " and ".join(f"target.{column} <=> source.{column}" for column in compared)
            + ") then update set") in sql
    assert "row = source.row" in sql and "_cdc_delete = source" not in sql
    assert "when not matched and not source._cdc_delete then insert (" + ", ".join(COLUMNS) + ")" in sql
    assert "target.pk <=> source.pk" in sql


def test_merge_into_of_changed_rows_only_keeps_the_guard_and_drops_the_column_check():
    """A staging table of rows known to differ (D50): no column comparison, which would make Delta
    read every column of the files it touches; the sequence guard and the delete branch stay."""
    arguments = {"target": "cdc_intermediate.int_cdc__history_merged",
                 "staging": "cdc_intermediate.int_cdc__history_merged__cdc_staging", "columns": COLUMNS,
                 "unique_key": ["source_vendor", "source_table", "pk"], "sequence_column": "sequence"}
    checked = render("cdc_merge_into_sql", **arguments)
    unchecked = render("cdc_merge_into_sql", changed_rows_only=True, **arguments)
    assert "and not (" in checked and "and not (" not in unchecked
    assert "when matched and source.sequence >= target.sequence then update set" in unchecked
    assert "when matched and source._cdc_delete then delete" in unchecked
    assert "target.row <=> source.row" not in unchecked
    # everything else is the same statement
    assert checked.replace(checked[checked.index("\n        and not ("):checked.index(") then update set") + 1], "") \
        == unchecked


@pytest.mark.spark
def test_merge_into_parses_with_sparks_parser(spark_parser):
    sql = render("cdc_merge_into_sql", target="cdc_marts.cdc_history",
                 staging="cdc_marts.cdc_history__cdc_staging", columns=COLUMNS,
                 unique_key=["source_vendor", "source_table", "pk", "event_id"],
                 sequence_column="valid_from_sequence")
    plan = spark_parser.parsePlan(sql.strip())
    assert "MergeIntoTable" in plan.getClass().getName()
    unchecked = render("cdc_merge_into_sql", target="cdc_marts.cdc_history",
                       staging="cdc_marts.cdc_history__cdc_staging", columns=COLUMNS,
                       unique_key=["source_vendor", "source_table", "pk", "event_id"],
                       sequence_column="valid_from_sequence", changed_rows_only=True)
    assert "MergeIntoTable" in spark_parser.parsePlan(unchecked.strip()).getClass().getName()


@pytest.mark.spark
def test_bad_merge_sql_does_not_parse(spark_parser):
    """The parse check can fail: a broken statement is rejected."""
    from pyspark.errors.exceptions.captured import ParseException

    with pytest.raises(Exception) as raised:
        spark_parser.parsePlan("merge into t using s on t.k = s.k when matched then updat set *")
    assert "ParseException" in type(raised.value).__name__ or isinstance(raised.value, ParseException) \
        or "PARSE_SYNTAX_ERROR" in str(raised.value)


@pytest.mark.spark
def test_partition_overwrite_parses(spark_parser):
    sql = render("cdc_overwrite_buckets_sql", target="cdc_marts.cdc_history",
                 staging="cdc_marts.cdc_history__cdc_staging", columns=COLUMNS)
    plan = spark_parser.parsePlan(sql.strip())
    assert "InsertIntoStatement" in plan.getClass().getName()
