{#- Runs a vendor's parser UDF over the landing records this model has not parsed yet.
    Every record yields at least one row: a change, a control record or a quarantined record. -#}
{% macro cdc_parsed_records(vendor, landing_records) %}
    {%- if vendor is none or landing_records is none -%}
        {{ exceptions.raise_compiler_error("cdc_parsed_records needs vendor='<folder>' and landing_records=ref('base_<vendor>__landing_records')") }}
    {%- endif -%}
    {{ cdc_skip_unless_newer([landing_records], '_loaded_at') }}
    {{ cdc_require_udfs() }}
-- cdc_parsed_records: {{ vendor }} records parsed by cdc_parse_{{ vendor }}
with landing as (
    select *
    from {{ landing_records }}
    where record_no > 0
        and {{ cdc_newer_than_this('_loaded_at') }}
),

parsed as (
    select
        landing.*,
        cdc_parse_{{ vendor }}(landing.raw, landing.read_error) as parsed_records
    from landing
),

-- posexplode_outer (a parser returns at least one row anyway): for posexplode Spark infers a
-- filter on the array's size and pushes it below, calling the parser twice per record
exploded as (
    select
        parsed.*,
        posexplode_outer(parsed.parsed_records) as (record_index, parsed_record)
    from parsed
)

select
    source_vendor,
    _source_file,
    file_mtime_ns,
    record_no,
    record_index,
    parsed_record.*,
    -- the text as read, for whoever has to look at a quarantined or control record
    raw,
    _loaded_at,
    current_timestamp() as _parsed_at,
    '{{ invocation_id }}' as _run_id
from exploded
where record_index is not null
{% endmacro %}
