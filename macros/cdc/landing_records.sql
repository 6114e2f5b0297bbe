{#- One row per record of the vendor's landing files that this model has not read before,
    plus one row (record_no 0, raw null) per new file so that empty files reach the ledger. -#}
{% macro cdc_landing_records(vendor) %}
    {%- set vendors = cdc_known_vendors() -%}
    {%- if vendor not in vendors -%}
        {%- set msg -%}
cdc_landing_records: vendor '{{ vendor }}' is not a landing folder. Write one of: {{ vendors | join(', ') }}.
        {%- endset -%}
        {{ exceptions.raise_compiler_error(msg) }}
    {%- endif -%}
    {{ cdc_require_udfs() }}
    {%- set landing_dir = var('cdc_landing_dir') | replace("\\", "\\\\") | replace("'", "\\'") -%}
-- cdc_landing_records: new files of {{ vendor }}/ under the landing folder
with listed_files as (
    select
        path,
        size_bytes,
        mtime_ns
    from cdc_landing_files('{{ landing_dir }}', '{{ vendor }}')
),

new_files as (
    select listed_files.*
    from listed_files
    {%- if is_incremental() %}
        left anti join (select distinct _source_file from {{ this }}) as read_before
            on listed_files.path = read_before._source_file
    {%- endif %}
),

file_records as (
    select
        new_files.path,
        new_files.size_bytes,
        new_files.mtime_ns,
        file_record.record_no,
        file_record.raw,
        file_record.read_error
    from new_files,
        lateral cdc_landing_records(new_files.path) as file_record
),

file_markers as (
    select
        path,
        size_bytes,
        mtime_ns,
        0 as record_no,
        cast(null as string) as raw,
        cast(null as string) as read_error
    from new_files
)

select
    '{{ vendor }}' as source_vendor,
    path as _source_file,
    size_bytes as file_size_bytes,
    mtime_ns as file_mtime_ns,
    timestamp_micros(mtime_ns div 1000) as file_modified_at,
    record_no,
    raw,
    read_error,
    current_timestamp() as _loaded_at,
    '{{ invocation_id }}' as _run_id
from (
    select * from file_markers
    union all
    select * from file_records
) as all_rows
{% endmacro %}
