{{ config(
    materialized='cdc_append',
    cdc_empty_table_columns=cdc_landing_record_columns(),
    post_hook="{{ cdc_log_landing_progress('qlik') }}"
) }}

-- depends_on: {{ source('landing', 'qlik') }} (the folder is read with Spark's binaryFile source)
{{ cdc_landing_records(vendor='qlik') }}
