{#- SCD2 shape of a history table: per key exactly one current version, and it is the last one;
    each version's valid_to_sequence is the next version's valid_from_sequence. -#}
{% test cdc_history_is_contiguous(model, key_columns) %}
    {%- if key_columns is none or key_columns is string -%}
        {{ exceptions.raise_compiler_error("cdc_history_is_contiguous needs key_columns: [source_vendor, source_table, pk]") }}
    {%- endif -%}
with ordered as (
    select
        {{ key_columns | join(', ') }},
        is_current,
        valid_to_sequence,
        lead(valid_from_sequence) over (
            partition by {{ key_columns | join(', ') }} order by version_number
        ) as next_valid_from_sequence,
        count_if(is_current) over (partition by {{ key_columns | join(', ') }}) as current_versions
    from {{ model }}
)

select *
from ordered
where current_versions != 1
    or (is_current and next_valid_from_sequence is not null)
    or not (valid_to_sequence <=> next_valid_from_sequence)
{% endtest %}
