{{ config(materialized='incremental', incremental_strategy='append') }}

{{ cdc_parsed_records(vendor='qlik', landing_records=ref('base_qlik__landing_records')) }}
