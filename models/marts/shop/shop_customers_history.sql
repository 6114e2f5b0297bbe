{{ config(materialized='view') }}
{{ cdc_typed_history(source_vendor='datastream', source_table='shop.customers') }}
