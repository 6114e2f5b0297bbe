{{ config(materialized='view') }}

-- One row per landing file read: what it held and what became of it. Files are read once (the
-- landing models keep a marker row, record_no 0, per file read); this view counts each file's
-- records by outcome: change, control or quarantine.
with landing_records as (
    {{ cdc_union_vendors('base_<vendor>__landing_records') }}
),

files as (
    select
        source_vendor,
        _source_file,
        file_size_bytes,
        file_modified_at,
        count_if(record_no > 0) as records,
        max(_loaded_at) as _loaded_at,
        max(_run_id) as _run_id
    from landing_records
    group by source_vendor, _source_file, file_size_bytes, file_modified_at
),

-- what became of each record: one row per change event, control or quarantine row
outcomes as (
    select
        _source_file,
        _record_no,
        'change' as outcome
    from {{ ref('int_cdc__change_events') }}
    union all
    select
        _source_file,
        _record_no,
        'control' as outcome
    from {{ ref('int_cdc__control_events') }}
    union all
    select
        _source_file,
        _record_no,
        'quarantine' as outcome
    from {{ ref('int_cdc__quarantine') }}
),

-- records first, so that each is counted once per outcome without count(distinct)
record_outcomes as (
    select
        _source_file,
        _record_no,
        outcome,
        count(*) as events
    from outcomes
    group by _source_file, _record_no, outcome
),

outcome_counts as (
    select
        _source_file,
        count_if(outcome = 'change') as change_records,
        coalesce(sum(case when outcome = 'change' then events end), 0) as change_events,
        count_if(outcome = 'control') as control_records,
        count_if(outcome = 'quarantine') as quarantined_records
    from record_outcomes
    group by _source_file
)

select
    files.source_vendor,
    files._source_file,
    files.file_size_bytes,
    files.file_modified_at,
    files.records,
    coalesce(outcome_counts.change_records, 0) as change_records,
    coalesce(outcome_counts.change_events, 0) as change_events,
    coalesce(outcome_counts.control_records, 0) as control_records,
    coalesce(outcome_counts.quarantined_records, 0) as quarantined_records,
    files._loaded_at,
    files._run_id
from files
left join outcome_counts on files._source_file = outcome_counts._source_file
