{#- The five landing folders DESIGN §4 defines (python_udfs/landing.py VENDORS). -#}
{% macro cdc_known_vendors() %}
    {{ return(['datastream', 'spanner', 'debezium', 'qlik', 'datahub']) }}
{% endmacro %}

{#- `select <columns> from <model of each vendor> [where ...]` joined by union all. -#}
{% macro cdc_union_vendors(model_pattern, columns='*', where=none) %}
    {%- for vendor in cdc_vendors() %}
    select {{ columns }}
    from {{ ref(model_pattern | replace('<vendor>', vendor)) }}
    {%- if where %}
    where {{ where }}
    {%- endif %}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{% endmacro %}
