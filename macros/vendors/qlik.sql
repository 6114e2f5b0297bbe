{#- Qlik Replicate: `changeSequence` is monotonic across the task and wider than 64 bits, so the
    parser splits it into two whole numbers (all digits but the last 18, the last 18); then the
    transaction event counter; then change_rank (0: the delete of a key change's old key).
    Full-load (REFRESH) rows have no position: they are snapshots. -#}
{% macro qlik_position_sequence(position) %}
    case
        when {{ position }} is not null then {{ cdc_decimal_array([
            position ~ "['change_sequence_high']",
            position ~ "['change_sequence_low']",
            "coalesce(" ~ position ~ "['transaction_event_counter'], '0')",
            "coalesce(" ~ position ~ "['change_rank'], '1')"]) }}
    end
{% endmacro %}

{#- Qlik's LOB column types: they are never in the column masks (seed 003), so a LOB value
    counts as captured when it is present and not null. -#}
{% macro qlik_lob_types() %}
    {{ return(['BLOB', 'CLOB', 'NCLOB']) }}
{% endmacro %}
