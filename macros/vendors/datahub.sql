{#- Alibaba DataHub: `sequenceId` / `_sequence_id_` orders the changes; the two halves of an
    update share it and the before image sorts first (image_rank 0, 1); change_rank 0 is the
    delete of a key change's old key. Full-load rows (negative sequence id) have no position. -#}
{% macro datahub_position_sequence(position) %}
    case
        when {{ position }} is not null then {{ cdc_decimal_array([
            position ~ "['sequence_id']",
            "coalesce(" ~ position ~ "['image_rank'], '1')",
            "coalesce(" ~ position ~ "['change_rank'], '1')"]) }}
    end
{% endmacro %}
