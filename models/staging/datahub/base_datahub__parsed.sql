{{ config(materialized='incremental', incremental_strategy='append') }}

{{ cdc_parsed_records(vendor='datahub', landing_records=ref('base_datahub__landing_records')) }}
