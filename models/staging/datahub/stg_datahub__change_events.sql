{{ config(materialized='cdc_append', cdc_follows_table_config=true, cdc_empty_table_columns=cdc_change_event_columns()) }}
{{ cdc_skip_unless_newer([ref('base_datahub__parsed')], '_parsed_at') }}

-- Alibaba DataHub changes in the contract shape (DESIGN §5); `_quarantine_reason` says why one
-- cannot be used. An update arrives as two records sharing one sequence id, UPDATE_BEFOR (a
-- control record here) and UPDATE_AFTER; either may come alone, twice or in another run. The
-- UPDATE_AFTER is the change; its before image comes from its own record or its pair, and when
-- the two keys differ the old key is deleted. The pair is completed in whichever run brings its
-- second half (DECISIONLOG D17). Order per key: sequence id, then image (before first).
with
before_halves as (
    select
        source_table,
        sequence_id,
        before_image,
        registered_at
    from (
        select
            source_table,
            position['sequence_id'] as sequence_id,
            before as before_image,
            _parsed_at as registered_at,
            row_number() over (partition by source_table, position['sequence_id'] order by _parsed_at) as delivery
        from {{ ref('base_datahub__parsed') }}
        where kind = 'control'
            and control_type = 'update_before_image'
    ) as deliveries
    where delivery = 1
),

seed_keys as (
    {{ cdc_registered_keys('datahub') }}
),

-- new changes, and older UPDATE_AFTERs whose before half arrived since the last run
changes as (
    select
        parsed.*,
        coalesce(parsed.before, before_halves.before_image) as paired_before,
        coalesce(
            case when seed_keys.declared then seed_keys.key_columns end,
            map_keys(parsed.key),
            seed_keys.key_columns
        ) as key_columns,
        greatest(parsed._parsed_at, coalesce(before_halves.registered_at, parsed._parsed_at)) as taken_at
    from {{ ref('base_datahub__parsed') }} as parsed
    left join before_halves
        on parsed.vendor_op = 'UPDATE_AFTER'
        and parsed.source_table = before_halves.source_table
        and parsed.position['sequence_id'] = before_halves.sequence_id
    left join seed_keys
        on parsed.source_table = seed_keys.source_table
    where parsed.kind = 'change'
        and {{ cdc_newer_than_this('_parsed_at', expression='greatest(parsed._parsed_at, coalesce(before_halves.registered_at, parsed._parsed_at))') }}
),

-- an update whose before image has another key moved the row: delete the old key, update the new
moved as (
    select
        changes.*,
        {{ cdc_key_change_columns(
            vendor_op='vendor_op', key_columns='key_columns', key='key',
            before='paired_before', after='after', position='position', delete_op='DELETE'
        ) }}
    from changes
        {{ cdc_key_change_ranks(key_columns='key_columns', before='paired_before', after='after') }}
),

renamed as (
    select
        -- ids
        source_vendor,
        source_engine,
        source_table,
        moved_vendor_op as vendor_op,
        moved_key as key,
        -- images
        moved_before as before,
        moved_after as after,
        changed_columns,
        -- ordering
        moved_position as position,
        {{ datahub_position_sequence('moved_position') }} as position_sequence,
        {{ cdc_integer_array(['file_mtime_ns', 'record_no', 'record_index']) }} as arrival,
        -- timestamps
        committed_at_us,
        read_at_us,
        -- cdc metadata
        transaction_id,
        transaction_seq,
        transaction_last,
        schema_version,
        content_hash,
        cast(null as string) as vendor_quarantine_reason,
        cast(null as string) as vendor_quarantine_detail,
        raw,
        _source_file,
        record_no,
        record_index,
        taken_at as _parsed_at
    from moved
),

{{ cdc_contract_events(changes='renamed', vendor='datahub', key_fallback=false) }}
