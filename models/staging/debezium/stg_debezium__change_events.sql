{{ config(materialized='cdc_append', cdc_follows_table_config=true, cdc_empty_table_columns=cdc_change_event_columns()) }}

-- Debezium change events in the contract shape (DESIGN §5); `_quarantine_reason` says why one
-- cannot be used. Order per key: the connector position compared as numbers; without one, the
-- arrival order: Kafka partition and offset, else file and record (DECISIONLOG D10).
with
{{ cdc_parsed_changes(
    parsed=ref('base_debezium__parsed'),
    position_sequence=debezium_position_sequence('source_engine', 'position'),
    arrival="case when kafka_offset is not null then "
        ~ cdc_integer_array(['kafka_partition', 'kafka_offset', 'record_index'])
        ~ " else " ~ cdc_integer_array(['file_mtime_ns', 'record_no', 'record_index']) ~ " end"
) }}

{{ cdc_contract_events(changes='renamed', vendor='debezium') }}
