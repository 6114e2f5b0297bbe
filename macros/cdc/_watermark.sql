{#- Rows of `relation` newer than what this incremental model has already taken:
    `column` is stamped by the upstream model when it wrote the row. -#}
{% macro cdc_newer_than_this(column) %}
    {%- if is_incremental() -%}
        {{ column }} > (select coalesce(max({{ column }}), timestamp'1970-01-01') from {{ this }})
    {%- else -%}
        true
    {%- endif -%}
{% endmacro %}
