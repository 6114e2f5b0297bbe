{#- materialized='cdc_append': an append-only table that takes, on each run, the rows its model
    SQL selects (the rows upstream that are newer than what it holds: cdc_newer_than_this).

    It is dbt's incremental append with one difference that matters for speed: when the model
    SQL carries cdc_nothing_new_marker() (cdc_skip_unless_newer found nothing newer upstream,
    or cdc_landing_records found no new file), nothing is sent to Spark at all, so a vendor
    without new files costs one small query per model instead of the planning of its whole
    flattening SQL. First run and --full-refresh: create table ... as select, or, when the SQL
    carries the marker there (a model configured cdc_empty_table_columns whose upstream is empty,
    cdc_creates_empty_table_when_nothing_upstream), an empty table of those columns.

    Two table properties let the next model down skip its probe (cdc_skip_unless_newer, D51):
    `cdc_written_by`, this invocation, set before any row is written (so a run stopped mid-write
    leaves a writer the downstream model has not taken in, and it looks at the rows), and
    `cdc_consumed`, what the SQL says it took in (cdc_consumed_marker), set after the rows are. -#}
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
            {#- a table from before D51 gets a writer once, so the models below it can skip -#}
            {%- set unnamed = _cdc_table_property(existing, 'cdc_written_by', listed_is_current=true) is none -%}
            {{ _cdc_set_table_properties(target, {
                'cdc_written_by': invocation_id if unnamed else none, 'cdc_consumed': _cdc_marked_consumed(sql)}) }}
        {%- else -%}
            {{ _cdc_set_table_properties(target, {'cdc_written_by': invocation_id}) }}
            {#- by the target's column names, so a model whose columns moved still lines up -#}
            {%- set columns = adapter.get_columns_in_relation(existing) | map(attribute='name') | list -%}
            {%- call statement('main') -%}
                insert into {{ target }}
                select {{ columns | join(', ') }}
                from (
                    {{ sql }}
                ) as new_rows
            {%- endcall -%}
            {{ _cdc_set_table_properties(target, {'cdc_consumed': _cdc_marked_consumed(sql)}) }}
        {%- endif -%}
    {%- else -%}
        {%- if existing is not none -%}
            {{ adapter.drop_relation(existing) }}
        {%- endif -%}
        {#- the table is created with its properties: the writer, what it took in, and (a model that
            follows the per-table configuration) the configuration it was built with -#}
        {%- set properties = {'cdc_written_by': invocation_id, 'cdc_consumed': _cdc_marked_consumed(sql)} -%}
        {%- do properties.update(_cdc_table_config_property()) -%}
        {%- set properties = _cdc_table_properties_sql(properties) -%}
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
                {{ properties }}
            {%- endcall -%}
        {%- else -%}
            {%- call statement('main') -%}
                create table {{ target }}
                using {{ file_format }}
                {{ properties }}
                as {{ sql }}
            {%- endcall -%}
        {%- endif -%}
    {%- endif -%}

    {{ run_hooks(post_hooks) }}
    {{ adapter.commit() }}
    {{ return({'relations': [target]}) }}
{% endmaterialization %}
