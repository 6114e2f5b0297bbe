{{ config(materialized='view') }}

-- The Qlik table registry: one row per table version (metadata message, "type": "MD"), with the
-- columns by ordinal that the data messages' hex masks point at and the primary key
-- (primaryKeyPosition > 0, in key order). A re-delivered metadata message counts from its first
-- delivery, so copies never make data messages look new again.
with metadata_messages as (
    select
        schema_ref as schema_id,
        source_table,
        schema_version as table_version,
        from_json(
            control_json,
            'struct<server: string, task: string, timestamp: string, columns: array<struct<name: string, '
            || 'ordinal: int, type: string, length: int, precision: int, scale: int, '
            || 'primary_key_position: int, nullable: boolean>>>'
        ) as metadata,
        _parsed_at
    from {{ ref('base_qlik__parsed') }}
    where kind = 'control'
        and control_type = 'table_version'
        and schema_ref is not null
),

first_deliveries as (
    select *
    from (
        select
            metadata_messages.*,
            row_number() over (partition by schema_id order by _parsed_at) as delivery
        from metadata_messages
    ) as deliveries
    where delivery = 1
)

select
    -- ids
    schema_id,
    source_table,
    table_version,
    metadata.server as replicate_server,
    metadata.task as replicate_task,
    -- columns
    metadata.columns,
    map_from_entries(transform(metadata.columns, table_column -> struct(table_column.ordinal, table_column.name)))
        as column_by_ordinal,
    nullif(
        transform(
            sort_array(transform(
                filter(metadata.columns, table_column -> table_column.primary_key_position > 0),
                table_column -> struct(table_column.primary_key_position as key_position, table_column.name as name)
            )),
            key_column -> key_column.name
        ),
        array()
    ) as key_columns,
    transform(
        filter(metadata.columns, table_column -> upper(table_column.type) in ('{{ qlik_lob_types() | join("', '") }}')),
        table_column -> table_column.name
    ) as lob_columns,
    -- timestamps
    metadata.timestamp as defined_at,
    _parsed_at as registered_at
from first_deliveries
