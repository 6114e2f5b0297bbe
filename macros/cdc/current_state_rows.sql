{#- The latest version of every key, deletes included as tombstones (so that an older event
    arriving late cannot bring a deleted key back). Used by int_cdc__current_state with
    materialized='cdc_merge'; cdc_current shows the rows that are not deleted. -#}
{% macro cdc_current_state_rows(events, history) %}
    {%- if events is none or history is none -%}
        {{ exceptions.raise_compiler_error("cdc_current_state_rows needs events=ref('int_cdc__change_events') and history=ref('int_cdc__history_merged')") }}
    {%- endif -%}
    {%- set incremental = cdc_is_incremental() -%}
    {%- set summary = _cdc_events_summary(events, incremental) -%}
    {%- if cdc_nothing_to_merge(events, summary) -%}
{{ cdc_nothing_to_merge_marker() }}
select * from {{ this }} where false
    {%- else -%}
    {%- set state_columns = ['source_vendor', 'source_table', 'pk', 'row', 'op', 'is_deleted', 'sequence',
                             'source_committed_at', 'event_id', '_bucket'] -%}
-- cdc_current_state_rows: the current version of {{ 'the keys named by new events' if incremental else 'every key' }}
with
{% if incremental %}
{{ _cdc_affected_keys(events, summary) }}
{{ _cdc_untouched_rows(state_columns) if not cdc_merges_by_key() }}
{% endif %}
recomputed_rows as (
    select
        history.source_vendor,
        history.source_table,
        history.pk,
        history.row,
        history.op,
        history.is_deleted,
        history.valid_from_sequence as sequence,
        history.valid_from as source_committed_at,
        history.event_id,
        history._bucket
    from {{ history }} as history
    {%- if incremental %}
    left semi join affected_keys
        on history.source_vendor = affected_keys.source_vendor
        and history.source_table = affected_keys.source_table
        and history.pk = affected_keys.pk
    {%- endif %}
    where history.is_current
)

{{ _cdc_rows_to_publish(state_columns, incremental, summary) }}
    {%- endif %}
{% endmacro %}
