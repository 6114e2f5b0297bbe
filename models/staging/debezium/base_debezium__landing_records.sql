{{ config(
    materialized='cdc_append',
    post_hook="{{ cdc_log_landing_progress('debezium') }}"
) }}

-- depends_on: {{ source('landing', 'debezium') }} (the folder is read with Spark's binaryFile source)
{{ cdc_landing_records(vendor='debezium') }}
