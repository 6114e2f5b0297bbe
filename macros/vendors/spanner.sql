{#- Spanner change streams: the order of changes to one key is commit timestamp (ns), then
    record_sequence within the transaction, then the mod's index in its record. -#}
{% macro spanner_position_sequence(position) %}
    case
        when {{ position }} is not null then {{ cdc_decimal_array([
            position ~ "['commit_timestamp_ns']",
            position ~ "['record_sequence']",
            "coalesce(" ~ position ~ "['mod_index'], '0')"]) }}
    end
{% endmacro %}
