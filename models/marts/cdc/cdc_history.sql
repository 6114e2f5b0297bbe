{{ config(materialized='view') }}

-- Every version of every key (SCD type 2; DESIGN §6). The versions are merged incrementally in
-- int_cdc__history_merged; this is what analysts query, without the merge's bucket column.
-- Tables whose cdc_tables entry says `scd_type: 1` keep their current state only: left out here.
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
where not {{ cdc_tables_where('scd_type_1') }}
