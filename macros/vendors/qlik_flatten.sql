{#- Qlik Replicate flattening in Spark SQL: the message types and value readers of
    models/staging/qlik/base_qlik__parsed.sql. tests/pytest/parsers/qlik.py is the specification (kept as
    the oracle of tests/pytest/test_sql_parity.py); each macro names the function it follows. The
    JSON helpers shared with the other vendors are in macros/cdc/variant.sql. Every macro returns
    one SQL expression and reads no table; pass a column or a struct field, not a computation. -#}

{% macro _qlik_require(macro_name, arguments, example) %}
    {%- for name, value in arguments.items() if value is none or (value is string and value | trim == '') -%}
        {{ exceptions.raise_compiler_error(macro_name ~ ": argument '" ~ name ~ "' is missing. Write it like: " ~ example) }}
    {%- endfor -%}
{% endmacro %}

{#- The fields each part of a Qlik record may have (seed 003, "metadata and data messages"),
    declared once. Values whose JSON type decides something stay VARIANT; a missing field is SQL
    null, a JSON null a variant null; try_cast(<variant> as <type>) is null unless an object.
    - record: a Kafka record wrapper's fields and a message's fields (a record is either);
    - body: the `message` of an atMSG wrapper (metadata or data), or a bare data message;
    - table_structure: a metadata message's tableStructure;
    - headers: a data message's headers. -#}
{% macro qlik_envelope_type(part) %}
    {%- set types = {
        'record': 'struct<topic: variant, partition: variant, offset: variant, key: variant, timestamp: variant, value: variant, '
            ~ 'magic: variant, type: variant, message: variant, messageSchemaId: variant, data: variant, beforeData: variant, headers: variant>',
        'body': 'struct<lineage: variant, tableStructure: variant, schemaId: variant, headers: variant, '
            ~ 'data: variant, beforeData: variant, schemaName: variant, tableName: variant, schema: variant, `table`: variant>',
        'table_structure': 'struct<tableColumns: variant>',
        'lineage': 'struct<server: variant, task: variant, schema: variant, `table`: variant, tableVersion: variant, timestamp: variant>',
        'column': 'struct<ordinal: variant, type: variant, length: variant, precision: variant, scale: variant, '
            ~ 'primaryKeyPosition: variant, nullable: variant>',
        'headers': 'struct<operation: variant, changeSequence: variant, timestamp: variant, transactionId: variant, '
            ~ 'transactionEventCounter: variant, transactionLastEvent: variant, changeMask: variant, columnMask: variant, '
            ~ 'externalSchemaId: variant, schemaName: variant, tableName: variant, schema: variant, `table`: variant>',
    } -%}
    {%- if part not in types -%}
        {{ exceptions.raise_compiler_error("qlik_envelope_type: part '" ~ part ~ "' is unknown. Write one of: " ~ (types.keys() | list | join(', ')) ~ ", e.g. qlik_envelope_type('headers').") }}
    {%- endif -%}
    {{ types[part] }}
{%- endmacro %}

{#- True when a field counts as not set: missing, JSON null or the empty string (qlik.py's
    `value is None or value == ""`). -#}
{% macro qlik_is_unset(value) %}
    {{- _qlik_require('qlik_is_unset', {'value': value}, "qlik_is_unset('headers.changeSequence')") -}}
    ({{ value }} is null or is_variant_null({{ value }}) or coalesce({{ cdc_json_string(value) }} = '', false))
{%- endmacro %}

{#- The digits of a JSON integer (no fraction, no exponent), else null. -#}
{% macro qlik_integer_digits(value) %}
    {{- _qlik_require('qlik_integer_digits', {'value': value}, "qlik_integer_digits('headers.transactionId')") -}}
    case when to_json({{ value }}) rlike '^-?[0-9]+$' then to_json({{ value }}) end
{%- endmacro %}

{#- A whole number as bigint: a JSON integer, or a text of at most 40 characters holding one
    (sign and surrounding whitespace allowed); null otherwise (qlik._as_int). -#}
{% macro qlik_as_int(value) %}
    {{- _qlik_require('qlik_as_int', {'value': value}, "qlik_as_int('record_fields.partition')") -}}
    case
        when to_json({{ value }}) rlike '^-?[0-9]+$' then try_cast(to_json({{ value }}) as bigint)
        when length({{ cdc_json_string(value) }}) <= 40 and {{ cdc_strip(cdc_json_string(value)) }} rlike '^[+-]?[0-9]+$'
            then try_cast({{ cdc_strip(cdc_json_string(value)) }} as bigint)
    end
{%- endmacro %}

{#- The Kafka record timestamp (epoch milliseconds, 0 < ms < 10^14) as microseconds, else null
    (qlik._kafka_time). -#}
{% macro qlik_kafka_time_us(value) %}
    {{- _qlik_require('qlik_kafka_time_us', {'value': value}, "qlik_kafka_time_us('record_fields.timestamp')") -}}
    case when {{ qlik_as_int(value) }} > 0 and {{ qlik_as_int(value) }} < 100000000000000 then {{ qlik_as_int(value) }} * 1000 end
{%- endmacro %}

{#- 'schema' and 'table' joined by '.', empty or missing parts left out (qlik._qualified). -#}
{% macro qlik_qualified(schema, table) %}
    {{- _qlik_require('qlik_qualified', {'schema': schema, 'table': table}, "qlik_qualified('lineage_schema', 'lineage_table')") -}}
    concat_ws('.', nullif({{ schema }}, ''), nullif({{ table }}, ''))
{%- endmacro %}

{#- The table a data message names itself: its own schemaName/tableName or schema/table, then the
    headers' (the first non-empty table wins; qlik._own_table). -#}
{% macro qlik_own_table(body, headers) %}
    {{- _qlik_require('qlik_own_table', {'body': body, 'headers': headers}, "qlik_own_table('body_fields', 'headers_fields')") -}}
    coalesce(
        {%- for block in [body, headers] %}
        {%- for schema_field, table_field in [('schemaName', 'tableName'), ('schema', '`table`')] %}
        case
            when {{ cdc_json_string(block ~ '.' ~ table_field) }} != ''
                then {{ qlik_qualified(cdc_json_string(block ~ '.' ~ schema_field), cdc_json_string(block ~ '.' ~ table_field)) }}
        end{% if not loop.last %},{% endif %}
        {%- endfor %}{% if not loop.last %},{% endif %}
        {%- endfor %}
    )
{%- endmacro %}

{#- headers.changeSequence as its decimal digits without leading zeros: a non-negative JSON integer
    or a text of ASCII digits (whitespace around allowed); null when it is anything else. -#}
{% macro qlik_change_sequence_digits(value) %}
    {{- _qlik_require('qlik_change_sequence_digits', {'value': value}, "qlik_change_sequence_digits('headers_fields.changeSequence')") -}}
    regexp_replace(
        case
            when to_json({{ value }}) rlike '^[0-9]+$' then to_json({{ value }})
            when {{ cdc_strip(cdc_json_string(value)) }} rlike '^[0-9]+$' then {{ cdc_strip(cdc_json_string(value)) }}
        end,
        '^0+(?=[0-9])', ''
    )
{%- endmacro %}

{#- The position of a data message (qlik._position): changeSequence split into all its digits but
    the last 18 and the last 18 (each without leading zeros), and the transaction event counter
    ('0' when absent). `digits` comes from qlik_change_sequence_digits, `counter` from qlik_as_int. -#}
{% macro qlik_position(digits, counter) %}
    {{- _qlik_require('qlik_position', {'digits': digits, 'counter': counter}, "qlik_position('sequence_digits', 'event_counter')") -}}
    map(
        'change_sequence_high', case when length({{ digits }}) > 18 then left({{ digits }}, length({{ digits }}) - 18) else '0' end,
        'change_sequence_low', coalesce(nullif(regexp_replace(right({{ digits }}, 18), '^0+', ''), ''), '0'),
        'transaction_event_counter', coalesce(cast({{ counter }} as string), '0')
    )
{%- endmacro %}

{#- headers.timestamp as epoch microseconds (qlik._committed_at_us): ISO-8601 text (a zone or
    offset applied; none is UTC), or an epoch number, milliseconds when its magnitude is below 10^14,
    else microseconds. Null when it is none of these or outside the years 1 to 9999; the model
    quarantines such a value (an unset one is no time at all). -#}
{% macro qlik_committed_at_us(value) %}
    {{- _qlik_require('qlik_committed_at_us', {'value': value}, "qlik_committed_at_us('headers_fields.timestamp')") -}}
    {%- set text = cdc_strip(cdc_json_string(value)) -%}
    {#- qlik._ISO: seconds optional, a fraction of up to 9 digits after `.` or `,` only with seconds -#}
    {%- set iso = "'^([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:[.,]([0-9]{1,9}))?)?\\\\s*([Zz]|UTC|[+-][0-9]{2}(?::?[0-9]{2})?)?$'" -%}
    {%- set whole = "try_cast(coalesce(" ~ qlik_integer_digits(value) ~ ", case when length(" ~ cdc_json_string(value) ~ ") <= 40 then " ~ text ~ " end) as bigint)" -%}
    case
        when {{ cdc_json_type(value) }} = 'number' and {{ qlik_integer_digits(value) }} is null
            -- a JSON number with a fraction or an exponent: python's round(seconds * 1000) of a float
            then case
                when abs(cast({{ value }} as double)) < 100000000000000
                    then cast(bround(cast({{ value }} as double) * 1000, 0) as bigint)
            end
        when {{ cdc_json_type(value) }} = 'number' or {{ text }} rlike '^[+-]?[0-9]+$'
            then case when abs({{ whole }}) < 100000000000000 then {{ whole }} * 1000 else {{ whole }} end
        else {{ cdc_iso_time_us(text, iso) }}
    end
{%- endmacro %}

{#- The years 1 to 9999 in epoch microseconds: committed_at_us is a Spark timestamp. -#}
{% macro qlik_is_spark_time(us) %}
    {{- _qlik_require('qlik_is_spark_time', {'us': us}, "qlik_is_spark_time('committed_at_us')") -}}
    coalesce({{ us }} between -62135596800000000 and 253402300799999999, false)
{%- endmacro %}

{#- headers.transactionLastEvent: a JSON boolean, or the text true / false in any case (qlik._boolean). -#}
{% macro qlik_boolean(value) %}
    {{- _qlik_require('qlik_boolean', {'value': value}, "qlik_boolean('headers_fields.transactionLastEvent')") -}}
    case
        when {{ cdc_json_type(value) }} = 'boolean' then cast({{ value }} as boolean)
        when lower({{ cdc_strip(cdc_json_string(value)) }}) = 'true' then true
        when lower({{ cdc_strip(cdc_json_string(value)) }}) = 'false' then false
    end
{%- endmacro %}

{#- A row image as map<string,string> of JSON text (D2): a JSON object, or text holding one
    (qlik._image); null for anything else. -#}
{% macro qlik_column_texts(image) %}
    {{- _qlik_require('qlik_column_texts', {'image': image}, "qlik_column_texts('data_image')") -}}
    transform_values({{ cdc_object_fields(image) }}, (column_name, column_value) -> to_json(column_value))
{%- endmacro %}

{#- An image field of a data message read as an object (qlik._image): an object as is, a text
    whose first non-blank character is `{` parsed as JSON; null otherwise (the model says why). -#}
{% macro qlik_image(value) %}
    {{- _qlik_require('qlik_image', {'value': value}, "qlik_image('body_fields.data')") -}}
    case
        when {{ cdc_json_type(value) }} = 'object' then {{ value }}
        when left({{ cdc_strip(cdc_json_string(value)) }}, 1) = '{' then {{ cdc_json_document(cdc_json_string(value)) }}
    end
{%- endmacro %}

{#- The decoded columns of one metadata message (qlik._column), sorted by ordinal: `table_columns`
    is tableStructure.tableColumns as map<string, variant>. A column that is not an object has a
    null `spec`; a missing or invalid ordinal is null. -#}
{% macro qlik_table_columns(table_columns) %}
    {{- _qlik_require('qlik_table_columns', {'table_columns': table_columns}, "qlik_table_columns('table_columns')") -}}
    array_sort(transform(
        map_entries({{ table_columns }}),
        table_column -> named_struct(
            'ordinal', {{ qlik_as_int("try_cast(table_column.value as " ~ qlik_envelope_type('column') ~ ").ordinal") }},
            'name', table_column.key,
            'spec', try_cast(table_column.value as {{ qlik_envelope_type('column') }})
        )
    ), (left_column, right_column) -> case
        when left_column.ordinal < right_column.ordinal then -1
        when left_column.ordinal > right_column.ordinal then 1
        else 0
    end)
{%- endmacro %}

{#- One metadata column as the control document writes it (qlik._column): `column` is an element
    of qlik_table_columns. -#}
{% macro qlik_column_document(column) %}
    {{- _qlik_require('qlik_column_document', {'column': column}, "qlik_column_document('table_column')") -}}
    named_struct(
        'name', {{ column }}.name,
        'ordinal', {{ column }}.ordinal,
        'type', {{ cdc_json_string(column ~ '.spec.type') }},
        'length', {{ qlik_as_int(column ~ '.spec.length') }},
        'precision', {{ qlik_as_int(column ~ '.spec.precision') }},
        'scale', {{ qlik_as_int(column ~ '.spec.scale') }},
        'primary_key_position', coalesce({{ qlik_as_int(column ~ '.spec.primaryKeyPosition') }}, 0),
        'nullable', case when {{ cdc_json_type(column ~ '.spec.nullable') }} = 'boolean' then cast({{ column }}.spec.nullable as boolean) end
    )
{%- endmacro %}
