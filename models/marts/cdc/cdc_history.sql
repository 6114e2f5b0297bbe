{{ config(materialized='view') }}

-- Every version of every key (SCD type 2; DESIGN §6). The versions are merged incrementally in
-- int_cdc__history_merged; this is what analysts query, without the merge's bucket column.
select
    source_vendor,
    source_table,
    pk,
    version_number,
    row,
    op,
    is_deleted,
    is_current,
    valid_from,
    valid_to,
    valid_from_sequence,
    valid_to_sequence,
    event_id
from {{ ref('int_cdc__history_merged') }}
