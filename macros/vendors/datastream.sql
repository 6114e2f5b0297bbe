{#- Datastream: the position per source engine as numbers (DESIGN §5). MySQL: binlog file number,
    position. Oracle: scn, rs_id hex parts (published padded with spaces), ssn. PostgreSQL and
    SQL Server: source timestamp, then the LSN's hex parts (`16/CB002DB0` is two numbers: as
    text `9/...` would sort after `16/...`). Salesforce: source timestamp. MongoDB: oplog
    seconds, increment. A key change's UPDATE-DELETE sorts before its UPDATE-INSERT
    (change_type_rank). Backfill rows have no position: they are snapshots (DECISIONLOG D3). -#}
{% macro datastream_position_sequence(engine, position) %}
    case
        when {{ position }} is null then null
        when {{ engine }} = 'mysql' then {{ cdc_decimal_array([
            "regexp_extract(" ~ position ~ "['log_file'], '([0-9]+)$', 1)",
            position ~ "['log_position']",
            position ~ "['change_type_rank']"]) }}
        when {{ engine }} = 'oracle' then concat(
            {{ cdc_decimal_array([position ~ "['scn']"]) }},
            coalesce({{ cdc_hex_parts(position ~ "['rs_id']") }}, array()),
            {{ cdc_decimal_array(["coalesce(" ~ position ~ "['ssn'], '0')", position ~ "['change_type_rank']"]) }}
        )
        when {{ engine }} in ('postgresql', 'sqlserver') then concat(
            {{ cdc_decimal_array([position ~ "['source_timestamp_us']"]) }},
            {{ cdc_hex_parts(position ~ "['lsn']") }},
            {{ cdc_decimal_array([position ~ "['change_type_rank']"]) }}
        )
        when {{ engine }} = 'salesforce' then {{ cdc_decimal_array([
            position ~ "['source_timestamp_us']",
            position ~ "['change_type_rank']"]) }}
        when {{ engine }} = 'mongodb' then {{ cdc_decimal_array([
            position ~ "['ts_seconds']",
            position ~ "['ts_increment']",
            position ~ "['change_type_rank']"]) }}
    end
{% endmacro %}
