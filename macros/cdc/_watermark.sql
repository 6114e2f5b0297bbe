{#- Rows of `relation` newer than what this incremental model has already taken:
    `column` is stamped by the upstream model when it wrote the row. `expression` (default: the
    column itself) is the value compared, for models whose `column` is computed from several. -#}
{% macro cdc_newer_than_this(column, expression=none) %}
    {%- if cdc_is_incremental() -%}
        {{ expression or column }} > {{ _cdc_newest_in_this(column) }}
    {%- else -%}
        true
    {%- endif -%}
{% endmacro %}

{% macro _cdc_newest_in_this(column) %}
    (select coalesce(max({{ column }}), timestamp'1970-01-01') from {{ this }})
{% endmacro %}

{#- The comment a cdc_append model's SQL carries when nothing arrived upstream since its last
    run; the materialization then sends nothing to Spark. -#}
{% macro cdc_nothing_new_marker() %}
    {{ return('-- cdc_append: nothing new upstream') }}
{% endmacro %}

{#- For a cdc_append model: cdc_nothing_new_marker() when no row of the `upstream` relations
    (a list) has `column` newer than the newest `column` this model holds (one small query), else
    nothing. Put it first in the model; the rest of the SQL is then compiled but never run. On a
    first build the same when the upstream relations are empty and the model declares
    cdc_empty_table_columns (its table is created from them). -#}
{% macro cdc_skip_unless_newer(upstream, column) %}
    {%- if upstream is none or upstream is string or upstream | length == 0 or column is none -%}
        {{ exceptions.raise_compiler_error("cdc_skip_unless_newer needs upstream=[ref('<model>'), ...] (a list) and column='<timestamp column they and this model have>'") }}
    {%- endif -%}
    {%- set incremental = cdc_is_incremental() -%}
    {%- set first_build = not incremental and cdc_creates_empty_table_when_nothing_upstream() -%}
    {%- if first_build or incremental -%}
        {%- for relation in upstream if not _cdc_exists(relation) -%}
            {{ return('') }}  {#- not built yet: no probe, the model runs -#}
        {%- endfor -%}
        {%- if model.config.materialized != 'cdc_append' -%}
            {{ exceptions.raise_compiler_error("cdc_skip_unless_newer: model " ~ this.identifier ~ " must be materialized='cdc_append' (it is '" ~ model.config.materialized ~ "'); only that materialization skips the run") }}
        {%- endif -%}
        {%- set probe -%}
            select 1
            from (
                {%- for relation in upstream %}
                select {{ column }} from {{ relation }}
                {%- if not loop.last %} union all{% endif %}
                {%- endfor %}
            ) as upstream
            {%- if not first_build %}
            where {{ column }} > {{ _cdc_newest_in_this(column) }}
            {%- endif %}
            limit 1
        {%- endset -%}
        {%- if run_query(probe) | length == 0 -%}
            {{ cdc_nothing_new_marker() }}
        {%- endif -%}
    {%- endif -%}
{% endmacro %}

{#- Whether `relation` exists in the warehouse (dbt's relation cache answers). -#}
{% macro _cdc_exists(relation) %}
    {{ return(adapter.get_relation(database=relation.database, schema=relation.schema, identifier=relation.identifier) is not none) }}
{% endmacro %}
