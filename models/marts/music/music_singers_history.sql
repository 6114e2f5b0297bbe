{{ config(materialized='view') }}
{{ cdc_typed_history(source_vendor='spanner', source_table='Singers') }}
