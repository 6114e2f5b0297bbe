{#- The first half of every stg_<vendor>__change_events model: the parsed change records not
    taken yet, renamed and grouped, with the vendor's ordering expressions. Defines the CTEs
    `source` and `renamed`; cdc_contract_events(changes='renamed', ...) does the rest.

    position_sequence: SQL for the vendor position as array<decimal(38,0)> (null: no position),
        e.g. spanner_position_sequence('position') from macros/vendors/.
    arrival: SQL for the delivery order as array<decimal(38,0)>; default: file mtime and record. -#}
{% macro cdc_parsed_changes(parsed, position_sequence, arrival=none) %}
    {%- if parsed is none or position_sequence is none -%}
        {{ exceptions.raise_compiler_error("cdc_parsed_changes needs parsed=ref('base_<vendor>__parsed') and position_sequence=<vendor>_position_sequence(...)") }}
    {%- endif -%}
{{ cdc_skip_unless_newer([parsed], '_parsed_at') }}
source as (
    select *
    from {{ parsed }}
    where kind = 'change'
        and {{ cdc_newer_than_this('_parsed_at') }}
),

renamed as (
    select
        -- ids
        source_vendor,
        source_engine,
        source_table,
        vendor_op,
        key,
        -- images
        before,
        after,
        changed_columns,
        -- ordering: the vendor position, else the arrival order (DECISIONLOG D3)
        position,
        {{ position_sequence }} as position_sequence,
        {{ arrival or cdc_integer_array(['file_mtime_ns', 'record_no', 'record_index']) }} as arrival,
        -- timestamps
        committed_at_us,
        read_at_us,
        -- cdc metadata
        transaction_id,
        transaction_seq,
        transaction_last,
        schema_version,
        content_hash,
        -- set by vendors that check more than the contract does (qlik, datahub)
        cast(null as string) as vendor_quarantine_reason,
        cast(null as string) as vendor_quarantine_detail,
        raw,
        _source_file,
        record_no,
        record_index,
        _parsed_at
    from source
),
{% endmacro %}
