{{ config(
    materialized='incremental',
    incremental_strategy='append',
    post_hook="{{ cdc_log_landing_progress('datahub') }}"
) }}

-- depends_on: {{ source('landing', 'datahub') }} (the folder is read through a UDTF)
{{ cdc_landing_records(vendor='datahub') }}
