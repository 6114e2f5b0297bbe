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
    (a list) has `column` newer than the newest `column` this model holds, else nothing. Put it
    first in the model; the rest of the SQL is then compiled but never run. On a first build the
    same when the upstream relations are empty and the model declares cdc_empty_table_columns (its
    table is created from them).

    Two ways to know (DECISIONLOG D51). Every cdc_append table names the run that last wrote to it
    (table property `cdc_written_by`, set before the rows are written) and what it has taken in
    (`cdc_consumed`: each upstream's `cdc_written_by` as it was when this model last ran). When
    every upstream still names the run this model took in, nothing can be newer: no query. Else one
    small query over the rows (upstream newer than the newest here), and the model's SQL carries
    cdc_consumed_marker() so that the materialization records what it took in. -#}
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
        {#- each upstream's writer, asked: it may have written earlier in this run -#}
        {%- set writers = [] -%}
        {%- for relation in upstream -%}
            {%- set written_by = _cdc_table_property(relation, 'cdc_written_by') -%}
            {%- if written_by -%}
                {%- do writers.append(relation.identifier ~ '@' ~ written_by) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- set consumed = writers | join(';') if writers | length == upstream | length else none -%}
        {%- if incremental and consumed is not none
            and _cdc_table_property(_cdc_this_listed(), 'cdc_consumed', listed_is_current=true) == consumed -%}
            {{ return(cdc_nothing_new_marker()) }}
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
        {%- if consumed is not none %}
{{ cdc_consumed_marker(consumed) }}
        {%- endif -%}
    {%- endif -%}
{% endmacro %}

{#- The comment that tells the cdc_append materialization what the model takes in on this run
    (table property `cdc_consumed`, recorded once the rows are written): the upstream tables' writers
    (cdc_skip_unless_newer), or the landing folder's listing (cdc_landing_records). -#}
{% macro cdc_consumed_marker(consumed) %}
    {%- if consumed is none or consumed is not string or consumed | length == 0 or modules.re.search('[\\s,\']', consumed) -%}
        {{ exceptions.raise_compiler_error("cdc_consumed_marker needs a text without spaces, commas or quotes, e.g. cdc_consumed_marker('base_debezium__parsed@' ~ invocation_id)") }}
    {%- endif -%}
    {{ return('-- cdc_append consumed: ' ~ consumed) }}
{% endmacro %}

{#- What a model's compiled SQL says it takes in (cdc_consumed_marker), or none. -#}
{% macro _cdc_marked_consumed(sql) %}
    {%- set marked = modules.re.search('(?m)^-- cdc_append consumed: (\\S+)$', sql) -%}
    {{ return(marked.group(1) if marked else none) }}
{% endmacro %}

{#- This model's table as dbt listed it at the start of the run (with its properties), or `this`. -#}
{% macro _cdc_this_listed() %}
    {{ return(adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) or this) }}
{% endmacro %}

{#- Whether `relation` exists in the warehouse (dbt's relation cache answers). -#}
{% macro _cdc_exists(relation) %}
    {{ return(adapter.get_relation(database=relation.database, schema=relation.schema, identifier=relation.identifier) is not none) }}
{% endmacro %}
