{#- Debezium: the connector position as numbers, per source engine (DECISIONLOG D3).
    MySQL: binlog file number, pos, row. PostgreSQL: lsn. Oracle: scn (a digit string),
    rs_id hex parts, ssn. SQL Server and Db2: commit_lsn, change_lsn, event_serial_no (hex parts).
    MongoDB: seconds, ord. Null without a usable position (the arrival order is used then). -#}
{% macro debezium_position_sequence(engine, position) %}
    case
        when {{ position }} is null then null
        when {{ engine }} = 'mysql' then {{ cdc_decimal_array([
            "regexp_extract(" ~ position ~ "['file'], '([0-9]+)$', 1)",
            position ~ "['pos']",
            "coalesce(" ~ position ~ "['row'], '0')"]) }}
        when {{ engine }} = 'postgresql' then {{ cdc_decimal_array([position ~ "['lsn']"]) }}
        when {{ engine }} = 'oracle' then concat(
            {{ cdc_decimal_array([position ~ "['scn']"]) }},
            coalesce({{ cdc_hex_parts(position ~ "['rs_id']") }}, array()),
            {{ cdc_decimal_array(["coalesce(" ~ position ~ "['ssn'], '0')"]) }}
        )
        when {{ engine }} in ('sqlserver', 'db2') then concat(
            {{ cdc_hex_parts("coalesce(" ~ position ~ "['commit_lsn'], " ~ position ~ "['change_lsn'])") }},
            {{ cdc_hex_parts(position ~ "['change_lsn']") }},
            {{ cdc_decimal_array(["coalesce(" ~ position ~ "['event_serial_no'], '0')"]) }}
        )
        when {{ engine }} = 'mongodb' then {{ cdc_decimal_array([
            "cast(" ~ position ~ "['ts_ms'] as bigint) div 1000",
            position ~ "['ord']"]) }}
        else null
    end
{% endmacro %}
