{{ config(materialized='incremental', incremental_strategy='append') }}

{{ cdc_parsed_records(vendor='datastream', landing_records=ref('base_datastream__landing_records')) }}
