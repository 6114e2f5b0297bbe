{#- dbt unit tests on Spark: dbt's own `unit` materialization, except where the column types of
    the expected rows come from. dbt learns them by creating an empty temporary table (a view,
    on Spark) from the tested model's SQL, and Spark analyses that whole SQL to create it, then
    analyses it again for the test's query: for a vendor flattening that is 0.7-5.6 s per unit test,
    a third of `dbt build`'s unit-test time on the bundled samples (DECISIONLOG D46). A model
    configured cdc_empty_table_columns declares its columns and types already (the end-to-end
    tests check they are the ones its SQL writes), so its unit tests take them from there. Every
    other model, or expected rows naming a column the list does not hold, goes dbt's way. -#}
{% materialization unit, adapter='spark' %}
    {%- set declared = _cdc_unit_test_declared_columns() -%}
    {%- if declared is none -%}
        {{ return(materialization_unit_default()) }}
    {%- endif -%}
    {%- set sql_header = config.get('sql_header') if flags.REQUIRE_SQL_HEADER_IN_TEST_CONFIGS else none -%}
    {%- set column_name_to_data_types = {} -%}
    {%- set column_name_to_quoted = {} -%}
    {%- for name, data_type in declared -%}
        {%- do column_name_to_data_types.update({name | lower: data_type}) -%}
        {%- do column_name_to_quoted.update({name | lower: adapter.quote(name)}) -%}
    {%- endfor -%}
    {%- set expected_column_names_quoted = [] -%}
    {%- for column_name in config.get('expected_rows')[0].keys() -%}
        {%- do expected_column_names_quoted.append(column_name_to_quoted[column_name | lower]) -%}
    {%- endfor -%}
    {%- set expected_sql = get_expected_sql(config.get('expected_rows'), column_name_to_data_types, column_name_to_quoted) -%}
    {%- call statement('main', fetch_result=True) -%}
        {% if sql_header %}{{ sql_header }}{% endif %}
        {{ get_unit_test_sql(sql, expected_sql, expected_column_names_quoted) }}
    {%- endcall -%}
    {{ return({'relations': []}) }}
{% endmaterialization %}

{#- The (name, type) pairs the unit test's model declares as cdc_empty_table_columns, when its
    expected rows are given as rows (not SQL) and name only declared columns; none otherwise. -#}
{% macro _cdc_unit_test_declared_columns() %}
    {%- set expected_rows = config.get('expected_rows') or [] -%}
    {%- set tested = (graph.get('nodes') or {}).get(model.tested_node_unique_id) -%}
    {%- set declared = (tested.config.get('cdc_empty_table_columns') if tested else none) or [] -%}
    {%- if config.get('expected_sql') or expected_rows | length == 0 or declared | length == 0 -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set declared_names = declared | map('first') | map('lower') | list -%}
    {%- for column_name in expected_rows[0].keys() if column_name | lower not in declared_names -%}
        {{ return(none) }}
    {%- endfor -%}
    {{ return(declared) }}
{% endmacro %}
