{{ config(materialized='incremental', incremental_strategy='append') }}

-- Debezium change events in the contract shape (DESIGN §5); `_quarantine_reason` says why one cannot be used.
with source as (
    select *
    from {{ ref('base_debezium__parsed') }}
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
        -- images
        before,
        after,
        changed_columns,
        -- ordering: the connector position, else arrival (Kafka offset, else file and record)
        position,
        {{ debezium_position_sequence('source_engine', 'position', 'null') }} as position_sequence,
        case
            when kafka_offset is not null
                then {{ cdc_decimal_array(['kafka_partition', 'kafka_offset', 'record_index']) }}
            else {{ cdc_decimal_array(['file_mtime_ns', 'record_no', 'record_index']) }}
        end as arrival,
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

{{ cdc_contract_events(changes='renamed', vendor='debezium') }}
