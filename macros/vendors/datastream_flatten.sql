{#- Datastream flattening in Spark SQL: the event types and value readers of
    models/staging/datastream/base_datastream__parsed.sql. tests/pytest/parsers/datastream.py is the
    specification (kept as the oracle of tests/pytest/test_sql_parity.py); each macro names the
    function it follows. Shared JSON readers are in macros/cdc/variant.sql. Every macro returns one
    SQL expression and reads no table; pass a column or a struct field, not a computation. -#}

{% macro _datastream_require(macro_name, arguments, example) %}
    {%- for name, value in arguments.items() if value is none or (value is string and value | trim == '') -%}
        {{ exceptions.raise_compiler_error(macro_name ~ ": argument '" ~ name ~ "' is missing. Write it like: " ~ example) }}
    {%- endfor -%}
{% endmacro %}

{#- The fields of an event and of its source_metadata (seed 000, "generic metadata" and "source
    metadata" per source), declared once: VARIANT each, a missing field is SQL null, a JSON null a
    variant null; try_cast(<variant> as <type>) is null unless an object. -#}
{% macro datastream_envelope_type(part) %}
    {%- set types = {
        'event': 'struct<payload: variant, source_metadata: variant, read_method: variant, object: variant, source_table: variant, '
            ~ 'source_timestamp: variant, read_timestamp: variant, schema_key: variant, ts: variant, clusterTime: variant, cluster_time: variant>',
        'source': 'struct<`table`: variant, collection: variant, object_name: variant, database: variant, schema: variant, '
            ~ 'change_type: variant, is_deleted: variant, primary_keys: variant, replication_index: variant, tx_id: variant, '
            ~ 'schema_key: variant, schema_hash: variant, log_file: variant, log_position: variant, scn: variant, rs_id: variant, '
            ~ 'ssn: variant, row_id: variant, physical_location: variant, lsn: variant, domain: variant, ts: variant, '
            ~ 'clusterTime: variant, cluster_time: variant, resume_token: variant, resumeToken: variant, _id: variant>',
    } -%}
    {%- if part not in types -%}
        {{ exceptions.raise_compiler_error("datastream_envelope_type: part '" ~ part ~ "' is unknown. Write one of: " ~ (types.keys() | list | join(', ')) ~ ", e.g. datastream_envelope_type('source').") }}
    {%- endif -%}
    {{ types[part] }}
{%- endmacro %}

{#- True when a field is present and not JSON null (python's `value is not None`). -#}
{% macro datastream_is_set(value) %}
    {{- _datastream_require('datastream_is_set', {'value': value}, "datastream_is_set('source_fields.lsn')") -}}
    ({{ value }} is not null and not is_variant_null({{ value }}))
{%- endmacro %}

{#- A scalar as text (datastream._text): a string as written (spaces kept), a whole number in
    decimal (a JSON number with a zero fraction too); null for null and for anything else, which
    the model quarantines as wrong_type when the field is set. -#}
{% macro datastream_text(value) %}
    {{- _datastream_require('datastream_text', {'value': value}, "datastream_text('source_fields.log_position')") -}}
    case
        when schema_of_variant({{ value }}) = 'STRING' then cast({{ value }} as string)
        when to_json({{ value }}) rlike '^-?[0-9]+$' then to_json({{ value }})
        when to_json({{ value }}) rlike '^-?[0-9]+[.]0+$' then regexp_extract(to_json({{ value }}), '^(-?[0-9]+)', 1)
        when
            schema_of_variant({{ value }}) = 'DOUBLE'
            -- a whole double (floor() would return a bigint, which 1e20 overflows)
            and cast({{ value }} as double) % 1 = 0
            then cast(cast(cast({{ value }} as double) as decimal(38, 0)) as string)
    end
{%- endmacro %}

{#- One part of a qualified table name (datastream._name_part): a non-empty string; a whole
    number (SQL Server's database); an array of strings (SQL Server's schema), its non-empty items
    joined with '.'. Null when unset or empty, and for any other value (the model says wrong_type). -#}
{% macro datastream_name_part(value) %}
    {{- _datastream_require('datastream_name_part', {'value': value}, "datastream_name_part('source_fields.`table`')") -}}
    case
        when schema_of_variant({{ value }}) = 'STRING' then nullif(cast({{ value }} as string), '')
        when to_json({{ value }}) rlike '^-?[0-9]+$' then to_json({{ value }})
        when forall(try_cast({{ value }} as array<variant>), item -> schema_of_variant(item) = 'STRING')
            then nullif(array_join(filter(transform(try_cast({{ value }} as array<variant>), item -> cast(item as string)), item -> item != ''), '.'), '')
    end
{%- endmacro %}

{#- True when a name part is set to a value datastream._name_part refuses. -#}
{% macro datastream_bad_name_part(value) %}
    {{- _datastream_require('datastream_bad_name_part', {'value': value}, "datastream_bad_name_part('source_fields.schema')") -}}
    (
        {{ datastream_is_set(value) }}
        and coalesce({{ cdc_json_string(value) }}, 'set') != ''
        and not coalesce(
            schema_of_variant({{ value }}) = 'STRING'
            or to_json({{ value }}) rlike '^-?[0-9]+$'
            or forall(try_cast({{ value }} as array<variant>), item -> schema_of_variant(item) = 'STRING'),
            false
        )
    )
{%- endmacro %}

{#- A list of column names (datastream._column_list): an array of non-empty strings, repeats
    dropped; an empty array when unset. Null when set to anything else (the model says wrong_type). -#}
{% macro datastream_column_list(value) %}
    {{- _datastream_require('datastream_column_list', {'value': value}, "datastream_column_list('source_fields.primary_keys')") -}}
    case
        when not {{ datastream_is_set(value) }} then cast(array() as array<string>)
        when forall(try_cast({{ value }} as array<variant>), item -> coalesce({{ cdc_json_string('item') }}, '') != '')
            then array_distinct(transform(try_cast({{ value }} as array<variant>), item -> cast(item as string)))
    end
{%- endmacro %}

{#- A non-negative whole number (datastream._whole) as decimal(38,0): a JSON integer or a text of
    ASCII digits (whitespace around allowed); else null. -#}
{% macro datastream_whole(value) %}
    {{- _datastream_require('datastream_whole', {'value': value}, "datastream_whole('pair_fields.t')") -}}
    case
        when to_json({{ value }}) rlike '^[0-9]+$' then try_cast(to_json({{ value }}) as decimal(38, 0))
        when {{ cdc_strip(cdc_json_string(value)) }} rlike '^[0-9]+$' then try_cast({{ cdc_strip(cdc_json_string(value)) }} as decimal(38, 0))
    end
{%- endmacro %}

{#- The first of `values` (a list of VARIANT expressions, in order) that holds a BSON timestamp,
    as struct<seconds, increment> (datastream._bson_timestamp): an object {"$timestamp": ...},
    {t, i}, {seconds, increment} or {time, inc}; the text 'Timestamp(t, i)'; or a number (or
    digits) split as the 64-bit value, seconds in the high 32 bits. Null when none does. The
    reading is written once, as a lambda over the candidates (the SQL stays small: D45). -#}
{% macro datastream_bson_timestamp(values) %}
    {%- if values is none or values is string or values | length == 0 -%}
        {{ exceptions.raise_compiler_error("datastream_bson_timestamp needs values=[...], a list of VARIANT expressions, e.g. datastream_bson_timestamp(['source_fields.ts', 'event_fields.ts'])") }}
    {%- endif -%}
    {%- set unwrapped = "case when map_contains_key(" ~ cdc_object_fields('candidate') ~ ", '$timestamp') then " ~ cdc_object_fields('candidate') ~ "['$timestamp'] else candidate end" -%}
    get(filter(
        transform(array({{ values | join(', ') }}), candidate -> transform(array({{ unwrapped }}), bson_time -> {{ _datastream_bson_time_value('bson_time') }})[0]),
        bson_timestamp -> bson_timestamp is not null
    ), 0)
{%- endmacro %}

{% macro _datastream_bson_time_value(value) %}
    {%- set fields = cdc_object_fields(value) -%}
    {%- set pattern = "'^Timestamp\\\\s*\\\\(\\\\s*\\\\{?\\\\s*(?:t\\\\s*:\\\\s*)?([0-9]+)\\\\s*,\\\\s*(?:i\\\\s*:\\\\s*)?([0-9]+)\\\\s*\\\\}?\\\\s*\\\\)$'" -%}
    {%- set text = cdc_strip(cdc_json_string(value)) -%}
    case
        when {{ fields }} is not null then coalesce(
            {%- for seconds, increment in [('t', 'i'), ('seconds', 'increment'), ('time', 'inc')] %}
            transform(
                array(named_struct('seconds', {{ datastream_whole(fields ~ "['" ~ seconds ~ "']") }}, 'increment', {{ datastream_whole(fields ~ "['" ~ increment ~ "']") }})),
                pair -> case when pair.seconds is not null and pair.increment is not null then pair end
            )[0]{% if not loop.last %},{% endif %}
            {%- endfor %}
        )
        when {{ text }} rlike {{ pattern }}
            then named_struct(
                'seconds', cast(regexp_extract({{ text }}, {{ pattern }}, 1) as decimal(38, 0)),
                'increment', cast(regexp_extract({{ text }}, {{ pattern }}, 2) as decimal(38, 0))
            )
        when {{ datastream_whole(value) }} is not null
            then named_struct(
                'seconds', cast(floor({{ datastream_whole(value) }} / 4294967296) as decimal(38, 0)),
                'increment', cast(pmod({{ datastream_whole(value) }}, 4294967296) as decimal(38, 0))
            )
    end
{%- endmacro %}

{#- The cluster time in a change-stream resume token (datastream._resume_token_time): its `_data`
    hex (or the token itself as text) starts with 82 and the 8-byte time: seconds, increment. -#}
{% macro datastream_resume_token_time(value) %}
    {{- _datastream_require('datastream_resume_token_time', {'value': value}, "datastream_resume_token_time('source_fields.resume_token')") -}}
    {%- set text = cdc_strip("coalesce(" ~ cdc_json_string(value) ~ ", " ~ cdc_json_string(cdc_object_fields(value) ~ "['_data']") ~ ")") -%}
    {%- set pattern = "'^82([0-9a-fA-F]{8})([0-9a-fA-F]{8})[0-9a-fA-F]{7,}$'" -%}
    case
        when {{ text }} rlike {{ pattern }}
            then named_struct(
                'seconds', cast(conv(regexp_extract({{ text }}, {{ pattern }}, 1), 16, 10) as decimal(38, 0)),
                'increment', cast(conv(regexp_extract({{ text }}, {{ pattern }}, 2), 16, 10) as decimal(38, 0))
            )
    end
{%- endmacro %}

{#- A Datastream time as epoch microseconds (datastream._epoch_us): epoch milliseconds (a JSON
    number or a text of digits; magnitudes from 10^14 are microseconds, from 10^17 nanoseconds),
    a JSON number with a fraction (milliseconds), or ISO-8601 text (no zone: UTC). Null when unset
    or unreadable; the model tells those apart and checks the years 1 to 9999. -#}
{% macro datastream_epoch_us(value) %}
    {{- _datastream_require('datastream_epoch_us', {'value': value}, "datastream_epoch_us('event_fields.source_timestamp')") -}}
    {%- set text = cdc_strip(cdc_json_string(value)) -%}
    {#- datastream._ISO: seconds optional, a fraction of any length after `.` -#}
    {%- set iso = "'^([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?(?:[.]([0-9]+))?\\\\s*([Zz]|UTC|[+-][0-9]{2}(?::?[0-9]{2})?)?$'" -%}
    {%- set whole = "try_cast(coalesce(case when to_json(" ~ value ~ ") rlike '^-?[0-9]+$' then to_json(" ~ value ~ ") end, " ~ text ~ ") as decimal(38, 0))" -%}
    case
        when schema_of_variant({{ value }}) in ('DOUBLE', 'FLOAT') or schema_of_variant({{ value }}) like 'DECIMAL%' and to_json({{ value }}) not rlike '^-?[0-9]+$'
            then try_cast(bround(cast({{ value }} as double) * 1000, 0) as decimal(38, 0))
        when to_json({{ value }}) rlike '^-?[0-9]+$' or {{ text }} rlike '^[+-]?[0-9]+$'
            then case
                when abs({{ whole }}) >= 100000000000000000 then floor({{ whole }} / 1000)
                when abs({{ whole }}) >= 100000000000000 then {{ whole }}
                else {{ whole }} * 1000
            end
        else {{ cdc_iso_time_us(text, iso) }}
    end
{%- endmacro %}

{#- Epoch microseconds that a Spark timestamp holds: the years 1 to 9999. -#}
{% macro datastream_is_spark_time(us) %}
    {{- _datastream_require('datastream_is_spark_time', {'us': us}, "datastream_is_spark_time('committed_us')") -}}
    coalesce({{ us }} between -62135596800000000 and 253402300799999999, false)
{%- endmacro %}

{#- The two WHEN branches of the model's `problem` CASE for a time field (datastream._epoch_us):
    wrong_type for a value that is no time at all, invalid_timestamp for one that cannot be read
    or is outside the years 1 to 9999. An unset field (missing, null or "") is no problem. -#}
{% macro _datastream_time_problems(value, us, name) %}
    {{- _datastream_require('_datastream_time_problems', {'value': value, 'us': us, 'name': name}, "_datastream_time_problems('event_fields.read_timestamp', 'read_us', 'read_timestamp')") -}}
    when {{ cdc_json_type(value) }} in ('boolean', 'object', 'array')
                then named_struct('code', 'wrong_type', 'detail', concat('{{ name }} is a JSON ', {{ cdc_json_type(value) }}, ', not a time'))
            when {{ datastream_is_set(value) }} and coalesce({{ cdc_json_string(value) }}, 'set') != '' and not {{ datastream_is_spark_time(us) }}
                then named_struct('code', 'invalid_timestamp', 'detail', concat('{{ name }} ', left(to_json({{ value }}), 80), ' is not a time between the years 1 and 9999'))
{%- endmacro %}
