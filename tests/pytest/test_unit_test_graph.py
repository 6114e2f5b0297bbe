"""dbt unit tests typed from the model's declared columns (DECISIONLOG D46).

cdc-dbt hands the manifest dbt builds for a unit test the project's `graph`
(python_udfs/unit_test_graph.py), and the project's `unit` materialization reads the tested model's
`cdc_empty_table_columns` there (macros/materializations/unit.sql), so Spark does not analyse the
model's SQL once more for an empty temporary view. Here: the hand-over on dbt's real loader, and
when the materialization may use the declared list. The bundled samples' build runs every unit
test of the project through it (test_bundled_samples.py checks that none made a temporary view).
"""

from __future__ import annotations

import re

import jinja2
import pytest
from conftest import PROJECT_DIR

from python_udfs import unit_test_graph

MACRO = re.search(r"{% macro _cdc_unit_test_declared_columns\(\) %}.*?{% endmacro %}",
                  (PROJECT_DIR / "macros" / "materializations" / "unit.sql").read_text(encoding="utf-8"),
                  re.DOTALL).group(0)
TESTED = "model.cdc_spark.base_qlik__parsed"
DECLARED = [["source_vendor", "string"], ["record_no", "int"], ["Key", "map<string,string>"]]


class _Returned(Exception):
    def __init__(self, value):
        self.value = value


def _return(value):
    raise _Returned(value)


def declared_columns(expected_rows, graph, expected_sql=None):
    """What _cdc_unit_test_declared_columns returns for a unit test of TESTED (dbt's `return`
    raises, as here)."""
    environment = jinja2.Environment(extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols"])
    template = environment.from_string(MACRO + "{{ _cdc_unit_test_declared_columns() }}")
    config = {"expected_rows": expected_rows, "expected_sql": expected_sql}
    with pytest.raises(_Returned) as returned:
        template.render(config=config, graph=graph, model={"tested_node_unique_id": TESTED}, **{"return": _return})
    return returned.value.value


def graph_declaring(columns):
    return {"nodes": {TESTED: {"config": {"materialized": "cdc_append", "cdc_empty_table_columns": columns}}}}


def test_expected_rows_naming_declared_columns_take_the_declared_types():
    rows = [{"record_no": 1, "source_vendor": "qlik"}, {"record_no": 2, "source_vendor": "qlik"}]
    assert declared_columns(rows, graph_declaring(DECLARED)) == DECLARED
    # names compare as dbt compares them, without case
    assert declared_columns([{"KEY": "map()"}], graph_declaring(DECLARED)) == DECLARED


@pytest.mark.parametrize("expected_rows, graph, expected_sql", [
    ([{"record_no": 1, "not_declared": "x"}], graph_declaring(DECLARED), None),  # dbt names the column
    ([{"record_no": 1}], {}, None),  # plain dbt: unit tests see an empty graph
    ([{"record_no": 1}], graph_declaring([]), None),  # the model declares nothing
    ([{"record_no": 1}], {"nodes": {}}, None),  # the model is not in the graph
    ([], graph_declaring(DECLARED), None),  # no expected row: dbt asks the model's columns
    ([], graph_declaring(DECLARED), "select 1 as record_no"),  # expected as SQL
])
def test_anything_else_goes_dbts_way(expected_rows, graph, expected_sql):
    assert declared_columns(expected_rows, graph, expected_sql) is None


def test_unit_test_manifests_get_the_projects_graph():
    from dbt.contracts.graph.manifest import Manifest
    from dbt.parser.unit_tests import UnitTestManifestLoader

    assert unit_test_graph.install() and unit_test_graph.install(), "installs once, then says it is there"
    assert UnitTestManifestLoader.load.cdc_routed
    assert not getattr(UnitTestManifestLoader.load.__wrapped__, "cdc_routed", False), "wrapped twice"
    project = Manifest()
    project.flat_graph = graph_declaring(DECLARED)
    loaded = UnitTestManifestLoader(project, None, set()).load()
    assert loaded is not project and loaded.flat_graph is project.flat_graph
    # without the hand-over dbt's own load leaves the unit-test manifest's graph empty
    assert UnitTestManifestLoader.load.__wrapped__(UnitTestManifestLoader(project, None, set())).flat_graph == {}
