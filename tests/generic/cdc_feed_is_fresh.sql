{#- Fails (or warns, with severity: warn) for every feed of `model` (cdc_feed_health) where no
    landing file has arrived for more than `max_idle_hours`: a stalled feed. Use two instances,
    a warn and an error threshold, like dbt's source freshness warn_after / error_after. -#}
{% test cdc_feed_is_fresh(model, max_idle_hours=none) %}
    {%- if max_idle_hours is none or max_idle_hours is not number or max_idle_hours <= 0 -%}
        {%- set msg -%}
cdc_feed_is_fresh needs max_idle_hours: a positive number of hours, e.g. arguments: {max_idle_hours: 24}
        {%- endset -%}
        {{ exceptions.raise_compiler_error(msg) }}
    {%- endif -%}
select distinct
    source_vendor,
    last_file_landed_at,
    round(landing_idle_seconds / 3600, 1) as idle_hours
from {{ model }}
where landing_idle_seconds > {{ max_idle_hours * 3600 }}
{% endtest %}
