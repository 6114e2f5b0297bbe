{{ config(materialized='view') }}

-- Every vendor's usable change events, one contract (DESIGN §5). A view over the vendors'
-- staging tables, which hold each event once: duplicates are kept here and removed by the
-- merge (int_cdc__history_merged / int_cdc__current_state). `loaded_at` is the time the staging
-- model took the event; the merges read what is newer than their watermark.
{{ cdc_union_vendors(
    'stg_<vendor>__change_events',
    columns=cdc_contract_columns() | join(', ') ~ ', _parsed_at as loaded_at',
    where='_quarantine_reason is null'
) }}
