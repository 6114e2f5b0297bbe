{{ config(materialized='cdc_append', cdc_empty_table_columns=cdc_parsed_record_columns()) }}
{{ cdc_skip_unless_newer([ref('base_datastream__landing_records')], '_loaded_at') }}

-- Datastream events flattened in Spark SQL: one row per landing record (record_index 0), a change
-- or a quarantined record (Datastream sends no control records; DECISIONLOG D9, D15). The rules
-- follow tests/pytest/parsers/datastream.py step by step (kept as the oracle of
-- tests/pytest/test_sql_parity.py); value readers are in macros/vendors/datastream_flatten.sql.
-- Seed 000 describes an event: generic metadata (read_method, object, schema_key, uuid,
-- source_timestamp, read_timestamp), source_metadata per source engine, and the whole row in
-- payload. A record is a JSONL line, an element of a JSON array file, or an Avro datum the landing
-- model rendered as JSON.

with

-- the landing records loaded since the newest this model holds, each read as one JSON document
source as (
    {{ cdc_new_json_records(ref('base_datastream__landing_records')) }}
),

-- the event's fields; payload and source_metadata may be objects or JSON text of one
-- (datastream._object_field)
events as (
    select
        *,
        try_cast(record as {{ datastream_envelope_type('event') }}) as event_fields
    from source
),

blocks as (
    select
        *,
        {{ cdc_json_type('event_fields.payload') }} as payload_type,
        {{ cdc_json_type('event_fields.source_metadata') }} as source_metadata_type,
        case
            when {{ cdc_json_type('event_fields.payload') }} = 'object' then event_fields.payload
            when {{ cdc_json_type('event_fields.payload') }} = 'string'
                then {{ cdc_json_document(cdc_strip_bom('cast(event_fields.payload as string)')) }}
        end as payload,
        case
            when {{ cdc_json_type('event_fields.source_metadata') }} = 'object' then event_fields.source_metadata
            when {{ cdc_json_type('event_fields.source_metadata') }} = 'string'
                then {{ cdc_json_document(cdc_strip_bom('cast(event_fields.source_metadata as string)')) }}
        end as source_metadata
    from events
),

-- what the event is: engine (read_method's prefix, else a field only one source writes),
-- operation (backfill, change_type, is_deleted) and table (datastream._engine, _vendor_op, _source_table)
described as (
    select
        *,
        try_cast(source_metadata as {{ datastream_envelope_type('source') }}) as source_fields,
        lower({{ cdc_strip("coalesce(" ~ cdc_json_string('event_fields.read_method') ~ ", '')") }}) as read_method
    from blocks
),

engines as (
    select
        *,
        case
            when read_method like 'mysql%' then 'mysql'
            when read_method like 'oracle%' then 'oracle'
            when read_method like 'postgres%' then 'postgresql'
            when read_method like 'sqlserver%' then 'sqlserver'
            when read_method like 'salesforce%' then 'salesforce'
            when read_method like 'mongo%' then 'mongodb'
            {%- for fields, engine in [
                (['scn', 'rs_id', 'ssn', 'row_id'], 'oracle'),
                (['log_file', 'log_position'], 'mysql'),
                (['physical_location', 'replication_index'], 'sqlserver'),
                (['collection'], 'mongodb'),
                (['object_name', 'domain'], 'salesforce')] %}
                when {% for field in fields %}{{ datastream_is_set('source_fields.' ~ field) }}{% if not loop.last %} or {% endif %}{% endfor %}
                    then '{{ engine }}'
            {%- endfor %}
            -- PostgreSQL writes its LSN as 'X/Y'; SQL Server as hex digits with ':' or '0x'
            when {{ datastream_is_set('source_fields.lsn') }}
                then case when coalesce({{ cdc_json_string('source_fields.lsn') }}, to_json(source_fields.lsn)) like '%/%' then 'postgresql' else 'sqlserver' end
            else coalesce(nullif(regexp_extract(read_method, '^[a-z0-9]+', 0), ''), 'unknown')
        end as source_engine,
        {{ datastream_name_part('source_fields.`table`') }} as table_part,
        {{ datastream_name_part('source_fields.collection') }} as collection_part,
        {{ datastream_name_part('source_fields.object_name') }} as object_name_part,
        {{ datastream_name_part('source_fields.database') }} as database_part,
        {{ datastream_name_part('source_fields.schema') }} as schema_part,
        -- backfill rows have no order among themselves and lose to any CDC change (D3)
        read_method like '%backfill%' or read_method like '%dump%' as is_backfill,
        upper({{ cdc_strip(cdc_json_string('source_fields.change_type')) }}) as change_type,
        case
            when not {{ datastream_is_set('source_fields.is_deleted') }} then false
            when {{ cdc_json_type('source_fields.is_deleted') }} = 'boolean' then cast(source_fields.is_deleted as boolean)
            when lower({{ cdc_strip(cdc_json_string('source_fields.is_deleted')) }}) = 'true' then true
            when lower({{ cdc_strip(cdc_json_string('source_fields.is_deleted')) }}) = 'false' then false
        end as is_deleted
    from described
),

operations as (
    select
        *,
        coalesce(table_part, collection_part, object_name_part) as table_name,
        case
            when is_backfill then 'BACKFILL'
            when is_deleted and coalesce(nullif(change_type, ''), 'INSERT') not in ('DELETE', 'UPDATE-DELETE') then 'DELETE'
            else coalesce(nullif(change_type, ''), 'INSERT')
        end as vendor_op,
        {{ datastream_epoch_us('event_fields.source_timestamp') }} as committed_us,
        {{ datastream_epoch_us('event_fields.read_timestamp') }} as read_us,
        {{ datastream_column_list('source_fields.primary_keys') }} as primary_keys,
        {{ datastream_column_list('source_fields.replication_index') }} as replication_index,
        -- MongoDB: the oplog ts / change-stream clusterTime, else the resume token's time
        coalesce(
            {{ datastream_bson_timestamp([
                'source_fields.ts', 'source_fields.clusterTime', 'source_fields.cluster_time',
                'event_fields.ts', 'event_fields.clusterTime', 'event_fields.cluster_time',
            ]) }},
            {%- for field in ['resume_token', 'resumeToken', '_id'] %}
                {{ datastream_resume_token_time('source_fields.' ~ field) }}{% if not loop.last %},{% endif %}
            {%- endfor %}
        ) as mongo_time
    from engines
),

-- the source's ordering fields as text, blank ones left out (datastream._POSITIONS, _present);
-- never the event's uuid: a re-delivered event with a new uuid is the same change
positioned as (
    select
        *,
        case
            when vendor_op = 'BACKFILL' then null
            when source_engine = 'mysql' and not {{ cdc_is_blank(datastream_text('source_fields.log_file')) }}
                then map('log_file', {{ datastream_text('source_fields.log_file') }}, 'log_position', {{ datastream_text('source_fields.log_position') }})
            when source_engine = 'oracle'
                then map(
                        'scn', {{ datastream_text('source_fields.scn') }},
                        'rs_id', {{ datastream_text('source_fields.rs_id') }},
                        'ssn', {{ datastream_text('source_fields.ssn') }}
                    )
            when source_engine in ('postgresql', 'sqlserver') and not {{ cdc_is_blank(datastream_text('source_fields.lsn')) }}
                then map('source_timestamp_us', cast(committed_us as string), 'lsn', {{ datastream_text('source_fields.lsn') }})
            when source_engine = 'salesforce' and committed_us is not null
                then map('source_timestamp_us', cast(committed_us as string))
            when source_engine = 'mongodb' and mongo_time is not null
                then map('ts_seconds', cast(mongo_time.seconds as string), 'ts_increment', cast(mongo_time.increment as string))
        end as raw_position
    from operations
),

present as (
    select
        *,
        map_filter(raw_position, (field_name, field_text) -> not {{ cdc_is_blank('field_text') }}) as present_position
    from positioned
),

filled as (
    select
        *,
        case
            when raw_position is null then null
            when source_engine = 'oracle' and not (map_contains_key(present_position, 'scn') or map_contains_key(present_position, 'rs_id')) then null
            -- the delete half of a key change sorts first at one position
            else map_concat(present_position, map('change_type_rank', case when vendor_op in ('DELETE', 'UPDATE-DELETE') then '0' else '1' end))
        end as position
    from present
),

-- what the record is, decided in the order tests/pytest/parsers/datastream.py decides it (D9)
decided as (
    select
        *,
        case
            when read_error is not null then named_struct('code', 'unreadable_file', 'detail', left(read_error, 2000))
            when {{ cdc_is_blank('record_text') }} then named_struct('code', 'empty_record', 'detail', 'the record is empty or whitespace only')
            when record is null then named_struct('code', 'invalid_json', 'detail', 'the record is not one valid JSON document')
            when event_fields is null
                then named_struct('code', 'not_an_object', 'detail', concat('the record is a JSON ', {{ cdc_json_type('record') }}, ', not an object'))
            {%- for block, missing in [('payload', 'missing_payload'), ('source_metadata', 'missing_source')] %}
                when coalesce({{ block }}_type, 'null') = 'null' or ({{ block }}_type = 'string' and {{ cdc_is_blank(cdc_json_string('event_fields.' ~ block)) }})
                    then named_struct('code', '{{ missing }}', 'detail', 'the event has no \'{{ block }}\' object')
                when {{ block }}_type = 'string' and {{ block }} is null
                    then named_struct('code', 'invalid_json', 'detail', 'the {{ block }} is not valid JSON')
                when coalesce({{ cdc_json_type(block) }}, {{ block }}_type) != 'object'
                    then named_struct('code', 'wrong_type', 'detail', concat('{{ block }} is a JSON ', coalesce({{ cdc_json_type(block) }}, {{ block }}_type), ', not an object'))
            {%- endfor %}
            when {{ datastream_is_set('event_fields.read_method') }} and {{ cdc_json_type('event_fields.read_method') }} != 'string'
                then named_struct('code', 'wrong_type', 'detail', concat('read_method is a JSON ', {{ cdc_json_type('event_fields.read_method') }}, ', not a string'))
            -- the table: the first of table, collection, object_name, qualified by database and schema
            {%- for field, earlier in [('`table`', []), ('collection', ['table_part']), ('object_name', ['table_part', 'collection_part'])] %}
                when {% for part in earlier %}{{ part }} is null and {% endfor %}{{ datastream_bad_name_part('source_fields.' ~ field) }}
                    then named_struct('code', 'wrong_type', 'detail', concat('source_metadata.{{ field | replace("`", "") }} is a JSON ', {{ cdc_json_type('source_fields.' ~ field) }}, ', not a string'))
            {%- endfor %}
            {%- for field in ['database', 'schema'] %}
                when table_name is not null and {{ datastream_bad_name_part('source_fields.' ~ field) }}
                    then named_struct('code', 'wrong_type', 'detail', concat('source_metadata.{{ field }} is a JSON ', {{ cdc_json_type('source_fields.' ~ field) }}, ', not a string'))
            {%- endfor %}
            when table_name is null and {{ datastream_is_set('event_fields.source_table') }} and {{ cdc_json_type('event_fields.source_table') }} != 'string'
                then named_struct('code', 'wrong_type', 'detail', concat('source_table is a JSON ', {{ cdc_json_type('event_fields.source_table') }}, ', not a string'))
            when
                table_name is null and {{ cdc_is_blank(cdc_json_string('event_fields.source_table')) }}
                and {{ datastream_is_set('event_fields.object') }} and {{ cdc_json_type('event_fields.object') }} != 'string'
                then named_struct('code', 'wrong_type', 'detail', concat('object is a JSON ', {{ cdc_json_type('event_fields.object') }}, ', not a string'))
            when table_name is null and {{ cdc_is_blank(cdc_json_string('event_fields.source_table')) }} and {{ cdc_is_blank(cdc_json_string('event_fields.object')) }}
                then named_struct('code', 'missing_source_table', 'detail', 'no table: source_metadata has no table, collection or object_name and the event no object')
            -- the operation
            when {{ datastream_is_set('source_fields.change_type') }} and {{ cdc_json_type('source_fields.change_type') }} != 'string'
                then named_struct('code', 'wrong_type', 'detail', concat('source_metadata.change_type is a JSON ', {{ cdc_json_type('source_fields.change_type') }}, ', not a string'))
            when is_deleted is null
                then named_struct('code', 'wrong_type', 'detail', concat('source_metadata.is_deleted is ', left(to_json(source_fields.is_deleted), 80), ', not a boolean'))
            -- the commit time, then the position's fields
            {{ _datastream_time_problems('event_fields.source_timestamp', 'committed_us', 'source_timestamp') }}
            {%- for engine, fields in [('mysql', ['log_file']), ('oracle', ['scn', 'rs_id', 'ssn']), ('postgresql', ['lsn']), ('sqlserver', ['lsn'])] %}
                {%- for field in fields %}
                    when vendor_op != 'BACKFILL' and source_engine = '{{ engine }}' and {{ datastream_is_set('source_fields.' ~ field) }} and {{ datastream_text('source_fields.' ~ field) }} is null
                        then named_struct('code', 'wrong_type', 'detail', concat('source_metadata.{{ field }} is a JSON ', {{ cdc_json_type('source_fields.' ~ field) }}, ', expected a string or a whole number'))
                {%- endfor %}
            {%- endfor %}
            when
                vendor_op != 'BACKFILL' and source_engine = 'mysql' and not {{ cdc_is_blank(datastream_text('source_fields.log_file')) }}
                and {{ datastream_is_set('source_fields.log_position') }} and {{ datastream_text('source_fields.log_position') }} is null
                then named_struct('code', 'wrong_type', 'detail', concat('source_metadata.log_position is a JSON ', {{ cdc_json_type('source_fields.log_position') }}, ', expected a string or a whole number'))
            -- the key columns, then the read time and the transaction
            when primary_keys is null
                then named_struct('code', 'wrong_type', 'detail', left(concat('source_metadata.primary_keys is not an array of column names: ', to_json(source_fields.primary_keys)), 300))
            when size(primary_keys) = 0 and source_engine = 'sqlserver' and replication_index is null
                then named_struct('code', 'wrong_type', 'detail', left(concat('source_metadata.replication_index is not an array of column names: ', to_json(source_fields.replication_index)), 300))
            {{ _datastream_time_problems('event_fields.read_timestamp', 'read_us', 'read_timestamp') }}
            when {{ datastream_is_set('source_fields.tx_id') }} and {{ datastream_text('source_fields.tx_id') }} is null
                then named_struct('code', 'wrong_type', 'detail', concat('source_metadata.tx_id is a JSON ', {{ cdc_json_type('source_fields.tx_id') }}, ', expected a string or a whole number'))
        end as problem
    from filled
),

-- the row: the deleted row for a delete, else the new row; the key columns' values from it (a
-- column the row lacks is JSON null, which the contract reports as a missing key value)
changes as (
    select
        *,
        transform_values({{ cdc_object_fields('payload') }}, (column_name, column_value) -> to_json(column_value)) as row_image,
        case
            when size(primary_keys) > 0 then primary_keys
            when source_engine = 'sqlserver' and size(replication_index) > 0 then replication_index
            when source_engine = 'mongodb' then array('_id')
        end as key_columns
    from decided
)

select
    -- ids
    source_vendor,
    _source_file,
    file_mtime_ns,
    record_no,
    0 as record_index,
    -- what the record is
    case when problem is null then 'change' else 'quarantine' end as kind,
    problem.code as reason,
    problem.detail,
    cast(null as string) as control_type,
    cast(null as string) as control_json,
    -- the change
    case when problem is null then vendor_op end as vendor_op,
    case when problem is null then source_engine end as source_engine,
    case
        when problem is not null then null
        when table_name is not null then concat_ws('.', database_part, schema_part, table_name)
        when not {{ cdc_is_blank(cdc_json_string('event_fields.source_table')) }} then {{ cdc_json_string('event_fields.source_table') }}
        else {{ cdc_json_string('event_fields.object') }}
    end as source_table,
    case
        when problem is null and key_columns is not null
            then map_from_arrays(key_columns, transform(key_columns, key_column -> coalesce(to_json({{ cdc_object_fields('payload') }}[key_column]), 'null')))
    end as key,
    case when problem is null and vendor_op in ('DELETE', 'UPDATE-DELETE') then row_image end as before,
    case when problem is null and vendor_op not in ('DELETE', 'UPDATE-DELETE') then row_image end as after,
    cast(null as array<string>) as changed_columns,
    case when problem is null then position end as position,
    -- Kafka coordinates: none
    cast(null as string) as kafka_topic,
    cast(null as bigint) as kafka_partition,
    cast(null as bigint) as kafka_offset,
    -- times, transaction
    case when problem is null then cast(committed_us as bigint) end as committed_at_us,
    case when problem is null then cast(read_us as bigint) end as read_at_us,
    case when problem is null then {{ datastream_text('source_fields.tx_id') }} end as transaction_id,
    cast(null as bigint) as transaction_seq,
    cast(null as boolean) as transaction_last,
    -- the first schema key or hash that is a non-empty string or a whole number
    case
        when problem is null then coalesce(
                {%- for field in ['event_fields.schema_key', 'source_fields.schema_key', 'source_fields.schema_hash'] %}
                    case
                        when {{ cdc_json_type(field) }} = 'string' then nullif(cast({{ field }} as string), '')
                        when to_json({{ field }}) rlike '^-?[0-9]+$' then to_json({{ field }})
                    end{% if not loop.last %},{% endif %}
                {%- endfor %}
            )
    end as schema_version,
    -- identity of a change without a position: table, operation and row, neither uuid nor read time
    -- (re-delivered backfill rows count once, D10)
    case
        when problem is null and position is null
            then sha2(
                    to_json(
                        named_struct(
                            'change_type', vendor_op,
                            'payload', payload,
                            'source_table', coalesce(
                                case when table_name is not null then concat_ws('.', database_part, schema_part, table_name) end,
                                nullif({{ cdc_json_string('event_fields.source_table') }}, ''),
                                {{ cdc_json_string('event_fields.object') }}
                            )
                        )
                    ),
                    256
                )
    end as content_hash,
    -- Qlik-only fields of the parsed-record contract (python_udfs/contract.py)
    cast(null as string) as schema_ref,
    cast(null as array<string>) as column_order,
    cast(null as array<int>) as captured_ordinals,
    cast(null as array<int>) as changed_ordinals,
    -- lineage
    raw,
    _loaded_at,
    current_timestamp() as _parsed_at,
    '{{ invocation_id }}' as _run_id
from changes
