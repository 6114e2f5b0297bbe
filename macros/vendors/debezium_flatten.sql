{#- Debezium flattening in Spark SQL: the envelope types and value decoders of
    models/staging/debezium/base_debezium__parsed.sql. tests/pytest/parsers/debezium.py is the
    specification; each macro names the function it follows. Values are VARIANT (parsed once by
    try_parse_json) and come out as JSON text (DECISIONLOG D2). Every macro returns one SQL
    expression and reads no table. Arguments are SQL expressions; where a macro repeats an
    argument, pass a column or a struct field, not a computation. -#}

{#- Fails when a required argument is missing, saying what to write instead. -#}
{% macro _debezium_require(macro_name, arguments, example) %}
    {%- for name, value in arguments.items() if value is none -%}
        {%- set msg -%}
{{ macro_name }}: argument '{{ name }}' is missing. Write it like: {{ example }}
        {%- endset -%}
        {{ exceptions.raise_compiler_error(msg) }}
    {%- endfor -%}
{% endmacro %}

{#- ---------------------------------------------------------------------------------------------
    The envelope, declared once: the fields a record, a message, a payload, its source block and a
    Connect schema may have. A value whose JSON type decides something stays VARIANT; a missing
    field is SQL null, a JSON null a variant null. try_cast(<variant> as <type>) is null when the
    value is not an object.
-#}
{% macro debezium_envelope_type(part) %}
    {%- set connect_field = 'field: string, name: string, type: variant, parameters: variant' -%}
    {%- set types = {
        'record': 'struct<topic: variant, partition: variant, offset: variant, key: variant, timestamp: variant, value: variant, '
            ~ 'payload: variant, op: variant, before: variant, after: variant, source: variant>',
        'message': 'struct<schema: variant, payload: variant>',
        'payload': 'struct<op: variant, before: variant, after: variant, source: variant, ts_ms: variant, ts_us: variant, ts_ns: variant, '
            ~ 'transaction: struct<id: variant, total_order: variant>, updateDescription: struct<updatedFields: variant, removedFields: variant>, '
            ~ 'status: variant, id: variant>',
        'source': 'struct<connector: variant, db: variant, schema: variant, `table`: variant, collection: variant, txId: variant, '
            ~ 'ts_ms: variant, ts_us: variant, ts_ns: variant, file: variant, pos: variant, row: variant, lsn: variant, sequence: variant, '
            ~ 'scn: variant, commit_scn: variant, rs_id: variant, ssn: variant, change_lsn: variant, commit_lsn: variant, '
            ~ 'event_serial_no: variant, ord: variant>',
        'schema': 'struct<name: variant, fields: array<struct<' ~ connect_field ~ ', fields: array<struct<' ~ connect_field ~ '>>>>>',
    } -%}
    {%- if part not in types -%}
        {%- set msg -%}
debezium_envelope_type: part '{{ part }}' is unknown. Write one of: {{ types.keys() | list | join(', ') }}, e.g. debezium_envelope_type('payload').
        {%- endset -%}
        {{ exceptions.raise_compiler_error(msg) }}
    {%- endif -%}
    {{ types[part] }}
{%- endmacro %}

{#- ---------------------------------------------------------------------------------------------
    JSON documents and values
-#}

{#- How many fields an object has (null unless an object). -#}
{% macro debezium_field_count(value) %}
    {{- _debezium_require('debezium_field_count', {'value': value}, "debezium_field_count('message')") -}}
    size(try_cast({{ value }} as map<string, variant>))
{%- endmacro %}

{#- A non-empty JSON string's text, else null (debezium._text_part). -#}
{% macro debezium_text_part(value) %}
    {{- _debezium_require('debezium_text_part', {'value': value}, "debezium_text_part('source_fields.table')") -}}
    case when schema_of_variant({{ value }}) = 'STRING' then nullif(cast({{ value }} as string), '') end
{%- endmacro %}

{#- A whole number as bigint from a JSON integer or a text of digits, else null (debezium._as_int). -#}
{% macro debezium_as_int(value) %}
    {{- _debezium_require('debezium_as_int', {'value': value}, "debezium_as_int('source_fields.ts_ms')") -}}
    case
        when to_json({{ value }}) rlike '^-?[0-9]+$' then try_cast(to_json({{ value }}) as bigint)
        when to_json({{ value }}) rlike '^"\\s*-?[0-9]+\\s*"$' then try_cast(trim(cast({{ value }} as string)) as bigint)
    end
{%- endmacro %}

{#- A value as text: a string as itself, anything else as JSON; null when absent or JSON null
    (debezium._as_text: positions, transaction ids). -#}
{% macro debezium_as_text(value) %}
    {{- _debezium_require('debezium_as_text', {'value': value}, "debezium_as_text('source_fields.scn')") -}}
    case
        when {{ value }} is null or is_variant_null({{ value }}) then null
        when schema_of_variant({{ value }}) = 'STRING' then cast({{ value }} as string)
        else to_json({{ value }})
    end
{%- endmacro %}

{#- The named fields of a struct of variants as map<string,string> of text, absent and null fields
    left out (debezium._texts: a connector position). -#}
{% macro debezium_texts(block, names) %}
    {{- _debezium_require('debezium_texts', {'block': block, 'names': names}, "debezium_texts('source_fields', ['lsn', 'sequence'])") -}}
    map_filter(
        map(
            {%- for name in names %}
            '{{ name }}', {{ debezium_as_text(block ~ "." ~ name) }}{% if not loop.last %},{% endif %}
            {%- endfor %}
        ),
        (field_name, field_text) -> field_text is not null
    )
{%- endmacro %}

{#- Epoch microseconds from the most precise non-zero of ts_us / ts_ns / ts_ms, each a bigint
    from debezium_as_int (debezium._epoch_us; nanoseconds floor-divided). -#}
{% macro debezium_epoch_us(ts_us, ts_ns, ts_ms) %}
    {{- _debezium_require('debezium_epoch_us', {'ts_us': ts_us, 'ts_ns': ts_ns, 'ts_ms': ts_ms}, "debezium_epoch_us('source_ts_us', 'source_ts_ns', 'source_ts_ms')") -}}
    case
        when {{ ts_us }} != 0 then {{ ts_us }}
        when {{ ts_ns }} != 0 then ({{ ts_ns }} - pmod({{ ts_ns }}, 1000)) div 1000
        when {{ ts_ms }} != 0 then {{ ts_ms }} * 1000
    end
{%- endmacro %}

{#- A connector name as the contract's engine: trimmed, lower case, `postgres` -> `postgresql`
    (debezium._normal_engine). -#}
{% macro debezium_engine_name(name) %}
    {{- _debezium_require('debezium_engine_name', {'name': name}, "debezium_engine_name('connector_name')") -}}
    case
        when lower({{ cdc_strip(name) }}) = 'postgres' then 'postgresql'
        else lower({{ cdc_strip(name) }})
    end
{%- endmacro %}

{#- '<logical server>.<schema>.<table><suffix>' -> '<schema>.<table>', else null
    (debezium._strip_logical_name: at least two non-empty dot-separated parts). -#}
{% macro debezium_logical_table(name, suffix) %}
    {{- _debezium_require('debezium_logical_table', {'name': name, 'suffix': suffix}, "debezium_logical_table('schema_version', suffix='.Value')") -}}
    nullif(regexp_extract({{ name }}, '^[^.]+\\.([^.]+(?:\\.[^.]+)*){{ suffix | replace('.', '\\\\.') }}$', 1), '')
{%- endmacro %}

{#- A text as a JSON string; only for texts without quotes or backslashes (numbers, dates). -#}
{% macro _debezium_quoted(text) %}
    concat('"', {{ text }}, '"')
{%- endmacro %}

{#- The control JSON of a Kafka tombstone: {"key": <key columns or null>, "topic": <topic or null>}
    (debezium._tombstone). -#}
{% macro debezium_tombstone_json(key_columns, topic) %}
    {{- _debezium_require('debezium_tombstone_json', {'key_columns': key_columns, 'topic': topic}, "debezium_tombstone_json('kafka_key_columns', 'kafka_topic')") -}}
    concat(
        '{"key":', coalesce({{ cdc_json_object(key_columns) }}, 'null'),
        ',"topic":', coalesce(to_json(cast({{ topic }} as variant)), 'null'), '}'
    )
{%- endmacro %}

{#- The top-level columns a MongoDB update description names, updated fields then removed ones,
    in message order, or null (debezium._changed_columns). `updatedFields` may be an object or
    JSON text of one; an object's keys are read from the message text at `payload_path` (a
    variant keeps its keys sorted). -#}
{% macro debezium_changed_columns(update_description, message_text, payload_path) %}
    {{- _debezium_require('debezium_changed_columns', {'update_description': update_description, 'message_text': message_text, 'payload_path': payload_path}, "debezium_changed_columns('payload_fields.updatedescription', 'message_text', 'payload_path')") -}}
    {%- set updated = update_description ~ '.updatedfields' -%}
    case
        when {{ update_description }} is not null then nullif(array_distinct(transform(
            concat(
                coalesce(case
                    when {{ cdc_json_type(updated) }} = 'string' then json_object_keys(cast({{ updated }} as string))
                    when {{ cdc_json_type(updated) }} = 'object'
                        then json_object_keys(get_json_object({{ message_text }}, concat({{ payload_path }}, '.updateDescription.updatedFields')))
                end, array()),
                coalesce(transform(
                    filter(try_cast({{ update_description }}.removedfields as array<variant>), removed_field -> schema_of_variant(removed_field) = 'STRING'),
                    removed_field -> cast(removed_field as string)
                ), array())
            ),
            field_path -> split(field_path, '\\.')[0]
        )), array())
    end
{%- endmacro %}

{#- ---------------------------------------------------------------------------------------------
    Connect schemas: fields by name
-#}

{#- A Connect schema's `fields` (an array of structs, debezium_envelope_type('schema')) as a map by
    field name; fields without a name are left out, a name listed twice keeps its last field,
    like a python dict (debezium._field_map). -#}
{% macro debezium_field_map(fields) %}
    {{- _debezium_require('debezium_field_map', {'fields': fields}, "debezium_field_map('connect_schema.fields')") -}}
    transform(
        -- let field_list = the fields that have a name
        array(filter({{ fields }}, connect_field -> connect_field.field is not null)),
        field_list -> case
            when size(array_distinct(transform(field_list, connect_field -> connect_field.field))) = size(field_list)
                then map_from_entries(transform(field_list, connect_field -> struct(connect_field.field, connect_field)))
            else map_from_entries(transform(
                filter(
                    field_list,
                    (connect_field, field_no) -> size(filter(
                        field_list,
                        (later_field, later_no) -> later_no > field_no and later_field.field = connect_field.field
                    )) = 0
                ),
                connect_field -> struct(connect_field.field, connect_field)
            ))
        end
    )[0]
{%- endmacro %}

{#- The logical types debezium._LOGICAL_TYPES converts. -#}
{% macro _debezium_logical_type_names() %}
    {{- return([
        'org.apache.kafka.connect.data.Decimal', 'io.debezium.data.VariableScaleDecimal',
        'io.debezium.time.Date', 'org.apache.kafka.connect.data.Date',
        'io.debezium.time.Timestamp', 'org.apache.kafka.connect.data.Timestamp',
        'io.debezium.time.MicroTimestamp', 'io.debezium.time.NanoTimestamp', 'io.debezium.time.ZonedTimestamp',
        'io.debezium.time.Time', 'org.apache.kafka.connect.data.Time', 'io.debezium.time.MicroTime',
        'io.debezium.time.NanoTime']) -}}
{% endmacro %}

{#- Only the fields with a logical type this project converts, as map<string, struct<name, type,
    parameters>> (the other columns keep their value). -#}
{% macro debezium_logical_fields(field_map) %}
    {{- _debezium_require('debezium_logical_fields', {'field_map': field_map}, "debezium_logical_fields('schema_fields')") -}}
    transform_values(
        map_filter(
            {{ field_map }},
            (field_name, connect_field) -> connect_field.name in ('{{ _debezium_logical_type_names() | join("', '") }}')
        ),
        (field_name, connect_field) -> named_struct('name', connect_field.name, 'type', connect_field.type, 'parameters', connect_field.parameters)
    )
{%- endmacro %}

{#- ---------------------------------------------------------------------------------------------
    Row images as column -> JSON text (debezium._convert_row), in three flat steps:
    1. debezium_column_texts / debezium_mongo_column_texts: each value as JSON text;
    2. debezium_decode_requests / debezium_mongo_date_requests: the values a logical type or a
       MongoDB $date converts, then debezium_decode_readings, _digits, _json on each request;
    3. debezium_decoded_columns: the decoded values put back in place.
-#}

{#- The placeholder PostgreSQL sends for TOASTed columns it did not read, as JSON text: plain,
    base64, or as the only element of an array (debezium._unavailable). -#}
{% macro _debezium_is_unavailable(json_text) %}
    {{ json_text }} in (
        '"__debezium_unavailable_value"', '"X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ=="',
        '["__debezium_unavailable_value"]', '["X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ=="]'
    )
{%- endmacro %}

{#- A row image (a variant object, else null) as map<string,string> of JSON text, unavailable
    values left out. -#}
{% macro debezium_column_texts(image) %}
    {{- _debezium_require('debezium_column_texts', {'image': image}, "debezium_column_texts('after_document')") -}}
    map_filter(
        transform_values(try_cast({{ image }} as map<string, variant>), (column_name, column_value) -> to_json(column_value)),
        (column_name, column_json) -> not {{ _debezium_is_unavailable('column_json') }}
    )
{%- endmacro %}

{#- A MongoDB document (variant object) as map<string,string> of plain JSON text, extended JSON
    decoded at any depth (debezium._decode_extended): {"$oid"}, {"$numberDecimal"} -> string;
    {"$numberLong"}, {"$numberInt"}, {"$numberDouble"} -> number (NaN and infinities as the
    strings python writes). {"$date"} is decoded by the request steps. A wrapper whose value does
    not decode, and unknown wrappers, stay documents. The patterns start with `{"$`, which cannot
    occur inside a JSON string (its quotes are escaped). -#}
{% macro debezium_mongo_column_texts(document) %}
    {{- _debezium_require('debezium_mongo_column_texts', {'document': document}, "debezium_mongo_column_texts('after_document')") -}}
    map_filter(
        transform_values(
            try_cast({{ document }} as map<string, variant>),
            (column_name, column_value) -> regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
                to_json(column_value),
                '\\{"\\$(?:oid|numberDecimal)":("(?:[^"\\\\]|\\\\.)*")\\}', '$1'),
                '\\{"\\$number(?:Long|Int)":"\\s*(?:(-)|\\+)?0*([0-9]+)\\s*"\\}', '$1$2'),
                '\\{"\\$numberDouble":"\\s*(-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\\s*"\\}', '$1'),
                '\\{"\\$numberDouble":"\\s*[-+]?(?i:nan)\\s*"\\}', '"NaN"'),
                '\\{"\\$numberDouble":"\\s*\\+?(?i:inf|infinity)\\s*"\\}', '"Infinity"'),
                '\\{"\\$numberDouble":"\\s*-(?i:inf|infinity)\\s*"\\}', '"-Infinity"')
        ),
        (column_name, column_json) -> not {{ _debezium_is_unavailable('column_json') }}
    )
{%- endmacro %}

{#- The Kafka key of the MongoDB connector, {"id": "<extended JSON of _id>"}, as the document
    {"_id": <that JSON, else the text>} (debezium._key_columns); null for any other key. -#}
{% macro debezium_mongo_key_document(key_payload) %}
    {{- _debezium_require('debezium_mongo_key_document', {'key_payload': key_payload}, "debezium_mongo_key_document('key_payload')") -}}
    case
        when {{ debezium_field_count(key_payload) }} = 1 and schema_of_variant(variant_get({{ key_payload }}, '$.id')) = 'STRING'
            then parse_json(concat(
                '{"_id":',
                coalesce(
                    to_json({{ cdc_json_document("variant_get(" ~ key_payload ~ ", '$.id', 'string')") }}),
                    to_json(variant_get({{ key_payload }}, '$.id'))
                ),
                '}'
            ))
    end
{%- endmacro %}

{#- {"$date": <epoch ms> | "<ISO-8601 with offset>" | {"$numberLong": "<ms>"}}; group 1 is the inner value. -#}
{% macro _debezium_mongo_date_pattern() -%}
    '\\{"\\$date":(-?[0-9]{1,38}|"[^"\\\\]*"|\\{"\\$numberLong":"[^"\\\\]*"\\})\\}'
{%- endmacro %}

{#- The decode requests of one image: the columns whose Connect field has a logical type, as
    array<struct<side, column_name, type, json, field_type, parameters>>. -#}
{% macro debezium_decode_requests(side, column_texts, logical_fields) %}
    {{- _debezium_require('debezium_decode_requests', {'side': side, 'column_texts': column_texts, 'logical_fields': logical_fields}, "debezium_decode_requests(2, 'after_texts', 'after_logical_fields')") -}}
    transform(
        filter(coalesce(map_entries({{ column_texts }}), array()), column_entry -> {{ logical_fields }}[column_entry.key] is not null),
        column_entry -> named_struct(
            'side', {{ side }},
            'column_name', column_entry.key,
            'type', {{ logical_fields }}[column_entry.key].name,
            'json', column_entry.value,
            'field_type', {{ logical_fields }}[column_entry.key].type,
            'parameters', {{ logical_fields }}[column_entry.key].parameters
        )
    )
{%- endmacro %}

{#- The decode requests of a MongoDB image: every {"$date": ...} inside its values, in order; `json`
    is the date's inner value. -#}
{% macro debezium_mongo_date_requests(side, column_texts) %}
    {{- _debezium_require('debezium_mongo_date_requests', {'side': side, 'column_texts': column_texts}, "debezium_mongo_date_requests(2, 'after_texts')") -}}
    flatten(transform(
        filter(coalesce(map_entries({{ column_texts }}), array()), column_entry -> instr(column_entry.value, '{"$date":') > 0),
        column_entry -> transform(
            regexp_extract_all(column_entry.value, {{ _debezium_mongo_date_pattern() }}, 1),
            date_value -> named_struct(
                'side', {{ side }},
                'column_name', column_entry.key,
                'type', 'mongodb.date',
                'json', date_value,
                'field_type', cast(null as variant),
                'parameters', cast(null as variant)
            )
        )
    ))
{%- endmacro %}

{#- Step 1, what a request's value reads as: a whole number, a plain text, units per second of a
    time type, the parts of an ISO-8601 text with an offset, and for decimals the scale, the base64
    digits or a number (a Decimal written as a number goes through a double, like python). -#}
{% macro debezium_decode_readings(request) %}
    {{- _debezium_require('debezium_decode_readings', {'request': request}, "transform(decode_requests, request -> debezium_decode_readings('request'))") -}}
    named_struct(
        'request', {{ request }},
        'whole', case
            when {{ request }}.json rlike '^-?[0-9]{1,38}$' then cast({{ request }}.json as decimal(38, 0))
            when {{ request }}.type = 'mongodb.date'
                then cast(trim(regexp_extract({{ request }}.json, '^\\{"\\$numberLong":"\\s*([-+]?[0-9]{1,38})\\s*"\\}$', 1)) as decimal(38, 0))
        end,
        'per_second', case
            when {{ request }}.type like 'io.debezium.time.Micro%' then cast(1000000 as bigint)
            when {{ request }}.type like 'io.debezium.time.Nano%' then cast(1000000000 as bigint)
            else cast(1000 as bigint)
        end,
        'zoned', case
            when {{ request }}.type in ('io.debezium.time.ZonedTimestamp', 'mongodb.date')
                and {{ request }}.json rlike {{ _debezium_zoned_pattern('"', '"') }}
                then split(regexp_replace({{ request }}.json, {{ _debezium_zoned_pattern('"', '"') }}, '$1|$2|$3|$4|$5|$6|$7|$8'), '\\|')
        end,
        'scale', case
            when {{ request }}.type = 'io.debezium.data.VariableScaleDecimal'
                and to_json(variant_get(try_parse_json({{ request }}.json), '$.scale')) rlike '^-?[0-9]{1,5}$'
                then cast(to_json(variant_get(try_parse_json({{ request }}.json), '$.scale')) as int)
            when {{ request }}.type != 'org.apache.kafka.connect.data.Decimal' then null
            -- the `scale` parameter: 0 when not given, null when not a whole number
            when variant_get({{ request }}.parameters, '$.scale') is null then 0
            when to_json(variant_get({{ request }}.parameters, '$.scale')) rlike '^-?[0-9]{1,9}$'
                then cast(to_json(variant_get({{ request }}.parameters, '$.scale')) as int)
            when to_json(variant_get({{ request }}.parameters, '$.scale')) rlike '^"\\s*[-+]?[0-9]{1,9}\\s*"$'
                then cast(trim(variant_get({{ request }}.parameters, '$.scale', 'string')) as int)
        end,
        'base64', case
            when {{ request }}.type = 'io.debezium.data.VariableScaleDecimal'
                and schema_of_variant(variant_get(try_parse_json({{ request }}.json), '$.value')) = 'STRING'
                then variant_get(try_parse_json({{ request }}.json), '$.value', 'string')
            -- decimal.handling.mode=string writes text into a string-typed field: kept as sent
            when {{ request }}.type = 'org.apache.kafka.connect.data.Decimal'
                and ({{ request }}.field_type is null or cast({{ request }}.field_type as string) = 'bytes')
                and {{ request }}.json rlike '^"[^"\\\\]*"$'
                then substr({{ request }}.json, 2, length({{ request }}.json) - 2)
        end,
        'number', case
            when {{ request }}.type != 'org.apache.kafka.connect.data.Decimal' then null
            when {{ request }}.json rlike '^-?[0-9]+$' then {{ request }}.json
            when {{ request }}.json rlike '^-?[0-9]' then cast(cast({{ request }}.json as double) as string)
        end
    )
{%- endmacro %}

{#- Step 2, the numbers: a decimal's signed unscaled digits at its scale; the epoch seconds and the
    fraction of a timestamp (null outside years 1..9999), or of an ISO-8601 text converted to UTC
    (python's datetime.fromisoformat: hour < 24, minute and second < 60, offset under a day). -#}
{% macro debezium_decode_numbers(reading) %}
    {{- _debezium_require('debezium_decode_numbers', {'reading': reading}, "transform(decode_readings, reading -> debezium_decode_numbers('reading'))") -}}
    {%- set zoned = reading ~ '.zoned' -%}
    named_struct(
        'reading', {{ reading }},
        'digits', case
            when {{ reading }}.scale is null or abs({{ reading }}.scale) > 20000 then null
            when {{ reading }}.base64 is not null then {{ debezium_unscaled_decimal(reading ~ '.base64') }}
            when {{ reading }}.number is not null then {{ _debezium_quantized_unscaled(reading ~ '.number', reading ~ '.scale') }}
        end,
        'seconds', case
            when {{ zoned }} is not null
                then case
                    when cast({{ zoned }}[0] as int) >= 1 and cast({{ zoned }}[3] as int) <= 23 and cast({{ zoned }}[4] as int) <= 59
                        and coalesce(cast(nullif({{ zoned }}[5], '') as int), 0) <= 59
                        and abs({{ _debezium_zone_minutes(zoned ~ '[7]') }}) < 1440
                        then cast(datediff(make_date(cast({{ zoned }}[0] as int), cast({{ zoned }}[1] as int), cast({{ zoned }}[2] as int)), date'1970-01-01') as bigint) * 86400
                        + cast({{ zoned }}[3] as int) * 3600 + cast({{ zoned }}[4] as int) * 60 + coalesce(cast(nullif({{ zoned }}[5], '') as int), 0)
                        - {{ _debezium_zone_minutes(zoned ~ '[7]') }} * 60
                end
            when {{ reading }}.request.type = 'io.debezium.time.ZonedTimestamp' then null
            when {{ reading }}.whole between cast(-62135596800 as decimal(38, 0)) * {{ reading }}.per_second
                and cast(253402300800 as decimal(38, 0)) * {{ reading }}.per_second - 1
                then cast(({{ reading }}.whole - pmod({{ reading }}.whole, {{ reading }}.per_second)) div {{ reading }}.per_second as bigint)
        end,
        'fraction', case
            when {{ zoned }} is not null
                then case when {{ zoned }}[6] rlike '[1-9]' then concat('.', regexp_replace({{ zoned }}[6], '0+$', '')) else '' end
            else {{ _debezium_fraction_text("pmod(" ~ reading ~ ".whole, " ~ reading ~ ".per_second)", reading ~ ".per_second") }}
        end
    )
{%- endmacro %}

{#- Step 3, the decoded JSON text of a value, null when its type does not apply to it (the value is
    then kept as sent); a MongoDB $date that does not decode is given back as it was. -#}
{% macro debezium_decode_json(number) %}
    {{- _debezium_require('debezium_decode_json', {'number': number}, "transform(decode_numbers, number -> debezium_decode_json('number'))") -}}
    {%- set request = number ~ '.reading.request' -%}
    {%- set instant = "case when " ~ number ~ ".seconds between -62135596800 and 253402300799 then concat("
        ~ debezium_seconds_text(number ~ '.seconds') ~ ", " ~ number ~ ".fraction, 'Z') end" -%}
    named_struct(
        'side', {{ request }}.side,
        'column_name', {{ request }}.column_name,
        'type', {{ request }}.type,
        'json', case
            when {{ request }}.type in ('org.apache.kafka.connect.data.Decimal', 'io.debezium.data.VariableScaleDecimal')
                then {{ _debezium_quoted(debezium_decimal_text(number ~ '.digits', number ~ '.reading.scale')) }}
            when {{ request }}.type in ('io.debezium.time.Date', 'org.apache.kafka.connect.data.Date')
                then {{ _debezium_quoted(debezium_date_text(number ~ '.reading.whole')) }}
            when {{ request }}.type in (
                'io.debezium.time.Timestamp', 'org.apache.kafka.connect.data.Timestamp',
                'io.debezium.time.MicroTimestamp', 'io.debezium.time.NanoTimestamp', 'io.debezium.time.ZonedTimestamp'
            )
                then {{ _debezium_quoted(instant) }}
            when {{ request }}.type in (
                'io.debezium.time.Time', 'org.apache.kafka.connect.data.Time', 'io.debezium.time.MicroTime', 'io.debezium.time.NanoTime'
            )
                then {{ _debezium_quoted(debezium_time_text(number ~ '.reading.whole', number ~ '.reading.per_second')) }}
            when {{ request }}.type = 'mongodb.date'
                then coalesce({{ _debezium_quoted(instant) }}, concat('{"$date":', {{ request }}.json, '}'))
        end
    )
{%- endmacro %}

{#- One image's column texts with its decoded values put back: a logical type's value replaced
    (kept as sent when it did not decode), MongoDB dates replaced inside the text. -#}
{% macro debezium_decoded_columns(side, column_texts, decoded) %}
    {{- _debezium_require('debezium_decoded_columns', {'side': side, 'column_texts': column_texts, 'decoded': decoded}, "debezium_decoded_columns(2, 'after_texts', 'decoded_values')") -}}
    case
        when not exists({{ decoded }}, decoded_value -> decoded_value.side = {{ side }}) then {{ column_texts }}
        else transform_values(
            {{ column_texts }},
            (column_name, column_json) -> case
                when not exists({{ decoded }}, decoded_value -> decoded_value.side = {{ side }} and decoded_value.column_name = column_name)
                    then column_json
                when not exists({{ decoded }}, decoded_value -> decoded_value.side = {{ side }} and decoded_value.type = 'mongodb.date')
                    then coalesce(
                        filter({{ decoded }}, decoded_value -> decoded_value.side = {{ side }} and decoded_value.column_name = column_name)[0].json,
                        column_json
                    )
                -- MongoDB: the text around the dates, the decoded dates in between
                else array_join(zip_with(
                    split(column_json, {{ _debezium_mongo_date_pattern() }}, -1),
                    concat(
                        transform(
                            filter({{ decoded }}, decoded_value -> decoded_value.side = {{ side }} and decoded_value.column_name = column_name),
                            decoded_value -> decoded_value.json
                        ),
                        array('')
                    ),
                    (text_piece, date_json) -> concat(text_piece, date_json)
                ), '')
            end
        )
    end
{%- endmacro %}

{#- ---------------------------------------------------------------------------------------------
    Decimals (debezium._decimal, _variable_decimal)
-#}

{#- The signed integer (digits) of base64 big-endian two's-complement bytes, strictly decoded
    (python's b64decode(validate=True)); null for text that is not base64. Digits are gathered
    byte by byte in two decimal(38,0) limbs of 35 digits, so up to 73 digits (MySQL DECIMAL(65)
    fits); a negative number is minus (its inverted bytes + 1). -#}
{% macro debezium_unscaled_decimal(base64_text) %}
    {{- _debezium_require('debezium_unscaled_decimal', {'base64_text': base64_text}, "debezium_unscaled_decimal('reading.base64')") -}}
    case
        when not ({{ base64_text }} rlike '^[A-Za-z0-9+/]*={0,2}$' and length({{ base64_text }}) % 4 = 0) then null
        when {{ base64_text }} = '' then '0'
        else aggregate(
            -- the bytes as hex pairs; a negative number's bytes inverted
            regexp_extract_all(
                case
                    when hex(unbase64({{ base64_text }})) >= '8'
                        then translate(hex(unbase64({{ base64_text }})), '0123456789ABCDEF', 'FEDCBA9876543210')
                    else hex(unbase64({{ base64_text }}))
                end,
                '..', 0
            ),
            named_struct('negative', hex(unbase64({{ base64_text }})) >= '8', 'high', cast(0 as decimal(38, 0)), 'low', cast(0 as decimal(38, 0))),
            (limbs, byte_hex) -> named_struct(
                'negative', limbs.negative,
                'high', cast(limbs.high * 256 + (limbs.low * 256 + cast(conv(byte_hex, 16, 10) as int)) div {{ _debezium_limb() }} as decimal(38, 0)),
                'low', cast((limbs.low * 256 + cast(conv(byte_hex, 16, 10) as int)) % {{ _debezium_limb() }} as decimal(38, 0))
            ),
            limbs -> case
                when not limbs.negative then {{ _debezium_limb_digits('limbs.high', 'limbs.low') }}
                -- minus (inverted + 1)
                when limbs.low + 1 = {{ _debezium_limb() }}
                    then concat('-', {{ _debezium_limb_digits('limbs.high + 1', 'cast(0 as decimal(38, 0))') }})
                else concat('-', {{ _debezium_limb_digits('limbs.high', 'limbs.low + 1') }})
            end
        )
    end
{%- endmacro %}

{% macro _debezium_limb() %}cast('100000000000000000000000000000000000' as decimal(38, 0)){% endmacro %}

{% macro _debezium_limb_digits(high, low) %}
    case
        when {{ high }} = 0 then cast({{ low }} as string)
        else concat(cast({{ high }} as string), lpad(cast({{ low }} as string), 35, '0'))
    end
{%- endmacro %}

{#- Python's format(Decimal('<unscaled>E-<scale>'), 'f'): signed digits with `scale` digits after
    the point; a negative scale appends zeros. -#}
{% macro debezium_decimal_text(unscaled, scale) %}
    {{- _debezium_require('debezium_decimal_text', {'unscaled': unscaled, 'scale': scale}, "debezium_decimal_text('reading.digits', scale='reading.scale')") -}}
    case
        when {{ unscaled }} is null then null
        when {{ scale }} > 0 then concat(
            case when {{ unscaled }} like '-%' then '-' else '' end,
            substr(
                {{ _debezium_zero_padded("regexp_replace(" ~ unscaled ~ ", '^-', '')", scale ~ ' + 1') }}, 1,
                greatest(length(regexp_replace({{ unscaled }}, '^-', '')), {{ scale }} + 1) - {{ scale }}
            ),
            '.',
            substr({{ _debezium_zero_padded("regexp_replace(" ~ unscaled ~ ", '^-', '')", scale ~ ' + 1') }}, -{{ scale }})
        )
        when {{ scale }} = 0 or regexp_replace({{ unscaled }}, '^-', '') = '0' then {{ unscaled }}
        else concat({{ unscaled }}, repeat('0', -{{ scale }}))
    end
{%- endmacro %}

{% macro _debezium_zero_padded(digits, width) %}
    case when length({{ digits }}) >= {{ width }} then {{ digits }} else lpad({{ digits }}, {{ width }}, '0') end
{%- endmacro %}

{#- The signed unscaled integer of python's Decimal(number_text).quantize(Decimal(1).scaleb(-scale)):
    the number rounded half to even to `scale` digits after the point. number_text is an integer
    or a Java double text ('1.5', '1.2345678987654322E32'). Null past 1000 digits (python's
    context precision). -#}
{% macro _debezium_quantized_unscaled(number_text, scale) %}
    {%- set digits = "concat(regexp_extract(" ~ number_text ~ ", '^-?([0-9]+)', 1), regexp_extract(" ~ number_text ~ ", '^-?[0-9]+\\\\.([0-9]+)', 1))" -%}
    {%- set exponent = "coalesce(cast(nullif(regexp_extract(" ~ number_text ~ ", '[eE]([-+]?[0-9]+)$', 1), '') as int), 0)" -%}
    {%- set fraction_length = "length(regexp_extract(" ~ number_text ~ ", '^-?[0-9]+\\\\.([0-9]+)', 1))" -%}
    transform(
        -- let parts = sign, digits without the point (zeros in front so that one is kept), and how
        -- many trailing digits the scale drops
        array(named_struct(
            'sign', regexp_extract({{ number_text }}, '^(-?)', 1),
            'digits', {{ digits }},
            'drop', -{{ scale }} - ({{ exponent }} - {{ fraction_length }}),
            'padded', {{ _debezium_zero_padded(digits, "-" ~ scale ~ " - (" ~ exponent ~ " - " ~ fraction_length ~ ") + 1") }}
        )),
        parts -> case
            when length(parts.digits) - parts.drop > 1000 then null
            when parts.drop <= 0 then concat(parts.sign, regexp_replace(concat(parts.digits, repeat('0', -parts.drop)), '^0+(?=[0-9])', ''))
            -- the dropped digits decide: more than half rounds up, exactly half rounds to even
            else concat(parts.sign, cast(
                cast(substr(parts.padded, 1, length(parts.padded) - parts.drop) as decimal(38, 0))
                + case
                    when substr(parts.padded, -parts.drop) > rpad('5', parts.drop, '0') then 1
                    when substr(parts.padded, -parts.drop) = rpad('5', parts.drop, '0')
                        and cast(substr(parts.padded, length(parts.padded) - parts.drop, 1) as int) % 2 = 1
                        then 1
                    else 0
                end as string))
        end
    )[0]
{%- endmacro %}

{#- ---------------------------------------------------------------------------------------------
    Dates and times as ISO-8601 text (contract.iso_from_epoch, debezium._date / _time_text / _zoned),
    computed from numbers, never through the session time zone
-#}

{#- Days since 1970-01-01 -> 'YYYY-MM-DD'; null outside years 1..9999. -#}
{% macro debezium_date_text(days) %}
    {{- _debezium_require('debezium_date_text', {'days': days}, "debezium_date_text('reading.whole')") -}}
    case
        when {{ days }} between -719162 and 2932896 then cast(date_add(date'1970-01-01', cast({{ days }} as int)) as string)
    end
{%- endmacro %}

{#- Seconds since the epoch (bigint, years 1..9999) -> 'YYYY-MM-DDTHH:MM:SS' (UTC). -#}
{% macro debezium_seconds_text(seconds) %}
    {{- _debezium_require('debezium_seconds_text', {'seconds': seconds}, "debezium_seconds_text('number.seconds')") -}}
    concat(
        cast(date_add(date'1970-01-01', cast(({{ seconds }} - pmod({{ seconds }}, 86400)) div 86400 as int)) as string),
        'T', lpad(cast(pmod({{ seconds }}, 86400) div 3600 as string), 2, '0'),
        ':', lpad(cast(pmod({{ seconds }}, 3600) div 60 as string), 2, '0'),
        ':', lpad(cast(pmod({{ seconds }}, 60) as string), 2, '0')
    )
{%- endmacro %}

{#- '.fff' of a fraction of `per_second` units, trailing zeros removed; '' for none. -#}
{% macro _debezium_fraction_text(fraction, per_second) %}
    case
        when {{ fraction }} = 0 then ''
        else concat('.', regexp_replace(lpad(cast({{ fraction }} as string), length(cast({{ per_second }} as string)) - 1, '0'), '0+$', ''))
    end
{%- endmacro %}

{#- A time of day (decimal(38,0)) of `per_second` units -> 'HH:MM:SS[.fff]'; MySQL TIME may be
    negative or past 24 h, so hours are not wrapped (at least two digits). -#}
{% macro debezium_time_text(amount, per_second) %}
    {{- _debezium_require('debezium_time_text', {'amount': amount, 'per_second': per_second}, "debezium_time_text('reading.whole', per_second='reading.per_second')") -}}
    {%- set seconds = "(cast(abs(" ~ amount ~ ") as bigint) div " ~ per_second ~ ")" -%}
    case
        when abs({{ amount }}) < cast('1000000000000000000' as decimal(38, 0)) then concat(
            case when {{ amount }} < 0 then '-' else '' end,
            case
                when {{ seconds }} div 3600 < 10 then concat('0', cast({{ seconds }} div 3600 as string))
                else cast({{ seconds }} div 3600 as string)
            end,
            ':', lpad(cast(pmod({{ seconds }}, 3600) div 60 as string), 2, '0'),
            ':', lpad(cast(pmod({{ seconds }}, 60) as string), 2, '0'),
            {{ _debezium_fraction_text("pmod(cast(abs(" ~ amount ~ ") as bigint), " ~ per_second ~ ")", per_second) }}
        )
    end
{%- endmacro %}

{#- An ISO-8601 time with an offset, as python's debezium._ZONED reads it (within `quote` marks):
    year (four digits, as datetime.fromisoformat wants), month, day, hour, minute, second,
    fraction, zone. -#}
{% macro _debezium_zoned_pattern(open='', close='') -%}
    '^{{ open }}([0-9]{4})-([0-9]{2})-([0-9]{2})[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?(?:\\.([0-9]+))?\\s*([Zz]|[+-][0-9]{2}(?::?[0-9]{2})?){{ close }}$'
{%- endmacro %}

{#- Minutes east of UTC of 'Z', '+05', '+0530' or '+05:30' (python: the hours, ':', the rest). -#}
{% macro _debezium_zone_minutes(zone) %}
    case
        when upper({{ zone }}) = 'Z' then 0
        else (case when {{ zone }} like '-%' then -1 else 1 end)
            * (cast(substr({{ zone }}, 2, 2) as int) * 60 + coalesce(cast(nullif(replace(substr({{ zone }}, 4), ':', ''), '') as int), 0))
    end
{%- endmacro %}
