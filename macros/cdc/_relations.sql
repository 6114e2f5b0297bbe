{#- Side tables of a cdc_merge model, named after it in its schema. -#}
{% macro _cdc_side_relation(suffix) %}
    {{ return(api.Relation.create(database=this.database, schema=this.schema,
                                  identifier=this.identifier ~ '__cdc_' ~ suffix, type='table')) }}
{% endmacro %}

{#- True when this model adds to what it built before and no full refresh was asked for: for a
    cdc_merge model the target and its watermark exist; for a cdc_append model the target exists.
    The counterpart of dbt's `is_incremental()`, which is true only for materialized='incremental'. -#}
{% macro cdc_is_incremental() %}
    {%- if not execute or should_full_refresh() -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set target = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
    {%- if target is not none and config.get('cdc_follows_table_config')
        and _cdc_built_with_table_config(target) != cdc_table_config_md5() -%}
        {{ log("cdc: " ~ this.identifier ~ ": the per-table configuration (vars cdc_tables / cdc_feeds / cdc_key_fallback_columns) or the table format changed since it was built: rebuilding it in full", info=true) }}
        {{ return(false) }}
    {%- endif -%}
    {%- if model.config.materialized != 'cdc_merge' -%}
        {{ return(target is not none) }}
    {%- endif -%}
    {%- set watermark = _cdc_side_relation('watermark') -%}
    {%- set stored_watermark = adapter.get_relation(database=watermark.database, schema=watermark.schema,
                                                    identifier=watermark.identifier) -%}
    {{ return(target is not none and stored_watermark is not none) }}
{% endmacro %}

{#- The cdc_table_config_md5() a model was built with (table property `cdc_table_config_md5`); a
    table built before the property existed was built without configuration. The property is set
    only by a full build, after which dbt's cache holds the table without listing text, so the
    listing at the start of the run is current where it has the text. -#}
{% macro _cdc_built_with_table_config(relation) %}
    {%- set stored = _cdc_table_property(relation, 'cdc_table_config_md5', listed_is_current=true) or '' -%}
    {{ return(stored if stored | length == 32 else cdc_default_table_config_md5()) }}
{% endmacro %}

{#- A table property of `relation`, or none when it has none. With `listed_is_current` (the caller
    knows the property cannot have changed since the run began) it is read from dbt's listing of
    the schema at the start of the run (`show table extended`), whose text holds the properties of
    views and parquet tables, so the check costs no statement; else, and for a relation without
    that text (created in this run, a Delta table, whose properties are in its log), it is asked. -#}
{% macro _cdc_table_property(relation, name, listed_is_current=false) %}
    {%- set information = (relation.information or '') if listed_is_current else '' -%}
    {%- set listed = modules.re.search('(?m)^Table Properties: \\[(.*)\\]$', information) -%}
    {%- if listed or modules.re.search('(?m)^Provider: parquet$', information) -%}
        {%- set stored = modules.re.search('(?:^|, )' ~ name ~ '=([^,]*)(?:,|$)', listed.group(1) if listed else '') -%}
        {{ return(stored.group(1) if stored else none) }}
    {%- endif -%}
    {%- set rows = run_query("show tblproperties " ~ relation ~ " ('" ~ name ~ "')").rows -%}
    {%- set stored = rows[0][-1] if rows | length > 0 else none -%}
    {{ return(none if stored is none or stored.endswith(' does not have property: ' ~ name) else stored) }}
{% endmacro %}

{#- `tblproperties (...)` of the properties (name -> value) whose value is not none, or ''. -#}
{% macro _cdc_table_properties_sql(properties) %}
    {%- set pairs = [] -%}
    {%- for name, value in properties.items() if value is not none -%}
        {%- do pairs.append("'" ~ name ~ "' = '" ~ value ~ "'") -%}
    {%- endfor -%}
    {{ return('tblproperties (' ~ pairs | join(', ') ~ ')' if pairs else '') }}
{% endmacro %}

{#- Sets the properties (name -> value) whose value is not none on `relation`, in one statement. -#}
{% macro _cdc_set_table_properties(relation, properties) %}
    {%- set listed = _cdc_table_properties_sql(properties) -%}
    {%- if listed -%}
        {%- call statement('cdc_set_table_properties') -%}
            alter table {{ relation }} set {{ listed }}
        {%- endcall -%}
    {%- endif -%}
{% endmacro %}

{#- The table property a model that follows the per-table configuration keeps (name -> value), or
    none (an empty dict) for any other model. -#}
{% macro _cdc_table_config_property() %}
    {{ return({'cdc_table_config_md5': cdc_table_config_md5()} if config.get('cdc_follows_table_config') else {}) }}
{% endmacro %}

{#- After a cdc_merge model wrote new rows: remember the dbt invocation that did and what it wrote
    (table property `cdc_merged_by_invocation`, _cdc_merge_invocation), so that models reading it
    later in the same run can tell. -#}
{% macro _cdc_remember_merge_invocation(relation, merged=none) %}
    {{ _cdc_set_table_properties(relation, {'cdc_merged_by_invocation': _cdc_merge_invocation(merged)}) }}
{% endmacro %}

{#- The value of `cdc_merged_by_invocation`: this invocation, then the vendors merged (`*`: all, a
    full build), then the source tables merged as short hashes (_cdc_source_table_hash), left out
    when there are so many that the value would pass the metastore's 4,000 characters (then every
    table of those vendors counts as merged). -#}
{% macro _cdc_merge_invocation(merged=none) %}
    {%- if merged is none -%}
        {{ return(invocation_id ~ ':*') }}
    {%- endif -%}
    {%- set value = invocation_id ~ ':' ~ merged.vendors | join(',') -%}
    {%- set tables = merged.tables | join(',') -%}
    {{ return(value ~ ':' ~ tables if (value ~ tables) | length < 3900 else value) }}
{% endmacro %}

{#- What a staging table holds, as {'vendors': [...], 'tables': [...]} (tables as
    _cdc_source_table_hash): the batch's keys when merging by key; on parquet every row of a
    rewritten bucket (typed models of more tables check again: harmless). One small query. -#}
{% macro _cdc_merged_in(staging) %}
    {%- set vendors = [] -%}
    {%- set tables = [] -%}
    {%- for row in run_query("select distinct source_vendor, source_table from " ~ staging).rows -%}
        {%- do vendors.append(row[0]) if row[0] not in vendors -%}
        {%- do tables.append(_cdc_source_table_hash(row[0], row[1])) -%}
    {%- endfor -%}
    {{ return({'vendors': vendors | sort, 'tables': tables | unique | sort | list}) }}
{% endmacro %}

{#- A source table's short name in `cdc_merged_by_invocation`: the first 12 hex digits of the MD5 of
    `<vendor>|<table>`. -#}
{% macro _cdc_source_table_hash(source_vendor, source_table) %}
    {{ return(local_md5(source_vendor ~ '|' ~ source_table)[:12]) }}
{% endmacro %}

{#- True when the cdc_merge table `relation` wrote new rows of `vendor` (of any vendor when none),
    and of `source_table` when given, earlier in this dbt invocation. -#}
{% macro cdc_merged_in_this_invocation(relation, vendor=none, source_table=none) %}
    {%- set stored = (_cdc_table_property(relation, 'cdc_merged_by_invocation') or '').split(':') -%}
    {%- if stored | length < 2 or stored[0] != invocation_id -%}
        {{ return(false) }}
    {%- endif -%}
    {%- if vendor is none or stored[1] == '*' -%}
        {{ return(true) }}
    {%- endif -%}
    {%- if vendor not in stored[1].split(',') -%}
        {{ return(false) }}
    {%- endif -%}
    {{ return(source_table is none or stored | length < 3
              or _cdc_source_table_hash(vendor, source_table) in stored[2].split(',')) }}
{% endmacro %}

{#- The time up to which the events have been merged into this model. -#}
{% macro _cdc_merged_through() %}
    coalesce((select max(max_loaded_at) from {{ _cdc_side_relation('watermark') }}), timestamp'1970-01-01')
{% endmacro %}

{#- The hash bucket (partition) of a key: a run rewrites only the buckets its keys fall in. -#}
{% macro cdc_bucket(prefix='') %}
    pmod(xxhash64({{ prefix }}source_vendor, {{ prefix }}source_table, {{ prefix }}pk), {{ var('cdc_buckets') }})
{% endmacro %}

{#- Keys named by the events that arrived since this model last merged; a truncate names every
    key of its table. Defines the CTEs new_events and affected_keys. The truncates' branch reads
    every event of the truncated tables, so it is left out when the new events hold no truncate
    (`summary`, _cdc_events_summary): Spark cannot tell that it is empty and plans and runs it
    (DECISIONLOG D43). -#}
{% macro _cdc_affected_keys(events, summary) %}
new_events as (
    select
        source_vendor,
        source_table,
        pk,
        op
    from {{ events }}
    where loaded_at > {{ _cdc_merged_through() }}
),
{%- set with_truncates = summary.new_truncates %}
{%- if with_truncates %}

truncated_tables as (
    select distinct
        source_vendor,
        source_table
    from new_events
    where op = 'truncate'
),
{%- endif %}

affected_keys as (
    select distinct
        source_vendor,
        source_table,
        pk
    from new_events
    where pk is not null
    {%- if with_truncates %}
    union
    select
        all_events.source_vendor,
        all_events.source_table,
        all_events.pk
    from {{ events }} as all_events
    left semi join truncated_tables
        on all_events.source_vendor = truncated_tables.source_vendor
        and all_events.source_table = truncated_tables.source_table
    where all_events.pk is not null
    {%- endif %}
),
{% endmacro %}

{#- The hint that broadcasts affected_keys to the join that picks the stored events of those keys,
    when the batch is small enough to be sure of its size: at most 100,000 new events and no
    truncate (which names every key of its table), so at most 100,000 keys, about 10 MB. Else ''.
    Spark cannot tell the size itself (it estimates affected_keys from the whole event tables),
    so it sorts and shuffles every stored event for a sort-merge join instead: at 10^6 events
    about a second of a 1 % batch (DECISIONLOG D49). The counts come from `summary`
    (_cdc_events_summary). -#}
{% macro _cdc_affected_keys_hint(summary) %}
    {%- set most_events = 100000 -%}
    {{ return('/*+ broadcast(affected_keys) */' if summary.new_events is not none
              and summary.new_events <= most_events and not summary.new_truncates else '') }}
{% endmacro %}

{#- Rows of this model in the buckets the affected keys fall in, except those keys' own rows:
    they are written back unchanged when the buckets are rewritten. -#}
{% macro _cdc_untouched_rows(columns) %}
untouched_rows as (
    select {{ columns | join(', ') }}
    from {{ this }} as existing
    left semi join (select distinct {{ cdc_bucket() }} as _bucket from affected_keys) as affected_buckets
        on existing._bucket = affected_buckets._bucket
    left anti join affected_keys
        on existing.source_vendor = affected_keys.source_vendor
        and existing.source_table = affected_keys.source_table
        and existing.pk = affected_keys.pk
),
{% endmacro %}

{#- Whether this cdc_merge model publishes key by key (MERGE INTO: delta, iceberg, hudi) rather
    than bucket by bucket (INSERT OVERWRITE of `_bucket` partitions: parquet). -#}
{% macro cdc_merges_by_key() %}
    {{ return(config.get('file_format', 'parquet') != 'parquet') }}
{% endmacro %}

{#- The end of a cdc_merge model's SQL: the rows to publish (the CTE recomputed_rows, with
    `columns`) and the `_cdc_watermark`, the newest `loaded_at` of the events as `summary`
    (_cdc_events_summary) read it. Incremental on parquet, the untouched rows of the same
    buckets come along (the buckets are overwritten whole); incremental by key, each row is
    flagged `_cdc_delete` false, and the materialization keeps those that change something and
    adds the rows to delete (_cdc_stage_changes). -#}
{% macro _cdc_rows_to_publish(columns, incremental, summary) %}
    {%- set by_key = incremental and cdc_merges_by_key() -%}
    {%- set watermark = summary.newest -%}
{{ cdc_watermark_marker(watermark) }}
select
    *,
    {{ watermark }} as _cdc_watermark
from (
    select {{ columns | join(', ') }}{{ ', false as _cdc_delete' if by_key }} from recomputed_rows
    {%- if incremental and not by_key %}
    union all
    select * from untouched_rows
    {%- endif %}
) as rows_to_publish
{% endmacro %}

{#- What a cdc_merge model's SQL must know of the change events before it is written, from one
    query over their `loaded_at` and `op` (five queries before D52, up to 2.6 s of a small
    batch): `new_events`, how many arrived since this model last merged, and `new_truncates`,
    whether a truncate is among them (incremental only; `nothing_new` when none arrived);
    `truncates`, whether any event is a truncate; `newest`, the newest `loaded_at` as a literal,
    the watermark the merge stores, read here so that the model's statement need not plan and run
    the change events' view once more for it (DECISIONLOG D43; an event written between the two is
    merged now and again by the next run: harmless, none is skipped). When it cannot read them
    (parse time, `events` not built yet) it answers what is always safe: something new, truncates
    possible, the newest as a subquery. -#}
{% macro _cdc_events_summary(events, incremental) %}
    {%- if not execute or not _cdc_exists(events) -%}
        {{ return({'nothing_new': false, 'new_events': none, 'new_truncates': true, 'truncates': true,
                   'newest': '(select max(loaded_at) from ' ~ events ~ ')'}) }}
    {%- endif -%}
    {%- set summary_query -%}
        select
            {%- if incremental %}
            count_if(events.loaded_at > merged.through) as new_events,
            count_if(events.loaded_at > merged.through and events.op = 'truncate') as new_truncates,
            {%- else %}
            cast(null as bigint) as new_events,
            cast(null as bigint) as new_truncates,
            {%- endif %}
            count_if(events.op = 'truncate') as truncates,
            {#- whole microseconds since the epoch: exact, and free of the client's time zone #}
            unix_micros(max(events.loaded_at)) as newest_us
        from {{ events }} as events
        {%- if incremental %}
        cross join (select {{ _cdc_merged_through() }} as through) as merged
        {%- endif %}
    {%- endset -%}
    {%- set row = run_query(summary_query).rows[0] -%}
    {{ return({
        'nothing_new': incremental and row[0] == 0,
        'new_events': row[0],
        'new_truncates': row[1] is none or row[1] > 0,
        'truncates': row[2] > 0,
        'newest': 'cast(null as timestamp)' if row[3] is none else 'timestamp_micros(' ~ (row[3] | int) ~ ')'
    }) }}
{% endmacro %}

{#- The columns that name one key of a source table: a batch recomputes every row of each key it
    touches, and `_bucket` is a hash of them (cdc_bucket). -#}
{% macro cdc_entity_key() %}
    {{ return(['source_vendor', 'source_table', 'pk']) }}
{% endmacro %}

{#- Whether an incremental cdc_merge by key must look for stored rows to delete: not when the
    unique key is the entity key (int_cdc__current_state, one row per key), where every stored row
    of a recomputed key has its recomputed row. -#}
{% macro _cdc_may_delete_rows(unique_key) %}
    {{ return(unique_key | sort != cdc_entity_key() | sort) }}
{% endmacro %}

{#- Incremental by key, after the model's rows are in `recomputed`: the staging table to publish,
    holding only what the MERGE must change (DECISIONLOG D48). A batch recomputes every row of
    each key it touches, but usually changes only the key's last row and adds one; the stored rows
    of those keys (read once) are joined with the recomputed rows on the unique key:
    - a recomputed row that is new or differs in a column is kept, flagged `_cdc_delete` false;
    - a stored row the recomputation no longer has (a late event renumbered a key's versions, a
      truncate retired rows) is kept as its unique key and `_bucket`, other columns null, flagged
      `_cdc_delete` true, for the MERGE to delete;
    - a recomputed row equal to its stored row is left out: the MERGE would leave it alone, but
      it would still join it with the whole table (at 10^6 events the MERGE of a 1 % batch took
      9-10 s with every recomputed row, 2.4-2.6 s with the changed ones).
    Every row carries the recomputation's `_cdc_watermark`. -#}
{% macro _cdc_stage_changes(target, recomputed, staging, unique_key) %}
    {%- set columns = _cdc_published_columns(recomputed) -%}
    {%- set kept = unique_key + ['_bucket'] -%}
    {%- set unchanged = cdc_null_safe_equal(columns | reject('in', unique_key) | list, 'stored', 'recomputed') -%}
    {%- call statement('cdc_stage_changes') -%}
        create table {{ staging }} using parquet as
        select
            {%- for column in columns %}
            {{ ('coalesce(recomputed.' ~ column ~ ', stored.' ~ column ~ ')') if column in kept else 'recomputed.' ~ column }} as {{ column }},
            {%- endfor %}
            recomputed._cdc_delete is null as _cdc_delete,
            (select max(_cdc_watermark) from {{ recomputed }}) as _cdc_watermark
        from (
            select stored.*, true as _cdc_stored
            from {{ target }} as stored
            left semi join (select distinct {{ cdc_entity_key() | join(', ') }} from {{ recomputed }}) as batch_keys
                on {% for key in cdc_entity_key() %}stored.{{ key }} = batch_keys.{{ key }}{{ ' and ' if not loop.last }}{% endfor %}
        ) as stored
        full outer join {{ recomputed }} as recomputed
            on {{ cdc_null_safe_equal(unique_key, 'stored', 'recomputed') }}
        where stored._cdc_stored is null or recomputed._cdc_delete is null or not ({{ unchanged }})
    {%- endcall -%}
{% endmacro %}

{#- The comment line by which a cdc_merge model's SQL names its watermark, the expression of its
    `_cdc_watermark` column (_cdc_rows_to_publish), so that a full build can record it without reading
    its rows back (_cdc_marked_watermark; DECISIONLOG D47). -#}
{% macro cdc_watermark_marker(expression) %}
    {%- if expression is none or expression is not string or '\n' in expression or expression | trim == '' -%}
        {{ exceptions.raise_compiler_error("cdc_watermark_marker needs the watermark's SQL expression on one line, e.g. cdc_watermark_marker('timestamp_micros(1700000000000000)'); got " ~ expression) }}
    {%- endif -%}
    {{ return('-- cdc_merge watermark: ' ~ expression) }}
{% endmacro %}

{#- The watermark expression a cdc_merge model's SQL names with cdc_watermark_marker, or none. -#}
{% macro _cdc_marked_watermark(sql) %}
    {%- set found = modules.re.search('^-- cdc_merge watermark: (.+)$', sql, modules.re.MULTILINE) -%}
    {{ return(found.group(1) | trim if found else none) }}
{% endmacro %}

{#- The comment a cdc_merge model's SQL starts with when no change event arrived since its last
    merge (checked with one cheap query); the materialization then writes nothing. -#}
{% macro cdc_nothing_to_merge_marker() %}
    {{ return('-- cdc_merge: nothing to merge') }}
{% endmacro %}

{#- True when this cdc_merge model is incremental and `events` has nothing newer than its
    watermark: a run with nothing new costs one query, not a rewrite. `summary`: the answer of
    _cdc_events_summary when the caller has it (else that query is sent). -#}
{% macro cdc_nothing_to_merge(events, summary=none) %}
    {%- if summary is none -%}
        {%- if not execute or not cdc_is_incremental() -%}
            {{ return(false) }}
        {%- endif -%}
        {%- set summary = _cdc_events_summary(events, incremental=true) -%}
    {%- endif -%}
    {{ return(summary.nothing_new) }}
{% endmacro %}

{#- The table format of the state tables (int_cdc__history_merged, int_cdc__current_state): the var
    cdc_file_format, else the env var CDC_FILE_FORMAT that cdc-dbt sets (delta when `make delta`
    fetched the Delta Lake jars, else parquet). DECISIONLOG D29. -#}
{% macro cdc_state_file_format() %}
    {%- set file_format = var('cdc_file_format', env_var('CDC_FILE_FORMAT', 'parquet')) -%}
    {%- if file_format not in ['parquet', 'delta', 'iceberg', 'hudi'] -%}
        {{ exceptions.raise_compiler_error("cdc_file_format / CDC_FILE_FORMAT is '" ~ file_format ~ "'; write parquet, delta, iceberg or hudi") }}
    {%- endif -%}
    {{ return(file_format) }}
{% endmacro %}
