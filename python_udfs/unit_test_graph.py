"""dbt unit tests see the project's `graph`, as models do (DECISIONLOG D46).

dbt runs each unit test in a manifest of its own, built for it, whose `graph` context variable is
empty: a materialization cannot look up the model under test. The project's `unit`
materialization (macros/materializations/unit.sql) reads that model's `cdc_empty_table_columns`
there, to type the expected rows without having Spark analyse the model's SQL one more time.
This hands the unit-test manifest the project manifest's graph. Under plain `dbt` (no cdc-dbt),
`graph` stays empty and the materialization does what dbt does.
"""

from __future__ import annotations

from python_udfs.dbt_routes import route


def install() -> bool:
    """Give the manifests dbt builds for unit tests the project's graph; False (nothing changed)
    when this dbt has no `UnitTestManifestLoader.load` to wrap."""
    from dbt.parser.unit_tests import UnitTestManifestLoader

    def routed_version(dbt_load):
        def load(self):
            unit_test_manifest = dbt_load(self)
            if not unit_test_manifest.flat_graph:
                unit_test_manifest.flat_graph = self.manifest.flat_graph
            return unit_test_manifest

        return load

    return route(UnitTestManifestLoader, "load", routed_version)
