{{ config(materialized='view') }}
{{ cdc_typed_history(source_vendor='qlik', source_table='hr.employees') }}
