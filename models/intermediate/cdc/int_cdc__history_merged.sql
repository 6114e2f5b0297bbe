{{ config(
    materialized='cdc_merge',
    unique_key=['source_vendor', 'source_table', 'pk', 'event_id'],
    sequence_column='valid_from_sequence'
) }}

{{ cdc_history_rows(events=ref('int_cdc__change_events')) }}
