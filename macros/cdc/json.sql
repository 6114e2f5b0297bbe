{#- Canonical JSON object text from a map<string,string> whose values are already JSON text:
    keys sorted, no whitespace. Used for `pk` and `row`. A key is escaped by to_json of a one-element
    array, `["<key>"]`, with the brackets trimmed: they cannot reach into the quoted key, and one
    to_json per key instead of two cut 0.6-0.8 s of a full history build (DECISIONLOG D56). The
    entries are sorted whole, by sort_array: no lookup of each key in the map (a scan of its keys),
    and no comparator lambda, which array_sort calls per comparison (D58). Map keys are unique, so
    the order is the keys' order. -#}
{% macro cdc_json_object(map_expression) %}
    {%- if map_expression is none -%}
        {{ exceptions.raise_compiler_error("cdc_json_object needs a map<string,string> expression, e.g. cdc_json_object('after')") }}
    {%- endif -%}
    concat(
        '{',
        array_join(
            transform(
                sort_array(map_entries({{ map_expression }})),
                entry -> concat(trim(BOTH '[]' FROM to_json(array(entry.key))), ':', entry.value)
            ),
            ','
        ),
        '}'
    )
{% endmacro %}

{#- A decimal(38,0) array from SQL expressions: the shape of `sequence`. A part that is not a
    whole non-negative number of at most 38 digits becomes null (the caller quarantines). -#}
{% macro cdc_decimal_array(parts) %}
    array({% for part in parts %}{{ cdc_whole_number(part) }}{% if not loop.last %}, {% endif %}{% endfor %})
{% endmacro %}

{#- cdc_decimal_array for parts of an integer type (int, bigint): the same numbers without the trip
    through text and a regular expression per part, which cost a few seconds per million events. -#}
{% macro cdc_integer_array(parts) %}
    {%- if parts is string or parts | length == 0 -%}
        {{ exceptions.raise_compiler_error("cdc_integer_array needs a list of integer SQL expressions, e.g. cdc_integer_array(['file_mtime_ns', 'record_no'])") }}
    {%- endif -%}
    array({% for part in parts %}case when {{ part }} >= 0 then cast({{ part }} as decimal(38, 0)) end{% if not loop.last %}, {% endif %}{% endfor %})
{% endmacro %}

{% macro cdc_whole_number(expression) %}
    case
        when trim(cast({{ expression }} as string)) rlike '^[0-9]{1,38}$'
            then cast(trim(cast({{ expression }} as string)) as decimal(38, 0))
    end
{% endmacro %}

{#- Numbers from a hex text like ' 0x0000a1.00012345.0010 ' (parts split on '.', ':' or '/');
    null parts when a part is not hex, so the caller can quarantine the event. -#}
{% macro cdc_hex_parts(text_expression, separator='[.:/]') %}
    transform(
        split(regexp_replace(trim({{ text_expression }}), '^0[xX]', ''), '{{ separator }}'),
        hex_part -> case
            when regexp_replace(hex_part, '^0[xX]', '') rlike '^[0-9a-fA-F]{1,16}$'
                then cast(conv(regexp_replace(hex_part, '^0[xX]', ''), 16, 10) as decimal(38, 0))
        end
    )
{% endmacro %}
