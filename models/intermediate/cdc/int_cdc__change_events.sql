{{ config(materialized='incremental', incremental_strategy='append') }}

-- Every vendor's usable change events, one contract (DESIGN §5). Append-only: duplicates are
-- kept here and removed by the merge (cdc_history / int_cdc__current_state).
with all_vendors as (
    {{ cdc_union_vendors('stg_<vendor>__change_events') }}
),

new_events as (
    select *
    from all_vendors
    where _quarantine_reason is null
        and {{ cdc_newer_than_this('_parsed_at') }}
)

select
    -- ids
    event_id,
    source_vendor,
    source_engine,
    source_table,
    op,
    pk,
    -- images and columns
    after,
    before,
    present_columns,
    changed_columns,
    -- ordering
    sequence,
    sequence_basis,
    _arrival,
    -- timestamps
    source_committed_at,
    read_at,
    current_timestamp() as loaded_at,
    -- cdc metadata
    transaction_id,
    transaction_seq,
    transaction_last,
    schema_version,
    _source_file,
    _record_no,
    _record_index,
    _parsed_at,
    '{{ invocation_id }}' as _run_id
from new_events
