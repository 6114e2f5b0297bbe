{{ config(materialized='view') }}
{{ cdc_typed_current(source_vendor='debezium', source_table='ORCLPDB1.INVENTORY.CUSTOMERS') }}
