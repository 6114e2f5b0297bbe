{{ config(materialized='cdc_append', cdc_empty_table_columns=cdc_parsed_record_columns()) }}
{{ cdc_skip_unless_newer([ref('base_spanner__landing_records')], '_loaded_at') }}

-- Spanner change-stream rows flattened in Spark SQL (DECISIONLOG D13; seed 001, "Formato di record
-- delle modifiche in tempo reale"): one row per mod of a data change record, one control row per
-- heartbeat / child-partitions / partition record; or, when anything in the landing record cannot
-- be used, one quarantine row for the whole record (D9) with the first problem in the order
-- tests/pytest/parsers/spanner.py meets them, so a record is never part applied. Values are JSON text (D2).
-- One path from landing record to output row (no union), so every record is read and parsed once.
-- tests/pytest/parsers/spanner.py stays as the oracle of tests/pytest/test_sql_parity.py.

-- Each expression is written once: what later steps need twice is a column of an earlier CTE (the
-- value-decoding macros are long, and Spark plans every copy of them).

{%- set bom_stripped = "regexp_replace(raw, '^\\\\x{FEFF}+', '')" %}
{%- set record_kinds = [
    'data_change_record', 'heartbeat_record', 'child_partitions_record',
    'partition_start_records', 'partition_end_records', 'partition_event_records'] %}
{#- the field holding each record kind's time -#}
{%- set time_fields = {
    'data_change_record': 'commit_timestamp', 'heartbeat_record': 'timestamp', 'child_partitions_record': 'start_timestamp',
    'partition_start_records': 'start_timestamp', 'partition_end_records': 'end_timestamp',
    'partition_event_records': 'commit_timestamp'} %}
{#- a mod's keys / new values / old values, or Beam's keysJson / newValuesJson / oldValuesJson -#}
{%- set mod_parts = ['keys', 'new_values', 'old_values'] %}
{#- the mod's new / old values without its key columns -#}
{%- set new_columns = "map_filter(new_values_json, (column_name, column_json) -> not map_contains_key(keys_json, column_name))" %}
{%- set old_columns = "map_filter(old_values_json, (column_name, column_json) -> not map_contains_key(keys_json, column_name))" %}
{%- set is_data_change = "kind = 'data_change_record'" %}
{#- a data change record's mods: `mods`, or the templates' single `mod` -#}
{%- set mods_array = "case when mods_document is not null then if(" ~ spanner_json_type('mods_document')
    ~ " = 'array', try_cast(mods_document as array<variant>), null) when mod_document is not null then array(mod_document) end" %}

with

source as (
    select
        source_vendor,
        _source_file,
        file_mtime_ns,
        record_no,
        raw,
        read_error,
        _loaded_at,
        -- the record as JSON (leading byte-order marks dropped): exactly one JSON document
        {{ spanner_json(bom_stripped) }} as document,
        {{ spanner_strip(bom_stripped) }} = '' as is_blank
    from {{ ref('base_spanner__landing_records') }}
    where
        record_no > 0
        and {{ cdc_newer_than_this('_loaded_at') }}
),

-- what the document looks like, for the form checks below
shapes as (
    select
        source.*,
        {{ spanner_json_type('document') }} as document_type,
        try_cast(document as array<variant>) as document_array,
        -- a reader's {"partition_token", "change_record"} line: the ChangeRecord(s) it wraps
        coalesce({{ spanner_field('document', 'change_record') }}, {{ spanner_field('document', 'ChangeRecord') }}) as wrapped_document,
        {{ spanner_has_field('document', record_kinds) }} as has_record_kind,
        {{ spanner_has_field('document', ['mods', 'mod', 'mod_type', 'table_name', 'commit_timestamp', 'server_transaction_id']) }}
            as has_data_change_field,
        {{ spanner_has_field('document', ['child_partitions']) }} as has_child_partitions_field
    from source
),

-- which form the record is in (DESIGN §4), or why it is unusable: ChangeRecords (GoogleSQL arrays,
-- also inside a reader's {"partition_token", "change_record"} line; PostgreSQL objects), or one
-- bare record of a kind
forms as (
    select
        shapes.*,
        case
            when read_error is not null then {{ spanner_problem('unreadable_file', 'read_error') }}
            when raw is null or is_blank then {{ spanner_problem('empty_record', "'the record is empty or whitespace only'") }}
            when document is null then {{ spanner_problem('invalid_json', "'the record is not valid JSON'") }}
            when document_type = 'array' and size(document_array) > 0 and forall(
                document_array,
                item -> {{ spanner_json_type('item') }} = 'object' and {{ spanner_has_field('item', record_kinds) }}
            ) then null
            when document_type != 'object'
                then {{ spanner_problem('not_an_object', "concat('the record is a JSON ', document_type, ', not an object')") }}
            when wrapped_document is not null
                or has_record_kind
                or has_data_change_field
                or has_child_partitions_field
                or {{ spanner_has_field('document', ['timestamp']) }} and forall(
                    map_keys(try_cast(document as map<string, variant>)),
                    field_name -> {{ spanner_snake_case('field_name') }} in ('timestamp', 'metadata', 'record_timestamp', 'partition_token', 'record_type')
                ) then null
            else {{ spanner_problem('not_a_change_stream_record',
                "'the object has none of data_change_record, heartbeat_record, child_partitions_record, mods, table_name, commit_timestamp'") }}
        end as landing_problem,
        case
            when document_type = 'array' then document_array
            when wrapped_document is not null and not has_record_kind then if(
                {{ spanner_json_type('wrapped_document') }} = 'array', try_cast(wrapped_document as array<variant>), array(wrapped_document)
            )
            else array(document)
        end as items,
        case
            when document_type = 'array' or wrapped_document is not null or has_record_kind then 'change_records'
            when has_data_change_field then 'data_change_record'
            when has_child_partitions_field then 'child_partitions_record'
            else 'heartbeat_record'
        end as form
    from shapes
),

-- one row per ChangeRecord (or bare record). Outer generators keep every landing record, also one
-- with a problem or with nothing in it.
form_items as (
    select
        forms.*,
        posexplode_outer(if(landing_problem is null, items, null)) as (item_index, item)
    from forms
),

-- the record kinds of each ChangeRecord in the order the parser emits them: each an array of
-- records (GoogleSQL) or one object (PostgreSQL, which names the other kinds with empty objects);
-- a bare record is the one record of its kind. A ChangeRecord that is not an object is a problem.
item_kinds as (
    select
        form_items.*,
        inline_outer(case
            when item_index is null then null
            when {{ spanner_json_type('item') }} != 'object' then array(named_struct(
                'kind_index', -1, 'kind', cast(null as string),
                'has_non_objects', false, 'kind_records', cast(null as array<variant>),
                'item_problem', {{ spanner_problem('wrong_type', "'an element of the change records is not an object'") }}
            ))
            when form = 'change_records' then array(
                {%- for kind in record_kinds %}
                {%- set elements = spanner_elements(spanner_field('item', kind)) %}
                named_struct(
                    'kind_index', {{ loop.index0 }}, 'kind', '{{ kind }}',
                    'has_non_objects', exists({{ elements }}, element -> {{ spanner_json_type('element') }} != 'object'),
                    'kind_records', filter({{ elements }}, element -> size(try_cast(element as map<string, variant>)) > 0),
                    'item_problem', cast(null as struct<reason: string, detail: string>)
                ){{ ',' if not loop.last }}
                {%- endfor %}
            )
            else array(named_struct(
                'kind_index', 0, 'kind', form,
                'has_non_objects', false, 'kind_records', array(item),
                'item_problem', cast(null as struct<reason: string, detail: string>)
            ))
        end)
    from form_items
),

-- one row per change-stream record
records as (
    select
        item_kinds.*,
        if(has_non_objects, {{ spanner_problem('wrong_type', "concat(kind, ' holds something other than objects')") }}, null) as kind_problem,
        posexplode_outer(if(has_non_objects, null, kind_records)) as (element_index, record)
    from item_kinds
),

-- the fields of each record, snake_case or Beam camelCase (seed "Record di modifiche dei dati",
-- "Record Heartbeat", "Record di partizioni figlio")
record_fields as (
    select
        records.*,
        {%- for field in ['table_name', 'mods', 'mod', 'record_sequence', 'mod_type', 'server_transaction_id',
            'is_last_record_in_transaction_in_partition', 'value_capture_type', 'database_name', 'database', 'schema_name',
            'schema', 'child_partitions'] %}
        {{ spanner_field('record', field) }} as {{ field }}_value,
        {%- endfor %}
        coalesce({{ spanner_field('record', 'column_types') }}, {{ spanner_field('record', 'row_type') }}) as column_types_value,
        -- the record's time: commit_timestamp, timestamp, start_timestamp or end_timestamp
        case kind
            {%- for kind, field in time_fields.items() %}
            when '{{ kind }}' then '{{ field }}'
            {%- endfor %}
        end as time_field,
        case kind
            {%- for kind, field in time_fields.items() %}
            when '{{ kind }}' then {{ spanner_field('record', field) }}
            {%- endfor %}
        end as time_value,
        -- a partition record with its field names in snake_case
        if(kind like 'partition%', transform(
            map_entries(try_cast(record as map<string, variant>)),
            record_field -> named_struct('name', {{ spanner_snake_case('record_field.key') }}, 'value', record_field.value)
        ), null) as snake_fields
    from records
),

record_documents as (
    select
        record_fields.*,
        {{ spanner_timestamp('time_value') }} as record_time,
        -- mods, column types and child partitions may come as JSON text
        {{ spanner_json_field('mods_value') }} as mods_document,
        {{ spanner_json_field('mod_value') }} as mod_document,
        {{ spanner_json_field('column_types_value') }} as column_types_document,
        {{ spanner_json_field('child_partitions_value') }} as children_document,
        -- record_sequence: digits, as given ('00000001'); the sequence compares them as numbers (D3)
        case {{ spanner_json_type('record_sequence_value') }}
            when 'bigint' then if(variant_get(record_sequence_value, '$', 'bigint') >= 0, to_json(record_sequence_value), null)
            -- a JSON integer past 64 bits
            when 'decimal' then if(
                schema_of_variant(record_sequence_value) rlike '^DECIMAL[(](19|[2-9][0-9]),0[)]$'
                and variant_get(record_sequence_value, '$', 'decimal(38,0)') >= 0,
                to_json(record_sequence_value), null
            )
            when 'string' then if(
                variant_get(record_sequence_value, '$', 'string') rlike '^[0-9]+\\z', variant_get(record_sequence_value, '$', 'string'), null
            )
        end as record_sequence,
        {{ spanner_text('mod_type_value') }} as mod_type,
        {{ spanner_string('table_name_value') }} as table_name,
        -- database / schema names some producers add to the table name
        coalesce(nullif({{ spanner_string('database_name_value') }}, ''), nullif({{ spanner_string('database_value') }}, '')) as database_name,
        coalesce(nullif({{ spanner_string('schema_name_value') }}, ''), nullif({{ spanner_string('schema_value') }}, '')) as schema_name
    from record_fields
),

-- the first problem of each row, in the parser's order; a data change record's mods (`mods`, or
-- the templates' single `mod`; seed: "mods ... le coppie chiave-valore primarie, i valori precedenti
-- e i nuovi valori") and its column types
checked as (
    select
        record_documents.*,
        coalesce(landing_problem, item_problem, kind_problem, case
            when record is null then null
            when {{ is_data_change }} and (table_name_value is null or table_name = '')
                then {{ spanner_problem('missing_field', "'data change record has no table_name'") }}
            when {{ is_data_change }} and {{ spanner_json_type('table_name_value') }} != 'string'
                then {{ spanner_problem('wrong_type', "'table_name is not a string'") }}
            -- every record kind has its time
            when time_value is null or {{ spanner_string('time_value') }} = ''
                then {{ spanner_problem('missing_field', "concat(kind, ' has no ', time_field)") }}
            when record_time is null
                then {{ spanner_problem('invalid_timestamp', "concat(time_field, ' ', to_json(time_value), ' is not a timestamp')") }}
            when {{ is_data_change }} and {{ spanner_is_broken_json('mods_value') }}
                then {{ spanner_problem('invalid_json', "'mods is not valid JSON text'") }}
            when {{ is_data_change }} and mods_document is null and {{ spanner_is_broken_json('mod_value') }}
                then {{ spanner_problem('invalid_json', "'mod is not valid JSON text'") }}
            when {{ is_data_change }} and mods_document is null and mod_document is null
                then {{ spanner_problem('missing_field', "'data change record has no mods'") }}
            when {{ is_data_change }} and mods_document is not null and {{ spanner_json_type('mods_document') }} != 'array'
                then {{ spanner_problem('wrong_type', "'mods is not an array'") }}
            when {{ is_data_change }} and mods_document is not null and size(try_cast(mods_document as array<variant>)) = 0
                then {{ spanner_problem('missing_field', "'data change record has an empty mods array'") }}
            when {{ is_data_change }} and exists({{ mods_array }}, mod -> {{ spanner_json_type('mod') }} != 'object')
                then {{ spanner_problem('wrong_type', "'a mod is not an object'") }}
            when {{ is_data_change }} and {{ spanner_is_broken_json('column_types_value') }}
                then {{ spanner_problem('invalid_json', "'column_types is not valid JSON text'") }}
            when {{ is_data_change }} and column_types_document is not null and {{ spanner_json_type('column_types_document') }} != 'array'
                then {{ spanner_problem('wrong_type', "'column_types is not an array'") }}
            when {{ is_data_change }} and record_sequence_value is not null and record_sequence is null
                then {{ spanner_problem('invalid_position', "concat('record_sequence ', to_json(record_sequence_value), ' is not a string of digits')") }}
            when kind = 'child_partitions_record' and {{ spanner_is_broken_json('child_partitions_value') }}
                then {{ spanner_problem('invalid_json', "'child_partitions is not valid JSON text'") }}
            when kind = 'child_partitions_record' and (
                {{ spanner_json_type('children_document') }} != 'array' and not {{ spanner_is_falsy('children_document') }}
            ) then {{ spanner_problem('wrong_type', "'child_partitions is not an array'") }}
            when kind = 'child_partitions_record' and exists(
                try_cast(children_document as array<variant>), child -> {{ spanner_json_type('child') }} != 'object'
            ) then {{ spanner_problem('wrong_type', "'a child partition is not an object'") }}
        end) as problem,
        -- control records: a heartbeat's time; a child partitions record; a partition record with its
        -- field names in snake_case and its time in UTC
        case kind
            when 'heartbeat_record' then 'heartbeat'
            when 'child_partitions_record' then 'child_partitions'
            when 'data_change_record' then null
            else regexp_replace(kind, '_records$', '')
        end as control_type,
        case kind
            when 'heartbeat_record' then to_json(named_struct('timestamp', {{ spanner_time_iso('record_time') }}))
            when 'child_partitions_record' then to_json(named_struct(
                -- an empty value means no child partitions
                'child_partitions', transform(
                    if({{ spanner_is_falsy('children_document') }}, cast(array() as array<variant>), try_cast(children_document as array<variant>)),
                    child -> named_struct(
                        'parent_partition_tokens', {{ spanner_sorted_tokens(
                            "coalesce(" ~ spanner_field('child', 'parent_partition_tokens') ~ ", " ~ spanner_field('child', 'parent_tokens') ~ ")") }},
                        'token', {{ spanner_field('child', 'token') }}
                    )
                ),
                'record_sequence', {{ spanner_text('record_sequence_value') }},
                'start_timestamp', {{ spanner_time_iso('record_time') }}
            ), map('ignoreNullFields', 'false'))
            when 'data_change_record' then null
            -- partition records: the record, its time in UTC
            else to_json(map_concat(
                map_from_entries(transform(
                    filter(array_distinct(transform(snake_fields, snake_field -> snake_field.name)), field_name -> field_name != time_field),
                    field_name -> struct(field_name, element_at(filter(snake_fields, snake_field -> snake_field.name = field_name), -1).value)
                )),
                map(time_field, cast({{ spanner_time_iso('record_time') }} as variant))
            ))
        end as control_json,
        if({{ is_data_change }}, {{ mods_array }}, null) as record_mods,
        -- column_types / rowType entries that name a column and give it a usable type (D13): name and
        -- type codes, in order
        if({{ is_data_change }}, filter(
            transform(
                filter(
                    try_cast(column_types_document as array<variant>),
                    column_type -> {{ spanner_json_type('column_type') }} = 'object'
                        and {{ spanner_json_type("variant_get(column_type, '$.name')") }} = 'string'
                ),
                column_type -> named_struct(
                    'name', variant_get(column_type, '$.name', 'string'),
                    'codes', {{ spanner_type_codes("variant_get(column_type, '$.type')") }}
                )
            ),
            entry -> size(entry.codes) > 0
        ), null) as column_type_entries
    from record_documents
),

-- column name -> type codes: a column named twice takes its last usable entry (python's dict, an
-- entry without a usable type skipped); one map per record (an aggregate that rebuilt a map per
-- entry was slow, D39)
column_type_names as (
    select
        checked.*,
        transform(column_type_entries, entry -> entry.name) as column_names_in_order
    from checked
),

record_column_codes as (
    select
        column_type_names.*,
        map_from_arrays(
            array_distinct(column_names_in_order),
            transform(
                array_distinct(column_names_in_order),
                column_name -> column_type_entries[size(column_names_in_order) - array_position(reverse(column_names_in_order), column_name)].codes
            )
        ) as column_codes
    from column_type_names
),

-- one row per mod, in record order (every other row passes through once)
mods as (
    select
        record_column_codes.*,
        posexplode_outer(if(problem is null, record_mods, null)) as (mod_index, mod)
    from record_column_codes
),

-- the mod's keys, new values and old values: JSON objects, or JSON text of one (Beam)
mod_documents as (
    select
        mods.*,
        {%- for part in mod_parts %}
        {%- set part_value = "coalesce(" ~ spanner_field('mod', part) ~ ", " ~ spanner_field('mod', part ~ '_json') ~ ")" %}
        {{ spanner_is_broken_json(part_value) }} as {{ part }}_is_broken_json,
        {{ spanner_json_field(part_value) }} as {{ part }}_document{{ ',' if not loop.last }}
        {%- endfor %}
    from mods
),

-- the first problem of the mod's keys, new values and old values; and every value of the mod typed
-- by its column's type (D13: INT64 text becomes a number, ...) as JSON text. The three parts' values
-- go through one list, so the typing expression is written once.
typed_mods as (
    select
        mod_documents.*,
        case when mod_index is not null then case
            {%- for part in mod_parts %}
            when {{ part }}_is_broken_json
                then {{ spanner_problem('invalid_json', "'mods." ~ part ~ " is not valid JSON text'") }}
            {%- if part == 'keys' %}
            when keys_document is null
                then {{ spanner_problem('missing_field', "'a mod has no keys'") }}
            when {{ spanner_json_type('keys_document') }} != 'object'
            {%- else %}
            when {{ part }}_document is not null and {{ spanner_json_type(part ~ '_document') }} != 'object'
            {%- endif %}
                then {{ spanner_problem('wrong_type', "'mods." ~ part ~ " is not an object'") }}
            {%- endfor %}
        end end as mod_problem,
        if(mod_index is null, null, transform(
            concat(
                {%- for part in mod_parts %}
                transform(
                    map_entries(coalesce(try_cast({{ part }}_document as map<string, variant>), cast(map() as map<string, variant>))),
                    mod_column -> named_struct('part', '{{ part }}', 'name', mod_column.key, 'value', mod_column.value)
                ){{ ',' if not loop.last }}
                {%- endfor %}
            ),
            mod_column -> named_struct(
                'part', mod_column.part,
                'name', mod_column.name,
                'json', {{ spanner_typed_json('mod_column.value', 'column_codes[mod_column.name]') }}
            )
        )) as typed_columns
    from mod_documents
),

-- the mod's typed keys / new values / old values, column -> JSON text; the row's first problem:
-- the landing record's, the ChangeRecord's, the record's, the mod's, then a value that does not
-- fit its column type
mod_images as (
    select
        typed_mods.*,
        {%- for part in mod_parts %}
        map_from_entries(transform(
            filter(typed_columns, typed_column -> typed_column.part = '{{ part }}'),
            typed_column -> struct(typed_column.name, typed_column.json)
        )) as {{ part }}_json,
        {%- endfor %}
        coalesce(problem, mod_problem, if(
            exists(typed_columns, typed_column -> typed_column.json is null),
            {{ spanner_problem('wrong_type', "concat('mods[', mod_index, ']: a value does not fit its column type')") }},
            null
        )) as row_problem
    from typed_mods
),

-- a change per mod (D13): key = the mod's keys; after = keys + new values (none for a DELETE);
-- before = keys + old values when there are old values; changed_columns as the capture type says.
-- A control row per heartbeat (its time), child partitions record and partition record.
outputs as (
    select
        mod_images.*,
        -- per landing record, its first problem if it has one (priority 0), else its rows in order
        -- (priority 1), else one row saying it holds no record (priority 2, empty_record)
        case when row_problem is not null then 0 when record is not null then 1 else 2 end as priority,
        coalesce(row_problem, if(
            record is null, {{ spanner_problem('empty_record', "'the record holds no data change, heartbeat or child partitions record'") }}, null
        )) as outcome_problem,
        case
            when landing_problem is not null or (record is null and row_problem is null) then array(-1)
            when item_problem is not null then array(item_index, -1)
            when kind_problem is not null then array(item_index, kind_index, -1)
            else array(item_index, kind_index, element_index, coalesce(mod_index, -1))
        end as row_order,
        if({{ is_data_change }}, 'change', 'control') as parsed_kind,
        -- data change records
        if({{ is_data_change }}, mod_type, null) as vendor_op,
        if({{ is_data_change }}, concat_ws('.', database_name, schema_name, table_name), null) as source_table,
        keys_json as key,
        if(size({{ old_columns }}) > 0, map_concat(keys_json, {{ old_columns }}), null) as before,
        if({{ is_data_change }} and mod_type = 'DELETE', null, map_concat(keys_json, {{ new_columns }})) as after,
        case when mod_type = 'UPDATE' then case {{ spanner_string('value_capture_type_value') }}
            when 'NEW_ROW' then null
            when 'NEW_ROW_AND_OLD_VALUES' then sort_array(map_keys({{ old_columns }}))
            else sort_array(map_keys({{ new_columns }}))
        end end as changed_columns,
        if({{ is_data_change }}, map_filter(map(
            'commit_timestamp_ns', {{ spanner_time_ns('record_time') }},
            'record_sequence', record_sequence,
            'server_transaction_id', {{ spanner_text('server_transaction_id_value') }},
            'mod_index', cast(mod_index as string)
        ), (part_name, part_value) -> part_value is not null), null) as position
    from mod_images
),

-- each landing record's rows of its best priority (Spark 4.1 has no QUALIFY)
ranked_outputs as (
    select
        outputs.*,
        min(priority) over (partition by _source_file, record_no) as best_priority,
        row_number() over (partition by _source_file, record_no order by priority, row_order) - 1 as record_index
    from outputs
)

select
    source_vendor,
    _source_file,
    file_mtime_ns,
    record_no,
    record_index,
    {{ spanner_parsed_record({
        'kind': 'parsed_kind',
        'control_type': 'control_type',
        'control_json': 'control_json',
        'vendor_op': 'vendor_op',
        'source_engine': "if(" ~ is_data_change ~ ", 'spanner', null)",
        'source_table': 'source_table',
        'key': 'key',
        'before': 'before',
        'after': 'after',
        'changed_columns': 'changed_columns',
        'position': 'position',
        'committed_at_us': spanner_time_micros('record_time'),
        'transaction_id': "if(" ~ is_data_change ~ ", " ~ spanner_text('server_transaction_id_value') ~ ", null)",
        'transaction_seq': "if(" ~ is_data_change ~ ", cast(record_sequence as bigint), null)",
        'transaction_last': "if(" ~ is_data_change ~ " and " ~ spanner_json_type('is_last_record_in_transaction_in_partition_value')
            ~ " = 'boolean', variant_get(is_last_record_in_transaction_in_partition_value, '$', 'boolean'), null)",
    }, problem='outcome_problem') }},
    -- the text as read, for whoever has to look at a quarantined or control record
    raw,
    _loaded_at,
    {{ current_timestamp() }} as _parsed_at,
    '{{ invocation_id }}' as _run_id
from ranked_outputs
where priority = best_priority and (priority = 1 or record_index = 0)
