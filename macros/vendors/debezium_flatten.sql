{#- Debezium flattening in Spark SQL: the value decoders of base_debezium__parsed.
    python_udfs/debezium.py is the specification; each macro names the function it follows.
    Values are VARIANT (from try_parse_json) and come out as JSON text (DECISIONLOG D2).
    Every macro returns one SQL expression; none of them reads a table. -#}

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
    JSON documents and values
-#}

{#- The variant of a text holding exactly one JSON document, else null (parsing.load_json).
    try_parse_json reads the first value and ignores what follows it, so the text is parsed inside
    an array with an end marker: anything after the document makes it invalid or misplaces the
    marker. Duplicate keys make a document invalid (Spark's parser refuses them). -#}
{% macro debezium_json_document(text) %}
    {{- _debezium_require('debezium_json_document', {'text': text}, "debezium_json_document('raw')") -}}
    transform(
        array(try_parse_json(concat('[', {{ text }}, ',"cdc:end-of-document"]'))),
        in_array -> case
            when variant_get(in_array, '$[1]', 'string') = 'cdc:end-of-document' and variant_get(in_array, '$[2]') is null
                then variant_get(in_array, '$[0]')
        end
    )[0]
{%- endmacro %}

{#- True when a text is null, empty or whitespace only (python's `not text.strip()`). -#}
{% macro debezium_is_blank(text) %}
    {{- _debezium_require('debezium_is_blank', {'text': text}, "debezium_is_blank('raw')") -}}
    coalesce({{ text }} rlike '(?U)^[\\s\\x{1c}-\\x{1f}]*$', true)
{%- endmacro %}

{#- The JSON type of a variant: object, array, string, number, boolean or null; SQL null when the
    value is absent (a missing key). -#}
{% macro debezium_json_type(value) %}
    {{- _debezium_require('debezium_json_type', {'value': value}, "debezium_json_type(\"variant_get(payload, '$.op')\")") -}}
    case
        when {{ value }} is null then null
        when is_variant_null({{ value }}) then 'null'
        when try_cast({{ value }} as struct<cdc_probe: variant>) is not null then 'object'
        when schema_of_variant({{ value }}) like 'ARRAY%' then 'array'
        when schema_of_variant({{ value }}) = 'STRING' then 'string'
        when schema_of_variant({{ value }}) = 'BOOLEAN' then 'boolean'
        else 'number'
    end
{%- endmacro %}

{#- A JSON string's text, null for any other value (never a number's digits). Meant for values
    that are usually scalars: schema_of_variant reads a whole object or array. -#}
{% macro debezium_string(value) %}
    {{- _debezium_require('debezium_string', {'value': value}, "debezium_string('record_fields.topic')") -}}
    case when schema_of_variant({{ value }}) = 'STRING' then cast({{ value }} as string) end
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
    (debezium._as_text, used for positions and transaction ids). Only for scalars and small values. -#}
{% macro debezium_as_text(value) %}
    {{- _debezium_require('debezium_as_text', {'value': value}, "debezium_as_text('source_fields.scn')") -}}
    case
        when {{ value }} is null or is_variant_null({{ value }}) then null
        when schema_of_variant({{ value }}) = 'STRING' then cast({{ value }} as string)
        else to_json({{ value }})
    end
{%- endmacro %}

{#- A non-empty JSON string's text, else null (debezium._text_part). Only for scalars. -#}
{% macro debezium_text_part(value) %}
    {{- _debezium_require('debezium_text_part', {'value': value}, "debezium_text_part('source_fields.table')") -}}
    case when schema_of_variant({{ value }}) = 'STRING' then nullif(cast({{ value }} as string), '') end
{%- endmacro %}

{#- '<logical server>.<schema>.<table><suffix>' -> '<schema>.<table>', else null
    (debezium._strip_logical_name: at least two non-empty dot-separated parts). -#}
{% macro debezium_logical_table(name, suffix) %}
    {{- _debezium_require('debezium_logical_table', {'name': name, 'suffix': suffix}, "debezium_logical_table('schema_version', suffix='.Value')") -}}
    nullif(regexp_extract({{ name }}, '^[^.]+\\.([^.]+(?:\\.[^.]+)*){{ suffix | replace('.', '\\\\.') }}$', 1), '')
{%- endmacro %}

{#- Python's str.strip(): whitespace at both ends removed. -#}
{% macro _debezium_strip(text) %}
    regexp_replace({{ text }}, '(?U)^[\\s\\x{1c}-\\x{1f}]+|[\\s\\x{1c}-\\x{1f}]+$', '')
{%- endmacro %}

{#- A text as a JSON string; only for texts without quotes or backslashes (numbers, dates). -#}
{% macro _debezium_quoted(text) %}
    concat('"', {{ text }}, '"')
{%- endmacro %}

{#- ---------------------------------------------------------------------------------------------
    The envelope, declared once: the fields a record, a message, a payload, its source block and a
    Connect schema may have. Values whose JSON type decides something stay VARIANT; a missing
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
        'source': 'struct<connector: variant, db: variant, schema: variant, table: variant, collection: variant, txId: variant, '
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
    Connect schemas: fields by name
-#}

{#- A Connect schema's `fields` (an array of structs, see debezium_envelope_type('schema')) as a
    map by field name; fields without a name are left out, a name listed twice keeps its last
    field, like a python dict (debezium._field_map). -#}
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

{#- Only the fields with a logical type this project converts (the others keep their value), as
    map<string, struct<name, type, parameters>>. -#}
{% macro debezium_logical_fields(field_map) %}
    {{- _debezium_require('debezium_logical_fields', {'field_map': field_map}, "debezium_logical_fields('after_field_map')") -}}
    transform_values(
        map_filter(
            {{ field_map }},
            (field_name, connect_field) -> connect_field.name in ('{{ _debezium_logical_type_names() | join("', '") }}')
        ),
        (field_name, connect_field) -> named_struct('name', connect_field.name, 'type', connect_field.type, 'parameters', connect_field.parameters)
    )
{%- endmacro %}

{#- ---------------------------------------------------------------------------------------------
    Row images
-#}

{#- The placeholder PostgreSQL sends for TOASTed columns it did not read, as JSON text: plain,
    base64, or as the only element of an array (debezium._unavailable). -#}
{% macro _debezium_is_unavailable(json_text) %}
    {{ json_text }} in (
        '"__debezium_unavailable_value"', '"X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ=="',
        '["__debezium_unavailable_value"]', '["X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ=="]'
    )
{%- endmacro %}

{#- A row image (a variant object) as map<string,string> of JSON text: unavailable values left
    out, logical types converted through the fields that have one (debezium._convert_row). -#}
{% macro debezium_image(image, logical_fields) %}
    {{- _debezium_require('debezium_image', {'image': image, 'logical_fields': logical_fields}, "debezium_image(\"variant_get(payload, '$.after')\", logical_fields='after_logical_fields')") -}}
    transform_values(
        map_filter(
            transform_values(try_cast({{ image }} as map<string, variant>), (column_name, column_value) -> to_json(column_value)),
            (column_name, column_json) -> not {{ _debezium_is_unavailable('column_json') }}
        ),
        (column_name, column_json) -> case
            when {{ logical_fields }}[column_name] is null then column_json
            else coalesce({{ debezium_logical_value('column_json', logical_fields ~ '[column_name]') }}, column_json)
        end
    )
{%- endmacro %}

{#- ---------------------------------------------------------------------------------------------
    Logical types (debezium._convert)
-#}

{#- One column value (JSON text) converted by its Connect field's logical type, as JSON text;
    null when the type does not apply to the value (the caller keeps the value as sent). -#}
{% macro debezium_logical_value(json_text, field) %}
    {{- _debezium_require('debezium_logical_value', {'json_text': json_text, 'field': field}, "debezium_logical_value('column_json', field=\"after_logical_fields['price']\")") -}}
    transform(
        -- let logical = the field's type and the value's readings: a whole number, a plain text
        array(named_struct(
            'type', {{ field }}.name,
            'json', {{ json_text }},
            'whole', case when {{ json_text }} rlike '^-?[0-9]{1,38}$' then cast({{ json_text }} as decimal(38, 0)) end,
            'text', case when {{ json_text }} rlike '^"[^"\\\\]*"$' then substr({{ json_text }}, 2, length({{ json_text }}) - 2) end,
            'field', {{ field }}
        )),
        logical -> case
            when logical.type in ('org.apache.kafka.connect.data.Decimal', 'io.debezium.data.VariableScaleDecimal')
                then {{ _debezium_quoted(_debezium_decimal('logical')) }}
            when logical.type in ('io.debezium.time.Date', 'org.apache.kafka.connect.data.Date')
                then {{ _debezium_quoted(debezium_date_text('logical.whole')) }}
            when logical.type in (
                'io.debezium.time.Timestamp', 'org.apache.kafka.connect.data.Timestamp',
                'io.debezium.time.MicroTimestamp', 'io.debezium.time.NanoTimestamp'
            )
                then {{ _debezium_quoted(debezium_epoch_text('logical.whole', per_second=_debezium_per_second('logical.type'))) }}
            when logical.type = 'io.debezium.time.ZonedTimestamp'
                then {{ _debezium_quoted(debezium_zoned_text('logical.text')) }}
            when logical.type in (
                'io.debezium.time.Time', 'org.apache.kafka.connect.data.Time', 'io.debezium.time.MicroTime', 'io.debezium.time.NanoTime'
            )
                then {{ _debezium_quoted(debezium_time_text('logical.whole', per_second=_debezium_per_second('logical.type'))) }}
        end
    )[0]
{%- endmacro %}

{#- Units per second of a time type: io.debezium.time.Micro* count microseconds, Nano*
    nanoseconds, the others milliseconds. -#}
{% macro _debezium_per_second(type_name) %}
    case
        when {{ type_name }} like 'io.debezium.time.Micro%' then 1000000
        when {{ type_name }} like 'io.debezium.time.Nano%' then 1000000000
        else 1000
    end
{%- endmacro %}

{#- Connect Decimal and VariableScaleDecimal as decimal text (debezium._decimal / _variable_decimal).
    Decimal: base64 two's-complement bytes with the field's `scale` parameter, or a number some
    producers write instead, given the column's scale through a double like python. Text that a
    string-typed field carries (decimal.handling.mode=string) is kept as sent.
    VariableScaleDecimal: a {scale, value} struct, value base64 like Decimal. -#}
{% macro _debezium_decimal(logical) %}
    transform(
        -- let decimal = the scale and where the digits come from
        array(case
            when {{ logical }}.type = 'io.debezium.data.VariableScaleDecimal' then named_struct(
                'scale', case
                    when to_json(variant_get(try_parse_json({{ logical }}.json), '$.scale')) rlike '^-?[0-9]{1,9}$'
                        then cast(to_json(variant_get(try_parse_json({{ logical }}.json), '$.scale')) as int)
                end,
                'base64', variant_get(try_parse_json({{ logical }}.json), '$.value', 'string'),
                'number', cast(null as string)
            )
            else named_struct(
                'scale', {{ _debezium_decimal_scale(logical ~ '.field') }},
                'base64', case
                    when {{ logical }}.field.type is null or cast({{ logical }}.field.type as string) = 'bytes' then {{ logical }}.text
                end,
                'number', case
                    when {{ logical }}.whole is not null then cast({{ logical }}.whole as string)
                    when {{ logical }}.json rlike '^-?[0-9]' then cast(cast({{ logical }}.json as double) as string)
                end
            )
        end),
        decimal -> case
            when decimal.scale is null or abs(decimal.scale) > 20000 then null
            when {{ logical }}.type = 'io.debezium.data.VariableScaleDecimal'
                and schema_of_variant(variant_get(try_parse_json({{ logical }}.json), '$.value')) != 'STRING'
                then null
            when decimal.base64 is not null or {{ logical }}.type = 'io.debezium.data.VariableScaleDecimal'
                then {{ debezium_decimal_text(debezium_unscaled_decimal('decimal.base64'), 'decimal.scale') }}
            else {{ debezium_decimal_text(_debezium_quantized_unscaled('decimal.number', 'decimal.scale'), 'decimal.scale') }}
        end
    )[0]
{%- endmacro %}

{#- The `scale` parameter of a Decimal field as int: 0 when not given, null when not a whole number. -#}
{% macro _debezium_decimal_scale(field) %}
    case
        when variant_get({{ field }}.parameters, '$.scale') is null then 0
        when to_json(variant_get({{ field }}.parameters, '$.scale')) rlike '^-?[0-9]{1,9}$'
            then cast(to_json(variant_get({{ field }}.parameters, '$.scale')) as int)
        when to_json(variant_get({{ field }}.parameters, '$.scale')) rlike '^"\\s*[-+]?[0-9]{1,9}\\s*"$'
            then cast(trim(variant_get({{ field }}.parameters, '$.scale', 'string')) as int)
    end
{%- endmacro %}

{#- The signed integer (as digits) of base64 big-endian two's-complement bytes, strictly decoded
    (python's b64decode(validate=True)); null for text that is not base64. Digits are gathered
    byte by byte in two decimal(38,0) limbs of 35 digits, so up to 73 digits (MySQL DECIMAL(65)
    fits); a negative number is minus (its inverted bytes + 1). -#}
{% macro debezium_unscaled_decimal(base64_text) %}
    {{- _debezium_require('debezium_unscaled_decimal', {'base64_text': base64_text}, "debezium_unscaled_decimal(\"'AeJA'\")") -}}
    transform(
        -- let unscaled = the text and its bytes as hex
        array(named_struct(
            'hex', case
                when {{ base64_text }} rlike '^[A-Za-z0-9+/]*={0,2}$' and length({{ base64_text }}) % 4 = 0
                    then hex(try_to_binary({{ base64_text }}, 'base64'))
            end
        )),
        unscaled -> case
            when unscaled.hex is null then null
            when unscaled.hex = '' then '0'
            else aggregate(
                -- the bytes as hex pairs; a negative number's bytes inverted
                regexp_extract_all(
                    case
                        when unscaled.hex >= '8' then translate(unscaled.hex, '0123456789ABCDEF', 'FEDCBA9876543210')
                        else unscaled.hex
                    end,
                    '..', 0
                ),
                named_struct('negative', unscaled.hex >= '8', 'high', cast(0 as decimal(38, 0)), 'low', cast(0 as decimal(38, 0))),
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
    )[0]
{%- endmacro %}

{% macro _debezium_limb() %}cast('100000000000000000000000000000000000' as decimal(38, 0)){% endmacro %}

{% macro _debezium_limb_digits(high, low) %}
    case
        when {{ high }} = 0 then cast({{ low }} as string)
        else concat(cast({{ high }} as string), lpad(cast({{ low }} as string), 35, '0'))
    end
{%- endmacro %}

{#- Python's format(Decimal('<unscaled>E-<scale>'), 'f'): an integer (signed digits) with `scale`
    digits after the point; a negative scale appends zeros. -#}
{% macro debezium_decimal_text(unscaled, scale) %}
    {{- _debezium_require('debezium_decimal_text', {'unscaled': unscaled, 'scale': scale}, "debezium_decimal_text(\"'-12345'\", scale='2')") -}}
    transform(
        -- let number = sign, digits and scale
        array(named_struct(
            'sign', case when {{ unscaled }} like '-%' then '-' else '' end,
            'digits', regexp_replace({{ unscaled }}, '^-', ''),
            'scale', {{ scale }}
        )),
        number -> case
            when number.digits is null then null
            when number.scale > 0 then concat(
                number.sign,
                substr({{ _debezium_zero_padded('number.digits', 'number.scale + 1') }}, 1, greatest(length(number.digits), number.scale + 1) - number.scale),
                '.',
                substr({{ _debezium_zero_padded('number.digits', 'number.scale + 1') }}, -number.scale)
            )
            when number.scale = 0 or number.digits = '0' then concat(number.sign, number.digits)
            else concat(number.sign, number.digits, repeat('0', -number.scale))
        end
    )[0]
{%- endmacro %}

{% macro _debezium_zero_padded(digits, width) %}
    case when length({{ digits }}) >= {{ width }} then {{ digits }} else lpad({{ digits }}, {{ width }}, '0') end
{%- endmacro %}

{#- The unscaled integer (signed digits) of python's Decimal(number_text).quantize(Decimal(1).scaleb(-scale)):
    the number rounded half to even to `scale` digits after the point. number_text is an integer
    or a Java double text ('1.5', '1.2345678987654322E32'). Null past 1000 digits (python's
    context precision). -#}
{% macro _debezium_quantized_unscaled(number_text, scale) %}
    transform(
        -- let parts = sign, digits without the point, and how many trailing digits the scale drops
        array(named_struct(
            'sign', regexp_extract({{ number_text }}, '^(-?)', 1),
            'digits', concat(
                regexp_extract({{ number_text }}, '^-?([0-9]+)', 1),
                regexp_extract({{ number_text }}, '^-?[0-9]+\\.([0-9]+)', 1)
            ),
            'drop', -({{ scale }})
                - (coalesce(cast(nullif(regexp_extract({{ number_text }}, '[eE]([-+]?[0-9]+)$', 1), '') as int), 0)
                    - length(regexp_extract({{ number_text }}, '^-?[0-9]+\\.([0-9]+)', 1)))
        )),
        parts -> case
            when {{ number_text }} is null or length(parts.digits) - parts.drop > 1000 then null
            when parts.drop <= 0 then concat(parts.sign, regexp_replace(concat(parts.digits, repeat('0', -parts.drop)), '^0+(?=[0-9])', ''))
            else concat(parts.sign, {{ _debezium_rounded_half_even('parts.digits', 'parts.drop') }})
        end
    )[0]
{%- endmacro %}

{#- Digits with their last `drop` digits removed, rounded half to even. -#}
{% macro _debezium_rounded_half_even(digits, drop) %}
    transform(
        array(named_struct(
            'kept', substr({{ _debezium_zero_padded(digits, drop ~ ' + 1') }}, 1, greatest(length({{ digits }}), {{ drop }} + 1) - {{ drop }}),
            'dropped', substr({{ _debezium_zero_padded(digits, drop ~ ' + 1') }}, -{{ drop }}),
            'half', rpad('5', {{ drop }}, '0')
        )),
        split -> cast(cast(split.kept as decimal(38, 0)) + case
            when split.dropped > split.half then 1
            when split.dropped = split.half and cast(substr(split.kept, -1) as int) % 2 = 1 then 1
            else 0
        end as string)
    )[0]
{%- endmacro %}

{#- ---------------------------------------------------------------------------------------------
    Dates and times as ISO-8601 text (contract.iso_from_epoch, debezium._date / _time_text / _zoned)
-#}

{#- Days since 1970-01-01 -> 'YYYY-MM-DD'; null outside years 1..9999. -#}
{% macro debezium_date_text(days) %}
    {{- _debezium_require('debezium_date_text', {'days': days}, "debezium_date_text('19439')") -}}
    case
        when {{ days }} between -719162 and 2932896 then cast(date_add(date'1970-01-01', cast({{ days }} as int)) as string)
    end
{%- endmacro %}

{#- Seconds since the epoch (bigint) -> 'YYYY-MM-DDTHH:MM:SS' (UTC, no session time zone involved). -#}
{% macro _debezium_seconds_text(seconds) %}
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
        when {{ fraction }} = 0 or {{ fraction }} is null then ''
        else concat('.', regexp_replace(lpad(cast({{ fraction }} as string), length(cast({{ per_second }} as string)) - 1, '0'), '0+$', ''))
    end
{%- endmacro %}

{#- An epoch count (decimal(38,0)) of `per_second` units (1000 for milliseconds ...) ->
    'YYYY-MM-DDTHH:MM:SS[.fff]Z'; null outside years 1..9999. -#}
{% macro debezium_epoch_text(amount, per_second) %}
    {{- _debezium_require('debezium_epoch_text', {'amount': amount, 'per_second': per_second}, "debezium_epoch_text('column_amount', per_second='1000')") -}}
    transform(
        array(named_struct('amount', cast({{ amount }} as decimal(38, 0)), 'per_second', cast({{ per_second }} as bigint))),
        epoch -> case
            when epoch.amount between cast(-62135596800 as decimal(38, 0)) * epoch.per_second
                and cast(253402300800 as decimal(38, 0)) * epoch.per_second - 1
                then concat(
                    {{ _debezium_seconds_text("cast((epoch.amount - pmod(epoch.amount, epoch.per_second)) div epoch.per_second as bigint)") }},
                    {{ _debezium_fraction_text("pmod(epoch.amount, epoch.per_second)", 'epoch.per_second') }},
                    'Z'
                )
        end
    )[0]
{%- endmacro %}

{#- A time of day (decimal(38,0)) of `per_second` units -> 'HH:MM:SS[.fff]'; MySQL TIME may be
    negative or past 24 h, so hours are not wrapped. -#}
{% macro debezium_time_text(amount, per_second) %}
    {{- _debezium_require('debezium_time_text', {'amount': amount, 'per_second': per_second}, "debezium_time_text('column_amount', per_second='1000000')") -}}
    transform(
        array(named_struct(
            'amount', cast({{ amount }} as decimal(38, 0)),
            'seconds', cast(abs({{ amount }}) as bigint) div cast({{ per_second }} as bigint),
            'fraction', pmod(cast(abs({{ amount }}) as bigint), cast({{ per_second }} as bigint)),
            'per_second', cast({{ per_second }} as bigint)
        )),
        time_of_day -> case
            when abs(time_of_day.amount) < cast('1000000000000000000' as decimal(38, 0)) then concat(
                case when time_of_day.amount < 0 then '-' else '' end,
                case
                    when time_of_day.seconds div 3600 < 10 then concat('0', cast(time_of_day.seconds div 3600 as string))
                    else cast(time_of_day.seconds div 3600 as string)
                end,
                ':', lpad(cast(pmod(time_of_day.seconds, 3600) div 60 as string), 2, '0'),
                ':', lpad(cast(pmod(time_of_day.seconds, 60) as string), 2, '0'),
                {{ _debezium_fraction_text('time_of_day.fraction', 'time_of_day.per_second') }}
            )
        end
    )[0]
{%- endmacro %}

{#- ISO-8601 time with an offset -> the same instant in UTC with 'Z' (digits after the second
    kept as sent, trailing zeros removed); null when not such a time (debezium._zoned). -#}
{% macro debezium_zoned_text(text) %}
    {{- _debezium_require('debezium_zoned_text', {'text': text}, "debezium_zoned_text(\"'2023-03-23T22:00:10.123456+02:00'\")") -}}
    transform(
        -- let zoned = year, month, day, hour, minute, second, fraction, zone (python's _ZONED)
        array(case
            when {{ text }} rlike {{ _debezium_zoned_pattern() }}
                then split(regexp_replace({{ text }}, {{ _debezium_zoned_pattern() }}, '$1|$2|$3|$4|$5|$6|$7|$8'), '\\|')
        end),
        zoned -> transform(
            array(named_struct(
                'day_number', datediff(make_date(cast(zoned[0] as int), cast(zoned[1] as int), cast(zoned[2] as int)), date'1970-01-01'),
                'second_of_day', cast(zoned[3] as int) * 3600 + cast(zoned[4] as int) * 60 + coalesce(cast(nullif(zoned[5], '') as int), 0),
                'offset_minutes', case
                    when upper(zoned[7]) = 'Z' then 0
                    else (case when zoned[7] like '-%' then -1 else 1 end)
                        * (cast(substr(zoned[7], 2, 2) as int) * 60 + coalesce(cast(nullif(replace(substr(zoned[7], 4), ':', ''), '') as int), 0))
                end
            )),
            instant -> case
                when zoned is null or cast(zoned[0] as int) < 1 or cast(zoned[3] as int) > 23 or cast(zoned[4] as int) > 59
                    or coalesce(cast(nullif(zoned[5], '') as int), 0) > 59 or abs(instant.offset_minutes) >= 1440
                    or instant.day_number is null
                    then null
                when cast(instant.day_number as bigint) * 86400 + instant.second_of_day - instant.offset_minutes * 60
                    between -62135596800 and 253402300799
                    then concat(
                        {{ _debezium_seconds_text("(cast(instant.day_number as bigint) * 86400 + instant.second_of_day - instant.offset_minutes * 60)") }},
                        case when zoned[6] rlike '[1-9]' then concat('.', regexp_replace(zoned[6], '0+$', '')) else '' end,
                        'Z'
                    )
            end
        )[0]
    )[0]
{%- endmacro %}

{#- date (year, month, day), time (hour, minute, second), fraction, zone; python requires a
    four-digit year (datetime.fromisoformat). -#}
{% macro _debezium_zoned_pattern() -%}
    '^([0-9]{4})-([0-9]{2})-([0-9]{2})[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?(?:\\.([0-9]+))?\\s*([Zz]|[+-][0-9]{2}(?::?[0-9]{2})?)$'
{%- endmacro %}

{#- ---------------------------------------------------------------------------------------------
    MongoDB extended JSON (debezium._decode_extended)
-#}

{#- One value of a MongoDB document as plain JSON text: {"$oid"}, {"$numberDecimal"} -> string;
    {"$numberLong"}, {"$numberInt"}, {"$numberDouble"} -> number; {"$date"} -> ISO-8601 text.
    Inside arrays and sub-documents the same wrappers are replaced in the JSON text, except
    $date (kept as a document there). Unknown wrappers stay documents. -#}
{% macro debezium_mongo_value(value) %}
    {{- _debezium_require('debezium_mongo_value', {'value': value}, "debezium_mongo_value('column_value')") -}}
    transform(
        -- let mongo = the value
        array({{ value }}),
        mongo -> case
            when size(try_cast(mongo as map<string, variant>)) = 1 and schema_of_variant(variant_get(mongo, '$["$oid"]')) = 'STRING'
                then to_json(variant_get(mongo, '$["$oid"]'))
            when size(try_cast(mongo as map<string, variant>)) = 1 and schema_of_variant(variant_get(mongo, '$["$numberDecimal"]')) = 'STRING'
                then to_json(variant_get(mongo, '$["$numberDecimal"]'))
            when size(try_cast(mongo as map<string, variant>)) = 1
                and schema_of_variant(coalesce(variant_get(mongo, '$["$numberLong"]'), variant_get(mongo, '$["$numberInt"]'))) = 'STRING'
                and coalesce(variant_get(mongo, '$["$numberLong"]', 'string'), variant_get(mongo, '$["$numberInt"]', 'string'))
                    rlike '^\\s*[-+]?[0-9]{1,38}\\s*$'
                then cast(cast(trim(coalesce(
                    variant_get(mongo, '$["$numberLong"]', 'string'), variant_get(mongo, '$["$numberInt"]', 'string')
                )) as decimal(38, 0)) as string)
            when size(try_cast(mongo as map<string, variant>)) = 1 and schema_of_variant(variant_get(mongo, '$["$numberDouble"]')) = 'STRING'
                and try_cast(variant_get(mongo, '$["$numberDouble"]', 'string') as double) is not null
                then {{ _debezium_double_json("try_cast(variant_get(mongo, '$[\"$numberDouble\"]', 'string') as double)") }}
            when size(try_cast(mongo as map<string, variant>)) = 1 and {{ _debezium_mongo_date("variant_get(mongo, '$[\"$date\"]')") }} is not null
                then {{ _debezium_quoted(_debezium_mongo_date("variant_get(mongo, '$[\"$date\"]')")) }}
            else {{ _debezium_mongo_nested("to_json(mongo)") }}
        end
    )[0]
{%- endmacro %}

{#- A double as JSON text: a number, or the strings python writes for NaN and infinities
    (contract.encode_value). -#}
{% macro _debezium_double_json(number) %}
    case
        when isnan({{ number }}) then '"NaN"'
        when {{ number }} = double('infinity') then '"Infinity"'
        when {{ number }} = double('-infinity') then '"-Infinity"'
        else cast({{ number }} as string)
    end
{%- endmacro %}

{#- The inner value of {"$date": ...}: {"$numberLong": "<ms>"}, an ISO-8601 text with offset, or
    epoch milliseconds; null when none of these. -#}
{% macro _debezium_mongo_date(inner) %}
    case
        when schema_of_variant({{ inner }}) = 'STRING' then {{ debezium_zoned_text(debezium_string(inner)) }}
        when size(try_cast({{ inner }} as map<string, variant>)) = 1
            and schema_of_variant(variant_get({{ inner }}, '$["$numberLong"]')) = 'STRING'
            and variant_get({{ inner }}, '$["$numberLong"]', 'string') rlike '^\\s*[-+]?[0-9]{1,38}\\s*$'
            then {{ debezium_epoch_text("cast(trim(variant_get(" ~ inner ~ ", '$[\"$numberLong\"]', 'string')) as decimal(38, 0))", per_second='1000') }}
        else {{ debezium_epoch_text("case when to_json(" ~ inner ~ ") rlike '^-?[0-9]{1,38}$' then cast(to_json(" ~ inner ~ ") as decimal(38, 0)) end", per_second='1000') }}
    end
{%- endmacro %}

{#- The wrappers nested in arrays and sub-documents, replaced in the canonical JSON text (the
    patterns cannot match inside a JSON string, where quotes are escaped). -#}
{% macro _debezium_mongo_nested(json_text) %}
    case
        when instr({{ json_text }}, '{"$') = 0 then {{ json_text }}
        else regexp_replace(regexp_replace(regexp_replace(
            {{ json_text }},
            '\\{"\\$(?:oid|numberDecimal)":("(?:[^"\\\\]|\\\\.)*")\\}', '$1'),
            '\\{"\\$number(?:Long|Int)":"\\s*(?:(-)|\\+)?0*([0-9]+)\\s*"\\}', '$1$2'),
            '\\{"\\$numberDouble":"(-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)"\\}', '$1')
    end
{%- endmacro %}

{#- A MongoDB document (variant object) as map<string,string> of plain JSON text, unavailable
    values left out (debezium._mongo_document + _convert_row without a schema). -#}
{% macro debezium_mongo_image(document) %}
    {{- _debezium_require('debezium_mongo_image', {'document': document}, "debezium_mongo_image('after_document')") -}}
    map_filter(
        transform_values(
            try_cast({{ document }} as map<string, variant>),
            (column_name, column_value) -> {{ debezium_mongo_value('column_value') }}
        ),
        (column_name, column_json) -> not {{ _debezium_is_unavailable('column_json') }}
    )
{%- endmacro %}

{#- ---------------------------------------------------------------------------------------------
    Envelope fields
-#}

{#- Epoch microseconds from the most precise non-zero of three whole numbers ts_us / ts_ns / ts_ms
    (debezium._epoch_us; ns floor-divided). -#}
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
        when lower({{ _debezium_strip(name) }}) = 'postgres' then 'postgresql'
        else lower({{ _debezium_strip(name) }})
    end
{%- endmacro %}

{#- The named fields of a struct of variants as map<string,string> of text (debezium._texts):
    absent and null fields left out. -#}
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
