"""The workload oracle check itself (workload_checks.assert_oracles_hold), on canned rows: it must
pass on rows that match and name every kind of mismatch, so the end-to-end tests cannot pass
by accident."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import workload_checks

KEY = ("shop.customers", '{"id":1}')
EXPECTED = SimpleNamespace(
    current={KEY: '{"id":1,"name":"b"}'},
    history={KEY: [("insert", False, '{"id":1,"name":"a"}'), ("update", False, '{"id":1,"name":"b"}')]},
)


def _current(row: str = '{"id":1,"name":"b"}') -> dict:
    return {"source_vendor": "debezium", "source_table": KEY[0], "pk": KEY[1], "row": row}


def _version(op: str, row: str, since: str, until: str | None) -> dict:
    return {"source_vendor": "debezium", "source_table": KEY[0], "pk": KEY[1], "op": op, "is_deleted": False,
            "is_current": until is None, "row": row, "valid_from_sequence": since, "valid_to_sequence": until}


GOOD_HISTORY = [_version("insert", '{"id":1,"name":"a"}', "[1, 5]", "[2, 0]"),
                _version("update", '{"id":1,"name":"b"}', "[2, 0]", None)]


class CannedProject:
    """Answers the three queries assert_oracles_hold sends, from lists of rows."""

    def __init__(self, current=None, history=None, quarantine=None):
        self.tables = {workload_checks.CURRENT: current if current is not None else [_current()],
                       workload_checks.HISTORY: history if history is not None else GOOD_HISTORY,
                       workload_checks.QUARANTINE: quarantine or []}

    def sql(self, statement: str) -> list[dict]:
        table = next(name for name in self.tables if f" from {name} " in statement)
        # Spark's JSON rows leave null columns out
        return [{name: value for name, value in row.items() if value is not None} for row in self.tables[table]]


def _check(project) -> None:
    workload_checks.assert_oracles_hold(project, [workload_checks.Case("debezium", SimpleNamespace(
        expected=EXPECTED), seed=7)], "a test")


def test_matching_rows_pass():
    _check(CannedProject())


@pytest.mark.parametrize(("project", "says"), [
    (CannedProject(current=[_current('{"id":1,"name":"a"}')]), "current: ('shop.customers'"),
    (CannedProject(current=[]), "current: missing"),
    (CannedProject(current=[_current(), _current()]), "appears twice"),
    (CannedProject(history=GOOD_HISTORY[1:]), "history: ('shop.customers'"),
    (CannedProject(history=[GOOD_HISTORY[0] | {"valid_to_sequence": "[3, 0]"}, GOOD_HISTORY[1]]),
     "!= next valid_from"),
    (CannedProject(history=[GOOD_HISTORY[0], GOOD_HISTORY[1] | {"valid_to_sequence": "[4, 0]"}]),
     "last version has valid_to"),
    (CannedProject(quarantine=[{"source_vendor": "debezium", "reason": "invalid_json", "detail": "bad",
                                "raw": "{"}]), "quarantined: invalid_json: bad"),
])
def test_each_kind_of_mismatch_is_reported(project, says):
    with pytest.raises(AssertionError, match="debezium after a test") as failure:
        _check(project)
    assert says in str(failure.value), str(failure.value)
