{{ config(materialized='incremental', incremental_strategy='append') }}

-- Records that are not row changes but say something about the feed: Kafka tombstones and
-- keys, heartbeats, transaction markers, schema changes.
with debezium_control as (
    select
        source_vendor,
        source_engine,
        source_table,
        control_type,
        control_json,
        kafka_topic,
        kafka_partition,
        kafka_offset,
        timestamp_micros(committed_at_us) as source_committed_at,
        _source_file,
        record_no as _record_no,
        record_index as _record_index,
        _parsed_at
    from {{ ref('base_debezium__parsed') }}
    where kind = 'control'
)

select
    *,
    current_timestamp() as loaded_at,
    '{{ invocation_id }}' as _run_id
from debezium_control
where {{ cdc_newer_than_this('_parsed_at') }}
