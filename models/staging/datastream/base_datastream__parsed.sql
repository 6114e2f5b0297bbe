{{ config(materialized='cdc_append') }}

{{ cdc_parsed_records(vendor='datastream', landing_records=ref('base_datastream__landing_records')) }}
