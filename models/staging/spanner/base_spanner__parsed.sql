{{ config(materialized='incremental', incremental_strategy='append') }}

{{ cdc_parsed_records(vendor='spanner', landing_records=ref('base_spanner__landing_records')) }}
