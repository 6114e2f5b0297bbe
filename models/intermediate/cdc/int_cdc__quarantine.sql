{{ config(materialized='incremental', incremental_strategy='append') }}

-- Input that could not become a change event, with the reason: nothing is dropped silently.
-- Parser-level reasons (invalid_json, missing_source, ...) and contract-level ones
-- (missing_primary_key, unknown_op, ...) land here alike.
with parser_quarantine as (
    {{ cdc_union_vendors(
        'base_<vendor>__parsed',
        columns='source_vendor, _source_file, record_no as _record_no, record_index as _record_index, reason, detail, raw, _parsed_at',
        where="kind = 'quarantine'"
    ) }}
),

contract_quarantine as (
    {{ cdc_union_vendors(
        'stg_<vendor>__change_events',
        columns='source_vendor, _source_file, _record_no, _record_index, _quarantine_reason as reason, _quarantine_detail as detail, _raw as raw, _parsed_at',
        where='_quarantine_reason is not null'
    ) }}
),

all_quarantine as (
    select * from parser_quarantine
    union all
    select * from contract_quarantine
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
    current_timestamp() as quarantined_at,
    '{{ invocation_id }}' as _run_id
from all_quarantine
where {{ cdc_newer_than_this('_parsed_at') }}
