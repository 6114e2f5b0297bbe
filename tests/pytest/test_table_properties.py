"""Table properties are read from dbt's schema listing where it holds them (DECISIONLOG D34, D51).

`_cdc_table_property` (macros/cdc/_relations.sql) and the view materialization's
`_cdc_view_sql_md5` (macros/materializations/view.sql) are rendered with plain Jinja and
stand-ins for dbt's `return`, `modules` and `run_query`, so each case shows whether a statement
was sent.
"""

from __future__ import annotations

import types

from macro_rendering import macro_source, render_macro

MACROS = (macro_source("macros/cdc/_relations.sql", "_cdc_table_property")
          + macro_source("macros/materializations/view.sql", "_cdc_view_sql_md5"))
MD5 = "e742db0a4447f48af6e356dfff2c04fa"
CONSUMED = "base_debezium__landing_records@0f4b0fd9-caea-4bbd-9147-b81338952225"


def render(call: str, information: str | None, answer: str | None = None) -> tuple[str | None, list[str]]:
    """(the macro's answer, the statements it sent) for a relation with this listing text;
    `answer` is what `show tblproperties` gives as the value."""
    sent = []

    def run_query(sql):
        sent.append(sql)
        return types.SimpleNamespace(rows=[("the_property", answer)] if answer is not None else [])

    return render_macro(MACROS, call, {"run_query": run_query}, relation=_Relation(information)), sent


def view_md5(information, answer=None):
    return render("_cdc_view_sql_md5(relation)", information, answer)


def consumed(information, answer=None, listed_is_current=True):
    return render(f"_cdc_table_property(relation, 'cdc_consumed', listed_is_current={listed_is_current})",
                  information, answer)


class _Relation:
    def __init__(self, information: str | None) -> None:
        self.information = information

    def __str__(self) -> str:
        return "cdc_marts.cdc_current"


def view_listing(properties: str) -> str:
    return ("Database: spark_catalog\nTable: cdc_current\nType: VIEW\n"
            f"Table Properties: [{properties}]\nStorage Properties: [serialization.format=1]\n")


def table_listing(provider: str, properties: str | None) -> str:
    lines = ["Database: cdc_staging", "Table: base_debezium__parsed", "Type: MANAGED", f"Provider: {provider}"]
    if properties is not None:
        lines.append(f"Table Properties: [{properties}]")
    return "\n".join(lines + ["Statistics: 1024 bytes", "Schema: root", " |-- raw: string (nullable = true)"]) + "\n"


def test_the_md5_comes_from_the_listing_without_a_statement():
    assert view_md5(view_listing(f"cdc_sql_md5={MD5}, transient_lastDdlTime=1795625619")) == (MD5, [])
    assert view_md5(view_listing(f"transient_lastDdlTime=1795625619, cdc_sql_md5={MD5}")) == (MD5, [])


def test_a_listed_view_without_the_property_has_none():
    assert view_md5(view_listing("transient_lastDdlTime=1795625619")) == (None, [])
    assert view_md5(view_listing(f"not_cdc_sql_md5={MD5}")) == (None, [])


def test_a_relation_without_listing_text_is_asked():
    for information in (None, "", "Type: VIEW\n"):
        answer, sent = view_md5(information, answer=MD5)
        assert answer == MD5 and len(sent) == 1 and "('cdc_sql_md5')" in sent[0]
    assert view_md5(None)[0] is None


def test_a_parquet_table_lists_its_properties_and_their_absence():
    assert consumed(table_listing("parquet", f"cdc_written_by=x, cdc_consumed={CONSUMED}")) == (CONSUMED, [])
    assert consumed(table_listing("parquet", "cdc_table_config_md5=" + MD5)) == (None, [])
    # a parquet table without properties has no `Table Properties` line at all
    assert consumed(table_listing("parquet", None)) == (None, [])


def test_a_delta_table_is_asked_its_listing_does_not_hold_the_properties():
    answer, sent = consumed(table_listing("delta", None), answer=CONSUMED)
    assert answer == CONSUMED and sent == ["show tblproperties cdc_marts.cdc_current ('cdc_consumed')"]


def test_spark_s_message_for_a_missing_property_is_none():
    message = "Table spark_catalog.cdc_marts.cdc_current does not have property: cdc_consumed"
    answer, sent = consumed(table_listing("delta", None), answer=message)
    assert answer is None and len(sent) == 1


def test_a_table_that_may_have_changed_in_this_run_is_asked_whatever_its_listing():
    answer, sent = consumed(table_listing("parquet", "cdc_consumed=old"), answer=CONSUMED, listed_is_current=False)
    assert answer == CONSUMED and len(sent) == 1
