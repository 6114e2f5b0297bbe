{{ config(materialized='incremental', incremental_strategy='append') }}

-- One row per landing file read: what it held and what became of it. Files are read once;
-- this is the record of which ones have been. Everything made from a new file was written
-- after the file was read, so the time filters below let Parquet skip older data.
with landing_records as (
    {{ cdc_union_vendors('base_<vendor>__landing_records') }}
),

new_files as (
    select
        source_vendor,
        _source_file,
        file_size_bytes,
        file_modified_at,
        count_if(record_no > 0) as records,
        count_if(read_error is not null) as unreadable_records,
        max(_loaded_at) as _loaded_at,
        max(_run_id) as _run_id
    from landing_records
    where {{ cdc_newer_than_this('_loaded_at') }}
    group by source_vendor, _source_file, file_size_bytes, file_modified_at
),

-- what became of each record of the new files: one row per change event, control or quarantine row
outcomes as (
    select
        _source_file,
        _record_no,
        'change' as outcome
    from {{ ref('int_cdc__change_events') }}
    where loaded_at >= (select min(_loaded_at) from new_files)
        and _source_file in (select _source_file from new_files)
    union all
    select
        _source_file,
        _record_no,
        'control' as outcome
    from {{ ref('int_cdc__control_events') }}
    where loaded_at >= (select min(_loaded_at) from new_files)
        and _source_file in (select _source_file from new_files)
    union all
    select
        _source_file,
        _record_no,
        'quarantine' as outcome
    from {{ ref('int_cdc__quarantine') }}
    where quarantined_at >= (select min(_loaded_at) from new_files)
        and _source_file in (select _source_file from new_files)
),

outcome_counts as (
    select
        _source_file,
        count(distinct case when outcome = 'change' then _record_no end) as change_records,
        count_if(outcome = 'change') as change_events,
        count(distinct case when outcome = 'control' then _record_no end) as control_records,
        count(distinct case when outcome = 'quarantine' then _record_no end) as quarantined_records
    from outcomes
    group by _source_file
)

select
    new_files.source_vendor,
    new_files._source_file,
    new_files.file_size_bytes,
    new_files.file_modified_at,
    new_files.records,
    coalesce(outcome_counts.change_records, 0) as change_records,
    coalesce(outcome_counts.change_events, 0) as change_events,
    coalesce(outcome_counts.control_records, 0) as control_records,
    coalesce(outcome_counts.quarantined_records, 0) as quarantined_records,
    new_files._loaded_at,
    new_files._run_id
from new_files
left join outcome_counts on new_files._source_file = outcome_counts._source_file
