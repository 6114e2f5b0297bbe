"""The view materialization's unchanged-SQL check reads the MD5 from dbt's schema listing.

`_cdc_view_sql_md5` (macros/materializations/view.sql) is rendered with plain Jinja and stand-ins
for dbt's `return`, `modules` and `run_query`, so each case shows whether a statement was sent.
"""

from __future__ import annotations

import re
import types

import jinja2
import pytest
from conftest import PROJECT_DIR

SOURCE = (PROJECT_DIR / "macros" / "materializations" / "view.sql").read_text(encoding="utf-8")
MACRO = re.search(r"{% macro _cdc_view_sql_md5.*?{% endmacro %}", SOURCE, re.DOTALL).group(0)
MD5 = "e742db0a4447f48af6e356dfff2c04fa"


class _Returned(Exception):
    def __init__(self, value):
        self.value = value


def _return(value):
    raise _Returned(value)


def view_md5(information: str | None, stored_by_query: str | None = None) -> tuple[str | None, list[str]]:
    """(the macro's answer, the statements it sent) for a relation with this listing text."""
    sent = []

    def run_query(sql):
        sent.append(sql)
        rows = [("cdc_sql_md5", stored_by_query)] if stored_by_query else []
        return types.SimpleNamespace(rows=rows)

    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    env.globals.update({"return": _return, "modules": types.SimpleNamespace(re=re), "run_query": run_query})
    # a macro whose name starts with `_` is private to its template: call it from the template
    template = env.from_string(MACRO + "{{ _cdc_view_sql_md5(relation) }}")
    with pytest.raises(_Returned) as returned:
        template.render(relation=_Relation(information))
    return returned.value.value, sent


class _Relation:
    def __init__(self, information: str | None) -> None:
        self.information = information

    def __str__(self) -> str:
        return "cdc_marts.cdc_current"


def listing(properties: str) -> str:
    return ("Database: spark_catalog\nTable: cdc_current\nType: VIEW\n"
            f"Table Properties: [{properties}]\nStorage Properties: [serialization.format=1]\n")


def test_the_md5_comes_from_the_listing_without_a_statement():
    assert view_md5(listing(f"cdc_sql_md5={MD5}, transient_lastDdlTime=1795625619")) == (MD5, [])
    assert view_md5(listing(f"transient_lastDdlTime=1795625619, cdc_sql_md5={MD5}")) == (MD5, [])


def test_a_listed_view_without_the_property_has_none():
    assert view_md5(listing("transient_lastDdlTime=1795625619")) == (None, [])
    assert view_md5(listing(f"not_cdc_sql_md5={MD5}")) == (None, [])


def test_a_relation_without_listing_text_is_asked():
    for information in (None, "", "Type: VIEW\n"):
        answer, sent = view_md5(information, stored_by_query=MD5)
        assert answer == MD5 and len(sent) == 1 and "('cdc_sql_md5')" in sent[0]
    assert view_md5(None)[0] is None
