{{ config(materialized='view') }}
{{ cdc_typed_history(source_vendor='debezium', source_table='ORCLPDB1.INVENTORY.CUSTOMERS') }}
