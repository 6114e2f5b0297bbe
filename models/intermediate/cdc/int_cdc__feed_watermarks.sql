{{ config(materialized='view') }}

-- How far each feed is known to be complete: the newest heartbeat time per vendor (Spanner
-- heartbeat records, DataHub MHEARTBEAT, Debezium heartbeats). Changes committed before it
-- have all been delivered by the vendor (delivery to the landing folder may still lag).
select
    source_vendor,
    max(source_committed_at) as complete_up_to,
    count(*) as heartbeats
from {{ ref('int_cdc__control_events') }}
where control_type = 'heartbeat'
    and source_committed_at is not null
group by source_vendor
