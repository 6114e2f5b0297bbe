{#- JSON read as Spark VARIANT, the way the Python parsers read it (python_udfs/parsing.py). Shared
    by the vendor flattenings in macros/vendors/. Each macro returns one SQL expression; most name
    their argument more than once, so pass a column, a struct field or a lambda variable. -#}

{% macro _cdc_variant_require(macro_name, value, example) %}
    {%- if value is none or (value is string and value | trim == '') -%}
        {{ exceptions.raise_compiler_error(macro_name ~ " needs a SQL expression as its argument, e.g. " ~ example) }}
    {%- endif -%}
{% endmacro %}

{#- The variant of a text holding exactly one JSON document, else null (parsing.load_json; JSON
    `null` gives a variant null). try_parse_json reads the first value and ignores what follows it,
    so the text is parsed inside an array with an end marker (cdc_json_document_array): anything
    after the document makes it invalid or moves the marker (cdc_json_array_document). Duplicate
    keys make a document invalid (Spark's parser refuses them; python keeps the last). -#}
{% macro cdc_json_document(text) %}
    {{- _cdc_variant_require('cdc_json_document', text, "cdc_json_document('record_text')") -}}
    transform(array({{ cdc_json_document_array(text) }}), in_array -> {{ cdc_json_array_document('in_array') }})[0]
{%- endmacro %}

{#- A text parsed inside an array with an end marker: `[<text>,"cdc:end-of-document"]`, a VARIANT.
    A model that reads a few fields of the document by path (`$[0].op`) keeps this instead of the
    document: taking `$[0]` copies the whole document (DECISIONLOG D57). -#}
{% macro cdc_json_document_array(text) %}
    {{- _cdc_variant_require('cdc_json_document_array', text, "cdc_json_document_array('record_text')") -}}
    try_parse_json(concat('[', {{ text }}, ',"cdc:end-of-document"]'))
{%- endmacro %}

{#- True when a cdc_json_document_array holds one document and the end marker, nothing else. -#}
{% macro cdc_json_array_is_one_document(document_array) %}
    {{- _cdc_variant_require('cdc_json_array_is_one_document', document_array, "cdc_json_array_is_one_document('record_array')") -}}
    coalesce(
        variant_get({{ document_array }}, '$[1]', 'string') = 'cdc:end-of-document' and variant_get({{ document_array }}, '$[2]') is null,
        false
    )
{%- endmacro %}

{#- The document of a cdc_json_document_array, else null. -#}
{% macro cdc_json_array_document(document_array) %}
    {{- _cdc_variant_require('cdc_json_array_document', document_array, "cdc_json_array_document('record_array')") -}}
    case when {{ cdc_json_array_is_one_document(document_array) }} then variant_get({{ document_array }}, '$[0]') end
{%- endmacro %}

{#- A text without its leading byte-order marks (U+FEFF), as python's load_json reads a record.
    Spark's trim, not a regular expression: it is on the path of every landing record, where the
    expression `^\uFEFF+` cost a scan of the whole text (DECISIONLOG D47). -#}
{% macro cdc_strip_bom(text) %}
    {{- _cdc_variant_require('cdc_strip_bom', text, "cdc_strip_bom('raw')") -}}
    trim(leading '\uFEFF' from {{ text }})
{%- endmacro %}

{#- True when a text is null, empty or whitespace only (python's `not text.strip()`). -#}
{% macro cdc_is_blank(text) %}
    {{- _cdc_variant_require('cdc_is_blank', text, "cdc_is_blank('record_text')") -}}
    coalesce({{ text }} rlike '(?U)^[\\s\\x{1c}-\\x{1f}]*$', true)
{%- endmacro %}

{#- Python's str.strip(): whitespace at both ends removed (Spark's trim removes spaces only). -#}
{% macro cdc_strip(text) %}
    {{- _cdc_variant_require('cdc_strip', text, "cdc_strip('operation')") -}}
    regexp_replace({{ text }}, '(?U)^[\\s\\x{1c}-\\x{1f}]+|[\\s\\x{1c}-\\x{1f}]+$', '')
{%- endmacro %}

{#- The JSON type of a variant: object, array, string, number, boolean or null; SQL null when the
    value is absent (a missing field). An object is recognised without reading it. -#}
{% macro cdc_json_type(value) %}
    {{- _cdc_variant_require('cdc_json_type', value, "cdc_json_type('payload_fields.before')") -}}
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
{% macro cdc_json_string(value) %}
    {{- _cdc_variant_require('cdc_json_string', value, "cdc_json_string('record_fields.topic')") -}}
    case when schema_of_variant({{ value }}) = 'STRING' then cast({{ value }} as string) end
{%- endmacro %}

{#- An object's fields as map<string, variant> (null unless an object). -#}
{% macro cdc_object_fields(value) %}
    {{- _cdc_variant_require('cdc_object_fields', value, "cdc_object_fields('payload')") -}}
    try_cast({{ value }} as map<string, variant>)
{%- endmacro %}

{#- ISO-8601 text as epoch microseconds, a zone or offset applied (none is UTC); null when the
    text does not match `pattern` or is not a valid time (day 30 of February, hour 24, an offset of
    24 hours or more, year 0). `pattern` is a SQL string literal of a regular expression whose
    groups are 1 date (yyyy-MM-dd), 2 hour, 3 minute, 4 second (optional), 5 fraction (optional,
    its first 6 digits kept), 6 zone (`Z`, `UTC` or +hh, +hhmm, +hh:mm; optional): each vendor's
    parser accepts its own spelling. The caller checks the range it can store. -#}
{% macro cdc_iso_time_us(text, pattern) %}
    {{- _cdc_variant_require('cdc_iso_time_us', text, "cdc_iso_time_us('time_text', iso_pattern)") -}}
    {{- _cdc_variant_require('cdc_iso_time_us', pattern, "cdc_iso_time_us('time_text', iso_pattern)") -}}
    {%- set zone = "regexp_extract(" ~ text ~ ", " ~ pattern ~ ", 6)" -%}
    {%- set zone_hours = "cast(substr(" ~ zone ~ ", 2, 2) as int)" -%}
    {%- set zone_minutes = "coalesce(cast(nullif(replace(substr(" ~ zone ~ ", 4), ':', ''), '') as int), 0)" -%}
    case
        when {{ text }} rlike {{ pattern }} and left({{ text }}, 4) != '0000'
            and ({{ zone }} in ('', 'Z', 'z', 'UTC') or ({{ zone_hours }} <= 23 and {{ zone_minutes }} <= 59))
            then unix_micros(try_to_timestamp(
                    concat(
                        regexp_extract({{ text }}, {{ pattern }}, 1), ' ', regexp_extract({{ text }}, {{ pattern }}, 2), ':',
                        regexp_extract({{ text }}, {{ pattern }}, 3), ':', coalesce(nullif(regexp_extract({{ text }}, {{ pattern }}, 4), ''), '00')
                    ),
                    'yyyy-MM-dd HH:mm:ss'
                ))
                + cast(rpad(regexp_extract({{ text }}, {{ pattern }}, 5), 6, '0') as bigint)
                - case
                    when {{ zone }} in ('', 'Z', 'z', 'UTC') then 0
                    else (case when left({{ zone }}, 1) = '-' then -1 else 1 end) * cast({{ zone_hours }} * 60 + {{ zone_minutes }} as bigint) * 60000000
                end
    end
{%- endmacro %}


{#- The body of a base_<vendor>__parsed model's `source` CTE: the landing records (record_no > 0)
    loaded since the newest the model holds (D11), with `record_text` (the raw text, leading
    byte-order marks dropped, as python's load_json does) and `record`, that text as a VARIANT when
    it is exactly one JSON document (D8), else null; null too for a record the landing could not
    read (read_error set). With as_document_array=true the column is `record_array` instead, the
    text parsed inside its end-marker array (cdc_json_document_array), for a model that reads
    fields by path before it takes the document. -#}
{% macro cdc_new_json_records(landing_records, as_document_array=false) %}
    {{- _cdc_variant_require('cdc_new_json_records', landing_records, "cdc_new_json_records(ref('base_qlik__landing_records'))") -}}
    {%- if as_document_array not in (true, false) -%}
        {{ exceptions.raise_compiler_error("cdc_new_json_records: as_document_array must be true or false, not " ~ as_document_array) }}
    {%- endif %}
    select
        source_vendor,
        _source_file,
        file_mtime_ns,
        record_no,
        raw,
        read_error,
        _loaded_at,
        {{ cdc_strip_bom('raw') }} as record_text,
        {%- if as_document_array %}
        case when read_error is null then {{ cdc_json_document_array(cdc_strip_bom('raw')) }} end as record_array
        {%- else %}
        case when read_error is null then {{ cdc_json_document(cdc_strip_bom('raw')) }} end as record
        {%- endif %}
    from {{ landing_records }}
    where
        record_no > 0
        and {{ cdc_newer_than_this('_loaded_at') }}
{%- endmacro %}
