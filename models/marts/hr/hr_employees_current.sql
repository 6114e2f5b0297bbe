{{ config(materialized='view') }}
{{ cdc_typed_current(source_vendor='qlik', source_table='hr.employees') }}
