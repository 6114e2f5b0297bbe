"""Every vendor's generated workload through the whole project at once, against its oracle:
duplicates, shuffles, late batches, key changes, partial rows; incrementally after each batch
and again after a full refresh (workload_checks.run_end_to_end). The state tables are Delta
(MERGE INTO) when `make delta` fetched the jars, as `make test` does; one vendor runs again on
parquet (INSERT OVERWRITE of buckets), the format for sessions without the jars.

Replay a failure with the seed it names: ``CDC_WORKLOAD_SEED=<seed> pytest -k workloads_end_to_end``.
"""

from __future__ import annotations

import os
import re
import shutil

import pytest
import workload_checks
from test_datahub_workload import PRIMARY_KEY_SEED, PRIMARY_KEY_SEED_ROWS, _missing_seed_rows
from test_datastream_workload import _update_insert_op
from test_spanner_workload import _control_problems
from workloads import datahub, datastream, debezium, qlik, spanner

from python_udfs.runner import delta_jars

pytestmark = pytest.mark.spark

WORKLOAD_SEED = int(os.environ.get("CDC_WORKLOAD_SEED", "7"))


STATE_TABLES = ("cdc_intermediate.int_cdc__history_merged", "cdc_intermediate.int_cdc__current_state")


def _state_table_formats(project) -> set[str]:
    formats = set()
    for table in STATE_TABLES:
        details = {row["col_name"]: row["data_type"] for row in project.sql(f"describe table extended {table}")}
        formats.add(details["Provider"].lower())
    return formats


def _leave_an_unfinished_publish(project) -> None:
    """What a run killed after its MERGE (or bucket overwrite) and before it dropped the staging
    table leaves behind: a staging table the next run publishes again. Here every stored row is
    in it, as if the run had recomputed every key."""
    by_key = "false as _cdc_delete, " if _state_table_formats(project) == {"delta"} else ""
    for table in STATE_TABLES:
        project.sql(f"create table {table}__cdc_staging using parquet as select *, {by_key}"
                    f"(select max(max_loaded_at) from {table}__cdc_watermark) as _cdc_watermark from {table}")


def test_every_vendor_workload_end_to_end(cdc_project):
    assert PRIMARY_KEY_SEED.exists() and _missing_seed_rows() == [], (
        f"{PRIMARY_KEY_SEED} must hold {PRIMARY_KEY_SEED_ROWS}")
    spanner_workload = spanner.build_workload(WORKLOAD_SEED)
    cases = [
        workload_checks.Case("debezium", debezium.build_workload(WORKLOAD_SEED), WORKLOAD_SEED),
        workload_checks.Case("spanner", spanner_workload, WORKLOAD_SEED,
                             extra_problems=lambda project: _control_problems(project, spanner_workload)),
        workload_checks.Case("datastream", datastream.build_workload(
            WORKLOAD_SEED, update_insert_op=_update_insert_op()), WORKLOAD_SEED),
        workload_checks.Case("qlik", qlik.build_workload(WORKLOAD_SEED), WORKLOAD_SEED),
        workload_checks.Case("datahub", datahub.build_workload(WORKLOAD_SEED), WORKLOAD_SEED),
    ]
    # at most one file per bucket: the Delta state tables are compacted during the runs
    # (DECISIONLOG D61), so the oracles read them after `optimize` too
    log = cdc_project.root / "logs" / "dbt.log"
    log_size = log.stat().st_size if log.exists() else 0
    workload_checks.run_end_to_end(cdc_project, cases, run_args=("--vars", "{cdc_compact_files_per_bucket: 1}"))
    assert _state_table_formats(cdc_project) == {"delta" if delta_jars() else "parquet"}
    if delta_jars():
        run_log = log.read_text(encoding="utf-8", errors="replace")[log_size:]
        for table in STATE_TABLES:
            compacted = rf"cdc_merge: {table.split('.')[1]}: \d+ files, more than 1 per bucket: compacting it \(optimize\)"
            assert re.search(compacted, run_log), table
    _assert_written_once_by_the_full_refresh(cdc_project)

    # a killed run's staging tables are published again by the next run, which converges
    _leave_an_unfinished_publish(cdc_project)
    versions_before = {table: _table_versions(cdc_project, table) for table in STATE_TABLES}
    output = cdc_project.run("run")
    assert output.count("finishing the publish a previous run left unfinished") == len(STATE_TABLES), output[-3000:]
    workload_checks.assert_oracles_hold(cdc_project, cases, "publishing an unfinished publish again")
    assert not cdc_project.sql("show tables in cdc_intermediate like '*__cdc_staging'")
    if delta_jars():
        # that staging table held exactly the stored rows: as no column of any row differed, the
        # MERGE rewrote nothing and Delta committed no data, only the run's table properties
        for table in STATE_TABLES:
            new_commits = {version: operation for version, operation in _table_versions(cdc_project, table).items()
                           if version not in versions_before[table]}
            assert set(new_commits.values()) == {"SET TBLPROPERTIES"}, (table, new_commits)

    _deliver_a_file_again(cdc_project, cases)


def _deliver_a_file_again(project, cases) -> None:
    """A landing file delivered again under a new name holds only known events: the history's
    recomputation of its keys changes no stored row, so nothing is published (not even the table
    properties), yet the watermark moves on, so the next run does not recompute them again (D48)."""
    history = STATE_TABLES[0]
    first_file = min(path for path in (project.landing_dir / "debezium").rglob("*") if path.is_file())
    shutil.copy(first_file, first_file.with_name("redelivered-" + first_file.name))
    versions_before = _table_versions(project, history)
    log = project.root / "logs" / "dbt.log"
    log_size = log.stat().st_size
    project.run("run")
    _assert_only_debezium_was_searched(log.read_text(encoding="utf-8", errors="replace")[log_size:], cases)
    workload_checks.assert_oracles_hold(project, cases, "a file delivered again")
    assert _table_versions(project, history) == versions_before
    assert not project.sql("show tables in cdc_intermediate like '*__cdc_recomputed|*__cdc_staging*'")
    watermarks = project.sql(f"select max(max_loaded_at) as merged_through from {history}__cdc_watermark")
    newest = project.sql("select max(loaded_at) as newest from cdc_intermediate.int_cdc__change_events")
    assert watermarks[0]["merged_through"] == newest[0]["newest"]


def _assert_only_debezium_was_searched(run_log: str, cases) -> None:
    """Only Debezium's folder changed: its ledger was searched for the new file, and its parsed
    and staging models looked for new rows. The other vendors' models knew from the table
    properties that nothing upstream changed (DECISIONLOG D51) and sent none of those queries."""
    def searched(vendor: str) -> list[str]:
        queries = {"the ledger": f"from cdc_staging.base_{vendor}__landing_records as read_before",
                   "the landing records": f"select _loaded_at from cdc_staging.base_{vendor}__landing_records",
                   "the parsed records": f"select _parsed_at from cdc_staging.base_{vendor}__parsed"}
        return [what for what, query in queries.items() if query in run_log]

    assert searched("debezium") == ["the ledger", "the landing records", "the parsed records"], run_log[-3000:]
    for vendor in sorted(case.vendor for case in cases if case.vendor != "debezium"):
        assert searched(vendor) == [], (vendor, searched(vendor))


def _assert_written_once_by_the_full_refresh(project) -> None:
    """The full refresh that run_end_to_end ends with wrote each state table once, straight from
    its SQL (DECISIONLOG D47): no staging table, one Delta commit that also holds the table
    properties, and a watermark the next run reads."""
    assert not project.sql("show tables in cdc_intermediate like '*__cdc_staging*'")
    on_delta = _state_table_formats(project) == {"delta"}
    for table in STATE_TABLES:
        if on_delta:
            assert _table_versions(project, table) == {0: "CREATE TABLE AS SELECT"}, table
        properties = {row["key"]: row["value"] for row in project.sql(f"show tblproperties {table}")}
        assert properties["cdc_merged_by_invocation"].endswith(":*"), (table, properties)
        assert len(properties["cdc_table_config_md5"]) == 32, (table, properties)
        watermarks = project.sql(f"select max_loaded_at from {table}__cdc_watermark")
        newest = project.sql("select max(loaded_at) as newest from cdc_intermediate.int_cdc__change_events")
        assert [row["max_loaded_at"] for row in watermarks] == [newest[0]["newest"]], table


def _table_versions(project, table: str) -> dict[int, str]:
    """A Delta table's commits: version -> operation (empty for a parquet table)."""
    if not delta_jars():
        return {}
    return {row["version"]: row["operation"] for row in project.sql(f"describe history {table}")}


def test_a_workload_on_parquet_state_tables(cdc_project):
    cdc_project.env["CDC_FILE_FORMAT"] = "parquet"
    workload_checks.run_end_to_end(cdc_project, [
        workload_checks.Case("debezium", debezium.build_workload(WORKLOAD_SEED + 1), WORKLOAD_SEED + 1)])
    assert _state_table_formats(cdc_project) == {"parquet"}
    _assert_written_once_by_the_full_refresh(cdc_project)
