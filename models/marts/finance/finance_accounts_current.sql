{{ config(materialized='view') }}
{{ cdc_typed_current(source_vendor='datahub', source_table='fin_db.accounts') }}
