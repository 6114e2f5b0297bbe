{{ config(materialized='cdc_append', cdc_follows_table_config=true, cdc_empty_table_columns=cdc_change_event_columns()) }}

-- Datastream events in the contract shape (DESIGN §5); `_quarantine_reason` says why one cannot
-- be used. Order per key: the source position per engine; backfill rows have none and lose to
-- any CDC change (DECISIONLOG D3, D15). Keys come from the event or the seed, never guessed.
with
{{ cdc_parsed_changes(
    parsed=ref('base_datastream__parsed'),
    position_sequence=datastream_position_sequence('source_engine', 'position')
) }}

{{ cdc_contract_events(changes='renamed', vendor='datastream', key_fallback=false) }}
