{{ config(materialized='view') }}
{{ cdc_typed_current(source_vendor='spanner', source_table='Singers') }}
