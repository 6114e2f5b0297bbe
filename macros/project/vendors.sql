{#- The vendors whose staging folders are built (var cdc_vendors in dbt_project.yml). Each has
    models/staging/<vendor>/ with base_<vendor>__landing_records, base_<vendor>__parsed and
    stg_<vendor>__change_events, and either its SQL flattening or a parser registered in python_udfs/registration.py. -#}
{% macro cdc_vendors() %}
    {%- set known = cdc_known_vendors() -%}
    {%- set vendors = var('cdc_vendors') -%}
    {%- for vendor in vendors if vendor not in known -%}
        {{ exceptions.raise_compiler_error("var cdc_vendors lists '" ~ vendor ~ "'; write vendors from: " ~ known | join(', ')) }}
    {%- endfor -%}
    {{ return(vendors) }}
{% endmacro %}
