{#- The vendor-independent half of every stg_<vendor>__change_events model: op mapping
    (seed cdc_op_codes), key resolution (message key, seed cdc_primary_keys, an `id` column),
    `pk`, `sequence`, `event_id`, and the reason when an event cannot be used.

    `guess_id_key`: whether a lone `id` / `_id` column may serve as the key when neither the
    message nor the seed names one (Debezium: yes; feeds that always send keys: no).

    `changes` is a CTE name whose rows have: source_vendor, source_engine, source_table,
    vendor_op, key, before, after, changed_columns, position, position_sequence (array of
    decimal(38,0) or null when there is no position), arrival (array of decimal(38,0)),
    committed_at_us, read_at_us, transaction_id, transaction_seq, transaction_last,
    schema_version, content_hash, vendor_quarantine_reason, vendor_quarantine_detail (a vendor's
    own reason not to use the event, else null), raw, _source_file, record_no, record_index,
    _parsed_at. -#}
{% macro cdc_contract_events(changes, vendor, guess_id_key=true) %}
    {%- if changes is none or vendor is none -%}
        {{ exceptions.raise_compiler_error("cdc_contract_events needs changes='<cte name>' and vendor='<folder>'") }}
    {%- endif -%}
op_codes as (
    select
        vendor_op,
        op
    from {{ ref('cdc_op_codes') }}
    where source_vendor = '{{ vendor }}'
),

registered_keys as (
    {{ cdc_registered_keys(vendor) }}
),

with_keys as (
    select
        {{ changes }}.*,
        op_codes.op,
        coalesce(
            map_keys({{ changes }}.key),
            registered_keys.key_columns
            {%- if guess_id_key %},
            -- a lone `id` / `_id` column is the key of last resort (DECISIONLOG D7)
            nullif(
                filter(
                    map_keys(coalesce({{ changes }}.after, {{ changes }}.before)),
                    column_name -> lower(column_name) in ('id', '_id')
                ),
                array()
            )
            {%- endif %}
        ) as key_columns
    from {{ changes }}
    left join op_codes
        on {{ changes }}.vendor_op = op_codes.vendor_op
    left join registered_keys
        on {{ changes }}.source_table = registered_keys.source_table
),

with_pk as (
    select
        with_keys.*,
        map_filter(
            coalesce(with_keys.key, case when with_keys.op = 'delete' then with_keys.before else with_keys.after end),
            (column_name, column_value) -> array_contains(with_keys.key_columns, column_name)
        ) as pk_values,
        concat(
            {{ cdc_decimal_array(["case when with_keys.op = 'snapshot' then 0 else 1 end"]) }},
            coalesce(with_keys.position_sequence, with_keys.arrival)
        ) as sequence
    from with_keys
),

checked as (
    select
        with_pk.*,
        case
            when vendor_quarantine_reason is not null then vendor_quarantine_reason
            when op is null then 'unknown_op'
            when op != 'truncate' and key_columns is null then 'missing_primary_key'
            when op != 'truncate'
                and (size(pk_values) != size(key_columns) or array_contains(map_values(pk_values), 'null'))
                then 'missing_key_value'
            when exists(sequence, part -> part is null) then 'invalid_position'
        end as _quarantine_reason
    from with_pk
)

select
    -- ids
    sha2(
        concat_ws(
            '|', source_vendor, source_table, coalesce({{ cdc_json_object('pk_values') }}, ''), op,
            coalesce(to_json(position), content_hash, '')
        ),
        256
    ) as event_id,
    source_vendor,
    source_engine,
    source_table,
    op,
    case when op != 'truncate' then {{ cdc_json_object('pk_values') }} end as pk,
    -- images and columns
    after,
    before,
    coalesce(map_keys(after), array()) as present_columns,
    changed_columns,
    -- ordering
    sequence,
    -- 'position' when the vendor gave one; 'arrival' when the order is the delivery order (DECISIONLOG D10)
    case when position_sequence is null then 'arrival' else 'position' end as sequence_basis,
    arrival as _arrival,
    -- timestamps
    timestamp_micros(committed_at_us) as source_committed_at,
    timestamp_micros(read_at_us) as read_at,
    -- cdc metadata
    transaction_id,
    transaction_seq,
    transaction_last,
    schema_version,
    _source_file,
    record_no as _record_no,
    record_index as _record_index,
    -- when the event became ready for the event log: int_cdc__change_events shows it as loaded_at
    _parsed_at,
    '{{ invocation_id }}' as _run_id,
    -- the text as read, kept only where someone has to look at it
    case when _quarantine_reason is not null then raw end as _raw,
    _quarantine_reason,
    case
        when vendor_quarantine_reason is not null then vendor_quarantine_detail
        when _quarantine_reason = 'unknown_op'
            then concat('op code ', coalesce(vendor_op, 'null'), ' is not in seeds/cdc_op_codes.csv for {{ vendor }}')
        when _quarantine_reason = 'missing_primary_key' then concat(
            'no key columns known for table ', coalesce(source_table, 'null'),
            ': the message carries no key; add a row to seeds/cdc_primary_keys.csv (source_vendor, source_table, key_columns)'
        )
        when _quarantine_reason = 'missing_key_value' then concat(
            'key columns ', array_join(key_columns, ', '), ' are missing or null in the image of this ', op
        )
        when _quarantine_reason = 'invalid_position'
            then concat('position is not made of whole numbers: ', to_json(position))
    end as _quarantine_detail
from checked
{% endmacro %}

{#- The key columns seeds/cdc_primary_keys.csv registers for the vendor's tables, as an array:
    the body of a CTE, for models that need the keys before the contract (key changes). -#}
{% macro cdc_registered_keys(vendor) %}
    select
        source_table,
        split(key_columns, '[|]') as key_columns
    from {{ ref('cdc_primary_keys') }}
    where source_vendor = '{{ vendor }}'
{% endmacro %}
