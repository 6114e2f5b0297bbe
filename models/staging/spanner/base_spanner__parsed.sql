{{ config(materialized='incremental', incremental_strategy='append') }}

-- Spanner change-stream rows flattened in Spark SQL (DECISIONLOG D13; seed 001, "Formato di record
-- delle modifiche in tempo reale"): one row per mod of a data change record, one control row per
-- heartbeat / child-partitions / partition record; or, when anything in the landing record cannot
-- be used, one quarantine row for the whole record (D9) with the first problem in the order
-- python_udfs/spanner.py meets them, so a record is never part applied. Values are JSON text (D2).
-- python_udfs/spanner.py stays as the oracle of tests/pytest/test_sql_parity.py.

{%- set landing_columns = ['source_vendor', '_source_file', 'file_mtime_ns', 'record_no', 'raw', '_loaded_at'] %}
{%- set record_kinds = [
    'data_change_record', 'heartbeat_record', 'child_partitions_record',
    'partition_start_records', 'partition_end_records', 'partition_event_records'] %}
{%- set bom_stripped = "regexp_replace(raw, '^\\\\x{FEFF}+', '')" %}
{%- set wrapped = "coalesce(" ~ spanner_field('document', 'change_record') ~ ", " ~ spanner_field('document', 'ChangeRecord') ~ ")" %}
{%- set is_data_change_record = spanner_has_field('document', ['mods', 'mod', 'mod_type', 'table_name', 'commit_timestamp', 'server_transaction_id']) %}
{%- set is_child_partitions_record = spanner_has_field('document', ['child_partitions']) %}
{#- the fields of a data change record -#}
{%- set data_change_fields = {} %}
{%- for name in ['table_name', 'commit_timestamp', 'mods', 'mod', 'record_sequence', 'mod_type', 'server_transaction_id',
    'is_last_record_in_transaction_in_partition', 'value_capture_type', 'database_name', 'database', 'schema_name', 'schema'] %}
    {%- do data_change_fields.update({name: spanner_field('record', name)}) %}
{%- endfor %}
{%- do data_change_fields.update({'column_types': "coalesce(" ~ spanner_field('record', 'column_types') ~ ", " ~ spanner_field('record', 'row_type') ~ ")"}) %}
{#- a mod's keys / new values / old values, or Beam's keysJson / newValuesJson / oldValuesJson -#}
{%- set mod_parts = {} %}
{%- for part in ['keys', 'new_values', 'old_values'] %}
    {%- do mod_parts.update({part: "coalesce(" ~ spanner_field('mod', part) ~ ", " ~ spanner_field('mod', part ~ '_json') ~ ")"}) %}
{%- endfor %}
{%- set mods_array = "case when mods_document is not null then if(" ~ spanner_json_type('mods_document')
    ~ " = 'array', try_cast(mods_document as array<variant>), null) when mod_document is not null then array(mod_document) end" %}
{#- the mod's new / old values without its key columns -#}
{%- set new_columns = "map_filter(new_values_json, (column_name, column_json) -> not map_contains_key(keys_json, column_name))" %}
{%- set old_columns = "map_filter(old_values_json, (column_name, column_json) -> not map_contains_key(keys_json, column_name))" %}
{%- set partition_time_fields = {
    'partition_start_records': 'start_timestamp',
    'partition_end_records': 'end_timestamp',
    'partition_event_records': 'commit_timestamp'} %}

with

source as (
    select
        {{ landing_columns | join(',\n        ') }},
        read_error,
        -- the record as JSON (leading byte-order marks dropped): exactly one JSON document
        {{ spanner_json(bom_stripped) }} as document,
        {{ spanner_strip(bom_stripped) }} = '' as is_blank
    from {{ ref('base_spanner__landing_records') }}
    where
        record_no > 0
        {%- if is_incremental() %}
        and _loaded_at > (select coalesce(max(_loaded_at), timestamp'1970-01-01') from {{ this }})
        {%- endif %}
),

-- which form the record is in (DESIGN §4), or why it is unusable: ChangeRecords (GoogleSQL arrays,
-- also inside a reader's {"partition_token", "change_record"} line; PostgreSQL objects), or one
-- bare record of a kind
forms as (
    select
        source.*,
        case
            when read_error is not null then {{ spanner_problem('unreadable_file', 'read_error') }}
            when raw is null or is_blank then {{ spanner_problem('empty_record', "'the record is empty or whitespace only'") }}
            when document is null then {{ spanner_problem('invalid_json', "'the record is not valid JSON'") }}
            when {{ spanner_json_type('document') }} = 'array' and size(try_cast(document as array<variant>)) > 0 and forall(
                try_cast(document as array<variant>),
                item -> {{ spanner_json_type('item') }} = 'object' and {{ spanner_has_field('item', record_kinds) }}
            ) then null
            when {{ spanner_json_type('document') }} != 'object' then {{ spanner_problem('not_an_object',
                "concat('the record is a JSON ', " ~ spanner_json_type('document') ~ ", ', not an object')") }}
            when {{ wrapped }} is not null
                or {{ spanner_has_field('document', record_kinds) }}
                or {{ is_data_change_record }}
                or {{ is_child_partitions_record }}
                or {{ spanner_has_field('document', ['timestamp']) }} and forall(
                    map_keys(try_cast(document as map<string, variant>)),
                    field_name -> {{ spanner_snake_case('field_name') }} in ('timestamp', 'metadata', 'record_timestamp', 'partition_token', 'record_type')
                ) then null
            else {{ spanner_problem('not_a_change_stream_record',
                "'the object has none of data_change_record, heartbeat_record, child_partitions_record, mods, table_name, commit_timestamp'") }}
        end as landing_problem,
        -- the ChangeRecords of the row; a bare record is the one item of its own kind
        case
            when {{ spanner_json_type('document') }} = 'array' then try_cast(document as array<variant>)
            when {{ wrapped }} is not null and not {{ spanner_has_field('document', record_kinds) }} then if(
                {{ spanner_json_type(wrapped) }} = 'array', try_cast({{ wrapped }} as array<variant>), array({{ wrapped }})
            )
            else array(document)
        end as items,
        case
            when {{ spanner_json_type('document') }} = 'array' or {{ wrapped }} is not null or {{ spanner_has_field('document', record_kinds) }}
                then 'change_records'
            when {{ is_data_change_record }} then 'data_change_record'
            when {{ is_child_partitions_record }} then 'child_partitions_record'
            else 'heartbeat_record'
        end as form
    from source
),

items as (
    select
        forms.*,
        posexplode(items) as (item_index, item)
    from forms
    where landing_problem is null
),

-- the record kinds of a ChangeRecord in the order the parser emits them, each an array of records
-- (GoogleSQL) or one object (PostgreSQL, which names the other kinds with empty objects)
item_kinds as (
    select
        items.*,
        inline(if(
            form = 'change_records',
            array(
                {%- for kind in record_kinds %}
                {%- set elements = spanner_elements(spanner_field('item', kind)) %}
                named_struct(
                    'kind_index', {{ loop.index0 }},
                    'kind', '{{ kind }}',
                    'has_non_objects', exists({{ elements }}, element -> {{ spanner_json_type('element') }} != 'object'),
                    'kind_records', filter({{ elements }}, element -> size(try_cast(element as map<string, variant>)) > 0)
                ){{ ',' if not loop.last }}
                {%- endfor %}
            ),
            array(named_struct('kind_index', 0, 'kind', form, 'has_non_objects', false, 'kind_records', array(item)))
        ))
    from items
    where {{ spanner_json_type('item') }} = 'object'
),

-- one row per change-stream record (empty PostgreSQL objects skipped)
records as (
    select
        item_kinds.*,
        posexplode(kind_records) as (element_index, record)
    from item_kinds
    where not has_non_objects
),

-- ChangeRecords that are not objects, and record kinds holding something other than objects
structure_problems as (
    select
        {{ landing_columns | join(', ') }},
        array(item_index, -1, 0, 0, 0, 0) as row_order,
        {{ spanner_problem('wrong_type', "'an element of the change records is not an object'") }} as problem
    from items
    where {{ spanner_json_type('item') }} != 'object'
    union all
    select
        {{ landing_columns | join(', ') }},
        array(item_index, kind_index, -1, 0, 0, 0) as row_order,
        {{ spanner_problem('wrong_type', "concat(kind, ' holds something other than objects')") }} as problem
    from item_kinds
    where has_non_objects
),

-- data change records (seed "Record di modifiche dei dati"): their fields (snake_case or Beam
-- camelCase) and what the fields hold
data_change_documents as (
    select
        records.*,
        {%- for name in data_change_fields %}
        {{ data_change_fields[name] }} as {{ name }}_value,
        {%- endfor %}
        {{ spanner_timestamp(data_change_fields.commit_timestamp) }} as commit_time,
        -- mods and column types may come as JSON text; the templates' single `mod` is mod 0
        {{ spanner_json_field(data_change_fields.mods) }} as mods_document,
        {{ spanner_json_field(data_change_fields.mod) }} as mod_document,
        {{ spanner_json_field(data_change_fields.column_types) }} as column_types_document,
        -- column name -> type codes from column_types / rowType (D13); a column named twice takes its last type
        aggregate(
            filter(
                try_cast({{ spanner_json_field(data_change_fields.column_types) }} as array<variant>),
                column_type -> {{ spanner_json_type('column_type') }} = 'object'
                    and {{ spanner_json_type("variant_get(column_type, '$.name')") }} = 'string'
            ),
            cast(map() as map<string, array<string>>),
            (codes_by_name, column_type) -> map_concat(
                map_filter(codes_by_name, (column_name, codes) -> column_name != variant_get(column_type, '$.name', 'string')),
                map_filter(
                    map(variant_get(column_type, '$.name', 'string'), {{ spanner_type_codes("variant_get(column_type, '$.type')") }}),
                    (column_name, codes) -> size(codes) > 0
                )
            )
        ) as column_codes,
        -- record_sequence: digits, as given ('00000001'); the sequence compares them as numbers (D3)
        {%- set record_sequence = data_change_fields.record_sequence %}
        case {{ spanner_json_type(record_sequence) }}
            when 'bigint' then if(variant_get({{ record_sequence }}, '$', 'bigint') >= 0, to_json({{ record_sequence }}), null)
            -- a JSON integer past 64 bits
            when 'decimal' then if(
                schema_of_variant({{ record_sequence }}) rlike '^DECIMAL[(](19|[2-9][0-9]),0[)]$'
                and variant_get({{ record_sequence }}, '$', 'decimal(38,0)') >= 0,
                to_json({{ record_sequence }}), null
            )
            when 'string' then if(
                variant_get({{ record_sequence }}, '$', 'string') rlike '^[0-9]+\\z', variant_get({{ record_sequence }}, '$', 'string'), null
            )
        end as record_sequence,
        -- database / schema names some producers add to the table name
        coalesce(
            nullif({{ spanner_string(data_change_fields.database_name) }}, ''), nullif({{ spanner_string(data_change_fields.database) }}, '')
        ) as database_name,
        coalesce(nullif({{ spanner_string(data_change_fields.schema_name) }}, ''), nullif({{ spanner_string(data_change_fields.schema) }}, '')) as schema_name
    from records
    where kind = 'data_change_record'
),

-- the first problem of a data change record, in the parser's order; and its mods (seed: "mods ...
-- le coppie chiave-valore primarie, i valori precedenti e i nuovi valori") with every value typed
-- by its column's type (D13: INT64 text becomes a number, ...); Beam writes keysJson /
-- newValuesJson / oldValuesJson as JSON text
data_change_checked as (
    select
        data_change_documents.*,
        transform({{ mods_array }}, mod -> named_struct(
            'mod', mod,
            'typed_values', transform(
                concat(
                    {%- for part in mod_parts %}
                    transform(
                        map_entries(coalesce(
                            try_cast({{ spanner_json_field(mod_parts[part]) }} as map<string, variant>),
                            cast(map() as map<string, variant>)
                        )),
                        column_entry -> named_struct('part', '{{ part }}', 'name', column_entry.key, 'value', column_entry.value)
                    ){{ ',' if not loop.last }}
                    {%- endfor %}
                ),
                column_value -> named_struct(
                    'part', column_value.part,
                    'name', column_value.name,
                    'json', {{ spanner_typed_json('column_value.value', 'column_codes[column_value.name]') }}
                )
            ),
            -- the first problem of the mod's keys, new values and old values
            'problem', case
                {%- for part in mod_parts %}
                when {{ spanner_is_broken_json(mod_parts[part]) }}
                    then {{ spanner_problem('invalid_json', "'mods." ~ part ~ " is not valid JSON text'") }}
                {%- if part == 'keys' %}
                when {{ spanner_json_field(mod_parts[part]) }} is null
                    then {{ spanner_problem('missing_field', "'a mod has no keys'") }}
                when {{ spanner_json_type(spanner_json_field(mod_parts[part])) }} != 'object'
                {%- else %}
                when {{ spanner_json_field(mod_parts[part]) }} is not null
                    and {{ spanner_json_type(spanner_json_field(mod_parts[part])) }} != 'object'
                {%- endif %}
                    then {{ spanner_problem('wrong_type', "'mods." ~ part ~ " is not an object'") }}
                {%- endfor %}
            end
        )) as typed_mods,
        case
            when table_name_value is null or {{ spanner_string('table_name_value') }} = ''
                then {{ spanner_problem('missing_field', "'data change record has no table_name'") }}
            when {{ spanner_json_type('table_name_value') }} != 'string'
                then {{ spanner_problem('wrong_type', "'table_name is not a string'") }}
            when commit_timestamp_value is null or {{ spanner_string('commit_timestamp_value') }} = ''
                then {{ spanner_problem('missing_field', "'data change record has no commit_timestamp'") }}
            when commit_time is null
                then {{ spanner_problem('invalid_timestamp', "concat('commit_timestamp ', to_json(commit_timestamp_value), ' is not a timestamp')") }}
            when {{ spanner_is_broken_json('mods_value') }}
                then {{ spanner_problem('invalid_json', "'mods is not valid JSON text'") }}
            when mods_document is null and {{ spanner_is_broken_json('mod_value') }}
                then {{ spanner_problem('invalid_json', "'mod is not valid JSON text'") }}
            when mods_document is null and mod_document is null
                then {{ spanner_problem('missing_field', "'data change record has no mods'") }}
            when mods_document is not null and {{ spanner_json_type('mods_document') }} != 'array'
                then {{ spanner_problem('wrong_type', "'mods is not an array'") }}
            when mods_document is not null and size(try_cast(mods_document as array<variant>)) = 0
                then {{ spanner_problem('missing_field', "'data change record has an empty mods array'") }}
            when exists({{ mods_array }}, mod -> {{ spanner_json_type('mod') }} != 'object')
                then {{ spanner_problem('wrong_type', "'a mod is not an object'") }}
            when {{ spanner_is_broken_json('column_types_value') }}
                then {{ spanner_problem('invalid_json', "'column_types is not valid JSON text'") }}
            when column_types_document is not null and {{ spanner_json_type('column_types_document') }} != 'array'
                then {{ spanner_problem('wrong_type', "'column_types is not an array'") }}
            when record_sequence_value is not null and record_sequence is null
                then {{ spanner_problem('invalid_position', "concat('record_sequence ', to_json(record_sequence_value), ' is not a string of digits')") }}
        end as problem
    from data_change_documents
),

-- one row per mod, in record order
mods as (
    select
        data_change_checked.*,
        posexplode(typed_mods) as (mod_index, typed_mod)
    from data_change_checked
    where problem is null
),

mod_images as (
    select
        mods.*,
        {%- for part in mod_parts %}
        map_from_entries(transform(
            filter(typed_mod.typed_values, typed_value -> typed_value.part = '{{ part }}'),
            typed_value -> struct(typed_value.name, typed_value.json)
        )) as {{ part }}_json,
        {%- endfor %}
        -- the first problem of the mod: its keys, new values, old values, then a value of the wrong type
        coalesce(
            typed_mod.problem,
            if(
                exists(typed_mod.typed_values, typed_value -> typed_value.json is null),
                {{ spanner_problem('wrong_type', "concat('mods[', mod_index, ']: column ', "
                    ~ "filter(typed_mod.typed_values, typed_value -> typed_value.json is null)[0].name, ' does not fit its type')") }},
                null
            )
        ) as mod_problem
    from mods
),

-- heartbeat records (seed "Record Heartbeat"): every change up to `timestamp` has been returned
heartbeat_fields as (
    select
        records.*,
        {{ spanner_field('record', 'timestamp') }} as timestamp_value
    from records
    where kind = 'heartbeat_record'
),

heartbeats as (
    select
        heartbeat_fields.*,
        {{ spanner_timestamp('timestamp_value') }} as heartbeat_time
    from heartbeat_fields
),

-- child partitions records (seed "Record di partizioni figlio"); Beam names the parents parentTokens
child_partitions_fields as (
    select
        records.*,
        {{ spanner_field('record', 'start_timestamp') }} as start_value,
        {{ spanner_field('record', 'record_sequence') }} as record_sequence_value,
        {{ spanner_field('record', 'child_partitions') }} as children_value
    from records
    where kind = 'child_partitions_record'
),

child_partitions_documents as (
    select
        child_partitions_fields.*,
        {{ spanner_timestamp('start_value') }} as start_time,
        {{ spanner_json_field('children_value') }} as children_document
    from child_partitions_fields
),

child_partitions as (
    select
        child_partitions_documents.*,
        if(
            {{ spanner_is_falsy('children_document') }},
            cast(array() as array<variant>),
            try_cast(children_document as array<variant>)
        ) as children
    from child_partitions_documents
),

-- partition start / end / event records (change streams in mutable key range mode): the record
-- with snake_case field names and its time in UTC
partition_fields as (
    select
        records.*,
        case kind
            {%- for kind, time_field in partition_time_fields.items() %}
            when '{{ kind }}' then '{{ time_field }}'
            {%- endfor %}
        end as time_field,
        case kind
            {%- for kind, time_field in partition_time_fields.items() %}
            when '{{ kind }}' then {{ spanner_field('record', time_field) }}
            {%- endfor %}
        end as time_value,
        transform(
            map_entries(try_cast(record as map<string, variant>)),
            record_field -> named_struct('name', {{ spanner_snake_case('record_field.key') }}, 'value', record_field.value)
        ) as snake_fields
    from records
    where kind in ('{{ partition_time_fields.keys() | join("', '") }}')
),

partition_records as (
    select
        partition_fields.*,
        {{ spanner_timestamp('time_value') }} as record_time
    from partition_fields
),

-- every row a landing record may give, with its priority: 0 a problem, 1 an output row, 2 the
-- stand-in that becomes `empty_record` when a record holds nothing
candidates as (
    -- the landing record itself: its quarantine when it is not a change-stream row at all
    select
        {{ landing_columns | join(', ') }},
        if(landing_problem is null, 2, 0) as priority,
        array(-1) as row_order,
        {{ spanner_parsed_record({'kind': "'quarantine'"}, problem='record_problem') }}
    from (
        select
            forms.*,
            coalesce(landing_problem, {{ spanner_problem('empty_record', "'the record holds no data change, heartbeat or child partitions record'") }})
                as record_problem
        from forms
    ) as landing_records
    union all
    select
        {{ landing_columns | join(', ') }},
        0 as priority,
        row_order,
        {{ spanner_parsed_record({'kind': "'quarantine'"}, problem='problem') }}
    from structure_problems
    union all
    select
        {{ landing_columns | join(', ') }},
        0 as priority,
        array(item_index, kind_index, element_index, 0, 0, 0) as row_order,
        {{ spanner_parsed_record({'kind': "'quarantine'"}, problem='problem') }}
    from data_change_checked
    where problem is not null
    union all
    -- a change per mod (D13): key = the mod's keys; after = keys + new values (none for a DELETE);
    -- before = keys + old values when there are old values; changed_columns as the capture type says
    select
        {{ landing_columns | join(', ') }},
        if(mod_problem is null, 1, 0) as priority,
        array(item_index, kind_index, element_index, 1, mod_index, 0) as row_order,
        {{ spanner_parsed_record({
            'kind': "'change'",
            'vendor_op': spanner_text('mod_type_value'),
            'source_engine': "'spanner'",
            'source_table': "concat_ws('.', database_name, schema_name, " ~ spanner_string('table_name_value') ~ ")",
            'key': 'keys_json',
            'before': "if(size(" ~ old_columns ~ ") > 0, map_concat(keys_json, " ~ old_columns ~ "), null)",
            'after': "if(" ~ spanner_text('mod_type_value') ~ " = 'DELETE', null, map_concat(keys_json, " ~ new_columns ~ "))",
            'changed_columns': "case when " ~ spanner_text('mod_type_value') ~ " = 'UPDATE' then case " ~ spanner_string('value_capture_type_value')
                ~ " when 'NEW_ROW' then null"
                ~ " when 'NEW_ROW_AND_OLD_VALUES' then array_sort(map_keys(" ~ old_columns ~ "))"
                ~ " else array_sort(map_keys(" ~ new_columns ~ ")) end end",
            'position': "map_filter(map("
                ~ "'commit_timestamp_ns', " ~ spanner_time_ns('commit_time')
                ~ ", 'record_sequence', record_sequence"
                ~ ", 'server_transaction_id', " ~ spanner_text('server_transaction_id_value')
                ~ ", 'mod_index', cast(mod_index as string)), (part_name, part_value) -> part_value is not null)",
            'committed_at_us': spanner_time_micros('commit_time'),
            'transaction_id': spanner_text('server_transaction_id_value'),
            'transaction_seq': 'cast(record_sequence as bigint)',
            'transaction_last': "if(" ~ spanner_json_type('is_last_record_in_transaction_in_partition_value') ~ " = 'boolean', "
                ~ "variant_get(is_last_record_in_transaction_in_partition_value, '$', 'boolean'), null)",
        }, problem='mod_problem') }}
    from mod_images
    union all
    select
        {{ landing_columns | join(', ') }},
        if(problem is null, 1, 0) as priority,
        array(item_index, kind_index, element_index, 0, 0, 0) as row_order,
        {{ spanner_parsed_record({
            'kind': "'control'",
            'control_type': "'heartbeat'",
            'control_json': "to_json(named_struct('timestamp', " ~ spanner_time_iso('heartbeat_time') ~ "))",
            'committed_at_us': spanner_time_micros('heartbeat_time'),
        }, problem='problem') }}
    from (
        select
            heartbeats.*,
            case
                when timestamp_value is null or {{ spanner_string('timestamp_value') }} = ''
                    then {{ spanner_problem('missing_field', "'heartbeat_record has no timestamp'") }}
                when heartbeat_time is null
                    then {{ spanner_problem('invalid_timestamp', "concat('heartbeat timestamp ', to_json(timestamp_value), ' is not a timestamp')") }}
            end as problem
        from heartbeats
    ) as checked_heartbeats
    union all
    select
        {{ landing_columns | join(', ') }},
        if(problem is null, 1, 0) as priority,
        array(item_index, kind_index, element_index, 0, 0, 0) as row_order,
        {{ spanner_parsed_record({
            'kind': "'control'",
            'control_type': "'child_partitions'",
            'control_json': "to_json(named_struct("
                ~ "'child_partitions', transform(children, child -> named_struct("
                ~ "'parent_partition_tokens', " ~ spanner_sorted_tokens('child.parents')
                ~ ", 'token', child.token)), "
                ~ "'record_sequence', " ~ spanner_text('record_sequence_value') ~ ", "
                ~ "'start_timestamp', " ~ spanner_time_iso('start_time')
                ~ "), map('ignoreNullFields', 'false'))",
            'committed_at_us': spanner_time_micros('start_time'),
        }, problem='problem') }}
    from (
        select
            {{ landing_columns | join(', ') }},
            item_index,
            kind_index,
            element_index,
            start_time,
            record_sequence_value,
            transform(children, child -> named_struct(
                'token', {{ spanner_field('child', 'token') }},
                'parents', coalesce({{ spanner_field('child', 'parent_partition_tokens') }}, {{ spanner_field('child', 'parent_tokens') }})
            )) as children,
            case
                when start_value is null or {{ spanner_string('start_value') }} = ''
                    then {{ spanner_problem('missing_field', "'child_partitions_record has no start_timestamp'") }}
                when start_time is null
                    then {{ spanner_problem('invalid_timestamp', "concat('start_timestamp ', to_json(start_value), ' is not a timestamp')") }}
                when {{ spanner_is_broken_json('children_value') }}
                    then {{ spanner_problem('invalid_json', "'child_partitions is not valid JSON text'") }}
                when children is null
                    then {{ spanner_problem('wrong_type', "'child_partitions is not an array'") }}
                when exists(children, child -> {{ spanner_json_type('child') }} != 'object')
                    then {{ spanner_problem('wrong_type', "'a child partition is not an object'") }}
            end as problem
        from child_partitions
    ) as checked_child_partitions
    union all
    select
        {{ landing_columns | join(', ') }},
        if(problem is null, 1, 0) as priority,
        array(item_index, kind_index, element_index, 0, 0, 0) as row_order,
        {{ spanner_parsed_record({
            'kind': "'control'",
            'control_type': "regexp_replace(kind, '_records$', '')",
            'control_json': "to_json(map_concat("
                ~ "map_from_entries(transform("
                ~ "filter(array_distinct(transform(snake_fields, snake_field -> snake_field.name)), field_name -> field_name != time_field), "
                ~ "field_name -> struct(field_name, element_at(filter(snake_fields, snake_field -> snake_field.name = field_name), -1).value))), "
                ~ "map(time_field, cast(" ~ spanner_time_iso('record_time') ~ " as variant))))",
            'committed_at_us': spanner_time_micros('record_time'),
        }, problem='problem') }}
    from (
        select
            partition_records.*,
            case
                when time_value is null or {{ spanner_string('time_value') }} = ''
                    then {{ spanner_problem('missing_field', "concat(kind, ' has no ', time_field)") }}
                when record_time is null
                    then {{ spanner_problem('invalid_timestamp', "concat(time_field, ' ', to_json(time_value), ' is not a timestamp')") }}
            end as problem
        from partition_records
    ) as checked_partition_records
),

-- per landing record: its first problem if it has one, else its rows in order, else the stand-in
ranked as (
    select
        candidates.*,
        min(priority) over (partition by _source_file, record_no) as kept_priority,
        row_number() over (partition by _source_file, record_no order by priority, row_order) - 1 as record_index
    from candidates
)

select
    source_vendor,
    _source_file,
    file_mtime_ns,
    record_no,
    record_index,
    {%- for name, data_type in _spanner_parsed_fields() %}
    {{ name }},
    {%- endfor %}
    -- the text as read, for whoever has to look at a quarantined or control record
    raw,
    _loaded_at,
    current_timestamp() as _parsed_at,
    '{{ invocation_id }}' as _run_id
from ranked
where priority = kept_priority and (priority = 1 or record_index = 0)
