{#- A post-hook of every base_<vendor>__landing_records model: one log line per vendor with the
    files and records this run read and the totals so far, so a long backfill shows where it is
    between dbt's per-model lines. A run that read no file says so with the number of files the
    folder holds (from the model's SQL, cdc_landing_records), without a query. -#}
{% macro cdc_log_landing_progress(vendor) %}
    {%- set listed = modules.re.search('(?m)^-- cdc_landing_records: ([0-9]+) files listed$', sql or '') -%}
    {%- if execute and vendor and listed and cdc_nothing_new_marker() in sql -%}
        {#- nothing read: the folder's listing says all there is to say, without counting the table -#}
        {%- set files_listed = listed.group(1) | int -%}
        {{ log("cdc progress: " ~ vendor ~ ": no new file (" ~ var('cdc_landing_dir') ~ "/" ~ vendor ~ " holds "
            ~ _cdc_counted(files_listed, "file") ~ (", all read before" if files_listed > 0 else "") ~ ")", info=true) }}
        {{ _cdc_warn_no_landing_file(vendor) if files_listed == 0 }}
    {%- elif execute and vendor -%}
        {%- set counts -%}
-- every file has one marker row (record_no 0), so files are counted without a distinct
select
    count_if(record_no = 0 and _run_id = '{{ invocation_id }}') as files_now,
    count_if(record_no > 0 and _run_id = '{{ invocation_id }}') as records_now,
    count_if(record_no = 0) as files_so_far,
    count_if(record_no > 0) as records_so_far
from {{ this }}
        {%- endset -%}
        {%- set row = run_query(counts).rows[0] -%}
        {{ log(
            "cdc progress: " ~ vendor ~ ": read " ~ _cdc_counted(row[0], "new file") ~ ", " ~ _cdc_counted(row[1], "record")
            ~ " in this run; " ~ _cdc_counted(row[2], "file") ~ ", " ~ _cdc_counted(row[3], "record") ~ " so far ("
            ~ var('cdc_landing_dir') ~ "/" ~ vendor ~ ")",
            info=true
        ) }}
        {{ _cdc_warn_no_landing_file(vendor) if row[2] == 0 }}
    {%- endif -%}
{% endmacro %}

{#- "1 file", "2 files": a count and its noun, plural unless the count is 1. -#}
{% macro _cdc_counted(count, noun) %}
    {{- return(count ~ " " ~ noun ~ ("" if count == 1 else "s")) -}}
{% endmacro %}

{% macro _cdc_warn_no_landing_file(vendor) %}
    {%- do exceptions.warn(
        "cdc: " ~ vendor ~ " is in the var cdc_vendors but " ~ var('cdc_landing_dir') ~ "/" ~ vendor
        ~ " holds no landing file (the folder is missing or empty). Check CDC_LANDING_DIR, or leave "
        ~ vendor ~ " out of cdc_vendors."
    ) -%}
{% endmacro %}
