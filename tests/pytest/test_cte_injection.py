"""The unit tests' CTE injection found with sqlparse's lexer alone (python_udfs/cte_injection.py,
DECISIONLOG D44) gives exactly what dbt's own `inject_ctes_into_sql` gives, and leaves every other
case to it."""

from __future__ import annotations

import re

import dbt.compilation
import pytest
from conftest import PROJECT_DIR
from dbt.contracts.graph.nodes import InjectedCTE

from python_udfs import cte_injection

# dbt's function itself, also when cte_injection.install() already routed the module's name
DBT_INJECT = getattr(dbt.compilation.inject_ctes_into_sql, "__wrapped__", None) or dbt.compilation.inject_ctes_into_sql
CTES = [InjectedCTE(id="unit_test.given_a", sql=" __dbt__cte__landing as (\nselect 1 as a\n)"),
        InjectedCTE(id="unit_test.given_b", sql=" __dbt__cte__seed as (\nselect 'x;y' as b\n)")]

OPENS_WITH_WITH = [
    "with source as (select 1 as a) select * from source",
    "WITH source AS (SELECT 1) SELECT * FROM source",
    "\n\n  with\n\nsource as (select 1)\nselect * from source\n",
    "-- a comment\n-- another, with 'quotes' and with\nwith source as (select 1) select * from source",
    "/* a block\n comment with with inside */ with source as (select 1) select * from source",
    "-- first\n/* then a block */\n\nwith\n-- a comment right after with\nsource as (select 1)\nselect * from source",
    "with\tsource as (select 1) select * from source",
    "--no space\r\nwith source as (select 1) select * from source",
    # dbt looks at the next token only: a comment there makes it no `with recursive` for dbt
    "with /* c */ RECURSIVE walk as (select 1) select * from walk",
    # a `;` in a string or a comment separates no statement; sqlparse reads `# ` as a comment
    "with source as (select ';' as a) select * from source -- a; b",
    "# a hash comment\nwith source as (select 1) select * from source",
]
LEFT_TO_DBT = [
    "select 1 as a",
    "select * from (with x as (select 1) select * from x)",
    "with recursive walk as (select 1) select * from walk",
    "with source as (select 1) select * from source; select 2",
    "with(select 1) select 2",
    "withheld as (select 1)",
]


def _refuse(*_):
    """Stands in for dbt's function where the SQL must not reach it."""
    raise AssertionError("dbt's parser was asked")


@pytest.mark.parametrize("sql", OPENS_WITH_WITH + LEFT_TO_DBT)
def test_the_injection_equals_dbts(sql):
    assert cte_injection.inject_ctes_into_sql(sql, CTES, DBT_INJECT) == DBT_INJECT(sql, CTES)


@pytest.mark.parametrize("sql", OPENS_WITH_WITH)
def test_sql_that_opens_with_with_is_not_parsed(sql):
    injected = cte_injection.inject_ctes_into_sql(sql, CTES, _refuse)
    assert "__dbt__cte__landing as (" in injected and injected.count("__dbt__cte__") == 2


@pytest.mark.parametrize("sql", LEFT_TO_DBT)
def test_anything_else_goes_to_dbt(sql):
    assert cte_injection.inject_ctes_into_sql(sql, CTES, lambda *_: "dbt's answer") == "dbt's answer"


def test_no_ctes_leaves_the_sql_alone():
    assert cte_injection.inject_ctes_into_sql("select 1", [], lambda *_: "dbt's answer") == "select 1"


def _without_jinja(text: str) -> str:
    return re.sub(r"{{.*?}}|{%.*?%}|{#.*?#}", "", text, flags=re.DOTALL)


# the models with SQL of their own (a typed mart is one macro call)
MODELS = sorted(path for path in (PROJECT_DIR / "models").rglob("*.sql")
                if _without_jinja(path.read_text(encoding="utf-8")).strip())


@pytest.mark.parametrize("path", MODELS, ids=lambda path: path.name)
def test_the_projects_models_give_what_dbt_gives(path):
    """The models' own openings (comments, then `with`), their Jinja left out."""
    sql = _without_jinja(path.read_text(encoding="utf-8"))
    assert cte_injection.inject_ctes_into_sql(sql, CTES, DBT_INJECT) == DBT_INJECT(sql, CTES)


def test_the_unit_tested_models_take_the_path_without_parsing():
    parsed_models = [path for path in MODELS if path.name.endswith("__parsed.sql")]
    assert len(parsed_models) == 5
    for path in parsed_models:
        cte_injection.inject_ctes_into_sql(_without_jinja(path.read_text(encoding="utf-8")), CTES, _refuse)


def test_install_routes_dbts_name_once():
    assert cte_injection.install()
    routed = dbt.compilation.inject_ctes_into_sql
    assert routed.cdc_routed and routed.__wrapped__ is DBT_INJECT
    assert cte_injection.install() and dbt.compilation.inject_ctes_into_sql is routed
    sql = "-- c\nwith a as (select 1) select * from a"
    assert routed(sql, CTES) == DBT_INJECT(sql, CTES)
