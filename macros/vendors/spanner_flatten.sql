{#- Spanner change-stream records flattened in Spark SQL (models/staging/spanner/base_spanner__parsed.sql).

    Expression macros over Spark VARIANT values. They follow tests/pytest/parsers/spanner.py, the parser
    this SQL replaced, rule for rule: that module stays as the oracle of the differential test
    (tests/pytest/test_sql_parity.py). Each macro returns one SQL expression; an expression that
    meets a value it cannot use returns null, and the model turns that null into a quarantine
    reason (DECISIONLOG D9). Pass column names or lambda variables, not long expressions: most
    macros name their argument more than once. -#}


{#- ------------------------------------------------------------------------------------------
    Constants -#}

{#- Python's str.strip() whitespace (str.isspace) as a Java regex character class inside a SQL
    literal: \\s (ASCII), the separators \\x1C-\\x1F and U+0085, and Unicode category Z. -#}
{% macro _spanner_whitespace() -%}
[\\s\\x1C-\\x1F\\x{85}\\p{Z}]
{%- endmacro %}

{#- RFC 3339 as the parser reads it: year, month, day, hour, minute, second, fraction, zone. -#}
{% macro _spanner_rfc3339() -%}
'^{{ _spanner_whitespace() }}*([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:[.]([0-9]{1,9}))?[ \\t\\n\\x0B\\f\\r]*([Zz]|[+-][0-9]{2}:?[0-9]{2}){{ _spanner_whitespace() }}*\\z'
{%- endmacro %}

{#- Decimal text as the parser accepts it for FLOAT64 and NUMERIC: 12, -1.5, .5, 1., 1e-7. -#}
{% macro _spanner_decimal() -%}
'^[+-]?(?:[0-9]+(?:[.][0-9]*)?|[.][0-9]+)(?:[eE][+-]?[0-9]+)?\\z'
{%- endmacro %}

{#- Base64 as Python's b64decode(validate=True) accepts it. -#}
{% macro _spanner_base64() -%}
'^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|(?<=[A-Za-z0-9+/]{4})=+)?\\z'
{%- endmacro %}


{#- ------------------------------------------------------------------------------------------
    Argument checks -#}

{% macro _spanner_require(macro_name, arguments) %}
    {%- for name, value in arguments.items() -%}
        {%- if value is none or (value is string and value | trim == '') -%}
            {%- set msg -%}
{{ macro_name }} needs {{ name }}=: write a SQL expression (a column name or lambda variable), e.g. {{ macro_name }}({{ name }}='record'). See macros/vendors/_spanner__macros.yml.
            {%- endset -%}
            {{ exceptions.raise_compiler_error(msg) }}
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}


{#- ------------------------------------------------------------------------------------------
    JSON -#}

{#- JSON text -> VARIANT, as Python's json.loads reads it: exactly one document. Spark's parser stops
    after the first value, so the text is parsed as the first element of an array whose second and
    last element is a marker. Null when the text is not JSON; JSON `null` gives a VARIANT null. -#}
{% macro spanner_json(text) %}
    {{- _spanner_require('spanner_json', {'text': text}) -}}
    {%- set json_array = "try_parse_json(concat('[', " ~ text ~ ", '\\n,\"cdc-spanner-json-end\"]'))" %}
    if(
        variant_get({{ json_array }}, '$[1]', 'string') = 'cdc-spanner-json-end' and variant_get({{ json_array }}, '$[2]') is null,
        variant_get({{ json_array }}, '$[0]'),
        null
    )
{%- endmacro %}

{#- The JSON type of a VARIANT, named as Spark stores it: object, array, string, boolean, void (JSON
    null), bigint (a JSON integer), decimal or double (other numbers: Spark keeps `1.0` as a
    decimal, an exponent as a double, and an integer past 64 bits as a decimal). SQL null for SQL null. -#}
{% macro spanner_json_type(value) %}
    {{- _spanner_require('spanner_json_type', {'value': value}) -}}
    lower(regexp_extract(schema_of_variant({{ value }}), '^[A-Z]+', 0))
{%- endmacro %}

{#- VARIANT JSON null -> SQL null (the parser treats a field set to null as a missing field). -#}
{% macro _spanner_none(value) -%}
    if(is_variant_null({{ value }}), null, {{ value }})
{%- endmacro %}

{#- The text of a JSON string; null for any other JSON value. -#}
{% macro spanner_string(value) %}
    {{- _spanner_require('spanner_string', {'value': value}) -}}
    if({{ spanner_json_type(value) }} = 'string', variant_get({{ value }}, '$', 'string'), null)
{%- endmacro %}

{#- A value as text (the parser's _as_text): a JSON string's text, any other value as JSON. -#}
{% macro spanner_text(value) %}
    {{- _spanner_require('spanner_text', {'value': value}) -}}
    if({{ spanner_json_type(value) }} = 'string', variant_get({{ value }}, '$', 'string'), to_json({{ value }}))
{%- endmacro %}

{#- 'commit_timestamp' -> 'commitTimestamp' (Beam's Gson field names). -#}
{% macro _spanner_camel(name) %}
    {%- set parts = name.split('_') -%}
    {{- parts[0] ~ (parts[1:] | map('capitalize') | join('')) -}}
{% endmacro %}

{#- A field of a JSON object by its snake_case name or its camelCase spelling (the parser's _pick):
    the snake_case field unless it is missing or null. SQL null when neither is set. -#}
{% macro spanner_field(value, name) %}
    {{- _spanner_require('spanner_field', {'value': value, 'name': name}) -}}
    {%- set camel = _spanner_camel(name) -%}
    {%- if camel == name -%}
        {{ _spanner_none("variant_get(" ~ value ~ ", '$." ~ name ~ "')") }}
    {%- else -%}
        coalesce({{ _spanner_none("variant_get(" ~ value ~ ", '$." ~ name ~ "')") }}, {{ _spanner_none("variant_get(" ~ value ~ ", '$." ~ camel ~ "')") }})
    {%- endif -%}
{% endmacro %}

{#- True when a JSON object has any of the fields (snake_case or camelCase), even set to null. -#}
{% macro spanner_has_field(value, names) %}
    {{- _spanner_require('spanner_has_field', {'value': value}) -}}
    {%- if names is string or names is not iterable or names | length == 0 -%}
        {{ exceptions.raise_compiler_error("spanner_has_field needs names=[...], a list of snake_case field names, e.g. names=['commit_timestamp', 'mods']") }}
    {%- endif -%}
    {%- set spellings = [] -%}
    {%- for name in names -%}
        {%- do spellings.append(name) -%}
        {%- if _spanner_camel(name) != name -%}{%- do spellings.append(_spanner_camel(name)) -%}{%- endif -%}
    {%- endfor -%}
    ({% for spelling in spellings %}variant_get({{ value }}, '$.{{ spelling }}') is not null{{ ' or ' if not loop.last }}{% endfor %})
{%- endmacro %}

{#- A field that tools write either as JSON or as JSON text (Beam's keysJson): the JSON a string
    holds, any other value as it is. SQL null for null, for the text `null` and for a string that is
    not JSON (spanner_is_broken_json tells that case apart). -#}
{% macro spanner_json_field(value) %}
    {{- _spanner_require('spanner_json_field', {'value': value}) -}}
    {%- set parsed = spanner_json("variant_get(" ~ value ~ ", '$', 'string')") %}
    case
        when {{ spanner_json_type(value) }} = 'string' then {{ _spanner_none(parsed) }}
        else {{ _spanner_none(value) }}
    end
{%- endmacro %}

{#- The records of one record kind: an array of them (GoogleSQL), one object (PostgreSQL), or none. -#}
{% macro spanner_elements(value) %}
    {{- _spanner_require('spanner_elements', {'value': value}) -}}
    case
        when {{ value }} is null then cast(array() as array<variant>)
        when {{ spanner_json_type(value) }} = 'array' then try_cast({{ value }} as array<variant>)
        else array({{ value }})
    end
{%- endmacro %}

{#- True when a value is a string that is not JSON text (quarantine reason invalid_json). -#}
{% macro spanner_is_broken_json(value) %}
    {{- _spanner_require('spanner_is_broken_json', {'value': value}) -}}
    coalesce({{ spanner_json_type(value) }} = 'string' and {{ spanner_json("variant_get(" ~ value ~ ", '$', 'string')") }} is null, false)
{%- endmacro %}

{#- Python's truth test on a JSON value: null, false, 0, "", [] and {} are false. -#}
{% macro spanner_is_falsy(value) %}
    {{- _spanner_require('spanner_is_falsy', {'value': value}) -}}
    coalesce(case {{ spanner_json_type(value) }}
        when 'boolean' then not variant_get({{ value }}, '$', 'boolean')
        when 'bigint' then variant_get({{ value }}, '$', 'double') = 0
        when 'decimal' then variant_get({{ value }}, '$', 'double') = 0
        when 'double' then variant_get({{ value }}, '$', 'double') = 0
        when 'string' then variant_get({{ value }}, '$', 'string') = ''
        when 'array' then size(cast({{ value }} as array<variant>)) = 0
        when 'object' then size(cast({{ value }} as map<string, variant>)) = 0
        else true
    end, true)
{%- endmacro %}


{#- ------------------------------------------------------------------------------------------
    Text -#}

{#- Python's str.strip(): leading and trailing Unicode whitespace removed. -#}
{% macro spanner_strip(text) %}
    {{- _spanner_require('spanner_strip', {'text': text}) -}}
    regexp_replace({{ text }}, '^{{ _spanner_whitespace() }}+|{{ _spanner_whitespace() }}+\\z', '')
{%- endmacro %}

{#- 'commitTimestamp' -> 'commit_timestamp' (the parser's _snake). -#}
{% macro spanner_snake_case(name) %}
    {{- _spanner_require('spanner_snake_case', {'name': name}) -}}
    lower(regexp_replace({{ name }}, '(?<=[a-z0-9])([A-Z])', '_$1'))
{%- endmacro %}


{#- ------------------------------------------------------------------------------------------
    Time -#}

{#- A Spanner timestamp: RFC 3339 text (zone required, at most 9 fractional digits, years 1..9999)
    or Beam's {"seconds", "nanos"} (seconds may be text), as struct<seconds: bigint, nanos: int>
    since the epoch; null when the value is not a timestamp. -#}
{% macro spanner_timestamp(value) %}
    {{- _spanner_require('spanner_timestamp', {'value': value}) -}}
    case {{ spanner_json_type(value) }}
        when 'object' then {{ _spanner_checked_time(
            _spanner_integer("variant_get(" ~ value ~ ", '$.seconds')"),
            "if(variant_get(" ~ value ~ ", '$.nanos') is null, 0, " ~ _spanner_integer("variant_get(" ~ value ~ ", '$.nanos')") ~ ")") }}
        when 'string' then {{ _spanner_time_from_text("variant_get(" ~ value ~ ", '$', 'string')") }}
    end
{%- endmacro %}

{#- A whole number (JSON integer or its text) as a bigint; null for anything else, also for a number
    past 64 bits (every caller rejects those as out of range anyway). -#}
{% macro _spanner_integer(value) %}
    case {{ spanner_json_type(value) }}
        when 'bigint' then try_variant_get({{ value }}, '$', 'bigint')
        when 'string' then if(variant_get({{ value }}, '$', 'string') rlike '^[+-]?[0-9]+\\z', try_cast(variant_get({{ value }}, '$', 'string') as bigint), null)
    end
{%- endmacro %}

{#- struct(seconds, nanos) when both are in range (years 1..9999), else null. -#}
{% macro _spanner_checked_time(seconds, nanos) %}
    if(
        ({{ seconds }}) between -62135596800 and 253402300799 and ({{ nanos }}) between 0 and 999999999,
        named_struct('seconds', {{ seconds }}, 'nanos', cast({{ nanos }} as int)),
        null
    )
{%- endmacro %}

{#- RFC 3339 text -> struct(seconds, nanos): the date must exist, the clock be 00:00:00..23:59:59
    and the zone offset at most 23:59. -#}
{% macro _spanner_time_from_text(text) %}
    {%- set year = "cast(part[0] as int)" -%}
    {%- set month = "cast(part[1] as int)" -%}
    {%- set day = "cast(part[2] as int)" -%}
    {%- set zone_hours = "cast(substr(part[7], 2, 2) as int)" -%}
    {%- set zone_minutes = "cast(substr(part[7], -2) as int)" -%}
    if({{ text }} rlike {{ _spanner_rfc3339() }}, try_element_at(transform(
        -- the eight fields of the text: year, month, day, hour, minute, second, fraction, zone
        array(split(regexp_replace({{ text }}, {{ _spanner_rfc3339() }}, '$1,$2,$3,$4,$5,$6,$7,$8'), ',')),
        part -> if(
            {{ year }} >= 1 and {{ month }} between 1 and 12
            and {{ day }} between 1 and case {{ month }}
                when 2 then if(({{ year }} % 4 = 0 and {{ year }} % 100 != 0) or {{ year }} % 400 = 0, 29, 28)
                when 4 then 30 when 6 then 30 when 9 then 30 when 11 then 30
                else 31
            end
            and cast(part[3] as int) <= 23 and cast(part[4] as int) <= 59 and cast(part[5] as int) <= 59
            and (upper(part[7]) = 'Z' or ({{ zone_hours }} <= 23 and {{ zone_minutes }} <= 59)),
            {{ _spanner_checked_time(
                "cast(unix_date(make_date(" ~ year ~ ", " ~ month ~ ", " ~ day ~ ")) as bigint) * 86400"
                ~ " + cast(part[3] as int) * 3600 + cast(part[4] as int) * 60 + cast(part[5] as int)"
                ~ " - if(upper(part[7]) = 'Z', 0, if(substr(part[7], 1, 1) = '-', -1, 1) * (" ~ zone_hours ~ " * 3600 + " ~ zone_minutes ~ " * 60))",
                "cast(rpad(part[6], 9, '0') as int)") }},
            null
        )
    ), 1), null)
{%- endmacro %}

{#- Nanoseconds since the epoch as text: exact (a bigint of nanoseconds would overflow after 2262). -#}
{% macro spanner_time_ns(time) %}
    {{- _spanner_require('spanner_time_ns', {'time': time}) -}}
    cast(cast({{ time }}.seconds as decimal(38, 0)) * 1000000000 + {{ time }}.nanos as string)
{%- endmacro %}

{#- Microseconds since the epoch, rounded down (the parser's ns // 1000). -#}
{% macro spanner_time_micros(time) %}
    {{- _spanner_require('spanner_time_micros', {'time': time}) -}}
    {{ time }}.seconds * 1000000 + {{ time }}.nanos div 1000
{%- endmacro %}

{#- ISO-8601 UTC text with 'Z', fraction trimmed of trailing zeros ('2022-09-27T12:30:00.5Z'), by
    calendar arithmetic, so the session time zone plays no part. -#}
{% macro spanner_time_iso(time) %}
    {{- _spanner_require('spanner_time_iso', {'time': time}) -}}
    concat(
        cast(date_add(date'1970-01-01', cast(({{ time }}.seconds - pmod({{ time }}.seconds, 86400)) div 86400 as int)) as string),
        'T', lpad(cast(pmod({{ time }}.seconds, 86400) div 3600 as string), 2, '0'),
        ':', lpad(cast(pmod({{ time }}.seconds, 3600) div 60 as string), 2, '0'),
        ':', lpad(cast(pmod({{ time }}.seconds, 60) as string), 2, '0'),
        if({{ time }}.nanos > 0, concat('.', regexp_replace(lpad(cast({{ time }}.nanos as string), 9, '0'), '0+$', '')), ''),
        'Z'
    )
{%- endmacro %}


{#- ------------------------------------------------------------------------------------------
    Column types and typed values (DECISIONLOG D13: values are typed from column_types / rowType) -#}

{#- A column's Spanner type as its type codes from the outside in: {"code": "INT64"} -> ['INT64'],
    ARRAY<ARRAY<BOOL>> -> ['ARRAY', 'ARRAY', 'BOOL']. Reads every spelling the parser reads (an
    object, its JSON text, Beam's {"code": "<type as JSON text>"}, 'ARRAY<X>' text, a bare code
    such as 'int64'), nine steps deep at most. Empty when there is no usable type: the column's
    values are then kept as sent. -#}
{% macro spanner_type_codes(type_value) %}
    {{- _spanner_require('spanner_type_codes', {'type_value': type_value}) -}}
    {%- set type_text = spanner_strip("variant_get(spec.pending, '$', 'string')") -%}
    {%- set type_code = spanner_string("variant_get(spec.pending, '$.code')") -%}
    {%- set array_text = "'(?is)^ARRAY" ~ _spanner_whitespace() ~ "*<(.*)>\\\\z'" -%}
    {%- set code = "variant_get(" ~ type_value ~ ", '$.code', 'string')" -%}
    case
        -- the usual spellings first: {"code": "INT64"}, and Beam's {"code": "{\"code\":\"INT64\"}"}
        when schema_of_variant({{ type_value }}) = 'OBJECT<code: STRING>' and {{ code }} rlike '^[A-Za-z0-9_]+\\z'
            and upper({{ code }}) != 'ARRAY'
            then array(upper({{ code }}))
        when schema_of_variant({{ type_value }}) = 'OBJECT<code: STRING>' and {{ code }} rlike '^[{]"code":"[A-Za-z0-9_]+"[}]\\z'
            and upper(regexp_extract({{ code }}, '"code":"([A-Za-z0-9_]+)"', 1)) != 'ARRAY'
            then array(upper(regexp_extract({{ code }}, '"code":"([A-Za-z0-9_]+)"', 1)))
        else aggregate(
        sequence(0, 8),
        named_struct('pending', {{ _spanner_none(type_value) }}, 'codes', cast(array() as array<string>)),
        (spec, step) -> case
            when spec.pending is null then spec
            -- text: JSON text is read again, 'ARRAY<X>' gives ARRAY and goes on with X, other text is the code
            when {{ spanner_json_type('spec.pending') }} = 'string' then case
                when startswith({{ type_text }}, '{')
                    then named_struct('pending', {{ _spanner_none(spanner_json(type_text)) }}, 'codes', spec.codes)
                when {{ type_text }} rlike {{ array_text }} then named_struct(
                    'pending', cast(regexp_extract({{ type_text }}, {{ array_text }}, 1) as variant),
                    'codes', array_append(spec.codes, 'ARRAY'))
                when {{ type_text }} != ''
                    then named_struct('pending', cast(null as variant), 'codes', array_append(spec.codes, upper({{ type_text }})))
                else named_struct('pending', cast(null as variant), 'codes', spec.codes)
            end
            -- an object: `code` holding JSON text is read again (Beam); else `code` is the code and
            -- an ARRAY goes on with array_element_type (or arrayElementType)
            when {{ spanner_json_type('spec.pending') }} = 'object' then case
                when startswith({{ spanner_strip(type_code) }}, '{')
                    then named_struct('pending', variant_get(spec.pending, '$.code'), 'codes', spec.codes)
                when upper({{ type_code }}) = 'ARRAY' then named_struct(
                    'pending', if(variant_get(spec.pending, '$.array_element_type') is not null,
                        {{ _spanner_none("variant_get(spec.pending, '$.array_element_type')") }},
                        {{ _spanner_none("variant_get(spec.pending, '$.arrayElementType')") }}),
                    'codes', array_append(spec.codes, 'ARRAY'))
                when {{ type_code }} is not null
                    then named_struct('pending', cast(null as variant), 'codes', array_append(spec.codes, upper({{ type_code }})))
                else named_struct('pending', cast(null as variant), 'codes', spec.codes)
            end
            else named_struct('pending', cast(null as variant), 'codes', spec.codes)
        end
    ).codes
    end
{%- endmacro %}

{#- A column value as canonical JSON text, typed by its type codes (spanner_type_codes): INT64 text
    becomes a number, FLOAT64 a number (NaN and infinities as strings), NUMERIC a string of its
    digits, BOOL true/false, TIMESTAMP normalised UTC text, JSON the document its text holds, ARRAY
    its elements typed; STRING, BYTES (base64) and DATE are checked and kept; other codes (STRUCT,
    ENUM, ...) and untyped columns are kept as sent. Null when the value does not fit its type
    (quarantine reason wrong_type). An array's elements are typed; an array inside an array is
    kept as sent (Spanner has no nested arrays; the Python parser types them, D60). -#}
{% macro spanner_typed_json(value, codes, array_depth=1) %}
    {{- _spanner_require('spanner_typed_json', {'value': value, 'codes': codes}) -}}
    {{ _spanner_typed_level(value, codes, 1, array_depth) }}
{%- endmacro %}

{#- The value at array depth `level` (1 = the column value) typed with codes[level]. -#}
{% macro _spanner_typed_level(value, codes, level, array_depth) %}
    case
        when {{ value }} is null or is_variant_null({{ value }}) then 'null'
        when element_at({{ codes }}, {{ level }}) is null then to_json({{ value }})
        {%- if level <= array_depth %}
        -- a JSON array, or text holding one: every element typed with the next code; null when
        -- it is not an array or an element does not fit. The typed elements are bound once
        -- through a one-element transform and joined: an aggregate that appends each element's text
        -- copies the text so far at every element (768 floats: D60)
        when element_at({{ codes }}, {{ level }}) = 'ARRAY' then element_at(transform(
            array(transform(
                if({{ spanner_json_type(value) }} = 'string',
                    try_cast({{ spanner_json("variant_get(" ~ value ~ ", '$', 'string')") }} as array<variant>),
                    try_cast({{ value }} as array<variant>)),
                element_{{ level }} -> {{ _spanner_typed_level('element_' ~ level, codes, level + 1, array_depth) }}
            )),
            elements_json_{{ level }} -> if(
                exists(elements_json_{{ level }}, element_json_{{ level }} -> element_json_{{ level }} is null),
                null,
                concat('[', array_join(elements_json_{{ level }}, ','), ']')
            )
        ), 1)
        {%- endif %}
        else {{ _spanner_typed_scalar(value, 'element_at(' ~ codes ~ ', ' ~ level ~ ')', level == 1) }}
    end
{%- endmacro %}

{#- A non-null value typed by one (non-ARRAY) code; null when it does not fit. Non-finite floats
    are strings at the top ("NaN") and bare inside an array (NaN), as Python writes them. A scalar's
    JSON type is its schema_of_variant: STRING, BOOLEAN, BIGINT, DECIMAL(p,s) or DOUBLE. -#}
{% macro _spanner_typed_scalar(value, code, top) %}
    {%- set schema = "schema_of_variant(" ~ value ~ ")" -%}
    {%- set is_string = schema ~ " = 'STRING'" -%}
    {%- set text = "variant_get(" ~ value ~ ", '$', 'string')" -%}
    case {{ code }}
        when 'INT64' then case
            when {{ schema }} = 'BIGINT' then to_json({{ value }})
            when {{ is_string }} and {{ text }} rlike '^[+-]?[0-9]+\\z' then cast(try_cast({{ text }} as bigint) as string)
        end
        when 'FLOAT64' then {{ _spanner_float_json(value, schema, text, top) }}
        when 'FLOAT32' then {{ _spanner_float_json(value, schema, text, top) }}
        when 'NUMERIC' then case
            when {{ schema }} = 'BIGINT' then to_json(cast(to_json({{ value }}) as variant))
            -- another JSON number goes through a float in Python: 1.0 stays '1.0'
            when {{ schema }} = 'DOUBLE' or startswith({{ schema }}, 'DECIMAL') then to_json(cast(concat(
                {{ text }},
                if({{ schema }} rlike ',0[)]$' and abs(variant_get({{ value }}, '$', 'double')) < 1e16, '.0', '')
            ) as variant))
            when {{ is_string }} and ({{ text }} = 'NaN' or {{ text }} rlike {{ _spanner_decimal() }}) then to_json({{ value }})
        end
        when 'BOOL' then case
            when {{ schema }} = 'BOOLEAN' then to_json({{ value }})
            when {{ is_string }} and lower({{ text }}) in ('true', 'false') then lower({{ text }})
        end
        when 'STRING' then if({{ is_string }}, to_json({{ value }}), null)
        when 'BYTES' then if({{ is_string }} and {{ text }} rlike {{ _spanner_base64() }}, to_json({{ value }}), null)
        when 'DATE' then if(
            {{ is_string }} and {{ text }} rlike '^[0-9]{4}-[0-9]{2}-[0-9]{2}\\z' and {{ text }} not like '0000-%'
            and try_to_date({{ text }}, 'yyyy-MM-dd') is not null,
            to_json({{ value }}), null
        )
        when 'TIMESTAMP' then try_element_at(transform(
            array({{ spanner_timestamp(value) }}),
            value_time -> concat('"', {{ spanner_time_iso('value_time') }}, '"')
        ), 1)
        when 'JSON' then if({{ is_string }}, coalesce(to_json({{ spanner_json(text) }}), to_json({{ value }})), to_json({{ value }}))
        else to_json({{ value }})
    end
{%- endmacro %}

{#- FLOAT64 / FLOAT32: a JSON number or its text (also NaN, Infinity, -Infinity, +Infinity). -#}
{% macro _spanner_float_json(value, schema, text, top) %}
    {%- set quote = '"' if top else '' -%}
    case
        when {{ schema }} in ('BIGINT', 'DOUBLE') or startswith({{ schema }}, 'DECIMAL')
            then {{ _spanner_double_json("variant_get(" ~ value ~ ", '$', 'double')", quote) }}
        when {{ schema }} != 'STRING' then null
        when {{ text }} = 'NaN' then '{{ quote }}NaN{{ quote }}'
        when {{ text }} in ('Infinity', '+Infinity') then '{{ quote }}Infinity{{ quote }}'
        when {{ text }} = '-Infinity' then '{{ quote }}-Infinity{{ quote }}'
        when {{ text }} rlike {{ _spanner_decimal() }} then {{ _spanner_double_json("cast(" ~ text ~ " as double)", quote) }}
    end
{%- endmacro %}

{% macro _spanner_double_json(number, quote) %}
    case
        when isnan({{ number }}) then '{{ quote }}NaN{{ quote }}'
        when {{ number }} = double('Infinity') then '{{ quote }}Infinity{{ quote }}'
        when {{ number }} = double('-Infinity') then '{{ quote }}-Infinity{{ quote }}'
        else cast({{ number }} as string)
    end
{%- endmacro %}

{#- Parent partition tokens sorted as the parser sorts them (by Python's str() of each token: text
    as is, null as 'None'); a value that is not an array is kept as it is. -#}
{% macro spanner_sorted_tokens(tokens) %}
    {{- _spanner_require('spanner_sorted_tokens', {'tokens': tokens}) -}}
    if({{ spanner_json_type(tokens) }} = 'array', cast(array_sort(
        cast({{ tokens }} as array<variant>),
        (left_token, right_token) -> case
            when {{ _spanner_sort_text('left_token') }} < {{ _spanner_sort_text('right_token') }} then -1
            when {{ _spanner_sort_text('left_token') }} > {{ _spanner_sort_text('right_token') }} then 1
            else 0
        end
    ) as variant), {{ tokens }})
{%- endmacro %}

{% macro _spanner_sort_text(value) -%}
    case {{ spanner_json_type(value) }}
        when 'string' then variant_get({{ value }}, '$', 'string')
        when 'void' then 'None'
        when 'boolean' then if(variant_get({{ value }}, '$', 'boolean'), 'True', 'False')
        else to_json({{ value }})
    end
{%- endmacro %}


{#- ------------------------------------------------------------------------------------------
    Output rows -#}

{#- A problem with a record: its quarantine reason and what is wrong, in words (a SQL expression). -#}
{% macro spanner_problem(reason, detail) %}
    {{- _spanner_require('spanner_problem', {'reason': reason, 'detail': detail}) -}}
    named_struct('reason', '{{ reason }}', 'detail', {{ detail }})
{%- endmacro %}

{#- The parsed-record columns (PARSED_FIELDS) in order, from a dict field name -> SQL expression;
    fields not named are typed nulls. With problem= (a column holding a spanner_problem or null), a
    row whose problem is set becomes a quarantine row with its reason and detail and nothing else. -#}
{% macro spanner_parsed_record(fields, problem=none) %}
    {%- set known = cdc_parsed_fields() | map(attribute=0) | list -%}
    {%- if fields is not mapping or 'kind' not in fields -%}
        {%- set msg -%}
spanner_parsed_record needs fields={'kind': "'change'", ...}: a dict of parsed-record field name -> SQL expression, with at least kind.
        {%- endset -%}
        {{ exceptions.raise_compiler_error(msg) }}
    {%- endif -%}
    {%- for name in fields -%}
        {%- if name not in known or name in ('reason', 'detail') -%}
            {%- set msg -%}
spanner_parsed_record: '{{ name }}' is not a field you can set. Write one of: {{ known | reject('in', ['reason', 'detail']) | join(', ') }} (reason and detail come from problem=, a spanner_problem(...) column).
            {%- endset -%}
            {{ exceptions.raise_compiler_error(msg) }}
        {%- endif -%}
    {%- endfor -%}
    {%- for name, data_type in cdc_parsed_fields() %}
        {%- if name == 'kind' and problem is not none %}
        if({{ problem }} is null, {{ fields.kind }}, 'quarantine') as kind
        {%- elif name == 'reason' and problem is not none %}
        {{ problem }}.reason as reason
        {%- elif name == 'detail' and problem is not none %}
        substr({{ problem }}.detail, 1, 2000) as detail
        {%- elif name in fields and problem is not none %}
        if({{ problem }} is null, cast({{ fields[name] }} as {{ data_type }}), null) as {{ name }}
        {%- elif name in fields %}
        cast({{ fields[name] }} as {{ data_type }}) as {{ name }}
        {%- else %}
        cast(null as {{ data_type }}) as {{ name }}
        {%- endif %}{{ ',' if not loop.last }}
    {%- endfor %}
{%- endmacro %}
