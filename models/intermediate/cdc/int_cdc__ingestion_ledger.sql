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

change_records as (
    select
        _source_file,
        count(distinct _record_no) as change_records,
        count(*) as change_events
    from {{ ref('int_cdc__change_events') }}
    where loaded_at >= (select min(_loaded_at) from new_files)
        and _source_file in (select _source_file from new_files)
    group by _source_file
),

control_records as (
    select
        _source_file,
        count(distinct _record_no) as control_records
    from {{ ref('int_cdc__control_events') }}
    where loaded_at >= (select min(_loaded_at) from new_files)
        and _source_file in (select _source_file from new_files)
    group by _source_file
),

quarantined_records as (
    select
        _source_file,
        count(distinct _record_no) as quarantined_records
    from {{ ref('int_cdc__quarantine') }}
    where quarantined_at >= (select min(_loaded_at) from new_files)
        and _source_file in (select _source_file from new_files)
    group by _source_file
)

select
    new_files.source_vendor,
    new_files._source_file,
    new_files.file_size_bytes,
    new_files.file_modified_at,
    new_files.records,
    coalesce(change_records.change_records, 0) as change_records,
    coalesce(change_records.change_events, 0) as change_events,
    coalesce(control_records.control_records, 0) as control_records,
    coalesce(quarantined_records.quarantined_records, 0) as quarantined_records,
    new_files._loaded_at,
    new_files._run_id
from new_files
left join change_records on new_files._source_file = change_records._source_file
left join control_records on new_files._source_file = control_records._source_file
left join quarantined_records on new_files._source_file = quarantined_records._source_file
