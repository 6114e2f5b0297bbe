{{ config(
    materialized='incremental',
    incremental_strategy='append',
    post_hook="{{ cdc_log_landing_progress('datastream') }}"
) }}

-- depends_on: {{ source('landing', 'datastream') }} (the folder is read through a UDTF)
{{ cdc_landing_records(vendor='datastream') }}
