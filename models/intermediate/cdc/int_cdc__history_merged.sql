{{ config(
    materialized='cdc_merge',
    unique_key=['source_vendor', 'source_table', 'pk', 'event_id'],
    sequence_column='valid_from_sequence',
    cdc_follows_table_config=true,
    file_format=cdc_state_file_format()
) }}

{{ cdc_history_rows(events=ref('int_cdc__change_events')) }}
