{{ config(materialized='cdc_append', cdc_empty_table_columns=cdc_parsed_record_columns()) }}

{{ cdc_parsed_records(vendor='qlik', landing_records=ref('base_qlik__landing_records')) }}
