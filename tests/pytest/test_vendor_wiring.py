"""Every vendor is wired in the places that must agree: the dbt var `cdc_vendors`, the landing
folders the macros know (cdc_known_vendors), the list of vendors flattened in SQL, the tests'
landing split, and its staging folder with the three models and op codes."""

from __future__ import annotations

import csv

import yaml
from conftest import PROJECT_DIR
from landing_split import VENDORS
from macro_rendering import macro_source, render_macro

from python_udfs.registration import FLATTENED_IN_SQL


def dbt_vendors() -> list[str]:
    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text(encoding="utf-8"))
    return project["vars"]["cdc_vendors"]


def known_vendors() -> list[str]:
    macro = macro_source("macros/cdc/union_vendors.sql", "cdc_known_vendors")
    return render_macro(macro, "cdc_known_vendors()", {})


def test_dbt_var_and_sql_flattenings_name_the_same_vendors():
    assert sorted(dbt_vendors()) == sorted(known_vendors()) == sorted(FLATTENED_IN_SQL) == sorted(VENDORS)


def test_each_vendor_has_its_staging_models_parser_and_op_codes():
    with (PROJECT_DIR / "seeds" / "cdc_op_codes.csv").open(encoding="utf-8") as handle:
        vendors_with_op_codes = {row["source_vendor"] for row in csv.DictReader(handle)}
    for vendor in dbt_vendors():
        folder = PROJECT_DIR / "models" / "staging" / vendor
        for model in (f"base_{vendor}__landing_records", f"base_{vendor}__parsed",
                      f"stg_{vendor}__change_events"):
            assert (folder / f"{model}.sql").is_file(), f"{model}.sql missing in {folder}"
        parsed_sql = (folder / f"base_{vendor}__parsed.sql").read_text(encoding="utf-8")
        assert "cdc_parse_" not in parsed_sql, f"{vendor} is flattened in SQL, not by a parser UDF"
        assert vendor in vendors_with_op_codes, f"no op codes for {vendor} in seeds/cdc_op_codes.csv"
