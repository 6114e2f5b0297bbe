{{ config(
    materialized='cdc_merge',
    unique_key=['source_vendor', 'source_table', 'pk'],
    sequence_column='sequence',
    cdc_follows_table_config=true,
    file_format=cdc_state_file_format()
) }}

{{ cdc_current_state_rows(events=ref('int_cdc__change_events'), history=ref('int_cdc__history_merged')) }}
