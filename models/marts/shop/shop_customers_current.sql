{{ config(materialized='view') }}
{{ cdc_typed_current(source_vendor='datastream', source_table='shop.customers') }}
