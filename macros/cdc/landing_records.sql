{#- One row per record of the vendor's landing files that this model has not read before,
    plus one row (record_no 0, raw null) per new file so that empty files reach the ledger.

    Files are read with Spark's own `binaryFile` source, so any path Spark can read works
    (`file:`, `s3a://`, `gs://`, `abfss://`, `hdfs://`). Two steps: a listing query (names,
    sizes and times only; no file is opened) picks the files not read before (when the folder
    is as the table last took it in, a summary of it says so and the ledger is not searched,
    DECISIONLOG D51), then the content
    query names exactly those paths, within the range of their modification times. The
    binaryFile source checks a range of `modificationTime` before it opens a file, but not a
    filter on `path` (it reads every file's bytes and drops them after): without the range, a run
    read every file the folder had ever received (DECISIONLOG D40). A file changed between the
    two steps may not be read now; without its marker row it is new again on the next run.
    Splitting a file into records is SQL (DECISIONLOG D8); only Avro container files go through
    a Python function (`cdc_avro_records`), because their framing is binary. -#}
{% macro cdc_landing_records(vendor) %}
    {%- set vendors = cdc_known_vendors() -%}
    {%- if vendor not in vendors -%}
        {%- set msg -%}
cdc_landing_records: vendor '{{ vendor }}' is not a landing folder. Write one of: {{ vendors | join(', ') }}.
        {%- endset -%}
        {{ exceptions.raise_compiler_error(msg) }}
    {%- endif -%}
    {%- if vendor == 'datastream' -%}
        {{ cdc_require_udfs() }}  {#- Avro files are decoded by cdc_avro_records -#}
    {%- endif -%}
    {#- lists the folder (creating the view the content query reads) and picks the unread files -#}
    {%- set folder = _cdc_new_landing_files(vendor) -%}
    {%- set new_files = folder.files -%}
-- cdc_landing_records: new files of {{ vendor }}/ under the landing folder
{{ _cdc_listed_files_marker(folder.listed) }}
{% if folder.listing %}{{ cdc_consumed_marker(folder.listing) }}{% endif %}
with
{% if new_files | length > 0 %}
new_files as (
    select
        path,
        length as size_bytes,
        unix_micros(modificationTime) * 1000 as mtime_ns,
        content
    from {{ _cdc_landing_view_name(vendor) }}
    where path in (
        {%- for file in new_files %}
        '{{ file.path | replace("\\", "\\\\") | replace("'", "\\'") }}'{% if not loop.last %},{% endif %}
        {%- endfor %}
    )
        -- the filter that keeps the other files closed (the source checks a range of times, not a
        -- list: an older file that arrived late only widens what is opened)
        {%- set mtimes = new_files | map(attribute='mtime_us') | list %}
        and modificationTime between timestamp_micros({{ mtimes | min }}) and timestamp_micros({{ mtimes | max }})
),
{% else %}
{%- if cdc_is_incremental() or cdc_creates_empty_table_when_nothing_upstream() %}
{{ cdc_nothing_new_marker() }}
{%- endif %}
-- no new file: nothing is opened
new_files as (
    select
        cast(null as string) as path,
        cast(null as bigint) as size_bytes,
        cast(null as bigint) as mtime_ns,
        cast(null as binary) as content
    where false
),
{% endif %}

{#- the Avro decoder is a Python function: a batch with no Avro file leaves it out of the plan,
    which spares Spark a Python worker (about a second a run on a warm session, D41) -#}
{{ _cdc_split_landing_files('new_files', with_avro=new_files | selectattr('is_avro') | list | length > 0) }}

file_markers as (
    select
        path,
        size_bytes,
        mtime_ns,
        0 as record_no,
        cast(null as string) as raw,
        cast(null as string) as read_error
    from new_files
)

select
    '{{ vendor }}' as source_vendor,
    path as _source_file,
    size_bytes as file_size_bytes,
    mtime_ns as file_mtime_ns,
    timestamp_micros(mtime_ns div 1000) as file_modified_at,
    record_no,
    raw,
    read_error,
    current_timestamp() as _loaded_at,
    '{{ invocation_id }}' as _run_id
from (
    select * from file_markers
    union all
    select * from file_records
) as all_rows
{% endmacro %}

{#- The vendor's files in the landing folder, as a temporary view over Spark's binaryFile source
    (re-created on every call, so it lists what is there now): `path`, `length`,
    `modificationTime`, `content`. The folder and its sub-folders are searched for *.jsonl,
    *.json, *.txt and *.avro; Spark skips names starting with `.` or `_` (files being written). -#}
{% macro _cdc_landing_view(vendor) %}
    {%- set view_name = _cdc_landing_view_name(vendor) -%}
    {%- if execute -%}
        {%- set landing_dir = var('cdc_landing_dir') | replace("\\", "\\\\") | replace("'", "\\'") -%}
        {%- do run_query(
            "create or replace temporary view " ~ view_name ~ " using binaryFile options ("
            ~ "path '" ~ landing_dir ~ "', recursiveFileLookup 'true', pathGlobFilter '*.{jsonl,json,txt,avro}')"
        ) -%}
    {%- endif -%}
    {{ return(view_name) }}
{% endmacro %}

{% macro _cdc_landing_view_name(vendor) %}
    {{ return('cdc_landing_files__' ~ vendor) }}
{% endmacro %}

{#- The vendor's folder as this model sees it: `files`, the files it has not read, each a dict of
    `path`, `mtime_us` (its modification time in microseconds) and `is_avro`; `listed`, how many
    files the folder holds; `listing`, a summary of the folder (`files:<count>:<hash>`, the hash
    of every file's path and modification time) for the table to keep in its property
    `cdc_consumed` once it has read them, none when it keeps that one already. When the folder is
    as it was when the table last took it in, no file can be new: the ledger is not searched
    (DECISIONLOG D51). Only names and times are listed; no file is opened. -#}
{% macro _cdc_new_landing_files(vendor) %}
    {%- if not execute -%}
        {{ return({'files': [], 'listed': 0, 'listing': none}) }}
    {%- endif -%}
    {%- set view_name = _cdc_landing_view(vendor) -%}
    {%- set summary_query -%}
select count(*) as listed, coalesce(bit_xor(xxhash64(listed.path, listed.modificationTime)), 0) as listing_hash
from {{ view_name }} as listed
where {{ _cdc_in_vendor_folder('listed.path', vendor) }}
    {%- endset -%}
    {%- set summary = run_query(summary_query).rows[0] -%}
    {%- set listing = 'files:' ~ summary[0] ~ ':' ~ summary[1] -%}
    {%- set incremental = cdc_is_incremental() -%}
    {%- set unchanged = incremental and _cdc_table_property(_cdc_this_listed(), 'cdc_consumed', listed_is_current=true) == listing -%}
    {#- `listing` is none when the table already names it -#}
    {%- set folder = {'files': [], 'listed': summary[0] | int, 'listing': none if unchanged else listing} -%}
    {%- if unchanged or folder.listed == 0 -%}
        {{ return(folder) }}
    {%- endif -%}
    {%- set unread_query -%}
select listed.path, unix_micros(listed.modificationTime) as mtime_us
from {{ view_name }} as listed
where {{ _cdc_in_vendor_folder('listed.path', vendor) }}
{%- if incremental %}
    and not exists (
        select 1
        from {{ this }} as read_before
        where read_before.record_no = 0
            and read_before._source_file = listed.path
    )
{%- endif %}
order by listed.path
    {%- endset -%}
    {%- for row in run_query(unread_query).rows -%}
        {%- do folder.files.append({'path': row[0], 'mtime_us': row[1] | int, 'is_avro': row[0].lower().endswith('.avro')}) -%}
    {%- endfor -%}
    {{ return(folder) }}
{% endmacro %}

{#- The comment that tells cdc_log_landing_progress how many files the folder held. -#}
{% macro _cdc_listed_files_marker(listed) %}
    {{- '-- cdc_landing_records: ' ~ listed ~ ' files listed' -}}
{% endmacro %}

{#- Whether a listed file lies in `<landing folder>/<vendor>/` (or below it). Paths come back as
    URIs (`file:/data/landing/debezium/a.jsonl`), so the folder is matched without its scheme. -#}
{% macro _cdc_in_vendor_folder(path_expression, vendor) %}
    {%- set landing_dir = var('cdc_landing_dir') | trim -%}
    {%- set folder = modules.re.sub('^[A-Za-z][A-Za-z0-9+.-]*:/*', '', landing_dir).strip('/') -%}
    {%- set folder = ('/' ~ folder ~ '/' if folder else '/') ~ vendor ~ '/' -%}
    contains({{ path_expression }}, '{{ folder | replace("\\", "\\\\") | replace("'", "\\'") }}')
{% endmacro %}

{#- CTEs ending in `file_records` (path, size_bytes, mtime_ns, record_no, raw, read_error): the
    records of each file (DECISIONLOG D8). A text file loses one leading `/* ... */` licence
    block; if the rest is one JSON document, an array gives one record per element, an object
    whose values are all messages one record per value, any other document one record; else
    every line is a record (an empty line too: the parser quarantines it). An Avro file gives
    one record per datum; its damaged rest, or an empty file, one record with `read_error`. -#}
{% macro _cdc_split_landing_files(files, with_avro=true) %}
    {%- set envelope_keys = ['payload', 'op', 'before', 'after', 'source', 'schema', 'value', 'topic', 'data',
                             'headers', 'magic', 'type', 'uuid', 'data_change_record', 'mods', 'sequenceId'] -%}
    {%- set envelope = "array('" ~ envelope_keys | join("', '") ~ "')" -%}
text_files as (
    select
        path,
        size_bytes,
        mtime_ns,
        case
            when ltrim(cast(content as string)) like '/*%'
                then regexp_replace(cast(content as string), '^\\s*/\\*(?s:.*?)\\*/\\s*', '')
            else cast(content as string)
        end as body
    from {{ files }}
    where not endswith(lower(path), '.avro')
),

text_lines as (
    select
        *,
        -- the final newline ends the last record, it does not start an empty one; only that one
        -- (a blank line before it is a record). Not the regular expression '\n$', whose `$` also
        -- matches before a final newline, so that it dropped one blank line, and which scans the
        -- whole text (DECISIONLOG D49)
        split(case when endswith(body, '\n') then left(body, length(body) - 1) else body end, '\n') as lines
    from text_files
),

text_shapes as (
    select
        *,
        case
            when trim(body) = '' then 'empty'
            -- several lines that each start a JSON value: newline-delimited records
            when size(filter(lines, line -> trim(line) != '')) > 1
                and try_parse_json(filter(lines, line -> trim(line) != '')[0]) is not null then 'lines'
            when json_array_length(body) is not null then 'array'
            when from_json(body, 'map<string,string>') is not null then 'object'
            else 'lines'
        end as shape
    from text_lines
),

text_records as (
    select
        path,
        size_bytes,
        mtime_ns,
        case shape
            when 'empty' then cast(array() as array<string>)
            -- CRLF lines lose their carriage returns; a trim, not a regular expression per line,
            -- which took a third of the split of a large file (D34), and only in a file that has
            -- one: the trim copies every line (D49)
            when 'lines' then case
                when contains(body, '\r') then transform(lines, line -> trim(trailing '\r' from line))
                else lines
            end
            when 'array' then transform(from_json(body, 'array<string>'), element -> coalesce(element, 'null'))
            when 'object' then case
                -- an object whose values are all messages, none of its keys an envelope field
                when not arrays_overlap(map_keys(from_json(body, 'map<string,string>')), {{ envelope }})
                    and forall(
                        map_values(from_json(body, 'map<string,string>')),
                        member -> startswith(ltrim(member), '{')
                            and arrays_overlap(json_object_keys(member), {{ envelope }})
                    )
                    then map_values(from_json(body, 'map<string,string>'))
                else array(trim(body))
            end
        end as records,
        cast(null as string) as read_error
    from text_shapes
),

avro_records as (
{%- if with_avro %}
    select
        path,
        size_bytes,
        mtime_ns,
        avro.records,
        avro.error as read_error
    from (
        select
            path,
            size_bytes,
            mtime_ns,
            cdc_avro_records(content) as avro
        from {{ files }}
        where endswith(lower(path), '.avro')
    ) as decoded
{%- else %}
    -- no Avro file among them: the Python decoder stays out of the plan
    select
        path,
        size_bytes,
        mtime_ns,
        cast(null as array<string>) as records,
        cast(null as string) as read_error
    from {{ files }}
    where false
{%- endif %}
),

file_records as (
    select
        path,
        size_bytes,
        mtime_ns,
        record_no + 1 as record_no,
        raw,
        cast(null as string) as read_error
    from (
        -- posexplode_outer, not posexplode: for posexplode Spark infers a filter size(records) > 0
        -- and pushes it down to the file scan, where it splits every file again, several times
        select
            path,
            size_bytes,
            mtime_ns,
            posexplode_outer(records) as (record_no, raw)
        from (
            select path, size_bytes, mtime_ns, records from text_records
            union all
            select path, size_bytes, mtime_ns, records from avro_records
        ) as all_files
    ) as exploded
    where record_no is not null
    union all
    -- what stopped an Avro read: one more record after the good ones
    select
        path,
        size_bytes,
        mtime_ns,
        size(records) + 1 as record_no,
        cast(null as string) as raw,
        read_error
    from avro_records
    where read_error is not null
),
{% endmacro %}
