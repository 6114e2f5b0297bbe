{#- The five landing folders DESIGN §4 defines (checked against the var cdc_vendors and
    python_udfs/registration.py by tests/pytest/test_vendor_wiring.py). -#}
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

{#- The change-event contract's columns (DESIGN §5) as every stg_<vendor>__change_events model
    writes them (cdc_change_event_columns, without the staging-only _raw and _quarantine_*);
    int_cdc__change_events shows them, `_parsed_at` as `loaded_at`. -#}
{% macro cdc_contract_columns() %}
    {{ return(cdc_change_event_columns() | map(attribute=0)
              | reject('in', ['_raw', '_quarantine_reason', '_quarantine_detail']) | list) }}
{% endmacro %}

{#- [ref(<model of each vendor>), ...]: the same models cdc_union_vendors reads. -#}
{% macro cdc_vendor_refs(model_pattern) %}
    {%- set relations = [] -%}
    {%- for vendor in cdc_vendors() -%}
        {%- do relations.append(ref(model_pattern | replace('<vendor>', vendor))) -%}
    {%- endfor -%}
    {{ return(relations) }}
{% endmacro %}
