{{ config(materialized='cdc_append', cdc_follows_table_config=true, cdc_empty_table_columns=cdc_change_event_columns()) }}

-- Spanner change-stream mods in the contract shape (DESIGN §5); `_quarantine_reason` says why one
-- cannot be used. Order per key: commit timestamp, record sequence, mod index. NEW_VALUES /
-- OLD_AND_NEW_VALUES updates carry only the changed columns: the merge fills the rest.
with
{{ cdc_parsed_changes(
    parsed=ref('base_spanner__parsed'),
    position_sequence=spanner_position_sequence('position')
) }}

{{ cdc_contract_events(changes='renamed', vendor='spanner') }}
