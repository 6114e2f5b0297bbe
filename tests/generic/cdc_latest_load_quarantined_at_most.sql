{#- Rows for the vendors of `model` (cdc_feed_health) whose latest load quarantined more than
    `max_records` records (int_cdc__quarantine says which and why). Use two instances, like the
    freshness tests: a warning at 0 (any quarantined record) and an error above a threshold. -#}
{% test cdc_latest_load_quarantined_at_most(model, max_records=none) %}
    {%- if max_records is none or max_records is not number or max_records < 0 -%}
        {%- set msg -%}
cdc_latest_load_quarantined_at_most needs max_records: a number of records (0 or more), e.g. arguments: {max_records: 0}
        {%- endset -%}
        {{ exceptions.raise_compiler_error(msg) }}
    {%- endif -%}
select distinct
    source_vendor,
    vendor_quarantined_in_latest_load
from {{ model }}
where vendor_quarantined_in_latest_load > {{ max_records }}
{% endtest %}
