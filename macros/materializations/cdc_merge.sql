{#- materialized='cdc_merge': writes a model's rows into a table partitioned by `_bucket`,
    replacing only the buckets (parquet) or the keys (delta, iceberg, hudi) the new events touch.

    dbt-spark's own incremental materialization accepts no custom strategy, so this is a
    materialization of the project (DESIGN §2). The model SQL returns, for an incremental run,
    the complete new content of every bucket it touches, plus a `_cdc_watermark` column (the
    newest `loaded_at` it read). Steps: build `<model>__cdc_staging`, then publish it: on parquet
    an INSERT OVERWRITE of those partitions (dynamic partition overwrite); on delta / iceberg /
    hudi the model SQL returns only the affected keys' rows (`<model>__cdc_recomputed`), of which
    the staging table keeps those that change a stored row, with the stored rows to delete
    flagged `_cdc_delete` (_cdc_stage_changes), published by a MERGE INTO with a delete branch
    and a sequence guard, which writes in proportion to the batch (deletion vectors on delta);
    then record the watermark and drop the staging table; on delta, compact the table once its
    merges have left many small files (cdc_compact_when_fragmented). Spark cannot overwrite a
    table it reads, hence the staging table; it is kept until publishing succeeded, so a crash in
    between is repaired by the next run. A first build or --full-refresh reads no stored row, so a
    model whose SQL names its watermark (cdc_watermark_marker) is written straight into the
    target, once (_cdc_build_whole). -#}
{% materialization cdc_merge, adapter='spark' %}
    {%- set unique_key = config.get('unique_key') -%}
    {%- set sequence_column = config.get('sequence_column') -%}
    {%- set file_format = config.get('file_format', 'parquet') -%}
    {{ _cdc_validate_merge_config(unique_key, sequence_column, file_format) }}

    {%- set target = this.incorporate(type='table') -%}
    {%- set recomputed = _cdc_side_relation('recomputed') -%}
    {%- set staging_in_progress = _cdc_side_relation('staging_in_progress') -%}
    {%- set staging = _cdc_side_relation('staging') -%}
    {%- set watermark = _cdc_side_relation('watermark') -%}
    {%- set incremental = cdc_is_incremental() -%}

    {{ run_hooks(pre_hooks) }}

    {#- Nothing arrived since the last merge and no publish is left unfinished: the model SQL
        says so (cdc_nothing_to_merge) and no table is touched. -#}
    {%- if incremental and cdc_nothing_to_merge_marker() in sql
        and adapter.get_relation(database=staging.database, schema=staging.schema, identifier=staging.identifier) is none -%}
        {{ log("cdc_merge: " ~ this.identifier ~ ": no new change events since the last merge", info=false) }}
        {%- call statement('main') -%}
            select 0 as merged_rows
        {%- endcall -%}
        {{ run_hooks(post_hooks) }}
        {{ return({'relations': [target]}) }}
    {%- endif -%}

    {%- if incremental and adapter.get_relation(database=staging.database, schema=staging.schema, identifier=staging.identifier) is not none -%}
        {{ log("cdc_merge: " ~ this.identifier ~ ": finishing the publish a previous run left unfinished", info=true) }}
        {%- set republished = _cdc_merged_in(staging) -%}
        {{ _cdc_publish(target, staging, watermark, file_format, unique_key, sequence_column) }}
        {{ _cdc_remember_merge_invocation(target, republished) }}
        {%- if cdc_nothing_to_merge_marker() in sql -%}  {#- and nothing arrived since -#}
            {%- call statement('main') -%}
                select 0 as merged_rows
            {%- endcall -%}
            {{ run_hooks(post_hooks) }}
            {{ adapter.commit() }}
            {{ return({'relations': [target]}) }}
        {%- endif -%}
    {%- endif -%}

    {%- call statement('cdc_drop_unfinished_staging') -%}
        drop table if exists {{ staging_in_progress }}
    {%- endcall -%}
    {%- call statement('cdc_drop_unfinished_recomputation') -%}
        drop table if exists {{ recomputed }}
    {%- endcall -%}
    {%- call statement('cdc_drop_old_staging') -%}
        drop table if exists {{ staging }}
    {%- endcall -%}
    {%- set marked_watermark = none if incremental else _cdc_marked_watermark(sql) -%}
    {%- if marked_watermark is not none -%}
        {{ _cdc_build_whole(target, watermark, file_format, marked_watermark) }}
        {{ run_hooks(post_hooks) }}
        {{ adapter.commit() }}
        {{ return({'relations': [target]}) }}
    {%- endif -%}

    {%- set stages_changes = incremental and cdc_merges_by_key() and _cdc_may_delete_rows(unique_key) -%}
    {%- if stages_changes -%}
        {#- the model's rows first, then only what changes: the staging table to publish -#}
        {%- call statement('main') -%}
            create table {{ recomputed }} using parquet as
            {{ sql }}
        {%- endcall -%}
        {{ _cdc_stage_changes(target, recomputed, staging_in_progress, unique_key) }}
        {%- if run_query('select 1 from ' ~ staging_in_progress ~ ' limit 1') | length == 0 -%}
            {#- the batch changes no stored row (e.g. a file delivered again): nothing to publish,
                but its events are merged, so the watermark moves on -#}
            {{ log("cdc_merge: " ~ this.identifier ~ ": the new change events change no stored row", info=false) }}
            {{ _cdc_record_watermark(recomputed, watermark) }}
            {%- call statement('cdc_drop_unfinished_staging') -%}
                drop table if exists {{ staging_in_progress }}
            {%- endcall -%}
            {{ run_hooks(post_hooks) }}
            {{ adapter.commit() }}
            {{ return({'relations': [target]}) }}
        {%- endif -%}
        {%- call statement('cdc_drop_recomputed') -%}
            drop table if exists {{ recomputed }}
        {%- endcall -%}
    {%- else -%}
        {%- call statement('main') -%}
            create table {{ staging_in_progress }} using parquet as
            {{ sql }}
        {%- endcall -%}
    {%- endif -%}
    {%- call statement('cdc_staging_complete') -%}
        alter table {{ staging_in_progress }} rename to {{ staging }}
    {%- endcall -%}

    {%- if incremental -%}
        {%- set merged = _cdc_merged_in(staging) -%}
        {{ _cdc_publish(target, staging, watermark, file_format, unique_key, sequence_column, changed_rows_only=stages_changes) }}
        {{ cdc_compact_when_fragmented(target, file_format) }}
    {%- else -%}
        {%- set merged = none -%}
        {{ _cdc_replace(target, staging, watermark, file_format) }}
    {%- endif -%}
    {{ _cdc_remember_merge_invocation(target, merged) }}

    {{ run_hooks(post_hooks) }}
    {{ adapter.commit() }}
    {{ return({'relations': [target]}) }}
{% endmaterialization %}

{% macro _cdc_validate_merge_config(unique_key, sequence_column, file_format) %}
    {%- set formats = ['parquet', 'delta', 'iceberg', 'hudi'] -%}
    {%- if unique_key is none or unique_key is string or unique_key | length == 0 -%}
        {%- set msg -%}
cdc_merge model {{ this.identifier }}: set unique_key to the list of columns that identify a row, e.g.
    {{ "{{" }} config(materialized='cdc_merge', unique_key=['source_vendor', 'source_table', 'pk'], sequence_column='sequence') {{ "}}" }}
        {%- endset -%}
        {{ exceptions.raise_compiler_error(msg) }}
    {%- endif -%}
    {%- if sequence_column is none -%}
        {{ exceptions.raise_compiler_error("cdc_merge model " ~ this.identifier ~ ": set sequence_column to the column that orders versions of a row (e.g. 'sequence'); MERGE INTO uses it as its guard") }}
    {%- endif -%}
    {%- if file_format not in formats -%}
        {{ exceptions.raise_compiler_error("cdc_merge model " ~ this.identifier ~ ": file_format '" ~ file_format ~ "' is not supported; write one of " ~ formats | join(', ')) }}
    {%- endif -%}
{% endmacro %}

{#- The staging table's columns except the bookkeeping `_cdc_watermark` and `_cdc_delete`
    (`_bucket` stays last). -#}
{% macro _cdc_published_columns(staging) %}
    {%- set names = [] -%}
    {%- for column in adapter.get_columns_in_relation(staging) if column.name not in ['_cdc_watermark', '_cdc_delete'] -%}
        {%- do names.append(column.name) -%}
    {%- endfor -%}
    {{ return(names) }}
{% endmacro %}

{#- First run or --full-refresh of a model whose SQL names its watermark (cdc_watermark_marker, as
    _cdc_rows_to_publish does): its rows become the whole target in one write, straight from the
    model's SQL, which reads no stored row then. Nothing is staged: a run killed before the table
    exists builds it again. The table properties are written with it; the watermark is the marked
    expression, recorded when there was an event. DECISIONLOG D47. -#}
{% macro _cdc_build_whole(target, watermark, file_format, watermark_expression) %}
    {%- set properties = {'cdc_merged_by_invocation': _cdc_merge_invocation()} -%}
    {%- do properties.update(_cdc_table_config_property()) -%}
    {%- set rows -%}
        select * except (_cdc_watermark) from (
        {{ sql }}
        ) as rows_to_publish
    {%- endset -%}
    {{ _cdc_create_target(target, file_format, rows, properties, statement_name='main') }}
    {{ _cdc_reset_watermark(watermark) }}
    {%- call statement('cdc_record_watermark') -%}
        insert into {{ watermark }}
        select {{ watermark_expression }}, current_timestamp()
        where {{ watermark_expression }} is not null
    {%- endcall -%}
{% endmacro %}

{#- A state table `target` (dropped first) created from `query`: `file_format`, partitioned by
    `_bucket`, with the table properties `properties` (name -> value). -#}
{% macro _cdc_create_target(target, file_format, query, properties={}, statement_name='cdc_create_target') %}
    {%- call statement('cdc_drop_target') -%}
        drop table if exists {{ target }}
    {%- endcall -%}
    {%- call statement(statement_name) -%}
        create table {{ target }}
        using {{ file_format }}
        partitioned by (_bucket)
        {{ _cdc_table_properties_sql(properties) }}
        as {{ query }}
    {%- endcall -%}
{% endmacro %}

{% macro _cdc_reset_watermark(watermark) %}
    {%- call statement('cdc_reset_watermark') -%}
        drop table if exists {{ watermark }}
    {%- endcall -%}
    {%- call statement('cdc_create_watermark') -%}
        create table {{ watermark }} (max_loaded_at timestamp, merged_at timestamp) using parquet
    {%- endcall -%}
{% endmacro %}

{#- First run or --full-refresh of a model whose SQL names no watermark: the staging table becomes
    the whole target. -#}
{% macro _cdc_replace(target, staging, watermark, file_format) %}
    {%- set columns = _cdc_published_columns(staging) -%}
    {{ _cdc_create_target(target, file_format, 'select ' ~ columns | join(', ') ~ ' from ' ~ staging) }}
    {{ _cdc_set_table_properties(target, _cdc_table_config_property()) }}
    {{ _cdc_reset_watermark(watermark) }}
    {{ _cdc_record_watermark(staging, watermark) }}
{% endmacro %}

{#- Incremental run: the staging table replaces the buckets it covers. `changed_rows_only`: the
    staging table holds only rows that differ from the target as it is (_cdc_stage_changes, built
    in this run), so the MERGE need not compare them again; false when finishing a publish a
    stopped run left, whose MERGE may have committed already. -#}
{% macro _cdc_publish(target, staging, watermark, file_format, unique_key, sequence_column, changed_rows_only=false) %}
    {%- set columns = _cdc_published_columns(staging) -%}
    {%- if file_format == 'parquet' -%}
        {%- call statement('cdc_overwrite_buckets') -%}
            {{ cdc_overwrite_buckets_sql(target, staging, columns) }}
        {%- endcall -%}
    {%- else -%}
        {%- call statement('cdc_merge_into') -%}
            {{ cdc_merge_into_sql(target, staging, columns, unique_key, sequence_column, changed_rows_only) }}
        {%- endcall -%}
    {%- endif -%}
    {{ _cdc_record_watermark(staging, watermark) }}
{% endmacro %}

{% macro _cdc_record_watermark(staging, watermark) %}
    {%- call statement('cdc_record_watermark') -%}
        insert into {{ watermark }}
        select max(_cdc_watermark), current_timestamp()
        from {{ staging }}
        having max(_cdc_watermark) is not null
    {%- endcall -%}
    {%- call statement('cdc_drop_staging') -%}
        drop table if exists {{ staging }}
    {%- endcall -%}
{% endmacro %}

{#- After an incremental MERGE on delta: every MERGE adds a file to each `_bucket` partition it
    touches (a batch of random keys touches them all) and marks replaced rows in deletion vectors,
    and each later MERGE reads every file of the table three times (finding the matches, writing
    the changes, the deletion vectors). Once the table has more than var
    cdc_compact_files_per_bucket files per bucket, `optimize` rewrites its small files into large
    ones, without the marked rows: at 10^6 history rows 5-10 s every tenth run or so, where 40 runs
    without it made each run 5 s slower (DECISIONLOG D61). 0 turns it off. Parquet needs none: a
    run rewrites the buckets it touches whole. -#}
{% macro cdc_compact_when_fragmented(target, file_format) %}
    {%- set files_per_bucket = var('cdc_compact_files_per_bucket') -%}
    {%- if files_per_bucket is boolean or files_per_bucket is not number or files_per_bucket < 0
        or files_per_bucket != files_per_bucket | int -%}
        {{ exceptions.raise_compiler_error("var cdc_compact_files_per_bucket must be a whole number of files per bucket (0 turns compaction off), not " ~ files_per_bucket) }}
    {%- endif -%}
    {%- if file_format == 'delta' and files_per_bucket > 0 -%}
        {%- set files = run_query('describe detail ' ~ target).columns['numFiles'].values()[0] | int -%}
        {%- set most_files = files_per_bucket * var('cdc_buckets') -%}
        {%- if files > most_files -%}
            {{ log("cdc_merge: " ~ target.identifier ~ ": " ~ files ~ " files, more than " ~ files_per_bucket ~ " per bucket: compacting it (optimize)", info=true) }}
            {%- call statement('cdc_compact') -%}
                optimize {{ target }}
            {%- endcall -%}
        {%- endif -%}
    {%- endif -%}
{% endmacro %}
