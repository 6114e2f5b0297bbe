{{ config(materialized='cdc_append') }}

{{ cdc_parsed_records(vendor='qlik', landing_records=ref('base_qlik__landing_records')) }}
