{{ config(materialized='view') }}

-- Input that could not become a change event, with the reason: nothing is dropped silently.
-- Parser-level reasons (invalid_json, missing_source, ...) and contract-level ones
-- (missing_primary_key, unknown_op, ...) land here alike. A view over the vendors' parsed and
-- staging tables, which hold each record once.
with all_quarantine as (
    {{ cdc_union_vendors(
        'base_<vendor>__parsed',
        columns='source_vendor, _source_file, record_no as _record_no, record_index as _record_index, reason, detail, raw, _parsed_at, _run_id',
        where="kind = 'quarantine'"
    ) }}
    union all
    {{ cdc_union_vendors(
        'stg_<vendor>__change_events',
        columns='source_vendor, _source_file, _record_no, _record_index, _quarantine_reason as reason, _quarantine_detail as detail, _raw as raw, _parsed_at, _run_id',
        where='_quarantine_reason is not null'
    ) }}
)

select
    source_vendor,
    _source_file,
    _record_no,
    _record_index,
    reason,
    detail,
    raw,
    _parsed_at,
    _parsed_at as quarantined_at,
    _run_id
from all_quarantine
