"""A typed model checks its table again only when the merged state took that table in this run.

`_cdc_merge_invocation` writes, and `cdc_merged_in_this_invocation` reads, the table property
`cdc_merged_by_invocation` (macros/cdc/_relations.sql): `<invocation>:<vendors>[:<table hashes>]`.
Both are rendered with plain Jinja and stand-ins for dbt's `return`, `local_md5` and
`invocation_id`, and for the property reader `_cdc_table_property`.
"""

from __future__ import annotations

import hashlib

from macro_rendering import macro_source, render_macro

RELATIONS = "macros/cdc/_relations.sql"
# the hash macro, which cdc_merged_in_this_invocation calls, is given as a stand-in (see
# macro_rendering) and checked on its own below
MACROS = macro_source(RELATIONS, "_cdc_merge_invocation") + macro_source(RELATIONS, "cdc_merged_in_this_invocation")
INVOCATION = "0f4b0fd9-caea-4bbd-9147-b81338952225"


def table_hash(vendor: str, table: str) -> str:
    return hashlib.md5(f"{vendor}|{table}".encode()).hexdigest()[:12]


def render(call: str, stored: str | None = None, macros: str = MACROS, **variables):
    stand_ins = {
        "_cdc_source_table_hash": table_hash, "invocation_id": INVOCATION,
        "local_md5": lambda text: hashlib.md5(text.encode()).hexdigest(),
        # the property as _cdc_table_property gives it: none when the table has none
        "_cdc_table_property": lambda relation, name: stored,
    }
    return render_macro(macros, call, stand_ins, **variables)


def merged_value(vendors, tables) -> str:
    return render("_cdc_merge_invocation(merged)", merged={"vendors": vendors, "tables": tables})


def merged_in(stored: str, vendor=None, source_table=None) -> bool:
    return render("cdc_merged_in_this_invocation('cdc_intermediate.int_cdc__current_state', vendor, source_table)",
                  stored=stored, vendor=vendor, source_table=source_table)


def test_the_table_hash_macro_is_the_first_12_hex_digits_of_the_md5():
    for vendor, table in [("debezium", "shop.orders"), ("spanner", "Sängers")]:
        assert render(f"_cdc_source_table_hash('{vendor}', '{table}')",
                      macros=macro_source(RELATIONS, "_cdc_source_table_hash")) == table_hash(vendor, table)


def test_a_merge_names_its_vendors_and_tables():
    value = merged_value(["debezium"], [table_hash("debezium", "shop.orders")])
    assert value == f"{INVOCATION}:debezium:{table_hash('debezium', 'shop.orders')}"
    assert merged_in(value, "debezium", "shop.orders")
    assert not merged_in(value, "debezium", "shop.customers")
    assert not merged_in(value, "qlik", "shop.orders")
    assert merged_in(value, "debezium") and merged_in(value)


def test_a_full_build_and_an_older_value_count_every_table():
    assert render("_cdc_merge_invocation()") == f"{INVOCATION}:*"
    assert merged_in(f"{INVOCATION}:*", "qlik", "any.table")
    # written before tables were named, or too many tables for the metastore's 4,000 characters
    assert merged_in(f"{INVOCATION}:debezium,qlik", "qlik", "any.table")
    assert not merged_in(f"{INVOCATION}:debezium", "qlik", "any.table")


def test_too_many_tables_leave_the_tables_out():
    tables = [table_hash("debezium", f"db.table_{number}") for number in range(400)]
    value = merged_value(["debezium"], tables)
    assert value == f"{INVOCATION}:debezium" and len(value) < 4000
    assert merged_in(value, "debezium", "db.table_7")


def test_another_invocation_or_no_value_merged_nothing():
    assert not merged_in("another-invocation:*", "debezium", "shop.orders")
    assert not merged_in("Table cdc_intermediate.int_cdc__current_state does not have property: x", "debezium")
    assert not merged_in(None, "debezium")

