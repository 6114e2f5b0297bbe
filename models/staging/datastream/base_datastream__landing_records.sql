{{ config(materialized='incremental', incremental_strategy='append') }}

{{ cdc_landing_records(vendor='datastream') }}
