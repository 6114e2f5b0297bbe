{{ config(materialized='cdc_append', cdc_empty_table_columns=cdc_parsed_record_columns()) }}
{{ cdc_skip_unless_newer([ref('base_datahub__landing_records')], '_loaded_at') }}
{{ cdc_require_udfs() }}

-- Alibaba DataHub messages flattened in Spark SQL: one row per landing record (record_index 0), a
-- change, a control record or a quarantined record (DECISIONLOG D9, D17). The rules follow
-- tests/pytest/parsers/datahub.py step by step (kept as the oracle of tests/pytest/test_sql_parity.py);
-- value readers are in macros/vendors/datahub_flatten.sql. Seed 004 describes two shapes: a Blob
-- record {"schema": {dataColumn, primaryKey, source}, "payload": {before, after, sequenceId, op,
-- timestamp, ddl}} with typed values, and a flat Tuple record of metadata columns
-- (_sequence_id_, _operation_type_, ...) beside untyped data columns. A DDL record's ddl.ddlMeta
-- (base64 of a Java-serialized statement) is read back by the Python function cdc_decode_ddl.

with

-- the landing records loaded since the newest this model holds, each read as one JSON document
source as (
    {{ cdc_new_json_records(ref('base_datahub__landing_records')) }}
),

-- a Tuple record has any of the seed's metadata columns; a Blob record has a payload
records as (
    select
        *,
        try_cast(record as {{ datahub_envelope_type('record') }}) as record_fields
    from source
),

shapes as (
    select
        *,
        coalesce(
            record_fields._sequence_id_, record_fields._operation_type_, record_fields._excute_time_,
            record_fields._source_table_, record_fields._before_image_, record_fields._after_image_
        ) is not null as is_tuple,
        {{ datahub_object('record_fields.payload') }} as payload,
        {{ datahub_object('record_fields.schema') }} as schema_object
    from records
),

-- the Blob record's parts: objects, or JSON text of one (datahub._object)
blob_parts as (
    select
        *,
        try_cast(payload as {{ datahub_envelope_type('payload') }}) as payload_fields,
        try_cast(schema_object as {{ datahub_envelope_type('schema') }}) as schema_fields
    from shapes
),

blob_blocks as (
    select
        *,
        {{ cdc_strip(cdc_json_string('payload_fields.op')) }} as op,
        {{ datahub_object('payload_fields.timestamp') }} as timestamp_object,
        {{ datahub_object('schema_fields.source') }} as source_object,
        {{ datahub_object('payload_fields.before') }} as before_block,
        {{ datahub_object('payload_fields.after') }} as after_block,
        {{ datahub_object('payload_fields.ddl') }} as ddl_object
    from blob_parts
),

blob_fields as (
    select
        *,
        try_cast(timestamp_object as {{ datahub_envelope_type('timestamp') }}) as timestamp_fields,
        try_cast(source_object as {{ datahub_envelope_type('source') }}) as source_fields,
        try_cast(ddl_object as {{ datahub_envelope_type('ddl') }}) as ddl_fields,
        {{ datahub_object('try_cast(before_block as ' ~ datahub_envelope_type('image') ~ ').dataColumn') }} as before_columns,
        {{ datahub_object('try_cast(after_block as ' ~ datahub_envelope_type('image') ~ ').dataColumn') }} as after_columns,
        -- schema.dataColumn: [{name, type}], a later column of the same name wins (datahub._column_types)
        try_cast(schema_fields.dataColumn as array<variant>) as column_specs
    from blob_blocks
),

-- the message: table, engine, sequence id, times, column types (datahub._blob_record)
blob_messages as (
    select
        *,
        case
            when {{ cdc_json_string('source_fields.tableName') }} != ''
                then concat_ws(
                        '.',
                        nullif({{ cdc_json_string('source_fields.dbName') }}, ''),
                        nullif({{ cdc_json_string('source_fields.schemaName') }}, ''),
                        {{ cdc_json_string('source_fields.tableName') }}
                    )
        end as blob_table,
        case lower({{ cdc_strip(cdc_json_string('source_fields.dbType')) }})
            when '' then null
            when 'postgres' then 'postgresql'
            when 'pg' then 'postgresql'
            when 'mssql' then 'sqlserver'
            when 'sql server' then 'sqlserver'
            else lower({{ cdc_strip(cdc_json_string('source_fields.dbType')) }})
        end as blob_engine,
        {{ datahub_integer_text('payload_fields.sequenceId') }} as blob_sequence,
        {{ datahub_epoch_ms('timestamp_fields.eventTime') }} as event_ms,
        {{ datahub_epoch_ms('timestamp_fields.systemTime') }} as system_ms,
        {{ datahub_epoch_ms('timestamp_fields.checkpointTime') }} as checkpoint_ms,
        -- schema.dataColumn's names and types in order: null where an item has no name / no type text
        transform(column_specs, column_spec -> {{ cdc_json_string("try_variant_get(column_spec, '$.name')") }}) as column_names,
        transform(column_specs, column_spec -> upper({{ cdc_strip(cdc_json_string("try_variant_get(column_spec, '$.type')")) }})) as column_kinds,
        try_cast(schema_fields.primaryKey as array<variant>) as primary_key_items
    from blob_fields
),

-- the column types by name, a later column of the same name winning (datahub._column_types); an
-- item without a name gives none (the record is quarantined below)
blob_columns as (
    select
        *,
        map_from_arrays(
            array_distinct(filter(column_names, column_name -> column_name is not null)),
            transform(
                array_distinct(filter(column_names, column_name -> column_name is not null)),
                column_name -> column_kinds[size(column_names) - array_position(reverse(column_names), column_name)]
            )
        ) as column_types,
        -- the key columns, repeats dropped
        array_distinct(filter(transform(primary_key_items, key_item -> {{ cdc_json_string('key_item') }}), key_column -> key_column != '')) as key_columns
    from blob_messages
),

-- each image value with what typing it reads (datahub_value_parts), then typed as JSON text: null
-- where a value does not fit its type
blob_values as (
    select
        *,
        transform_values(
            {{ cdc_object_fields('before_columns') }},
            (column_name, column_value) -> {{ datahub_value_parts('column_value', 'column_types[column_name]') }}
        ) as before_values,
        transform_values(
            {{ cdc_object_fields('after_columns') }},
            (column_name, column_value) -> {{ datahub_value_parts('column_value', 'column_types[column_name]') }}
        ) as after_values
    from blob_columns
),

blob_images as (
    select
        *,
        transform_values(before_values, (column_name, column_parts) -> {{ datahub_typed_json('column_parts') }}) as before_image,
        transform_values(after_values, (column_name, column_parts) -> {{ datahub_typed_json('column_parts') }}) as after_image
    from blob_values
),

-- the Tuple record's operation, flags and data columns (datahub._tuple_record)
tuples as (
    select
        *,
        case upper({{ cdc_strip(cdc_json_string('record_fields._operation_type_')) }})
            when 'I' then 'I'
            when 'INSERT' then 'I'
            when 'U' then 'U'
            when 'UPDATE' then 'U'
            when 'D' then 'D'
            when 'DELETE' then 'D'
        end as tuple_op,
        {{ datahub_integer_text('record_fields._sequence_id_') }} as tuple_sequence,
        -- the execute time as the seed spells it, else spelt correctly
        case
            when record_fields._excute_time_ is not null and not is_variant_null(record_fields._excute_time_)
                then record_fields._excute_time_
            else record_fields._execute_time_
        end as tuple_time,
        {{ datahub_flag('record_fields._before_image_') }} as before_flag,
        {{ datahub_flag('record_fields._after_image_') }} as after_flag,
        -- only for a Tuple record: a Blob record's fields are its whole payload and schema
        case when is_tuple then transform_values(
            map_filter({{ cdc_object_fields('record') }}, (column_name, column_value) -> not array_contains({{ datahub_tuple_metadata_columns() }}, column_name)),
            (column_name, column_value) -> to_json(column_value)
        ) end as tuple_row
    from blob_images
),

tuple_images as (
    select
        *,
        case
            when tuple_op = 'U' and before_flag and not coalesce(after_flag, false) then 'UPDATE_BEFOR'
            when tuple_op = 'U' and after_flag and not coalesce(before_flag, false) then 'UPDATE_AFTER'
            when tuple_op = 'I' and coalesce(after_flag, true) and not coalesce(before_flag, false) then 'INSERT'
            when tuple_op = 'D' and coalesce(before_flag, true) and not coalesce(after_flag, false) then 'DELETE'
        end as tuple_vendor_op
    from tuples
),

-- what the record is, decided in the order tests/pytest/parsers/datahub.py decides it (D9)
decided as (
    select
        *,
        case
            when read_error is not null then named_struct('code', 'unreadable_file', 'detail', left(read_error, 2000))
            when {{ cdc_is_blank('record_text') }} then named_struct('code', 'empty_record', 'detail', 'the record is empty or whitespace only')
            when record is null then named_struct('code', 'invalid_json', 'detail', 'the record is not one valid JSON document')
            when record_fields is null
                then named_struct('code', 'not_an_object', 'detail', concat('the record is a JSON ', {{ cdc_json_type('record') }}, ', not an object'))
            -- Tuple
            when is_tuple and (record_fields._operation_type_ is null or is_variant_null(record_fields._operation_type_))
                then named_struct('code', 'missing_op', 'detail', 'the Tuple record has no _operation_type_')
            when is_tuple and tuple_op is null then null
            when is_tuple and {{ cdc_is_blank(cdc_json_string('record_fields._source_table_')) }}
                then named_struct('code', 'missing_source_table', 'detail', 'the Tuple record has no _source_table_')
            when is_tuple and tuple_sequence is null
                then named_struct('code', 'invalid_position', 'detail', concat('_sequence_id_ ', coalesce(left(to_json(record_fields._sequence_id_), 80), 'is missing'), ' is not an integer'))
            {{ datahub_epoch_ms_problem('tuple_time', '_excute_time_', guard='is_tuple') }}
            {%- for flag in ['_before_image_', '_after_image_'] %}
                when is_tuple and record_fields.{{ flag }} is not null and not is_variant_null(record_fields.{{ flag }})
                    and {{ datahub_flag('record_fields.' ~ flag) }} is null
                    then named_struct('code', 'wrong_type', 'detail', concat('{{ flag }} is ', left(to_json(record_fields.{{ flag }}), 80), ', not Y or N'))
            {%- endfor %}
            when is_tuple and tuple_vendor_op is null
                then named_struct('code', 'missing_image', 'detail', concat(
                        'Tuple ', to_json(record_fields._operation_type_), ' record with _before_image_=', coalesce(to_json(record_fields._before_image_), 'None'),
                        ' and _after_image_=', coalesce(to_json(record_fields._after_image_), 'None'), ': no image it can carry'
                    ))
            when is_tuple and tuple_sequence like '-%' and tuple_vendor_op != 'INSERT'
                then named_struct('code', 'invalid_position', 'detail', concat(tuple_vendor_op, ' record has the full-load sequence id ', tuple_sequence))
            when is_tuple then null
            -- Blob
            when record_fields.payload is null
                then named_struct('code', 'not_a_datahub_record', 'detail', concat(
                        'the object is neither a Blob record (no \'payload\') nor a Tuple record (no metadata column); keys: ',
                        array_join(slice(sort_array(map_keys({{ cdc_object_fields('record') }})), 1, 20), ', ')
                    ))
            {{ datahub_object_problems('record_fields.payload', 'payload', 'payload', required=true) }}
            {{ datahub_object_problems('record_fields.schema', 'schema_object', 'schema') }}
            when coalesce({{ cdc_is_blank('op') }}, true)
                then named_struct('code', 'missing_op', 'detail', concat('payload.op is ', coalesce({{ cdc_json_type('payload_fields.op') }}, 'missing')))
            {{ datahub_object_problems('payload_fields.timestamp', 'timestamp_object', 'payload.timestamp') }}
            {{ datahub_epoch_ms_problem('timestamp_fields.eventTime', 'payload.timestamp.eventTime') }}
            {{ datahub_epoch_ms_problem('timestamp_fields.systemTime', 'payload.timestamp.systemTime') }}
            {{ datahub_object_problems('schema_fields.source', 'source_object', 'schema.source') }}
            when op = 'MHEARTBEAT' then null
            {%- for part in ['dbName', 'schemaName', 'tableName'] %}
                when not {{ datahub_is_unset('source_fields.' ~ part) }} and {{ cdc_json_type('source_fields.' ~ part) }} != 'string'
                    then named_struct('code', 'wrong_type', 'detail', concat('schema.source.{{ part }} is a JSON ', {{ cdc_json_type('source_fields.' ~ part) }}, ', not a string'))
            {%- endfor %}
            when {{ datahub_is_unset('payload_fields.sequenceId') }} and op in {{ datahub_ops('data') }}
                then named_struct('code', 'invalid_position', 'detail', 'payload.sequenceId is missing: the record cannot be ordered')
            when not {{ datahub_is_unset('payload_fields.sequenceId') }} and blob_sequence is null
                then named_struct('code', 'invalid_position', 'detail', concat('payload.sequenceId ', left(to_json(payload_fields.sequenceId), 80), ' is not an integer'))
            when op in {{ datahub_ops('transaction') }} then null
            {{ datahub_object_problems('payload_fields.ddl', 'ddl_object', 'payload.ddl', guard='op in ' ~ datahub_ops('ddl')) }}
            when op in {{ datahub_ops('ddl') }} then null
            when blob_table is null then named_struct('code', 'missing_source_table', 'detail', concat(op, ' record: schema.source has no tableName'))
            -- column types, images, typed values, the key (python's order)
            when schema_fields.dataColumn is not null and not is_variant_null(schema_fields.dataColumn) and column_specs is null
                then named_struct('code', 'wrong_type', 'detail', concat('schema.dataColumn is a JSON ', {{ cdc_json_type('schema_fields.dataColumn') }}, ', not an array'))
            when exists(column_names, column_name -> column_name is null)
                then named_struct('code', 'wrong_type', 'detail', 'schema.dataColumn holds an item that is not a {name, type} object')
            {%- for image in ['before', 'after'] %}
                {{ datahub_object_problems('payload_fields.' ~ image, image ~ '_block', 'payload.' ~ image) }}
                {{ datahub_object_problems('try_cast(' ~ image ~ '_block as ' ~ datahub_envelope_type('image') ~ ').dataColumn', image ~ '_columns', 'payload.' ~ image ~ '.dataColumn') }}
            {%- endfor %}
            {%- for image in ['before', 'after'] %}
                when exists(map_values({{ image }}_image), column_json -> column_json is null)
                    then named_struct('code', 'wrong_type', 'detail', concat(
                            'columns of {{ image }} that do not fit their type: ',
                            array_join(map_keys(map_filter({{ image }}_image, (column_name, column_json) -> column_json is null)), ', ')
                        ))
            {%- endfor %}
            when
                schema_fields.primaryKey is not null and not is_variant_null(schema_fields.primaryKey)
                and not coalesce(forall(primary_key_items, key_item -> {{ cdc_json_string('key_item') }} != ''), false)
                then named_struct('code', 'wrong_type', 'detail', left(concat('schema.primaryKey is not an array of column names: ', to_json(schema_fields.primaryKey)), 300))
            -- the images an op must carry
            when op in {{ datahub_ops('update_before') }} and before_columns is null
                then named_struct('code', 'missing_image', 'detail', concat(op, ' record has no payload.before.dataColumn'))
            when op in ('INSERT', 'UPDATE_AFTER', 'UPDATE') and after_columns is null
                then named_struct('code', 'missing_image', 'detail', concat(op, ' record has no payload.after.dataColumn'))
            when op = 'DELETE' and before_columns is null
                then named_struct('code', 'missing_image', 'detail', concat(op, ' record has no payload.before.dataColumn'))
            -- negative sequence ids are full-load rows: inserts only
            when blob_sequence like '-%' and op in {{ datahub_ops('data') }} and op != 'INSERT' and op not in {{ datahub_ops('update_before') }}
                then named_struct('code', 'invalid_position', 'detail', concat(op, ' record has the full-load sequence id ', blob_sequence))
        end as problem
    from tuple_images
),

-- the kind, operation and images of each usable record
outcomes as (
    select
        *,
        case
            when problem is not null then 'quarantine'
            when is_tuple and tuple_op is null then 'change'
            when is_tuple and tuple_vendor_op = 'UPDATE_BEFOR' then 'control'
            when is_tuple then 'change'
            when op = 'MHEARTBEAT' or op in {{ datahub_ops('transaction') }} or op in {{ datahub_ops('ddl') }}
                or op in {{ datahub_ops('update_before') }} then 'control'
            else 'change'
        end as kind,
        case
            when problem is not null then null
            when is_tuple and tuple_vendor_op = 'UPDATE_BEFOR' then 'update_before_image'
            when is_tuple then null
            when op = 'MHEARTBEAT' then 'heartbeat'
            when op in {{ datahub_ops('transaction') }} then 'transaction'
            when op in {{ datahub_ops('ddl') }} then 'ddl'
            when op in {{ datahub_ops('update_before') }} then 'update_before_image'
        end as control_type,
        -- the sequence id: ordered when not negative (negative ids are full-load rows)
        case when is_tuple then tuple_sequence else blob_sequence end as sequence_id
    from decided
),

-- a DDL record's ddl.ddlMeta read back (a Python function: python_udfs/java_serialization.py);
-- null for every other record, since Spark calls it for every row of this projection
ddl_read as (
    select
        *,
        cdc_decode_ddl(
            case when control_type = 'ddl' then to_json(ddl_fields.ddlMeta) end,
            case when control_type = 'ddl' then {{ cdc_json_string('ddl_fields.text') }} end
        ) as ddl_summary,
        -- heartbeats and Tuple ops the seed does not list have none
        case
            when kind = 'quarantine' or sequence_id like '-%' or sequence_id is null then null
            when control_type = 'heartbeat' or (is_tuple and tuple_op is null) then null
            else map('sequence_id', sequence_id, 'image_rank', case when control_type = 'update_before_image' then '0' else '1' end)
        end as position
    from outcomes
)

select
    -- ids
    source_vendor,
    _source_file,
    file_mtime_ns,
    record_no,
    0 as record_index,
    -- what the record is
    kind,
    problem.code as reason,
    problem.detail,
    control_type,
    case
        when control_type = 'heartbeat'
            then to_json(
                    named_struct(
                        'checkpoint_time', {{ datahub_iso_ms('checkpoint_ms') }},
                        'event_time', {{ datahub_iso_ms('event_ms') }},
                        'system_time', {{ datahub_iso_ms('system_ms') }}
                    ),
                    map('ignoreNullFields', 'false')
                )
        when control_type = 'transaction'
            then to_json(named_struct('op', op, 'sequence_id', sequence_id, 'source_table', blob_table), map('ignoreNullFields', 'false'))
        when control_type = 'ddl'
            then to_json(
                    named_struct(
                        'added_columns', ddl_summary.added_columns,
                        'ddl_text', {{ cdc_json_string('ddl_fields.text') }},
                        'decode_error', ddl_summary.decode_error,
                        'decoded_text', ddl_summary.decoded_text,
                        'dropped_columns', ddl_summary.dropped_columns,
                        'matches_text', ddl_summary.matches_text,
                        'meta_class', ddl_summary.meta_class,
                        'op', op,
                        'operation', ddl_summary.operation,
                        'renamed_to', ddl_summary.renamed_to,
                        'table', ddl_summary.table
                    ),
                    map('ignoreNullFields', 'false')
                )
        when control_type = 'update_before_image' and is_tuple
            then to_json(
                    named_struct(
                        'format', 'tuple', 'op', cast(record_fields._operation_type_ as string), 'sequence_id', sequence_id,
                        'source_table', cast(record_fields._source_table_ as string)
                    )
                )
        when control_type = 'update_before_image'
            then to_json(named_struct('format', 'blob', 'op', op, 'sequence_id', sequence_id, 'source_table', blob_table))
    end as control_json,
    -- the change
    case
        when kind = 'quarantine' then null
        when is_tuple and tuple_op is null
            then coalesce({{ cdc_json_string('record_fields._operation_type_') }}, to_json(record_fields._operation_type_))
        when is_tuple and sequence_id like '-%' then 'FULL_LOAD'
        when is_tuple then tuple_vendor_op
        when sequence_id like '-%' and op = 'INSERT' then 'FULL_LOAD'
        else op
    end as vendor_op,
    case when kind != 'quarantine' and not is_tuple and op != 'MHEARTBEAT' then blob_engine end as source_engine,
    case
        when kind = 'quarantine' then null
        when is_tuple then {{ cdc_json_string('record_fields._source_table_') }}
        when op != 'MHEARTBEAT' then blob_table
    end as source_table,
    -- the key columns' values from the image the change carries (a column it lacks is JSON null)
    case
        when kind = 'quarantine' or is_tuple or coalesce(size(key_columns), 0) = 0 then null
        when control_type = 'update_before_image' or op = 'DELETE'
            then map_from_arrays(key_columns, transform(key_columns, key_column -> coalesce(before_image[key_column], 'null')))
        when kind = 'change' and op != 'TRUNCATE' and after_image is not null
            then map_from_arrays(key_columns, transform(key_columns, key_column -> coalesce(after_image[key_column], 'null')))
    end as key,
    case
        when kind = 'quarantine' then null
        when is_tuple and tuple_vendor_op in ('UPDATE_BEFOR', 'DELETE') and tuple_op is not null then tuple_row
        when is_tuple then null
        when control_type = 'update_before_image' or (kind = 'change' and op != 'TRUNCATE') then before_image
    end as before,
    case
        when kind = 'quarantine' then null
        when is_tuple and (tuple_op is null or tuple_vendor_op in ('INSERT', 'UPDATE_AFTER')) then tuple_row
        when is_tuple then null
        when kind = 'change' and op != 'TRUNCATE' then after_image
    end as after,
    cast(null as array<string>) as changed_columns,
    position,
    -- Kafka coordinates: none
    cast(null as string) as kafka_topic,
    cast(null as bigint) as kafka_partition,
    cast(null as bigint) as kafka_offset,
    -- times: eventTime is the commit, systemTime the read (Tuple: _excute_time_)
    case
        when kind = 'quarantine' or (is_tuple and tuple_op is null) then null
        when is_tuple then {{ datahub_epoch_ms('tuple_time') }} * 1000
        else event_ms * 1000
    end as committed_at_us,
    case when kind != 'quarantine' and not is_tuple then system_ms * 1000 end as read_at_us,
    cast(null as string) as transaction_id,
    cast(null as bigint) as transaction_seq,
    cast(null as boolean) as transaction_last,
    -- the columns the record was written with (names and types), as a short fingerprint
    case
        when (kind = 'change' or control_type = 'update_before_image') and not is_tuple and size(column_specs) > 0
            then concat('columns:', left(sha2(to_json(schema_fields.dataColumn), 256), 16))
    end as schema_version,
    -- identity of a message without a position (re-delivered full-load rows count once, D10)
    case
        when (kind = 'change' or control_type = 'update_before_image') and position is null
            then sha2(
                    to_json(
                        named_struct(
                            'after', case when is_tuple then to_json(after) else to_json(after_columns) end,
                            'before', case when is_tuple then to_json(before) else to_json(before_columns) end,
                            'op', coalesce(tuple_vendor_op, op, to_json(record_fields._operation_type_)),
                            'sequence_id', sequence_id,
                            'source_table', coalesce(blob_table, to_json(record_fields._source_table_))
                        ),
                        map('ignoreNullFields', 'false')
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
from ddl_read
