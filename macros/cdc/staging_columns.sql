{#- The columns of the staging tables every vendor shares, as (name, Spark SQL type) pairs in
    table order. A model configured cdc_empty_table_columns=<one of these> whose first build finds
    nothing upstream is created from this list, without Spark planning its SQL (materialization
    cdc_append); tests/pytest/test_end_to_end_conformance.py checks that the tables its SQL builds
    have exactly these columns. -#}

{#- base_<vendor>__landing_records (cdc_landing_records). -#}
{% macro cdc_landing_record_columns() %}
    {{ return([
        ('source_vendor', 'string'), ('_source_file', 'string'), ('file_size_bytes', 'bigint'),
        ('file_mtime_ns', 'bigint'), ('file_modified_at', 'timestamp'), ('record_no', 'int'),
        ('raw', 'string'), ('read_error', 'string'), ('_loaded_at', 'timestamp'), ('_run_id', 'string'),
    ]) }}
{% endmacro %}

{#- The fields of a parsed record (python_udfs/contract.py PARSED_FIELDS), in order. -#}
{% macro cdc_parsed_fields() %}
    {{- return([
        ('kind', 'string'), ('reason', 'string'), ('detail', 'string'),
        ('control_type', 'string'), ('control_json', 'string'),
        ('vendor_op', 'string'), ('source_engine', 'string'), ('source_table', 'string'),
        ('key', 'map<string,string>'), ('before', 'map<string,string>'), ('after', 'map<string,string>'),
        ('changed_columns', 'array<string>'), ('position', 'map<string,string>'),
        ('kafka_topic', 'string'), ('kafka_partition', 'bigint'), ('kafka_offset', 'bigint'),
        ('committed_at_us', 'bigint'), ('read_at_us', 'bigint'),
        ('transaction_id', 'string'), ('transaction_seq', 'bigint'), ('transaction_last', 'boolean'),
        ('schema_version', 'string'), ('content_hash', 'string'), ('schema_ref', 'string'),
        ('column_order', 'array<string>'), ('captured_ordinals', 'array<int>'), ('changed_ordinals', 'array<int>'),
    ]) -}}
{% endmacro %}

{#- base_<vendor>__parsed: the landing record's ids, its parsed fields, lineage. -#}
{% macro cdc_parsed_record_columns() %}
    {{ return(
        [('source_vendor', 'string'), ('_source_file', 'string'), ('file_mtime_ns', 'bigint'),
         ('record_no', 'int'), ('record_index', 'int')]
        + cdc_parsed_fields()
        + [('raw', 'string'), ('_loaded_at', 'timestamp'), ('_parsed_at', 'timestamp'), ('_run_id', 'string')]
    ) }}
{% endmacro %}

{#- stg_<vendor>__change_events: the change-event contract (DESIGN §5; cdc_contract_columns
    names it), then the record's text and why it is quarantined, if it is. -#}
{% macro cdc_change_event_columns() %}
    {{ return([
        ('event_id', 'string'), ('source_vendor', 'string'), ('source_engine', 'string'),
        ('source_table', 'string'), ('op', 'string'), ('pk', 'string'),
        ('after', 'map<string,string>'), ('before', 'map<string,string>'),
        ('present_columns', 'array<string>'), ('changed_columns', 'array<string>'),
        ('sequence', 'array<decimal(38,0)>'), ('sequence_basis', 'string'), ('_arrival', 'array<decimal(38,0)>'),
        ('source_committed_at', 'timestamp'), ('read_at', 'timestamp'),
        ('transaction_id', 'string'), ('transaction_seq', 'bigint'), ('transaction_last', 'boolean'),
        ('schema_version', 'string'),
        ('_source_file', 'string'), ('_record_no', 'int'), ('_record_index', 'int'),
        ('_parsed_at', 'timestamp'), ('_run_id', 'string'),
        ('_raw', 'string'), ('_quarantine_reason', 'string'), ('_quarantine_detail', 'string'),
    ]) }}
{% endmacro %}

{#- True when this cdc_append model may be created from its cdc_empty_table_columns: a first
    build or --full-refresh (an incremental run has its table already) of a model that declares them. -#}
{% macro cdc_creates_empty_table_when_nothing_upstream() %}
    {{ return(execute and not cdc_is_incremental() and (model.config.get('cdc_empty_table_columns') or []) | length > 0) }}
{% endmacro %}
