{#- No two rows share the values of `columns` (e.g. one current row per key). -#}
{% test cdc_unique_combination(model, columns) %}
    {%- if columns is none or columns is string or columns | length == 0 -%}
        {{ exceptions.raise_compiler_error("cdc_unique_combination needs columns: [col_a, col_b, ...]") }}
    {%- endif -%}
select
    {{ columns | join(', ') }},
    count(*) as duplicate_count
from {{ model }}
group by {{ columns | join(', ') }}
having count(*) > 1
{% endtest %}
