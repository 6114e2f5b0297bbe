{#- Rows for the vendors of `model` (cdc_feed_health) that have never had a landing file: a vendor
    listed in the var cdc_vendors whose folder under CDC_LANDING_DIR is missing or empty, most
    often a wrong CDC_LANDING_DIR. Meant as a warning. -#}
{% test cdc_feed_has_files(model) %}
select distinct
    source_vendor,
    '{{ var("cdc_landing_dir") }}/' || source_vendor as landing_folder
from {{ model }}
where vendor_files_total = 0
{% endtest %}
