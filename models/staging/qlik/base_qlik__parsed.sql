{{ config(materialized='cdc_append', cdc_empty_table_columns=cdc_parsed_record_columns()) }}
{{ cdc_skip_unless_newer([ref('base_qlik__landing_records')], '_loaded_at') }}
{{ cdc_require_udfs() }}

-- Qlik Replicate messages flattened in Spark SQL: one row per landing record (record_index 0), a
-- change, a control record or a quarantined record (DECISIONLOG D9, D16). The rules follow
-- tests/pytest/parsers/qlik.py step by step (kept as the oracle of tests/pytest/test_sql_parity.py); value
-- readers are in macros/vendors/qlik_flatten.sql. Seed 003 describes the messages: the atMSG
-- wrapper with "type" MD (metadata: a table version) or DT (data), a bare data message
-- {"data", "beforeData", "headers"}, either as the `value` of a Kafka record wrapper. The hex
-- masks are decoded by the Python function cdc_decode_mask (python_udfs/qlik_masks.py).

with

-- the landing records loaded since the newest this model holds, each read as one JSON document
source as (
    {{ cdc_new_json_records(ref('base_qlik__landing_records')) }}
),

-- a Kafka record wrapper has `value` next to its coordinates and none of the message fields
-- (qlik._is_wrapper; a Kafka record's own `headers` do not count)
{%- set record_fields = "try_cast(record as " ~ qlik_envelope_type('record') ~ ")" %}
records as (
    select
        *,
        {{ record_fields }} as record_fields,
        {{ record_fields }}.value is not null
        and coalesce(
            {{ record_fields }}.topic, {{ record_fields }}.partition, {{ record_fields }}.offset,
            {{ record_fields }}.key, {{ record_fields }}.timestamp
        ) is not null
        and coalesce(
            {{ record_fields }}.magic, {{ record_fields }}.type, {{ record_fields }}.message,
            {{ record_fields }}.messageschemaid, {{ record_fields }}.data, {{ record_fields }}.beforedata
        ) is null as is_wrapper
    from source
),

-- the message: the wrapper's value (an object, or JSON text of one), else the record itself; its
-- text and JSON path are kept for what a variant does not keep, the order of an image's columns
wrapped as (
    select
        *,
        case when is_wrapper then {{ cdc_json_type('record_fields.value') }} end as value_type,
        case when is_wrapper then nullif({{ cdc_json_string('record_fields.topic') }}, '') end as kafka_topic,
        case when is_wrapper then {{ qlik_as_int('record_fields.partition') }} end as kafka_partition,
        case when is_wrapper then {{ qlik_as_int('record_fields.offset') }} end as kafka_offset,
        case when is_wrapper then {{ qlik_kafka_time_us('record_fields.timestamp') }} end as kafka_time_us,
        case
            when is_wrapper and {{ cdc_json_type('record_fields.value') }} = 'string'
                then {{ cdc_strip_bom('cast(record_fields.value as string)') }}
        end as value_text
    from records
),

outers as (
    select
        *,
        case
            when not is_wrapper then record
            when value_type = 'string' then {{ cdc_json_document('value_text') }}
            else record_fields.value
        end as outer_message,
        coalesce(value_text, record_text) as outer_text,
        case when is_wrapper and value_type != 'string' then '$.value' else '$' end as outer_path
    from wrapped
),

-- an atMSG wrapper has magic, type or message; its `message` may be JSON text of an object
{%- set outer_fields = "try_cast(outer_message as " ~ qlik_envelope_type('record') ~ ")" %}
kinds as (
    select
        *,
        {{ outer_fields }} as outer_fields,
        coalesce({{ outer_fields }}.magic, {{ outer_fields }}.type, {{ outer_fields }}.message) is not null as is_atmsg,
        coalesce({{ outer_fields }}.data, {{ outer_fields }}.beforedata, {{ outer_fields }}.headers) is not null as is_data_message,
        upper({{ cdc_strip(cdc_json_string(outer_fields ~ '.type')) }}) as message_type,
        {{ cdc_json_type(outer_fields ~ '.message') }} as inner_type,
        case
            when {{ cdc_json_type(outer_fields ~ '.message') }} = 'string'
                then {{ cdc_strip_bom('cast(' ~ outer_fields ~ '.message as string)') }}
        end as inner_text
    from outers
),

bodies as (
    select
        *,
        case
            when not is_atmsg then outer_message
            when inner_type = 'string' then {{ cdc_json_document('inner_text') }}
            else outer_fields.message
        end as body,
        coalesce(inner_text, outer_text) as body_text,
        case when inner_type = 'string' then '$' when is_atmsg then concat(outer_path, '.message') else outer_path end as body_path,
        -- messageSchemaId: the table version a data message was written with
        case when is_atmsg and not {{ qlik_is_unset('outer_fields.messageschemaid') }} then {{ cdc_json_string('outer_fields.messageschemaid') }} end
            as top_schema_id
    from kinds
),

-- the parts of a message, as the struct types of qlik_envelope_type
{%- set body_fields = "try_cast(body as " ~ qlik_envelope_type('body') ~ ")" %}
fields as (
    select
        *,
        {{ body_fields }} as body_fields,
        try_cast({{ body_fields }}.headers as {{ qlik_envelope_type('headers') }}) as headers_fields,
        try_cast({{ body_fields }}.lineage as {{ qlik_envelope_type('lineage') }}) as lineage_fields,
        {{ cdc_object_fields('try_cast(' ~ body_fields ~ ".tablestructure as " ~ qlik_envelope_type('table_structure') ~ ').tablecolumns') }}
            as table_columns
    from bodies
),

-- metadata message: the table version (qlik._metadata_message)
metadata as (
    select
        *,
        {{ cdc_json_string('lineage_fields.`table`') }} as lineage_table,
        {{ cdc_json_string('lineage_fields.schema') }} as lineage_schema,
        {{ qlik_table_columns('table_columns') }} as metadata_columns,
        case when not {{ qlik_is_unset('body_fields.schemaid') }} then {{ cdc_json_string('body_fields.schemaid') }} end as own_schema_id,
        case
            when {{ cdc_json_type('lineage_fields.tableversion') }} = 'string' then cast(lineage_fields.tableversion as string)
            else {{ qlik_integer_digits('lineage_fields.tableversion') }}
        end as table_version
    from fields
),

-- data message: operation and images (qlik._data_message, _image)
data_messages as (
    select
        *,
        upper({{ cdc_strip(cdc_json_string('headers_fields.operation')) }}) as operation,
        {{ qlik_image('body_fields.data') }} as data_image,
        {{ qlik_image('body_fields.beforedata') }} as before_data_image,
        {{ cdc_json_type('body_fields.data') }} as data_type,
        {{ cdc_json_type('body_fields.beforedata') }} as before_data_type
    from metadata
),

-- a DELETE's row is in beforeData, or in data when beforeData is empty; other operations' row is
-- data, else beforeData. The main image's columns, in message order, are what the masks count.
images as (
    select
        *,
        coalesce(size({{ cdc_object_fields('data_image') }}), 0) > 0 as has_data,
        coalesce(size({{ cdc_object_fields('before_data_image') }}), 0) > 0 as has_before_data
    from data_messages
),

sides as (
    select
        *,
        case
            when operation = 'DELETE' then case when has_before_data then 'beforeData' when has_data then 'data' end
            when has_data then 'data'
            when has_before_data then 'beforeData'
        end as main_side
    from images
),

changes as (
    select
        *,
        json_object_keys(
            case
                when main_side = 'data' and data_type = 'string' then cast(body_fields.data as string)
                when main_side = 'beforeData' and before_data_type = 'string' then cast(body_fields.beforedata as string)
                else get_json_object(body_text, concat(body_path, '.', main_side))
            end
        ) as column_order,
        {{ qlik_own_table('body_fields', 'headers_fields') }} as own_table,
        case when not {{ qlik_is_unset('headers_fields.externalschemaid') }} then {{ cdc_json_string('headers_fields.externalschemaid') }} end
            as external_schema_id,
        {{ qlik_change_sequence_digits('headers_fields.changesequence') }} as sequence_digits,
        {{ qlik_as_int('headers_fields.transactioneventcounter') }} as event_counter,
        {{ qlik_committed_at_us('headers_fields.timestamp') }} as committed_at_us,
        case
            when {{ cdc_json_type('headers_fields.transactionid') }} = 'string' then cast(headers_fields.transactionid as string)
            else {{ qlik_integer_digits('headers_fields.transactionid') }}
        end as transaction_id_text
    from sides
),

-- the hex masks, read only for data messages (a Python function: the rules of qlik_masks.py)
masks as (
    select
        *,
        cdc_decode_mask(
            case when is_data_message or message_type = 'DT' then to_json(headers_fields.columnmask) end, size(column_order)
        ) as column_mask,
        cdc_decode_mask(
            case when is_data_message or message_type = 'DT' then to_json(headers_fields.changemask) end, size(column_order)
        ) as change_mask
    from changes
),

-- what the record is, decided in the order tests/pytest/parsers/qlik.py decides it (D9)
decided as (
    select
        *,
        case
            when read_error is not null then named_struct('kind', 'quarantine', 'code', 'unreadable_file', 'detail', left(read_error, 2000))
            when {{ cdc_is_blank('record_text') }}
                then named_struct('kind', 'quarantine', 'code', 'empty_record', 'detail', 'the record is empty or whitespace only')
            when record is null
                then named_struct('kind', 'quarantine', 'code', 'invalid_json', 'detail', 'the record is not one valid JSON document')
            when record_fields is null
                then named_struct('kind', 'quarantine', 'code', 'not_an_object', 'detail', concat('the record is a JSON ', {{ cdc_json_type('record') }}, ', not an object'))
            -- Kafka record wrapper: a null value is a tombstone
            when value_type = 'string' and {{ cdc_is_blank('value_text') }}
                then named_struct('kind', 'quarantine', 'code', 'empty_record', 'detail', 'the Kafka record value is empty or whitespace only')
            when value_type = 'string' and outer_message is null
                then named_struct('kind', 'quarantine', 'code', 'invalid_json', 'detail', 'the Kafka record value is not one valid JSON document')
            when is_variant_null(outer_message) then named_struct('kind', 'control', 'code', 'tombstone', 'detail', null)
            when outer_fields is null
                then named_struct('kind', 'quarantine', 'code', 'not_an_object', 'detail', concat('the Kafka record value is a JSON ', {{ cdc_json_type('outer_message') }}, ', not an object'))
            -- the atMSG wrapper (qlik._wrapped_message)
            when is_atmsg and not (
                    outer_fields.magic is null or is_variant_null(outer_fields.magic)
                    or coalesce({{ cdc_json_string('outer_fields.magic') }} = 'atMSG', false)
                )
                then named_struct('kind', 'quarantine', 'code', 'unknown_message', 'detail', concat('magic is ', left(to_json(outer_fields.magic), 80), ', not \'atMSG\''))
            when is_atmsg and coalesce(message_type not in ('MD', 'DT'), true)
                then named_struct('kind', 'quarantine', 'code', 'unknown_message_type', 'detail', concat('message type is ', coalesce(left(to_json(outer_fields.type), 80), 'missing'), ', expected \'MD\' or \'DT\''))
            when is_atmsg and inner_type = 'string' and {{ cdc_is_blank('inner_text') }}
                then named_struct('kind', 'quarantine', 'code', 'empty_record', 'detail', 'the message is empty or whitespace only')
            when is_atmsg and inner_type = 'string' and body is null
                then named_struct('kind', 'quarantine', 'code', 'invalid_json', 'detail', 'the message is not one valid JSON document')
            when is_atmsg and body_fields is null
                then named_struct('kind', 'quarantine', 'code', 'missing_message', 'detail', concat('the ', message_type, ' message\'s \'message\' is a JSON ', coalesce({{ cdc_json_type('body') }}, 'null'), ', not an object'))
            when is_atmsg and not {{ qlik_is_unset('outer_fields.messageschemaid') }} and top_schema_id is null
                then named_struct('kind', 'quarantine', 'code', 'wrong_type', 'detail', concat('messageSchemaId is a JSON ', {{ cdc_json_type('outer_fields.messageschemaid') }}, ', not a string'))
            when not is_atmsg and not is_data_message
                then named_struct('kind', 'quarantine', 'code', 'unknown_message', 'detail', concat(
                        'the object is neither an atMSG message (magic/type/message) nor a data message (data/beforeData/headers); keys: ',
                        array_join(slice(sort_array(map_keys({{ cdc_object_fields('outer_message') }})), 1, 20), ', ')
                    ))
            -- metadata message (qlik._metadata_message)
            when message_type = 'MD' and lineage_fields is null
                then named_struct('kind', 'quarantine', 'code', 'invalid_metadata', 'detail', 'metadata message has no \'lineage\' object')
            when message_type = 'MD' and lineage_fields.`table` is not null and not is_variant_null(lineage_fields.`table`) and lineage_table is null
                then named_struct('kind', 'quarantine', 'code', 'invalid_metadata', 'detail', concat('lineage.table is a JSON ', {{ cdc_json_type('lineage_fields.`table`') }}, ', not a string'))
            when message_type = 'MD' and coalesce(lineage_table, '') = ''
                then named_struct('kind', 'quarantine', 'code', 'invalid_metadata', 'detail', 'metadata message has no lineage.table')
            when message_type = 'MD' and lineage_fields.schema is not null and not is_variant_null(lineage_fields.schema) and lineage_schema is null
                then named_struct('kind', 'quarantine', 'code', 'invalid_metadata', 'detail', concat('lineage.schema is a JSON ', {{ cdc_json_type('lineage_fields.schema') }}, ', not a string'))
            when message_type = 'MD' and coalesce(size(table_columns), 0) <= 0
                then named_struct('kind', 'quarantine', 'code', 'invalid_metadata', 'detail', 'metadata message has no tableStructure.tableColumns object')
            when message_type = 'MD' and exists(metadata_columns, table_column -> table_column.spec is null)
                then named_struct('kind', 'quarantine', 'code', 'invalid_metadata', 'detail', concat(
                        'a column is not an object: ', array_join(transform(filter(metadata_columns, table_column -> table_column.spec is null), table_column -> table_column.name), ', ')
                    ))
            when message_type = 'MD' and exists(metadata_columns, table_column -> coalesce(table_column.ordinal < 1, true))
                then named_struct('kind', 'quarantine', 'code', 'invalid_metadata', 'detail', concat(
                        'a column has no ordinal of 1 or more: ',
                        array_join(transform(filter(metadata_columns, table_column -> coalesce(table_column.ordinal < 1, true)), table_column -> table_column.name), ', ')
                    ))
            when message_type = 'MD' and size(array_distinct(metadata_columns.ordinal)) != size(metadata_columns)
                then named_struct('kind', 'quarantine', 'code', 'invalid_metadata', 'detail', concat('tableColumns repeat an ordinal: ', array_join(metadata_columns.ordinal, ', ')))
            when message_type = 'MD' and not {{ qlik_is_unset('body_fields.schemaid') }} and own_schema_id is null
                then named_struct('kind', 'quarantine', 'code', 'invalid_metadata', 'detail', concat('schemaId is a JSON ', {{ cdc_json_type('body_fields.schemaid') }}, ', not a string'))
            when message_type = 'MD' and lineage_fields.tableversion is not null and not is_variant_null(lineage_fields.tableversion) and table_version is null
                then named_struct('kind', 'quarantine', 'code', 'invalid_metadata', 'detail', concat('lineage.tableVersion is a JSON ', {{ cdc_json_type('lineage_fields.tableversion') }}))
            when message_type = 'MD' then named_struct('kind', 'control', 'code', 'table_version', 'detail', null)
            -- data message (qlik._data_message)
            when headers_fields is null
                then named_struct('kind', 'quarantine', 'code', 'missing_headers', 'detail', concat('the data message\'s headers are a JSON ', coalesce({{ cdc_json_type('body_fields.headers') }}, 'null'), ', not an object'))
            when coalesce({{ cdc_is_blank('operation') }}, true)
                then named_struct('kind', 'quarantine', 'code', 'unknown_op', 'detail', concat('headers.operation is ', coalesce(left(to_json(headers_fields.operation), 80), 'missing'), ', not an operation name'))
            when data_type = 'string' and data_image is null and left({{ cdc_strip(cdc_json_string('body_fields.data')) }}, 1) = '{'
                then named_struct('kind', 'quarantine', 'code', 'invalid_json', 'detail', 'the data is not valid JSON')
            when data_type not in ('null', 'object') and data_image is null
                then named_struct('kind', 'quarantine', 'code', 'wrong_type', 'detail', concat('data is a JSON ', data_type, ', expected an object or null'))
            when before_data_type = 'string' and before_data_image is null and left({{ cdc_strip(cdc_json_string('body_fields.beforedata')) }}, 1) = '{'
                then named_struct('kind', 'quarantine', 'code', 'invalid_json', 'detail', 'the beforeData is not valid JSON')
            when before_data_type not in ('null', 'object') and before_data_image is null
                then named_struct('kind', 'quarantine', 'code', 'wrong_type', 'detail', concat('beforeData is a JSON ', before_data_type, ', expected an object or null'))
            when operation = 'DELETE' and main_side is null
                then named_struct('kind', 'quarantine', 'code', 'missing_image', 'detail', 'DELETE has neither \'beforeData\' nor \'data\'')
            when operation in ('INSERT', 'UPDATE', 'REFRESH') and not has_data
                then named_struct('kind', 'quarantine', 'code', 'missing_image', 'detail', concat(operation, ' has no \'data\' image'))
            when main_side is null
                then named_struct('kind', 'quarantine', 'code', 'missing_image', 'detail', concat('operation \'', operation, '\' has neither \'data\' nor \'beforeData\''))
            when top_schema_id is null and not {{ qlik_is_unset('headers_fields.externalschemaid') }} and external_schema_id is null
                then named_struct('kind', 'quarantine', 'code', 'wrong_type', 'detail', concat('headers.externalSchemaId is a JSON ', {{ cdc_json_type('headers_fields.externalschemaid') }}, ', not a string'))
            when own_table is null and coalesce(top_schema_id, external_schema_id) is null and kafka_topic is null
                then named_struct('kind', 'quarantine', 'code', 'unknown_table', 'detail', 'the data message names no table, has no messageSchemaId or externalSchemaId, and came without a Kafka topic')
            when operation != 'REFRESH' and not {{ qlik_is_unset('headers_fields.changesequence') }} and coalesce(length(sequence_digits) > 56, true)
                then named_struct('kind', 'quarantine', 'code', 'invalid_position', 'detail', concat('headers.changeSequence ', left(to_json(headers_fields.changesequence), 80), ' is not a string of at most 56 decimal digits'))
            -- the position includes the event counter, so it is checked here first (qlik._position)
            when
                operation != 'REFRESH' and not {{ qlik_is_unset('headers_fields.changesequence') }}
                and not {{ qlik_is_unset('headers_fields.transactioneventcounter') }} and coalesce(event_counter < 0, true)
                then named_struct('kind', 'quarantine', 'code', 'invalid_position', 'detail', concat('headers.transactionEventCounter ', left(to_json(headers_fields.transactioneventcounter), 80), ' is not a count'))
            when not {{ qlik_is_unset('headers_fields.timestamp') }} and not {{ qlik_is_spark_time('committed_at_us') }}
                then named_struct('kind', 'quarantine', 'code', 'invalid_timestamp', 'detail', concat('headers.timestamp ', left(to_json(headers_fields.timestamp), 80), ' is not a time between the years 1 and 9999'))
            when not {{ qlik_is_unset('headers_fields.transactionid') }} and transaction_id_text is null
                then named_struct('kind', 'quarantine', 'code', 'wrong_type', 'detail', concat('headers.transactionId is a JSON ', {{ cdc_json_type('headers_fields.transactionid') }}, ', not a string'))
            when not {{ qlik_is_unset('headers_fields.transactioneventcounter') }} and coalesce(event_counter < 0, true)
                then named_struct('kind', 'quarantine', 'code', 'invalid_position', 'detail', concat('headers.transactionEventCounter ', left(to_json(headers_fields.transactioneventcounter), 80), ' is not a count'))
            when column_mask.problem is not null
                then named_struct('kind', 'quarantine', 'code', 'invalid_column_mask', 'detail', concat('headers.columnMask: ', column_mask.problem))
            when change_mask.problem is not null
                then named_struct('kind', 'quarantine', 'code', 'invalid_column_mask', 'detail', concat('headers.changeMask: ', change_mask.problem))
            else named_struct('kind', 'change', 'code', 'change', 'detail', null)
        end as outcome
    from masks
),

-- the change's position: none for full-load (REFRESH) rows, which lose to any CDC change
positioned as (
    select
        *,
        case
            when outcome.kind = 'change' and operation != 'REFRESH' and not {{ qlik_is_unset('headers_fields.changesequence') }}
                then {{ qlik_position('sequence_digits', 'event_counter') }}
        end as position
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
    outcome.kind,
    case when outcome.kind = 'quarantine' then outcome.code end as reason,
    outcome.detail,
    case when outcome.kind = 'control' then outcome.code end as control_type,
    case
        when outcome.code = 'tombstone'
            then to_json(named_struct('key', record_fields.key, 'topic', kafka_topic), map('ignoreNullFields', 'false'))
        when outcome.code = 'table_version'
            then to_json(
                    named_struct(
                        'schema_id', coalesce(own_schema_id, top_schema_id),
                        'server', lineage_fields.server,
                        'task', lineage_fields.task,
                        'schema', nullif(lineage_schema, ''),
                        'table', lineage_table,
                        'source_table', {{ qlik_qualified('lineage_schema', 'lineage_table') }},
                        'table_version', lineage_fields.tableversion,
                        'timestamp', lineage_fields.timestamp,
                        'columns', transform(metadata_columns, table_column -> {{ qlik_column_document('table_column') }})
                    ),
                    map('ignoreNullFields', 'false')
                )
    end as control_json,
    -- the change (Qlik does not say which database it reads)
    case when outcome.kind = 'change' then operation end as vendor_op,
    cast(null as string) as source_engine,
    case
        when outcome.code = 'table_version' then {{ qlik_qualified('lineage_schema', 'lineage_table') }}
        when outcome.kind = 'change' then own_table
    end as source_table,
    cast(null as map<string, string>) as key,  -- noqa: LT01
    case
        when outcome.kind != 'change' then null
        when operation = 'DELETE' and main_side = 'data' then {{ qlik_column_texts('data_image') }}
        else {{ qlik_column_texts('before_data_image') }}
    end as before,
    case when outcome.kind = 'change' and operation != 'DELETE' then {{ qlik_column_texts('data_image') }} end as after,
    cast(null as array<string>) as changed_columns,
    position,
    -- Kafka coordinates
    case when outcome.kind != 'quarantine' then kafka_topic end as kafka_topic,
    case when outcome.kind != 'quarantine' then kafka_partition end as kafka_partition,
    case when outcome.kind != 'quarantine' then kafka_offset end as kafka_offset,
    -- times, transaction
    case when outcome.kind = 'change' then committed_at_us end as committed_at_us,
    case when outcome.kind = 'change' then kafka_time_us end as read_at_us,
    case when outcome.kind = 'change' then nullif(transaction_id_text, '') end as transaction_id,
    case when outcome.kind = 'change' then event_counter end as transaction_seq,
    case when outcome.kind = 'change' then {{ qlik_boolean('headers_fields.transactionlastevent') }} end as transaction_last,
    case when outcome.code = 'table_version' then table_version end as schema_version,
    -- identity of a change without a position (re-delivered full-load rows count once, D10)
    case
        when outcome.kind = 'change' and position is null
            then sha2(
                    to_json(
                        named_struct('beforeData', body_fields.beforedata, 'data', body_fields.data, 'operation', headers_fields.operation),
                        map('ignoreNullFields', 'false')
                    ),
                    256
                )
    end as content_hash,
    -- the table version: a metadata message's schemaId, a data message's messageSchemaId or externalSchemaId
    case
        when outcome.code = 'table_version' then coalesce(own_schema_id, top_schema_id)
        when outcome.kind = 'change' then coalesce(top_schema_id, external_schema_id)
    end as schema_ref,
    case
        when outcome.code = 'table_version' then metadata_columns.name
        when outcome.kind = 'change' then column_order
    end as column_order,
    case when outcome.kind = 'change' then column_mask.ordinals end as captured_ordinals,
    case when outcome.kind = 'change' then change_mask.ordinals end as changed_ordinals,
    -- lineage
    raw,
    _loaded_at,
    current_timestamp() as _parsed_at,
    '{{ invocation_id }}' as _run_id
from positioned
