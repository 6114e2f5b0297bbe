{{ config(materialized='view') }}

-- How each feed is doing, per vendor and source table: the newest change, how far the vendor
-- says the feed is complete (heartbeats), what the latest load brought, and how long ago a file
-- last landed; a vendor of cdc_vendors without any file has a row too (vendor_files_total 0,
-- which the cdc_feed_has_files test warns about). A view, so the lags are as of the moment it is read. Quarantined records have no
-- trustworthy table, so their counts are per vendor (repeated on each of its tables).
with vendors as (
    -- every vendor the project reads (var cdc_vendors), also one without any file yet
    select explode(array({% for vendor in cdc_vendors() %}'{{ vendor }}'{{ ', ' if not loop.last }}{% endfor %})) as source_vendor
),

files as (
    select
        source_vendor,
        count(*) as files_total,
        sum(records) as records_total,
        max(file_modified_at) as last_file_landed_at,
        max(_loaded_at) as last_loaded_at,
        max_by(_run_id, _loaded_at) as latest_load_run_id
    from {{ ref('int_cdc__ingestion_ledger') }}
    group by source_vendor
),

events as (
    select
        change_events.source_vendor,
        change_events.source_table,
        count(*) as events_total,
        count_if(change_events._run_id = files.latest_load_run_id) as events_in_latest_load,
        max(change_events.source_committed_at) as last_event_committed_at,
        max(change_events.loaded_at) as last_event_loaded_at
    from {{ ref('int_cdc__change_events') }} as change_events
    left join files
        on change_events.source_vendor = files.source_vendor
    group by change_events.source_vendor, change_events.source_table
),

quarantine as (
    select
        quarantined.source_vendor,
        count(*) as quarantined_total,
        count_if(quarantined._run_id = files.latest_load_run_id) as quarantined_in_latest_load
    from {{ ref('int_cdc__quarantine') }} as quarantined
    left join files
        on quarantined.source_vendor = files.source_vendor
    group by quarantined.source_vendor
)

select
    -- ids
    vendors.source_vendor,
    events.source_table,
    -- numerics
    coalesce(events.events_total, 0) as events_total,
    coalesce(events.events_in_latest_load, 0) as events_in_latest_load,
    coalesce(quarantine.quarantined_total, 0) as vendor_quarantined_total,
    coalesce(quarantine.quarantined_in_latest_load, 0) as vendor_quarantined_in_latest_load,
    coalesce(files.files_total, 0) as vendor_files_total,
    coalesce(files.records_total, 0) as vendor_records_total,
    -- timestamps
    events.last_event_committed_at,
    events.last_event_loaded_at,
    watermarks.complete_up_to,
    files.last_file_landed_at,
    files.last_loaded_at,
    -- lags, in seconds: how old the newest change is, and how long no file has landed
    unix_timestamp(current_timestamp()) - unix_timestamp(events.last_event_committed_at) as event_lag_seconds,
    unix_timestamp(current_timestamp()) - unix_timestamp(files.last_file_landed_at) as landing_idle_seconds
from vendors
left join files
    on vendors.source_vendor = files.source_vendor
left join events
    on vendors.source_vendor = events.source_vendor
left join quarantine
    on vendors.source_vendor = quarantine.source_vendor
left join {{ ref('int_cdc__feed_watermarks') }} as watermarks
    on vendors.source_vendor = watermarks.source_vendor
