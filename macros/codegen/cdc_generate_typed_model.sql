{#- Prints a typed per-table model pair for one source table, ready to paste: the YAML (columns
    with a data_type inferred from the values the feed sent, descriptions to fill, tests on the
    key) and the two one-line model files. Nothing is written. Run it after a `cdc-dbt run` has
    merged the table:

        cdc-dbt run-operation cdc_generate_typed_model --args '{vendor: debezium, source_table: inventory.customers}'

    Optional: `name` (default: the table name in lower case, e.g. inventory_customers) and
    `folder` (default models/marts/<first part of name>). -#}
{% macro cdc_generate_typed_model(vendor=none, source_table=none, name=none, folder=none) %}
    {%- if vendor not in cdc_known_vendors() or not source_table -%}
        {{ exceptions.raise_compiler_error("cdc_generate_typed_model needs --args '{vendor: <" ~ cdc_known_vendors() | join('|') ~ ">, source_table: <as in cdc_current.source_table>}'") }}
    {%- endif -%}
    {%- set state = ref('int_cdc__current_state') -%}
    {%- set table_filter = "source_vendor = " ~ _cdc_sql_text(vendor) ~ " and source_table = " ~ _cdc_sql_text(source_table) -%}
    {%- set columns = run_query(_cdc_inferred_types_sql(state, table_filter)) -%}
    {%- if columns.rows | length == 0 -%}
        {%- set sent = run_query("select distinct source_table from " ~ state ~ " where source_vendor = "
                                 ~ _cdc_sql_text(vendor) ~ " order by 1").columns[0].values() | list -%}
        {{ exceptions.raise_compiler_error("cdc_generate_typed_model: no merged row of " ~ vendor ~ " table " ~ source_table
            ~ ". Run `cdc-dbt run` first; the tables of " ~ vendor ~ " merged so far: " ~ (sent[:50] | join(', ') or 'none')) }}
    {%- endif -%}
    {%- set pk = run_query("select pk from " ~ state ~ " where " ~ table_filter ~ " and pk is not null limit 1").rows[0][0] -%}
    {%- set key_columns = fromjson(pk).keys() | list -%}
    {%- set name = name or modules.re.sub('[^a-z0-9]+', '_', source_table.split('.')[-2:] | join('_') | lower).strip('_') -%}
    {%- set folder = folder or 'models/marts/' ~ name.split('_')[0] -%}
    {%- set typed = [] -%}
    {%- for row in columns.rows -%}
        {%- set column_name = modules.re.sub('[^a-z0-9_]+', '_', row['column_name'] | lower) -%}
        {%- do typed.append({'name': column_name, 'source': row['column_name'], 'type': row['data_type'],
                             'seen': row['values_seen'], 'key': row['column_name'] in key_columns}) -%}
    {%- endfor -%}
    {%- set out = [] -%}
    {%- do out.append("# ---- " ~ folder ~ "/_" ~ name ~ "__models.yml") -%}
    {%- do out.append("version: 2\n\nmodels:") -%}
    {%- for kind in ['current', 'history'] -%}
        {%- do out.append("  - name: " ~ name ~ "_" ~ kind) -%}
        {%- do out.append("    description: >\n      TODO: what one row is. " ~ ("The current state" if kind == 'current' else "Every version (SCD type 2)")
            ~ " of " ~ vendor ~ " table " ~ source_table ~ ", typed (cdc_typed_" ~ kind ~ ").") -%}
        {%- do out.append("    config:\n      contract: {enforced: true}") -%}
        {%- if kind == 'current' and key_columns | length > 1 -%}
            {%- set key_names = [] -%}
            {%- for column in typed if column['key'] -%}{%- do key_names.append(column['name']) -%}{%- endfor -%}
            {%- do out.append("    data_tests:\n      - cdc_unique_combination:\n          arguments:\n            columns: [" ~ key_names | join(', ') ~ "]") -%}
        {%- endif -%}
        {%- do out.append("    columns:") -%}
        {%- for column in typed -%}
            {%- do out.append("      - name: " ~ column['name']) -%}
            {%- do out.append("        description: \"TODO" ~ (" (key column)" if column['key'] else "")
                ~ (" (no value seen yet: check the type)" if column['seen'] == 0 else "") ~ "\"") -%}
            {%- do out.append("        data_type: " ~ column['type']) -%}
            {%- if column['name'] != column['source'] -%}
                {%- do out.append("        meta: {source_column: " ~ tojson(column['source']) ~ "}") -%}
            {%- endif -%}
            {%- if column['key'] -%}
                {%- do out.append("        data_tests: [not_null" ~ (", unique" if kind == 'current' and key_columns | length == 1 else "") ~ "]") -%}
            {%- endif -%}
        {%- endfor -%}
        {%- for metadata in (['_cdc_committed_at', '_cdc_last_op'] if kind == 'current' else ['_cdc_valid_from', '_cdc_valid_to', '_cdc_is_current', '_cdc_is_deleted']) -%}
            {%- set types = {'_cdc_committed_at': 'timestamp', '_cdc_last_op': 'string', '_cdc_valid_from': 'timestamp',
                             '_cdc_valid_to': 'timestamp', '_cdc_is_current': 'boolean', '_cdc_is_deleted': 'boolean'} -%}
            {%- do out.append("      - name: " ~ metadata ~ "\n        description: Change metadata (" ~ cdc_typed_metadata_columns(kind)[metadata] ~ ").\n        data_type: " ~ types[metadata]) -%}
        {%- endfor -%}
        {%- do out.append("") -%}
    {%- endfor -%}
    {%- for kind in ['current', 'history'] -%}
        {%- do out.append("-- ---- " ~ folder ~ "/" ~ name ~ "_" ~ kind ~ ".sql") -%}
        {%- do out.append("{{ config(materialized='view') }}") -%}
        {%- do out.append("{{ cdc_typed_" ~ kind ~ "(source_vendor='" ~ vendor ~ "', source_table='" ~ source_table | replace("'", "\\'") ~ "') }}") -%}
        {%- do out.append("") -%}
    {%- endfor -%}
    {{ print(out | join('\n')) }}
{% endmacro %}

{#- Per column of a table's merged rows: the data_type its non-null values all fit, and how many
    were seen. Whole numbers: bigint (decimal(38,0) past 18 digits); other numbers: decimal with
    the largest scale seen; true/false: boolean; ISO dates and timestamps; else string. -#}
{% macro _cdc_inferred_types_sql(state, table_filter) %}
with cells as (
    -- a value as the typed model reads it: text without its quotes, a number's digits, true /
    -- false, null, or an object / array as JSON text
    select
        column_name,
        value
    from {{ state }}
    lateral view explode(from_json(row, 'map<string, string>')) cell as column_name, value
    where {{ table_filter }}
),

classified as (
    select
        column_name,
        value,
        case
            when value is null or value = 'null' then null
            when value in ('true', 'false') then 'boolean'
            when value rlike '^-?[0-9]{1,18}$' then 'bigint'
            when value rlike '^-?[0-9]{1,38}$' then 'wide_integer'
            when value rlike '^-?[0-9]+[.][0-9]+$' then 'decimal'
            when value rlike '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' then 'date'
            when value rlike '^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}' and try_cast(value as timestamp) is not null then 'timestamp'
            else 'string'
        end as kind,
        length(regexp_extract(value, '[.]([0-9]+)$', 1)) as scale
    from cells
)

select
    column_name,
    case
        when count(kind) = 0 then 'string'
        when count(distinct kind) = 1 and max(kind) = 'boolean' then 'boolean'
        when count(distinct kind) = 1 and max(kind) = 'bigint' then 'bigint'
        when count(distinct kind) = 1 and max(kind) = 'date' then 'date'
        when count(distinct kind) = 1 and max(kind) = 'timestamp' then 'timestamp'
        when count_if(kind not in ('bigint', 'wide_integer', 'decimal')) = 0 and count_if(kind = 'decimal') = 0 then 'decimal(38,0)'
        when count_if(kind not in ('bigint', 'wide_integer', 'decimal')) = 0
            then concat('decimal(38,', least(max(scale), 18), ')')
        else 'string'
    end as data_type,
    count(kind) as values_seen
from classified
group by column_name
order by column_name
{% endmacro %}
