{{ config(materialized='view') }}

-- One row per key that exists now: the current state of every replicated table (DESIGN §6).
-- Deleted keys stay in int_cdc__current_state as tombstones and are left out here.
select
    source_vendor,
    source_table,
    pk,
    row,
    sequence,
    source_committed_at,
    op as last_op,
    event_id as last_event_id
from {{ ref('int_cdc__current_state') }}
where not is_deleted
