{{ config(materialized='incremental', incremental_strategy='append') }}

-- Spanner change-stream mods in the contract shape (DESIGN §5); `_quarantine_reason` says why one cannot be used.
with source as (
    select *
    from {{ ref('base_spanner__parsed') }}
    where kind = 'change'
        and {{ cdc_newer_than_this('_parsed_at') }}
),

renamed as (
    select
        -- ids
        source_vendor,
        source_engine,
        source_table,
        vendor_op,
        key,
        -- images: NEW_VALUES / OLD_AND_NEW_VALUES updates carry only the changed columns
        before,
        after,
        changed_columns,
        -- ordering: commit timestamp, then record sequence (per key, DESIGN §5)
        position,
        {{ spanner_position_sequence('position') }} as position_sequence,
        {{ cdc_decimal_array(['file_mtime_ns', 'record_no', 'record_index']) }} as arrival,
        -- timestamps
        committed_at_us,
        read_at_us,
        -- cdc metadata
        transaction_id,
        transaction_seq,
        transaction_last,
        schema_version,
        content_hash,
        raw,
        _source_file,
        record_no,
        record_index,
        _parsed_at
    from source
),

{{ cdc_contract_events(changes='renamed', vendor='spanner') }}
