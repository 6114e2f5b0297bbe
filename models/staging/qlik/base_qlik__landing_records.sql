{{ config(
    materialized='incremental',
    incremental_strategy='append',
    post_hook="{{ cdc_log_landing_progress('qlik') }}"
) }}

-- depends_on: {{ source('landing', 'qlik') }} (the folder is read through a UDTF)
{{ cdc_landing_records(vendor='qlik') }}
