{#- materialized='view' for this project: dbt-spark's view (create or replace view), except that a
    view whose SQL is the same as when it was created is left as it is. dbt re-creates every view
    on every run, and Spark analyses the view's whole query each time (0.3-1 s a view, 20 views):
    most of a run with nothing new. The MD5 of the compiled SQL (trimmed) is kept in the view's table
    property `cdc_sql_md5`; a changed SQL, `--full-refresh` or a missing view re-creates it. -#}
{% materialization view, adapter='spark' %}
    {%- set sql_md5 = local_md5(sql | trim) -%}
    {%- set existing = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
    {%- if existing is not none and existing.is_view and not should_full_refresh()
        and _cdc_view_sql_md5(existing) == sql_md5 -%}
        {{ log("view " ~ this.identifier ~ ": SQL unchanged, left as it is", info=false) }}
        {{ run_hooks(pre_hooks) }}
        {%- call statement('main') -%}
            select 0 as recreated
        {%- endcall -%}
        {{ run_hooks(post_hooks) }}
        {{ return({'relations': [this.incorporate(type='view')]}) }}
    {%- endif -%}
    {%- set result = create_or_replace_view() -%}
    {%- call statement('cdc_view_sql_md5') -%}
        alter view {{ this }} set tblproperties ('cdc_sql_md5' = '{{ sql_md5 }}')
    {%- endcall -%}
    {{ return(result) }}
{% endmaterialization %}

{#- The `cdc_sql_md5` table property of a view (none when it has none). dbt's listing of the
    schema at the start of the run (`show table extended`) already holds a view's table
    properties: read there, the check costs no statement (30 of them, about 2 s, in a run with
    nothing new). A relation without that text (created in this run, or listed another way) is
    asked. -#}
{% macro _cdc_view_sql_md5(relation) %}
    {{ return(_cdc_table_property(relation, 'cdc_sql_md5', listed_is_current=true)) }}
{% endmacro %}
