"""Every vendor's generated workload through the whole project at once, against its oracle:
duplicates, shuffles, late batches, key changes, partial rows; incrementally after each batch
and again after a full refresh (workload_checks.run_end_to_end).

Replay a failure with the seed it names: ``CDC_WORKLOAD_SEED=<seed> pytest -k workloads_end_to_end``.
"""

from __future__ import annotations

import os

import pytest
import workload_checks
from test_datahub_workload import PRIMARY_KEY_SEED, PRIMARY_KEY_SEED_ROWS, _missing_seed_rows
from test_datastream_workload import _update_insert_op
from test_spanner_workload import _control_problems
from workloads import datahub, datastream, debezium, qlik, spanner

pytestmark = pytest.mark.spark

WORKLOAD_SEED = int(os.environ.get("CDC_WORKLOAD_SEED", "7"))


def test_every_vendor_workload_end_to_end(cdc_project):
    assert PRIMARY_KEY_SEED.exists() and _missing_seed_rows() == [], (
        f"{PRIMARY_KEY_SEED} must hold {PRIMARY_KEY_SEED_ROWS}")
    spanner_workload = spanner.build_workload(WORKLOAD_SEED)
    workload_checks.run_end_to_end(cdc_project, [
        workload_checks.Case("debezium", debezium.build_workload(WORKLOAD_SEED), WORKLOAD_SEED),
        workload_checks.Case("spanner", spanner_workload, WORKLOAD_SEED,
                             extra_problems=lambda project: _control_problems(project, spanner_workload)),
        workload_checks.Case("datastream", datastream.build_workload(
            WORKLOAD_SEED, update_insert_op=_update_insert_op()), WORKLOAD_SEED),
        workload_checks.Case("qlik", qlik.build_workload(WORKLOAD_SEED), WORKLOAD_SEED),
        workload_checks.Case("datahub", datahub.build_workload(WORKLOAD_SEED), WORKLOAD_SEED),
    ])
