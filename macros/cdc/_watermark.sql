{#- Rows of `relation` newer than what this incremental model has already taken:
    `column` is stamped by the upstream model when it wrote the row. `expression` (default: the
    column itself) is the value compared, for models whose `column` is computed from several. -#}
{% macro cdc_newer_than_this(column, expression=none) %}
    {%- if is_incremental() -%}
        {{ expression or column }} > (select coalesce(max({{ column }}), timestamp'1970-01-01') from {{ this }})
    {%- else -%}
        true
    {%- endif -%}
{% endmacro %}
