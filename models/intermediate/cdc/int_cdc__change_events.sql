{{ config(materialized='view') }}

-- Every vendor's usable change events, one contract (DESIGN §5). A view over the vendors'
-- staging tables, which hold each event once: duplicates are kept here and removed by the
-- merge (int_cdc__history_merged / int_cdc__current_state). `loaded_at` is the time the staging
-- model took the event; the merges read what is newer than their watermark. The per-table
-- configuration applies here: tables cdc_feeds does not keep are left out, and so are the
-- columns a table's except_columns names (vars cdc_tables / cdc_feeds, DECISIONLOG D26).
{%- set columns = [] -%}
{%- for column in cdc_contract_columns() -%}
    {%- if column in ['after', 'before'] -%}
        {%- do columns.append(cdc_without_excepted_columns(column) ~ ' as ' ~ column) -%}
    {%- elif column in ['present_columns', 'changed_columns'] -%}
        {%- do columns.append(cdc_without_excepted_columns(column, is_array=true) ~ ' as ' ~ column) -%}
    {%- else -%}
        {%- do columns.append(column) -%}
    {%- endif -%}
{%- endfor %}
{{ cdc_union_vendors(
    'stg_<vendor>__change_events',
    columns=columns | join(', ') ~ ', _parsed_at as loaded_at',
    where='_quarantine_reason is null and ' ~ cdc_kept_tables_where()
) }}
