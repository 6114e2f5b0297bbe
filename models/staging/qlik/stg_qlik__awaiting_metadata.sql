{{ config(materialized='view') }}

-- Qlik data messages that name a table version (messageSchemaId) whose metadata message has not
-- arrived yet. They are not lost: stg_qlik__change_events takes them in the run that brings the
-- metadata. Rows that stay here mean the metadata message was never delivered.
select
    parsed.source_vendor,
    parsed._source_file,
    parsed.record_no as _record_no,
    parsed.record_index as _record_index,
    parsed.schema_ref as schema_id,
    parsed.vendor_op,
    parsed.kafka_topic,
    parsed._parsed_at
from {{ ref('base_qlik__parsed') }} as parsed
left anti join {{ ref('stg_qlik__table_versions') }} as table_versions
    on parsed.schema_ref = table_versions.schema_id
where parsed.kind = 'change'
    and parsed.schema_ref is not null
