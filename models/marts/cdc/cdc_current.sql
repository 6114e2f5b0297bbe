{{ config(materialized='view') }}

-- One row per key that exists now: the current state of every replicated table (DESIGN §6).
-- Deleted keys stay in int_cdc__current_state as tombstones and are left out here, except for
-- tables whose cdc_tables entry says `deletes: soft`: their deleted keys stay, is_deleted true.
select
    source_vendor,
    source_table,
    pk,
    row,
    sequence,
    source_committed_at,
    op as last_op,
    event_id as last_event_id,
    is_deleted
from {{ ref('int_cdc__current_state') }}
where not is_deleted or {{ cdc_tables_where('soft_deletes') }}
