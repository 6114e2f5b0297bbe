{{ config(materialized='cdc_append') }}

{{ cdc_parsed_records(vendor='datahub', landing_records=ref('base_datahub__landing_records')) }}
