{#- materialized='cdc_append': an append-only table that takes, on each run, the rows its model
    SQL selects (the rows upstream that are newer than what it holds: cdc_newer_than_this).

    It is dbt's incremental append with one difference that matters for speed: when the model
    SQL carries cdc_nothing_new_marker() (cdc_skip_unless_newer found nothing newer upstream,
    or cdc_landing_records found no new file), nothing is sent to Spark at all, so a vendor
    without new files costs one small query per model instead of the planning of its whole
    flattening SQL. First run and --full-refresh: create table ... as select, or, when the SQL
    carries the marker there (a model configured cdc_empty_table_columns whose upstream is empty,
    cdc_creates_empty_table_when_nothing_upstream), an empty table of those columns. -#}
{% materialization cdc_append, adapter='spark' %}
    {%- set file_format = config.get('file_format', 'parquet') -%}
    {%- set existing = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
    {%- set target = this.incorporate(type='table') -%}

    {{ run_hooks(pre_hooks) }}

    {#- not incremental also when the per-table configuration this model follows changed -#}
    {%- if existing is not none and cdc_is_incremental() -%}
        {%- if cdc_nothing_new_marker() in sql -%}
            {{ log("cdc_append: " ~ this.identifier ~ ": nothing new upstream", info=false) }}
            {%- call statement('main') -%}
                select 0 as appended_rows
            {%- endcall -%}
        {%- else -%}
            {#- by the target's column names, so a model whose columns moved still lines up -#}
            {%- set columns = adapter.get_columns_in_relation(existing) | map(attribute='name') | list -%}
            {%- call statement('main') -%}
                insert into {{ target }}
                select {{ columns | join(', ') }}
                from (
                    {{ sql }}
                ) as new_rows
            {%- endcall -%}
        {%- endif -%}
    {%- else -%}
        {%- if existing is not none -%}
            {{ adapter.drop_relation(existing) }}
        {%- endif -%}
        {%- if cdc_nothing_new_marker() in sql -%}
            {#- nothing upstream on a first build (cdc_creates_empty_table_when_nothing_upstream):
                the table is created from the declared columns, the model's SQL is never planned -#}
            {%- set columns = config.get('cdc_empty_table_columns') or [] -%}
            {%- if columns | length == 0 -%}
                {{ exceptions.raise_compiler_error("cdc_append: " ~ this.identifier ~ " found nothing upstream on its first build but declares no cdc_empty_table_columns to create its table from: add config(cdc_empty_table_columns=cdc_parsed_record_columns()) or the like, or write cdc_nothing_new_marker() only when cdc_creates_empty_table_when_nothing_upstream() is true") }}
            {%- endif -%}
            {{ log("cdc_append: " ~ this.identifier ~ ": nothing upstream, created empty from cdc_empty_table_columns", info=false) }}
            {%- call statement('main') -%}
                create table {{ target }} (
                    {%- for name, data_type in columns %}
                    `{{ name }}` {{ data_type }}{{ ',' if not loop.last }}
                    {%- endfor %}
                )
                using {{ file_format }}
            {%- endcall -%}
        {%- else -%}
            {%- call statement('main') -%}
                create table {{ target }}
                using {{ file_format }}
                as {{ sql }}
            {%- endcall -%}
        {%- endif -%}
        {{ _cdc_remember_table_config(target) }}
    {%- endif -%}

    {{ run_hooks(post_hooks) }}
    {{ adapter.commit() }}
    {{ return({'relations': [target]}) }}
{% endmaterialization %}
