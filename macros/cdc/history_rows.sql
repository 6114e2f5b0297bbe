{#- One row per version of every key (DESIGN §6; DECISIONLOG D3-D6), for the keys the new
    events touch (incremental) or for all keys (first run, --full-refresh). Used by int_cdc__history_merged
    with materialized='cdc_merge'. -#}
{% macro cdc_history_rows(events) %}
    {%- if events is none -%}
        {{ exceptions.raise_compiler_error("cdc_history_rows needs events=ref('int_cdc__change_events')") }}
    {%- endif -%}
    {%- set incremental = cdc_is_incremental() -%}
    {%- set summary = _cdc_events_summary(events, incremental) -%}
    {%- if cdc_nothing_to_merge(events, summary) -%}
{{ cdc_nothing_to_merge_marker() }}
select * from {{ this }} where false
    {%- else -%}
    {%- set history_columns = ['source_vendor', 'source_table', 'pk', 'version_number', 'row', 'op', 'is_deleted', 'is_current',
                               'valid_from', 'valid_to', 'valid_from_sequence', 'valid_to_sequence',
                               'event_id', '_bucket'] -%}
-- cdc_history_rows: versions of {{ 'the keys named by new events' if incremental else 'every key' }}
with
{% if incremental %}
{{ _cdc_affected_keys(events, summary) }}
{{ _cdc_untouched_rows(history_columns) if not cdc_merges_by_key() }}
{% endif %}
{{ _cdc_key_timelines(events, incremental, join_hint=_cdc_affected_keys_hint(summary) if incremental else '',
                      with_truncates=summary.truncates) }}

versions as (
    select
        source_vendor,
        source_table,
        pk,
        {{ _cdc_fold_versions('timeline', cdc_tracked_history_columns()) }} as versions
    from timelines
),

-- inline_outer, and the keys without a version dropped below: for inline Spark infers a filter
-- on the array's size and pushes it below, folding every timeline twice
closed_versions as (
    select
        source_vendor,
        source_table,
        pk,
        inline_outer(
            transform(
                versions,
                (version, position) -> named_struct(
                    'version_number', position + 1,
                    'version', version,
                    'next_version', try_element_at(versions, position + 2),
                    'is_current', position = size(versions) - 1
                )
            )
        )
    from versions
),

recomputed_rows as (
    select
        source_vendor,
        source_table,
        pk,
        version_number,
        {{ cdc_json_object('version.row') }} as row,
        version.op as op,
        version.is_deleted as is_deleted,
        is_current,
        version.committed_at as valid_from,
        next_version.committed_at as valid_to,
        version.sequence as valid_from_sequence,
        next_version.sequence as valid_to_sequence,
        version.event_id as event_id,
        {{ cdc_bucket() }} as _bucket
    from closed_versions
    where version_number is not null
)

{{ _cdc_rows_to_publish(history_columns, incremental, summary) }}
    {%- endif %}
{% endmacro %}

{#- CTEs ending in `timelines`: per key, its unique events (and the truncates of its table)
    sorted into one array. The events are distributed by key once; every later step groups by
    the key and more, so Spark shuffles them only that once. `join_hint`: a hint for the join with
    affected_keys (_cdc_affected_keys_hint), or ''. `with_truncates`: false when no event is a
    truncate (_cdc_events_summary); the timelines then need no join with the tables' keys. -#}
{% macro _cdc_key_timelines(events, incremental, join_hint='', with_truncates=true) %}
keyed_events as (
    select {{ join_hint ~ ' ' if join_hint }}keyed.*
    from {{ events }} as keyed
    {%- if incremental %}
    left semi join affected_keys
        on keyed.source_vendor = affected_keys.source_vendor
        and keyed.source_table = affected_keys.source_table
        and keyed.pk = affected_keys.pk
    {%- endif %}
    where keyed.pk is not null
    distribute by keyed.source_vendor, keyed.source_table, keyed.pk
),

-- a re-delivered event has the same event_id (DECISIONLOG D4); the id is a hash over the key
-- among others, so one id never spans two keys
unique_event_ids as (
    select *
    from (
        select
            keyed_events.*,
            row_number() over (partition by source_vendor, source_table, pk, event_id order by _arrival) as delivery
        from keyed_events
    ) as deliveries
    where delivery = 1
),

-- the same change of a key under two ids (e.g. a new vendor id on re-delivery) counts once
unique_changes as (
    select *
    from (
        select
            unique_event_ids.*,
            row_number() over (
                partition by source_vendor, source_table, pk, op, sequence, to_json(after)
                order by event_id
            ) as same_change
        from unique_event_ids
    ) as changes
    where same_change = 1
),

{%- if with_truncates %}
truncates as (
    select *
    from (
        select
            truncate_events.*,
            row_number() over (partition by event_id order by _arrival) as delivery
        from {{ events }} as truncate_events
        where op = 'truncate'
    ) as deliveries
    where delivery = 1
),

-- a truncate reaches every key of its table
truncated_keys as (
    select
        table_keys.source_vendor,
        table_keys.source_table,
        table_keys.pk,
        truncates.event_id,
        truncates.op,
        truncates.after,
        truncates.sequence,
        truncates._arrival,
        truncates.source_committed_at
    from (select distinct source_vendor, source_table, pk from unique_changes) as table_keys
    inner join truncates
        on table_keys.source_vendor = truncates.source_vendor
        and table_keys.source_table = truncates.source_table
),

timeline_events as (
    select source_vendor, source_table, pk, event_id, op, after, sequence, _arrival, source_committed_at
    from unique_changes
    union all
    select source_vendor, source_table, pk, event_id, op, after, sequence, _arrival, source_committed_at
    from truncated_keys
),
{%- else %}
-- no truncate in the event log: each key's timeline is its own events
timeline_events as (
    select source_vendor, source_table, pk, event_id, op, after, sequence, _arrival, source_committed_at
    from unique_changes
),
{%- endif %}

timelines as (
    select
        source_vendor,
        source_table,
        pk,
        array_sort(
            collect_list(
                named_struct(
                    'sequence', sequence,
                    'op_rank', case when op in ('delete', 'truncate') then 0 else 1 end,
                    'arrival', _arrival,
                    'event_id', event_id,
                    'op', op,
                    'after', coalesce(after, cast(map() as map<string, string>)),
                    'committed_at', source_committed_at
                )
            ),
            -- sequence, then delete before insert at one position, then arrival, then id
            (left_event, right_event) -> case
                when left_event.sequence < right_event.sequence then -1
                when left_event.sequence > right_event.sequence then 1
                when left_event.op_rank < right_event.op_rank then -1
                when left_event.op_rank > right_event.op_rank then 1
                when left_event.arrival < right_event.arrival then -1
                when left_event.arrival > right_event.arrival then 1
                when left_event.event_id < right_event.event_id then -1
                when left_event.event_id > right_event.event_id then 1
                else 0
            end
        ) as timeline
    from timeline_events
    group by source_vendor, source_table, pk
),
{% endmacro %}

{#- Folds a sorted timeline into versions (DECISIONLOG D5/D6): a change lays its present
    columns over the row of a live key; a delete or truncate of a live key closes it.
    `tracked_columns` (none, or a SQL expression: an array of column names or null; var
    cdc_tables, `track_history_columns`): a change that leaves those columns as they were updates
    the open version in place instead of opening a new one.
    Spark's aggregate copies its whole accumulator after every element, so one fold over n events
    costs n^2/2 version copies: a key updated 32,000 times took 135 s. A timeline longer than 256
    events is folded in chunks of max(256, sqrt(n)) events, each chunk starting from the version the
    chunk before ended with; the copies then grow as n * sqrt(n) (that key: 2.6 s; D59). -#}
{% macro _cdc_fold_versions(timeline, tracked_columns=none) %}
    {%- set no_versions -%}
        cast(array() as array<struct<
            op: string, is_deleted: boolean, row: map<string, string>,
            sequence: array<decimal(38, 0)>, committed_at: timestamp, event_id: string
        >>)
    {%- endset -%}
    {%- set shortest_chunk = 256 -%}
    {%- set chunk_size = "greatest(" ~ shortest_chunk ~ ", cast(ceil(sqrt(size(" ~ timeline ~ "))) as int))" -%}
    case
        when size({{ timeline }}) <= {{ shortest_chunk }} then {{ _cdc_fold_changes(timeline, no_versions, tracked_columns) }}
        else aggregate(
            transform(
                sequence(0, (size({{ timeline }}) - 1) div {{ chunk_size }}),
                chunk_number -> slice({{ timeline }}, chunk_number * {{ chunk_size }} + 1, {{ chunk_size }})
            ),
            {{ no_versions }},
            -- the chunk's fold starts from the last version so far and gives it back first (a
            -- tracked-columns change may have updated it in place), so it replaces that version
            (versions, chunk) -> concat(
                slice(versions, 1, greatest(size(versions) - 1, 0)),
                {{ _cdc_fold_changes('chunk', 'slice(versions, -1, 1)', tracked_columns) }}
            )
        )
    end
{% endmacro %}

{#- The fold itself (_cdc_fold_versions): `changes` laid over `start_versions` (SQL expressions of
    arrays of the timeline's and the versions' structs), giving `start_versions` with the
    versions the changes make appended; the last of `start_versions` may come back changed. -#}
{% macro _cdc_fold_changes(changes, start_versions, tracked_columns=none) %}
    {%- set open_row -%}
        case
            when size(done) > 0 and not element_at(done, -1).is_deleted then element_at(done, -1).row
            else cast(map() as map<string, string>)
        end
    {%- endset -%}
    {#- the open row with the change's columns laid over it. map_zip_with matches the two maps' keys
        through a hash table; a map_filter of map_contains_key scans the change's keys for each
        column (60 columns: 4.1 s instead of 8.0 s per 300,000 changes, D58). The change's values
        are wrapped in a struct so that a column it sends as null still replaces the open value. -#}
    {%- set new_row -%}
        map_zip_with(
            {{ open_row }},
            transform_values(change.after, (column_name, column_value) -> named_struct('value', column_value)),
            (column_name, open_value, change_value) -> case when change_value is null then open_value else change_value.value end
        )
    {%- endset -%}
    aggregate(
        {{ changes }},
        {{ start_versions }},
        (done, change) -> case
            when change.op in ('delete', 'truncate') then
                case
                    when size(done) > 0 and not element_at(done, -1).is_deleted then concat(done, array(named_struct(
                        'op', change.op, 'is_deleted', true, 'row', element_at(done, -1).row,
                        'sequence', change.sequence, 'committed_at', change.committed_at, 'event_id', change.event_id
                    )))
                    else done
                end
            {%- if tracked_columns is not none %}
            when {{ tracked_columns }} is not null and size(done) > 0 and not element_at(done, -1).is_deleted
                and sort_array(map_entries(map_filter({{ open_row }}, (column_name, column_value) -> array_contains({{ tracked_columns }}, column_name))))
                    = sort_array(map_entries(map_filter({{ new_row }}, (column_name, column_value) -> array_contains({{ tracked_columns }}, column_name))))
                -- no tracked column changed: the open version takes the new values, keeping its start
                then concat(slice(done, 1, size(done) - 1), array(named_struct(
                    'op', element_at(done, -1).op, 'is_deleted', false, 'row', {{ new_row }},
                    'sequence', element_at(done, -1).sequence, 'committed_at', element_at(done, -1).committed_at,
                    'event_id', element_at(done, -1).event_id
                )))
            {%- endif %}
            else concat(done, array(named_struct(
                'op', change.op, 'is_deleted', false,
                'row', {{ new_row }},
                'sequence', change.sequence, 'committed_at', change.committed_at, 'event_id', change.event_id
            )))
        end
    )
{% endmacro %}
