{{ config(materialized='view') }}
{{ cdc_typed_history(source_vendor='datahub', source_table='fin_db.accounts') }}
