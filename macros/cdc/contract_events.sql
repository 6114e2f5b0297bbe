{#- The vendor-independent half of every stg_<vendor>__change_events model: op mapping
    (seed cdc_op_codes), key resolution, `pk`, `sequence`, `event_id`, and the reason when an
    event cannot be used.

    Key columns (DECISIONLOG D7, D26): the table's `keys` in the dbt var cdc_tables, else the
    message's key, else the seed cdc_primary_keys (kept for compatibility), else (`key_fallback`,
    for feeds that may send no key: Debezium value-only dumps) the columns of the image named as
    in the var cdc_key_fallback_columns (default id / _id); with none of them the event is
    quarantined, naming the YAML to write. A table with `sequence_by` orders by those row
    columns (numbers, or timestamps as microseconds), then by the vendor's position.

    `changes` is a CTE name whose rows have: source_vendor, source_engine, source_table,
    vendor_op, key, before, after, changed_columns, position, position_sequence (array of
    decimal(38,0) or null when there is no position), arrival (array of decimal(38,0)),
    committed_at_us, read_at_us, transaction_id, transaction_seq, transaction_last,
    schema_version, content_hash, vendor_quarantine_reason, vendor_quarantine_detail (a vendor's
    own reason not to use the event, else null), raw, _source_file, record_no, record_index,
    _parsed_at. -#}
{% macro cdc_contract_events(changes, vendor, key_fallback=true) %}
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

table_settings as (
    {{ cdc_table_settings(vendor) }}
),

with_keys as (
    select
        {{ changes }}.*,
        op_codes.op,
        table_settings.key_columns is not null as keys_declared,
        table_settings.sequence_by,
        coalesce(
            table_settings.key_columns,
            map_keys({{ changes }}.key),
            registered_keys.key_columns
            {%- if key_fallback and cdc_key_fallback_columns() | length > 0 %},
            -- the key of last resort: the columns cdc_key_fallback_columns names (D7)
            {{ _cdc_key_fallback('coalesce(' ~ changes ~ '.after, ' ~ changes ~ '.before)') }}
            {%- endif %}
        ) as key_columns,
        case when op_codes.op = 'delete' then {{ changes }}.before else {{ changes }}.after end as image
    from {{ changes }}
    left join op_codes
        on {{ changes }}.vendor_op = op_codes.vendor_op
    left join registered_keys
        on {{ changes }}.source_table = registered_keys.source_table
    left join table_settings
        on {{ changes }}.source_table = table_settings.source_table
),

with_pk as (
    select
        with_keys.*,
        map_filter(
            case
                -- declared keys are row columns: the image first, the message key for what it lacks
                when keys_declared then map_concat(
                    coalesce(image, cast(map() as map<string, string>)),
                    map_filter(coalesce(with_keys.key, cast(map() as map<string, string>)),
                        (column_name, column_value) -> not map_contains_key(coalesce(image, cast(map() as map<string, string>)), column_name))
                )
                else coalesce(with_keys.key, image)
            end,
            (column_name, column_value) -> array_contains(with_keys.key_columns, column_name)
        ) as pk_values,
        case
            when with_keys.sequence_by is not null and with_keys.op != 'truncate' then transform(
                with_keys.sequence_by,
                column_name -> {{ _cdc_sequence_by_number('trim(both \'"\' from with_keys.image[column_name])') }}
            )
        end as sequence_by_values
    from with_keys
),

with_sequence as (
    select
        with_pk.*,
        concat(
            {{ cdc_integer_array(["case when with_pk.op = 'snapshot' then 0 else 1 end"]) }},
            coalesce(sequence_by_values, cast(array() as array<decimal(38, 0)>)),
            coalesce(with_pk.position_sequence, with_pk.arrival)
        ) as sequence
    from with_pk
),

checked as (
    select
        with_sequence.*,
        case
            when vendor_quarantine_reason is not null then vendor_quarantine_reason
            when op is null then 'unknown_op'
            when op != 'truncate' and key_columns is null then 'missing_primary_key'
            -- a truncate has no row to read sequence_by from, so it cannot be ordered among the table's rows
            when op = 'truncate' and sequence_by is not null then 'missing_sequence_value'
            when exists(sequence_by_values, part -> part is null) then 'missing_sequence_value'
            when op != 'truncate'
                and (size(pk_values) != size(key_columns) or array_contains(map_values(pk_values), 'null'))
                then 'missing_key_value'
            when exists(sequence, part -> part is null) then 'invalid_position'
        end as _quarantine_reason,
        -- the key as canonical JSON, written once for event_id and pk
        {{ cdc_json_object('pk_values') }} as pk_json
    from with_sequence
)

select
    -- ids
    sha2(
        concat_ws(
            '|', source_vendor, source_table, coalesce(pk_json, ''), op,
            coalesce(to_json(position), content_hash, '')
        ),
        256
    ) as event_id,
    source_vendor,
    source_engine,
    source_table,
    op,
    case when op != 'truncate' then pk_json end as pk,
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
            ': the message carries no key; declare them in dbt_project.yml, vars: cdc_tables: - {table: ',
            coalesce(source_table, 'null'), ', vendor: {{ vendor }}, keys: [<column>, ...]}',
            ' (README "Per-table configuration"), then run again'
        )
        when _quarantine_reason = 'missing_sequence_value' and op = 'truncate' then concat(
            'table ', source_table, ' is ordered by sequence_by (', array_join(sequence_by, ', '),
            ') and a truncate carries no row to order it by'
        )
        when _quarantine_reason = 'missing_sequence_value' then concat(
            'sequence_by column(s) ', array_join(sequence_by, ', '), ' of table ', source_table,
            ' missing, or not a whole number or a timestamp, in the image of this ', op
        )
        when _quarantine_reason = 'missing_key_value' then concat(
            'key columns ', array_join(key_columns, ', '), ' are missing or null in the image of this ', op
        )
        when _quarantine_reason = 'invalid_position'
            then concat('position is not made of whole numbers: ', to_json(position))
    end as _quarantine_detail
from checked
{% endmacro %}

{#- The key columns known for the vendor's tables before any message is read: the `keys` of
    the dbt var cdc_tables (`declared` true: they win over a message's own key), else the seed
    seeds/cdc_primary_keys.csv; as an array. The body of a CTE, also for models that need the keys
    before the contract (key changes). -#}
{% macro cdc_registered_keys(vendor) %}
    select
        source_table,
        key_columns,
        true as declared
    from ({{ cdc_table_settings(vendor) }}) as declared
    where key_columns is not null
    union all
    select
        seeded.source_table,
        split(seeded.key_columns, '[|]') as key_columns,
        false as declared
    from {{ ref('cdc_primary_keys') }} as seeded
    left anti join ({{ cdc_table_settings(vendor) }}) as declared
        on seeded.source_table = declared.source_table
        and declared.key_columns is not null
    where seeded.source_vendor = '{{ vendor }}'
{% endmacro %}

{#- The column names the var cdc_key_fallback_columns lists (lower case), validated. -#}
{% macro cdc_key_fallback_columns() %}
    {%- set names = var('cdc_key_fallback_columns', []) or [] -%}
    {%- if names is string or names is mapping -%}
        {{ exceptions.raise_compiler_error("var cdc_key_fallback_columns must be a list of column names, e.g. [id, _id], or [] to quarantine every change whose key is declared nowhere; got " ~ names) }}
    {%- endif -%}
    {%- set lowered = [] -%}
    {%- for name in names -%}{%- do lowered.append(name | string | lower) -%}{%- endfor -%}
    {{ return(lowered) }}
{% endmacro %}

{#- The columns of `image` whose names (any case) cdc_key_fallback_columns lists, as a key column
    list; null when there is none. -#}
{% macro _cdc_key_fallback(image) %}
    nullif(
        filter(map_keys({{ image }}), column_name -> lower(column_name) in ({{ "'" ~ cdc_key_fallback_columns() | join("', '") ~ "'" }})),
        array()
    )
{% endmacro %}

{#- A row value (JSON text without its quotes) as a number for sequence_by: a whole number as
    it is, a timestamp as microseconds since 1970; null otherwise. -#}
{% macro _cdc_sequence_by_number(text) %}
    case
        when {{ text }} rlike '^-?[0-9]{1,38}$' then cast({{ text }} as decimal(38, 0))
        else cast(unix_micros(try_cast({{ text }} as timestamp)) as decimal(38, 0))
    end
{% endmacro %}
