{#- Alibaba DataHub flattening in Spark SQL: the message types and value readers of
    models/staging/datahub/base_datahub__parsed.sql. tests/pytest/parsers/datahub.py is the specification
    (kept as the oracle of tests/pytest/test_sql_parity.py); each macro names the function it
    follows. Shared JSON readers are in macros/cdc/variant.sql. Every macro returns SQL and reads no
    table; pass a column or a struct field, not a computation. -#}

{% macro _datahub_require(macro_name, arguments, example) %}
    {%- for name, value in arguments.items() if value is none or (value is string and value | trim == '') -%}
        {{ exceptions.raise_compiler_error(macro_name ~ ": argument '" ~ name ~ "' is missing. Write it like: " ~ example) }}
    {%- endfor -%}
{% endmacro %}

{#- The fields of each part of a message (seed 004, "附錄:DataHub消息格式"), declared once: VARIANT
    each, a missing field is SQL null, a JSON null a variant null. `record` holds both shapes: a
    Blob record's payload and schema, a Tuple record's metadata columns. -#}
{% macro datahub_envelope_type(part) %}
    {%- set types = {
        'record': 'struct<payload: variant, schema: variant, _sequence_id_: variant, _operation_type_: variant, '
            ~ '_excute_time_: variant, _execute_time_: variant, _source_table_: variant, _before_image_: variant, _after_image_: variant>',
        'payload': 'struct<op: variant, sequenceId: variant, timestamp: variant, before: variant, after: variant, ddl: variant>',
        'schema': 'struct<dataColumn: variant, primaryKey: variant, source: variant>',
        'source': 'struct<dbType: variant, dbName: variant, schemaName: variant, tableName: variant>',
        'timestamp': 'struct<eventTime: variant, systemTime: variant, checkpointTime: variant>',
        'image': 'struct<dataColumn: variant>',
        'ddl': 'struct<text: variant, ddlMeta: variant>',
    } -%}
    {%- if part not in types -%}
        {{ exceptions.raise_compiler_error("datahub_envelope_type: part '" ~ part ~ "' is unknown. Write one of: " ~ (types.keys() | list | join(', ')) ~ ", e.g. datahub_envelope_type('payload').") }}
    {%- endif -%}
    {{ types[part] }}
{%- endmacro %}

{#- The ops of one family as a SQL list for `in` (datahub.py: _DATA_OPS, TRANSACTION_OPS, DDL_OPS,
    UPDATE_BEFORE_OPS): `data` are the ops the seed lists for rows, which need a sequence id. -#}
{% macro datahub_ops(family) %}
    {%- set families = {
        'update_before': ['UPDATE_BEFOR', 'UPDATE_BEFORE'],
        'data': ['INSERT', 'UPDATE_AFTER', 'UPDATE', 'DELETE', 'UPDATE_BEFOR', 'UPDATE_BEFORE', 'TRUNCATE'],
        'transaction': ['TRANSACTION_BEGIN', 'TRANSACTION_END', 'GTID', 'XACOMMIT', 'XAROLLBACK'],
        'ddl': ['CREATE', 'ALTER', 'RENAME', 'ERASE', 'CINDEX', 'DINDEX', 'QUERY'],
    } -%}
    {%- if family not in families -%}
        {{ exceptions.raise_compiler_error("datahub_ops: family '" ~ family ~ "' is unknown. Write one of: " ~ (families.keys() | list | join(', ')) ~ ", e.g. datahub_ops('ddl').") }}
    {%- endif -%}
    ('{{ families[family] | join("', '") }}')
{%- endmacro %}

{#- A Tuple image flag (datahub._flag): a boolean, or Y / N / TRUE / FALSE / 1 / 0 as text (any
    case, spaces around); null when unset or anything else (the model says wrong_type). -#}
{% macro datahub_flag(value) %}
    {{- _datahub_require('datahub_flag', {'value': value}, "datahub_flag('record_fields._before_image_')") -}}
    case
        when schema_of_variant({{ value }}) = 'BOOLEAN' then cast({{ value }} as boolean)
        when upper({{ cdc_strip(cdc_json_string(value)) }}) in ('Y', 'TRUE', '1') then true
        when upper({{ cdc_strip(cdc_json_string(value)) }}) in ('N', 'FALSE', '0') then false
    end
{%- endmacro %}

{#- The Tuple metadata columns, which are not data columns (datahub._TUPLE_META). -#}
{% macro datahub_tuple_metadata_columns() %}
    {{- "array('_sequence_id_', '_operation_type_', '_excute_time_', '_execute_time_', '_source_table_', '_before_image_', '_after_image_')" -}}
{%- endmacro %}

{#- True when a field is unset: missing, JSON null or "" (python's `value is None or value == ""`).
    An object is never "": it is ruled out first, since reading a string reads a whole object. -#}
{% macro datahub_is_unset(value) %}
    {{- _datahub_require('datahub_is_unset', {'value': value}, "datahub_is_unset('payload_fields.sequenceId')") -}}
    (
        {{ value }} is null or is_variant_null({{ value }})
        or (try_cast({{ value }} as struct<cdc_probe: variant>) is null and coalesce({{ cdc_json_string(value) }} = '', false))
    )
{%- endmacro %}

{#- An object field, or JSON text of one that some writers send (datahub._object): the object as
    a variant, else null. `datahub_object_problem` says why a set field gives none. -#}
{% macro datahub_object(value) %}
    {{- _datahub_require('datahub_object', {'value': value}, "datahub_object('record_fields.payload')") -}}
    case
        when {{ cdc_json_type(value) }} = 'object' then {{ value }}
        when {{ cdc_json_type(value) }} = 'string' and not {{ cdc_is_blank(cdc_json_string(value)) }}
            then {{ cdc_json_document(cdc_strip_bom(cdc_json_string(value))) }}
    end
{%- endmacro %}

{#- The WHEN branches of the model's `problem` CASE for an object field (datahub._object), in its
    order: text that is no JSON document, a field that is unset (missing_field when `required`),
    a value that is not an object. `parsed` is the column holding datahub_object(value); `guard`,
    a condition the branches also need (e.g. the op that reads the field). -#}
{% macro datahub_object_problems(value, parsed, name, required=false, guard='true') %}
    {{- _datahub_require('datahub_object_problems', {'value': value, 'parsed': parsed, 'name': name}, "datahub_object_problems('record_fields.payload', 'payload', 'payload', required=true)") -}}
    {%- set text = cdc_strip_bom(cdc_json_string(value)) -%}
    {%- set is_text = "(" ~ cdc_json_type(value) ~ " = 'string' and not " ~ cdc_is_blank(cdc_json_string(value)) ~ ")" -%}
    {#- unset: missing, JSON null or "", also as the JSON text of one -#}
    {%- set unset = "(case when " ~ is_text ~ " then coalesce(" ~ cdc_json_type(parsed) ~ " = 'null' or " ~ cdc_json_string(parsed) ~ " = '', false)"
        ~ " else " ~ datahub_is_unset(value) ~ " end)" -%}
    when ({{ guard }}) and {{ is_text }} and {{ cdc_is_blank(text) }}
                then named_struct('code', 'empty_record', 'detail', 'the {{ name }} is empty or whitespace only')
            when ({{ guard }}) and {{ is_text }} and {{ parsed }} is null
                then named_struct('code', 'invalid_json', 'detail', 'the {{ name }} is not valid JSON')
            {%- if required %}
            when ({{ guard }}) and {{ unset }}
                then named_struct('code', 'missing_field', 'detail', 'the record has no {{ name }}')
            {%- endif %}
            when ({{ guard }}) and not {{ unset }} and coalesce({{ cdc_json_type(parsed) }}, {{ cdc_json_type(value) }}) != 'object'
                then named_struct('code', 'wrong_type', 'detail', concat('{{ name }} is a JSON ', coalesce({{ cdc_json_type(parsed) }}, {{ cdc_json_type(value) }}), ', not an object'))
{%- endmacro %}

{#- A whole number (an integer, or text of one with a sign and spaces around) as canonical decimal
    text without leading zeros or '+' (python's str(int(...))); null for anything else. Used for
    sequence ids and LONG values, which python reads at any length. -#}
{% macro datahub_integer_text(value) %}
    {{- _datahub_require('datahub_integer_text', {'value': value}, "datahub_integer_text('payload_fields.sequenceId')") -}}
    {{ datahub_canonical_integer(datahub_integer_source(value)) }}
{%- endmacro %}

{#- The text an integer is read from: a JSON integer's digits, else a JSON string's text, stripped. -#}
{% macro datahub_integer_source(value) %}
    coalesce(nullif(regexp_extract(to_json({{ value }}), '^-?[0-9]+$', 0), ''), {{ cdc_strip(cdc_json_string(value)) }})
{%- endmacro %}

{#- Integer text (sign, digits) as python's str(int(text)); null unless it is one. Up to 38 digits
    through a decimal; past that, the sign and leading zeros are dropped by hand (never zero then). -#}
{% macro datahub_canonical_integer(text) %}
    case
        when {{ text }} rlike '^[+-]?[0-9]+$'
            then coalesce(cast(try_cast({{ text }} as decimal(38, 0)) as string), regexp_replace({{ text }}, '^(-?)[+]?0*', '$1'))
    end
{%- endmacro %}

{#- Epoch milliseconds (datahub._epoch_ms): a whole JSON number (a fraction of zero too) or text
    of an integer. Null when unset, negative (DataHub's -1: unknown), or not epoch milliseconds;
    `datahub_epoch_ms_problem` tells those apart. -#}
{% macro datahub_epoch_ms(value) %}
    {{- _datahub_require('datahub_epoch_ms', {'value': value}, "datahub_epoch_ms('timestamp_fields.eventTime')") -}}
    case
        when {{ datahub_epoch_ms_raw(value) }} between 0 and 253402300799999 then cast({{ datahub_epoch_ms_raw(value) }} as bigint)
    end
{%- endmacro %}

{#- The number datahub._epoch_ms reads, before its range is checked (decimal, null when unreadable). -#}
{% macro datahub_epoch_ms_raw(value) %}
    case
        when schema_of_variant({{ value }}) in ('DOUBLE', 'FLOAT') or schema_of_variant({{ value }}) like 'DECIMAL%'
            then case when cast({{ value }} as double) % 1 = 0 then try_cast(cast({{ value }} as double) as decimal(38, 0)) end
        when {{ datahub_integer_source(value) }} rlike '^[+-]?[0-9]+$' then try_cast({{ datahub_integer_source(value) }} as decimal(38, 0))
    end
{%- endmacro %}

{#- The WHEN branch of the model's `problem` CASE for a time in epoch milliseconds. -#}
{% macro datahub_epoch_ms_problem(value, name, guard='true') %}
    {{- _datahub_require('datahub_epoch_ms_problem', {'value': value, 'name': name}, "datahub_epoch_ms_problem('timestamp_fields.eventTime', 'payload.timestamp.eventTime')") -}}
    when ({{ guard }}) and not {{ datahub_is_unset(value) }} and coalesce({{ datahub_epoch_ms_raw(value) }} > 253402300799999, true)
                then named_struct('code', 'invalid_timestamp', 'detail', concat('{{ name }} ', left(to_json({{ value }}), 80), ' is not epoch milliseconds before the year 10000'))
{%- endmacro %}

{#- Epoch milliseconds as ISO-8601 UTC text, the fraction trimmed (contract.iso_from_epoch). -#}
{% macro datahub_iso_ms(ms) %}
    {{- _datahub_require('datahub_iso_ms', {'ms': ms}, "datahub_iso_ms('event_ms')") -}}
    case
        when {{ ms }} is not null
            then concat(
                    cast(year(timestamp_millis({{ ms }})) as string),
                    date_format(timestamp_millis({{ ms }}), '-MM-dd\'T\'HH:mm:ss'),
                    case when pmod({{ ms }}, 1000) != 0 then rtrim('0', concat('.', lpad(cast(pmod({{ ms }}, 1000) as string), 3, '0'))) else '' end,
                    'Z'
                )
    end
{%- endmacro %}

{#- One column value and what its typing reads, each computed once (Spark evaluates a lambda's
    body for every value and shares nothing between its parts): the value, its schema.dataColumn
    type (`kind`), its variant type, its JSON text, its text when a JSON string (stripped) and the
    integer it spells. `datahub_typed_json` takes the struct. -#}
{% macro datahub_value_parts(value, kind) %}
    {{- _datahub_require('datahub_value_parts', {'value': value, 'kind': kind}, "datahub_value_parts('column_value', 'column_types[column_name]')") -}}
    named_struct(
        'value', {{ value }},
        'kind', {{ kind }},
        'variant_type', schema_of_variant({{ value }}),
        'json', to_json({{ value }}),
        'text', {{ cdc_strip(cdc_json_string(value)) }},
        'integer', {{ datahub_canonical_integer(datahub_integer_source(value)) }}
    )
{%- endmacro %}

{#- One column value as JSON text, typed by its schema.dataColumn type (datahub._typed, the six
    types of seed 004): BOOLEAN, DOUBLE (number or number text; NaN and infinities as text), LONG,
    STRING, DATE (epoch milliseconds, written as ISO-8601 UTC text), BYTES (base64 text, checked
    and kept). A null value, a column without a type, or another type: the value as given. Null
    when the value does not fit its type (the model quarantines the record as wrong_type).
    `parts` is a datahub_value_parts struct. -#}
{% macro datahub_typed_json(parts) %}
    {{- _datahub_require('datahub_typed_json', {'parts': parts}, "datahub_typed_json('column_parts')") -}}
    {%- set text = parts ~ '.text' -%}
    {%- set variant_type = parts ~ '.variant_type' -%}
    case
        when is_variant_null({{ parts }}.value) or {{ parts }}.kind is null then {{ parts }}.json
        when {{ parts }}.kind = 'BOOLEAN' then case
            when {{ variant_type }} = 'BOOLEAN' then {{ parts }}.json
            when lower({{ text }}) in ('true', 'false') then lower({{ text }})
        end
        when {{ parts }}.kind = 'DOUBLE' then case
            when {{ text }} in ('NaN', 'Infinity', '-Infinity', '+Infinity') then concat('"', replace({{ text }}, '+', ''), '"')
            when {{ text }} rlike '^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?$' and abs(cast({{ text }} as double)) != double('Infinity')
                then cast(cast({{ text }} as double) as string)
            when {{ variant_type }} not in ('BOOLEAN', 'STRING') then cast(cast({{ parts }}.value as double) as string)
        end
        when {{ parts }}.kind = 'LONG' then {{ parts }}.integer
        when {{ parts }}.kind = 'STRING' then case when {{ variant_type }} = 'STRING' then {{ parts }}.json end
        when {{ parts }}.kind = 'DATE' then case
            when try_cast({{ parts }}.integer as decimal(38, 0)) between -62135596800000 and 253402300799999
                then concat('"', {{ datahub_iso_ms('cast(' ~ parts ~ '.integer as bigint)') }}, '"')
        end
        when {{ parts }}.kind = 'BYTES' then case
            when {{ variant_type }} = 'STRING'
                and cast({{ parts }}.value as string) rlike '^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$'
                then {{ parts }}.json
        end
        else {{ parts }}.json
    end
{%- endmacro %}
