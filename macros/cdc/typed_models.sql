{#- Typed per-table models (DESIGN §6): a model file is a config plus one call, its YAML declares
    the columns. Each declared column is read from the canonical `row` JSON and cast to its
    `data_type`; `meta: {source_column: NAME}` reads a column the feed names differently. A
    declared column the feed never sends is NULL. Columns named `_cdc_*` carry change metadata
    instead (see cdc_typed_metadata_columns). A column the feed sends but the YAML does not
    declare is reported as a warning when the model runs. -#}
{% macro cdc_typed_current(source_vendor=none, source_table=none) %}
    {{ _cdc_typed_model('current', source_vendor, source_table) }}
{% endmacro %}

{% macro cdc_typed_history(source_vendor=none, source_table=none) %}
    {{ _cdc_typed_model('history', source_vendor, source_table) }}
{% endmacro %}

{#- The change-metadata columns a typed model may declare, per kind, and where they come from. -#}
{% macro cdc_typed_metadata_columns(kind) %}
    {%- set current_columns = {
        '_cdc_pk': 'pk',
        '_cdc_committed_at': 'source_committed_at',
        '_cdc_sequence': 'sequence',
        '_cdc_last_op': 'last_op',
        '_cdc_is_deleted': 'is_deleted',
    } -%}
    {%- set history_columns = {
        '_cdc_pk': 'pk',
        '_cdc_op': 'op',
        '_cdc_version_number': 'version_number',
        '_cdc_valid_from': 'valid_from',
        '_cdc_valid_to': 'valid_to',
        '_cdc_valid_from_sequence': 'valid_from_sequence',
        '_cdc_valid_to_sequence': 'valid_to_sequence',
        '_cdc_is_current': 'is_current',
        '_cdc_is_deleted': 'is_deleted',
    } -%}
    {{ return(current_columns if kind == 'current' else history_columns) }}
{% endmacro %}

{% macro _cdc_typed_model(kind, source_vendor, source_table) %}
    {%- set call = 'cdc_typed_' ~ kind -%}
    {%- if source_vendor not in cdc_known_vendors() -%}
        {{ exceptions.raise_compiler_error(call ~ " needs source_vendor= one of " ~ cdc_known_vendors() | join(', ') ~ ", got " ~ source_vendor) }}
    {%- endif -%}
    {%- if not source_table -%}
        {{ exceptions.raise_compiler_error(call ~ " needs source_table='<qualified name as in cdc_current.source_table>', e.g. source_table='shop.customers'") }}
    {%- endif -%}
    {%- set upstream = ref('cdc_current') if kind == 'current' else ref('cdc_history') -%}
    {%- set merged_state = ref('int_cdc__current_state') -%}
    {#- the YAML columns reach the model only after parsing: nothing more to check or write before -#}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set declared = model.columns.values() | list -%}
    {%- if declared | length == 0 -%}
        {{ exceptions.raise_compiler_error(call ~ ": model " ~ model.name ~ " declares no columns. Write them in its YAML: columns: [{name: ..., data_type: ...}]") }}
    {%- endif -%}
    {%- set metadata = cdc_typed_metadata_columns(kind) -%}
    {%- for column in declared -%}
        {%- if not column.data_type -%}
            {{ exceptions.raise_compiler_error(call ~ ": column " ~ column.name ~ " of model " ~ model.name ~ " has no data_type in its YAML (e.g. data_type: bigint)") }}
        {%- endif -%}
        {%- if column.name.startswith('_cdc_') and column.name not in metadata -%}
            {{ exceptions.raise_compiler_error(call ~ ": " ~ column.name ~ " is not a change-metadata column of a " ~ kind ~ " model; write one of " ~ metadata.keys() | list | join(', ')) }}
        {%- endif -%}
    {%- endfor -%}
    {%- set feed_columns = [] -%}
    {%- for column in declared if column.name not in metadata -%}
        {%- do feed_columns.append((column.meta or {}).get('source_column', column.name)) -%}
    {%- endfor -%}
    {%- set row_filter = "source_vendor = '" ~ source_vendor ~ "' and source_table = " ~ _cdc_sql_text(source_table) -%}
    {%- set typed_sql -%}
-- {{ call }}: {{ source_vendor }} {{ source_table }}, typed as the YAML declares
with source_rows as (
    select
        *,
        from_json(row, 'map<string,string>') as row_values
    from {{ upstream }}
    where {{ row_filter }}
)

select
    {%- for column in declared %}
    {%- if column.name in metadata %}
    cast({{ metadata[column.name] }} as {{ column.data_type }}) as {{ column.name }}
    {%- else %}
    cast(row_values['{{ (column.meta or {}).get('source_column', column.name) }}'] as {{ column.data_type }}) as {{ column.name }}
    {%- endif %}
    {%- if not loop.last %},{% endif %}
    {%- endfor %}
from source_rows
    {%- endset -%}
    {%- if _cdc_typed_model_needs_check(merged_state, source_vendor, source_table, typed_sql) -%}
        {%- do _cdc_check_typed_model(merged_state, source_vendor, source_table, kind, feed_columns) -%}
    {%- endif -%}
{{ typed_sql }}
{% endmacro %}

{#- The checks below cost a Spark job over the merged state, so they run only when their answer
    can have changed: the view is new or its SQL changed (a new source_table or YAML), a full
    refresh, or int_cdc__current_state merged new events of the model's table in this dbt
    invocation. A run with nothing new for the table pays two table-property look-ups. -#}
{% macro _cdc_typed_model_needs_check(merged_state, source_vendor, source_table, typed_sql) %}
    {%- if flags.WHICH not in ('run', 'build') -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set view = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
    {%- if view is none or should_full_refresh() or _cdc_view_sql_md5(view) != local_md5(typed_sql | trim) -%}
        {{ return(true) }}
    {%- endif -%}
    {{ return(cdc_merged_in_this_invocation(merged_state, source_vendor, source_table)) }}
{% endmacro %}

{#- A typed model of a table its feed has never sent (a misspelt name, most often) fails with the
    tables the feed did send, instead of building an empty view. Config `cdc_unknown_table: warn`
    (set for the example models of the bundled samples) makes it a warning; so is a feed that has
    sent nothing yet. Columns the feed sends that the YAML does not declare are a warning. One
    query over the merged state answers both: the tables of the vendor, and this table's columns. -#}
{% macro _cdc_check_typed_model(merged_state, source_vendor, source_table, kind, declared_columns) %}
    {%- set sent_tables = run_query(
        "select source_table, to_json(sort_array(array_distinct(flatten(collect_list(case when source_table = "
        ~ _cdc_sql_text(source_table) ~ " then json_object_keys(row) end))))) as column_names"
        ~ " from " ~ merged_state ~ " where source_vendor = '" ~ source_vendor ~ "' group by source_table order by source_table"
    ) -%}
    {%- set sent = sent_tables.columns[0].values() | list -%}
    {%- set scd_type_1 = [] -%}
    {%- for setting in cdc_table_config() if setting['source_vendor'] == source_vendor
        and setting['source_table'] == source_table and setting['scd_type'] == 1 -%}
        {%- do scd_type_1.append(source_table) -%}
    {%- endfor -%}
    {%- if source_table not in sent or (kind == 'history' and scd_type_1) -%}
        {%- if kind == 'history' and scd_type_1 -%}
            {%- set problem = source_table ~ " is configured scd_type: 1 in the var cdc_tables, so it has no history" -%}
        {%- elif sent | length == 0 -%}
            {%- set problem = "the " ~ source_vendor ~ " feed has sent no change event yet, so " ~ source_table ~ " is empty" -%}
        {%- else -%}
            {%- set problem = "the " ~ source_vendor ~ " feed has never sent table " ~ source_table
                ~ "; the tables it sent: " ~ sent[:30] | join(', ') ~ ("..." if sent | length > 30 else "")
                ~ ". Fix source_table= in " ~ model.original_file_path -%}
        {%- endif -%}
        {%- if sent | length == 0 or config.get('cdc_unknown_table', 'error') == 'warn' -%}
            {%- do exceptions.warn(model.name ~ ": " ~ problem) -%}
        {%- else -%}
            {{ exceptions.raise_compiler_error(model.name ~ ": " ~ problem) }}
        {%- endif -%}
    {%- endif -%}
    {%- set undeclared = [] -%}
    {%- for row in sent_tables.rows if row[0] == source_table -%}
        {%- for found in fromjson(row[1]) if found not in declared_columns -%}
            {%- do undeclared.append(found) -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- if undeclared -%}
        {%- do exceptions.warn(
            model.name ~ ": the feed sends columns its YAML does not declare, so they are not in the model: "
            ~ undeclared | join(', ') ~ ". Declare them (name, data_type) to keep them."
        ) -%}
    {%- endif -%}
{% endmacro %}
