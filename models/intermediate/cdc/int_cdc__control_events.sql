{{ config(materialized='view') }}

-- Records that are not row changes but say something about the feed: Kafka tombstones and
-- keys, heartbeats ("complete up to" times), child partitions, transaction markers, schema changes.
-- A view over the vendors' parsed tables, which hold each record once.
{{ cdc_union_vendors(
    'base_<vendor>__parsed',
    columns='source_vendor, source_engine, source_table, control_type, control_json, kafka_topic, kafka_partition, kafka_offset, timestamp_micros(committed_at_us) as source_committed_at, _source_file, record_no as _record_no, record_index as _record_index, _parsed_at, _parsed_at as loaded_at, _run_id',
    where="kind = 'control'"
) }}
