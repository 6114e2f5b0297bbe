{{ config(materialized='cdc_append', cdc_follows_table_config=true, cdc_empty_table_columns=cdc_change_event_columns()) }}
{{ cdc_skip_unless_newer([ref('base_qlik__parsed')], '_parsed_at') }}

-- Qlik Replicate data messages in the contract shape (DESIGN §5); `_quarantine_reason` says why
-- one cannot be used. A data message's table version (messageSchemaId) gives its table, its key
-- and the columns its hex masks point at; a message whose metadata has not arrived waits in
-- stg_qlik__awaiting_metadata and is taken in the run that brings it (DECISIONLOG D16).
-- Order per key: changeSequence as a number, then the transaction event counter; REFRESH
-- (full-load) rows are snapshots that lose to any CDC change.
with
table_versions as (
    select *
    from {{ ref('stg_qlik__table_versions') }}
),

seed_keys as (
    {{ cdc_registered_keys('qlik') }}
),

-- a message without a schema reference uses its table's newest version
newest_table_versions as (
    select *
    from (
        select
            table_versions.*,
            row_number() over (
                partition by source_table order by cast(table_version as bigint) desc, registered_at desc
            ) as newness
        from table_versions
    ) as ranked
    where newness = 1
),

-- new data messages, and older ones whose table version arrived since the last run
referenced as (
    select
        parsed.*,
        coalesce(parsed.source_table, table_versions.source_table, parsed.kafka_topic) as resolved_table,
        table_versions.table_version as referenced_version,
        table_versions.column_by_ordinal as referenced_columns,
        table_versions.key_columns as referenced_key_columns,
        table_versions.lob_columns as referenced_lob_columns,
        greatest(parsed._parsed_at, coalesce(table_versions.registered_at, parsed._parsed_at)) as taken_at
    from {{ ref('base_qlik__parsed') }} as parsed
    left join table_versions
        on parsed.schema_ref = table_versions.schema_id
    where parsed.kind = 'change'
        and (parsed.schema_ref is null or table_versions.schema_id is not null)
        and {{ cdc_newer_than_this('_parsed_at', expression='greatest(parsed._parsed_at, coalesce(table_versions.registered_at, parsed._parsed_at))') }}
),

data_messages as (
    select
        referenced.*,
        coalesce(referenced.referenced_version, newest_table_versions.table_version) as table_version,
        coalesce(
            referenced.referenced_columns,
            newest_table_versions.column_by_ordinal,
            -- no table version at all: the image lists the columns in ordinal order
            case
                when size(referenced.column_order) > 0
                    then map_from_arrays(sequence(1, size(referenced.column_order)), referenced.column_order)
            end
        ) as column_by_ordinal,
        coalesce(referenced.referenced_key_columns, newest_table_versions.key_columns) as version_key_columns,
        coalesce(referenced.referenced_lob_columns, newest_table_versions.lob_columns, array()) as lob_columns
    from referenced
    left join newest_table_versions
        on referenced.schema_ref is null
        and referenced.resolved_table = newest_table_versions.source_table
),

-- hex masks -> column names through the table version (DESIGN §5)
masks_decoded as (
    select
        data_messages.*,
        -- keys declared in cdc_tables, else the table version's, else the seed's
        coalesce(
            case when seed_keys.declared then seed_keys.key_columns end,
            data_messages.version_key_columns,
            seed_keys.key_columns
        ) as key_columns,
        transform(captured_ordinals, ordinal -> column_by_ordinal[ordinal]) as captured_columns,
        transform(changed_ordinals, ordinal -> column_by_ordinal[ordinal]) as changed_column_names,
        case
            when exists(captured_ordinals, ordinal -> not map_contains_key(column_by_ordinal, ordinal))
                then concat(
                        'columnMask sets ordinals ', array_join(captured_ordinals, ', '), ' but table version ',
                        coalesce(table_version, 'of the image'), ' has ', size(column_by_ordinal), ' columns'
                    )
            when exists(changed_ordinals, ordinal -> not map_contains_key(column_by_ordinal, ordinal))
                then concat(
                        'changeMask sets ordinals ', array_join(changed_ordinals, ', '), ' but table version ',
                        coalesce(table_version, 'of the image'), ' has ', size(column_by_ordinal), ' columns'
                    )
        end as mask_problem
    from data_messages
    left join seed_keys
        on data_messages.resolved_table = seed_keys.source_table
),

-- a column whose columnMask bit is 0 was not captured: its null means "unknown", so it is left
-- out and the merge keeps the prior value; LOB columns are never in the masks
captured as (
    select
        masks_decoded.*,
        case
            when captured_ordinals is null or mask_problem is not null then after
            else map_filter(
                    after,
                    (column_name, column_value) -> array_contains(captured_columns, column_name)
                    or (array_contains(lob_columns, column_name) and column_value != 'null')
                )
        end as captured_after,
        case
            when key_columns is not null
                then map_filter(
                        case when vendor_op = 'DELETE' then before else after end,
                        (column_name, column_value) -> array_contains(key_columns, column_name)
                    )
        end as image_key
    from masks_decoded
),

-- an UPDATE whose before image has another key moved the row: delete the old key, update the new
moved as (
    select
        captured.*,
        {{ cdc_key_change_columns(
            vendor_op='vendor_op', key_columns='key_columns', key='image_key',
            before='before', after='captured_after', position='position', delete_op='DELETE'
        ) }}
    from captured
        {{ cdc_key_change_ranks(key_columns='key_columns', before='before', after='after') }}
),

renamed as (
    select
        -- ids
        source_vendor,
        source_engine,
        resolved_table as source_table,
        moved_vendor_op as vendor_op,
        moved_key as key,
        -- images
        moved_before as before,
        moved_after as after,
        changed_column_names as changed_columns,
        -- ordering
        moved_position as position,
        {{ qlik_position_sequence('moved_position') }} as position_sequence,
        {{ cdc_integer_array(['file_mtime_ns', 'record_no', 'record_index']) }} as arrival,
        -- timestamps
        committed_at_us,
        read_at_us,
        -- cdc metadata
        transaction_id,
        transaction_seq,
        transaction_last,
        coalesce(table_version, schema_version) as schema_version,
        content_hash,
        case when mask_problem is not null then 'invalid_column_mask' end as vendor_quarantine_reason,
        mask_problem as vendor_quarantine_detail,
        raw,
        _source_file,
        record_no,
        record_index,
        taken_at as _parsed_at
    from moved
),

{{ cdc_contract_events(changes='renamed', vendor='qlik') }}
