{{ config(materialized='incremental', incremental_strategy='append') }}

{{ cdc_parsed_records(vendor='debezium', landing_records=ref('base_debezium__landing_records')) }}
