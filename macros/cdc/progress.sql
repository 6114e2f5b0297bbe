{#- A post-hook of every base_<vendor>__landing_records model: one log line per vendor with the
    files and records this run read and the totals so far, so a long backfill shows where it is
    between dbt's per-model lines. -#}
{% macro cdc_log_landing_progress(vendor) %}
    {%- if execute and vendor -%}
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
            "cdc progress: " ~ vendor ~ ": read " ~ row[0] ~ " new files, " ~ row[1] ~ " records in this run; "
            ~ row[2] ~ " files, " ~ row[3] ~ " records so far (" ~ var('cdc_landing_dir') ~ "/" ~ vendor ~ ")",
            info=true
        ) }}
        {%- if row[2] == 0 -%}
            {%- do exceptions.warn(
                "cdc: " ~ vendor ~ " is in the var cdc_vendors but " ~ var('cdc_landing_dir') ~ "/" ~ vendor
                ~ " holds no landing file (the folder is missing or empty). Check CDC_LANDING_DIR, or leave "
                ~ vendor ~ " out of cdc_vendors."
            ) -%}
        {%- endif -%}
    {%- endif -%}
{% endmacro %}
