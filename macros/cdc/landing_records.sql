{#- One row per record of the vendor's landing files that this model has not read before,
    plus one row (record_no 0, raw null) per new file so that every file reaches the ledger.

    Files are read with Spark's own file sources, so any path Spark can read works (`file:`,
    `s3a://`, `gs://`, `abfss://`, `hdfs://`). Two steps: a listing query (names, sizes and times
    only; no file is opened) picks the files not read before (when the folder is as the table last
    took it in, a summary of it says so and the ledger is not searched, DECISIONLOG D51) and how
    each is read (_cdc_landing_route); then the content query opens exactly those files, each
    source limited to the range of their modification times (a filter on the path does not keep a
    file closed; DECISIONLOG D40, D63):
    - `whole`: a text or Avro file up to var cdc_landing_whole_file_bytes, read as one value
      (`binaryFile`) and split in SQL (DECISIONLOG D8; Avro through the Python function
      `cdc_avro_records`, whose framing is binary); a small compressed text file (.gz, .bz2) the
      same, decompressed by the `text` source (`whole_compressed`);
    - `lines`: a larger text file, or a larger compressed one, read line by line by the `text`
      source, which splits an uncompressed file across tasks, so memory does not grow with the
      file; a file whose first line is not a whole JSON record (one large document or array)
      gives one `read_error` record instead;
    - `refused`: a file the project cannot read (another format, an Avro file over the limit):
      one `read_error` record, so it is quarantined as `unreadable_file` with the reason.
    A file changed between the two steps may not be read now; without its marker row it is new
    again on the next run. -#}
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
    {#- lists the folder and keeps its unread files in a cached view the content query reads -#}
    {%- set folder = _cdc_new_landing_files(vendor) -%}
    {%- set routes = folder.routes -%}
-- cdc_landing_records: new files of {{ vendor }}/ under the landing folder
{{ _cdc_listed_files_marker(folder.listed) }}
{% if folder.listing %}{{ cdc_consumed_marker(folder.listing) }}{% endif %}
with
{% if routes | length > 0 %}
new_files as (
    select path, size_bytes, mtime_ns, route, refusal
    from {{ _cdc_landing_view_name(vendor, 'new_files') }}
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
        cast(null as string) as route,
        cast(null as string) as refusal
    where false
),
{% endif %}
{%- set record_sources = ['file_markers'] %}

{%- if 'whole' in routes or 'whole_compressed' in routes %}
{%- do record_sources.append('whole_file_records') %}
{{ _cdc_whole_file_records(vendor, routes) }}
{%- endif %}

{%- if 'lines' in routes %}
{%- do record_sources.append('line_records') %}
{{ _cdc_line_records(vendor, routes.lines) }}
{%- endif %}

{%- if 'refused' in routes %}
{%- do record_sources.append('refused_records') %}
-- a file the project does not read: one record saying why (quarantined as unreadable_file)
refused_records as (
    select path, size_bytes, mtime_ns, 1 as record_no, cast(null as string) as raw, refusal as read_error
    from new_files
    where route = 'refused'
),
{%- endif %}

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
    {%- for source in record_sources %}
    select path, size_bytes, mtime_ns, record_no, raw, read_error from {{ source }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
) as all_rows
{% endmacro %}

{#- The var cdc_landing_whole_file_bytes, checked: the largest file read as one value. -#}
{% macro cdc_landing_whole_file_bytes() %}
    {%- set limit = var('cdc_landing_whole_file_bytes') -%}
    {%- if limit is boolean or limit is not number or limit < 1024 or limit != limit | int -%}
        {{ exceptions.raise_compiler_error("var cdc_landing_whole_file_bytes must be a whole number of bytes, at least 1024 (the largest landing file read as one value; larger text files are read line by line), not " ~ limit) }}
    {%- endif -%}
    {{ return(limit | int) }}
{% endmacro %}

{#- SQL: how a listed file is read (`route`) and, for a file that is not, why (`refusal`), from its
    name and size alone. A compressed file is read whole only up to a sixteenth of the limit:
    its text is larger than the file, and is not known before it is read. -#}
{% macro _cdc_landing_route(path, size) %}
    {%- set limit = cdc_landing_whole_file_bytes() -%}
    {%- set name = "lower(regexp_extract(" ~ path ~ ", '[^/]*$', 0))" -%}
    {%- set text_suffix = "\\\\.(jsonl|ndjson|json|txt)" -%}
    case
        when {{ name }} rlike '\\.avro$' then if({{ size }} <= {{ limit }}, 'whole', 'refused')
        when {{ name }} rlike '{{ text_suffix }}$' then if({{ size }} <= {{ limit }}, 'whole', 'lines')
        when {{ name }} rlike '{{ text_suffix }}\\.(gz|bz2)$' then if({{ size }} <= {{ limit // 16 }}, 'whole_compressed', 'lines')
        else 'refused'
    end as route,
    case
        when {{ name }} rlike '\\.avro$' and {{ size }} > {{ limit }} then concat(
            'file_too_large: an Avro file is read whole, and this one has ', {{ size }}, ' bytes, more than ',
            'var cdc_landing_whole_file_bytes ({{ limit }}). Write smaller files, or raise the var together with ',
            'CDC_SPARK_DRIVER_MEMORY.')
        when not ({{ name }} rlike '{{ text_suffix }}(\\.(gz|bz2))?$' or {{ name }} rlike '\\.avro$') then concat(
            'not_a_landing_file: the landing folder takes .jsonl, .ndjson, .json and .txt files (also compressed as ',
            '.gz or .bz2) and .avro files; ', regexp_extract({{ path }}, '[^/]*$', 0), ' is none of them. Convert it, ',
            'or move it out of the vendor folder (names starting with _ or . are skipped).')
    end as refusal
{%- endmacro %}

{#- CTEs ending in `whole_file_records`: the records of the files read as one value (routes
    `whole`, `whole_compressed`), split as DECISIONLOG D8 says. Each source reads only the vendor's
    folder, within the range of the batch's modification times. -#}
{% macro _cdc_whole_file_records(vendor, routes) %}
    {%- set with_avro = routes.get('whole', {}).get('avro', 0) > 0 %}
whole_texts as (
    {%- set parts = [] %}
    {%- if 'whole' in routes %}
    {%- do parts.append('whole') %}
    select
        new_files.path,
        new_files.size_bytes,
        new_files.mtime_ns,
        cast(listed.content as string) as body
    from {{ _cdc_landing_source(vendor, 'binaryFile', routes.whole) }} as listed
    inner join new_files
        on listed.path = new_files.path
        and new_files.route = 'whole'
    where {{ _cdc_mtime_range('listed.modificationTime', routes.whole) }}
        and not endswith(lower(listed.path), '.avro')
    {%- endif %}
    {%- if 'whole_compressed' in routes %}
    {%- if parts %}
    union all
    {%- endif %}
    select
        new_files.path,
        new_files.size_bytes,
        new_files.mtime_ns,
        decompressed.value as body
    from (
        select {{ _cdc_text_source_path() }} as path, value
        from {{ _cdc_landing_source(vendor, 'text', routes.whole_compressed, wholetext=true) }}
    ) as decompressed
    inner join new_files
        on decompressed.path = new_files.path
        and new_files.route = 'whole_compressed'
    {%- endif %}
),

{{ _cdc_split_landing_texts('whole_texts') }}

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
            new_files.path,
            new_files.size_bytes,
            new_files.mtime_ns,
            cdc_avro_records(listed.content) as avro
        from {{ _cdc_landing_source(vendor, 'binaryFile', routes.whole) }} as listed
        inner join new_files
            on listed.path = new_files.path
            and new_files.route = 'whole'
        where {{ _cdc_mtime_range('listed.modificationTime', routes.whole) }}
            and endswith(lower(listed.path), '.avro')
    ) as decoded
{%- else %}
    -- no Avro file among them: the Python decoder stays out of the plan, which spares Spark a
    -- Python worker (about a second a run on a warm session, D41)
    select
        cast(null as string) as path,
        cast(null as bigint) as size_bytes,
        cast(null as bigint) as mtime_ns,
        cast(null as array<string>) as records,
        cast(null as string) as read_error
    where false
{%- endif %}
),

whole_file_records as (
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
{%- endmacro %}

{#- CTEs ending in `line_records`: the records of the files read line by line (route `lines`),
    numbered from 1 in file order. The text source splits a file into blocks read by separate
    tasks; a line's number is the lines of the blocks before its own plus its place in its block
    (its row id minus the block's first). A file whose first non-blank line is not a whole JSON
    value is one large document, which only the whole-file route reads: one `read_error` record.
    `files`: the route's summary from _cdc_new_landing_files. -#}
{% macro _cdc_line_records(vendor, files) %}
lines_read as (
    select
        {{ _cdc_text_source_path() }} as path,
        input_file_block_start() as block_start,
        monotonically_increasing_id() as row_id,
        -- a line ending in CR LF loses its CR, as in a file read whole
        trim(trailing '\r' from value) as line
    from {{ _cdc_landing_source(vendor, 'text', files) }}
),

file_lines as (
    select lines_read.*
    from lines_read
    left semi join new_files
        on lines_read.path = new_files.path
        and new_files.route = 'lines'
),

line_blocks as (
    select
        path,
        block_start,
        min(row_id) as first_row_id,
        count(*) as block_lines,
        min_by(line, row_id) filter (where trim(line) != '') as first_record
    from file_lines
    group by path, block_start
),

numbered_blocks as (
    select
        path,
        block_start,
        first_row_id,
        coalesce(sum(block_lines) over (
            partition by path order by block_start rows between unbounded preceding and 1 preceding
        ), 0) as lines_before,
        -- the file's first non-blank line (min_by skips a block without one: its ordering value is null)
        try_parse_json(min_by(first_record, if(first_record is null, null, block_start)) over (partition by path))
            is not null as is_line_delimited
    from line_blocks
),

line_records as (
    select /*+ broadcast(numbered_blocks) */
        new_files.path,
        new_files.size_bytes,
        new_files.mtime_ns,
        cast(numbered_blocks.lines_before + file_lines.row_id - numbered_blocks.first_row_id + 1 as int) as record_no,
        file_lines.line as raw,
        cast(null as string) as read_error
    from file_lines
    inner join numbered_blocks
        on file_lines.path = numbered_blocks.path
        and file_lines.block_start = numbered_blocks.block_start
    inner join new_files
        on file_lines.path = new_files.path
    where numbered_blocks.is_line_delimited
    union all
    select
        path,
        size_bytes,
        mtime_ns,
        1 as record_no,
        cast(null as string) as raw,
        concat(
            'file_too_large: the file holds one JSON document or array (its first line is not a whole JSON record), ',
            'which is read whole only up to var cdc_landing_whole_file_bytes ({{ cdc_landing_whole_file_bytes() }}; ',
            'compressed files a sixteenth of it), and it has ', size_bytes, ' bytes. Write newline-delimited JSON ',
            '(one record a line), or smaller files.'
        ) as read_error
    from new_files
    where route = 'lines'
        and not exists (
            select 1 from numbered_blocks
            where numbered_blocks.path = new_files.path
                and numbered_blocks.is_line_delimited
        )
        -- an empty file has no block: no record, as when it is read whole
        and exists (select 1 from numbered_blocks where numbered_blocks.path = new_files.path)
),
{%- endmacro %}

{#- The path of the file a `text` source row came from, spelled as the `binaryFile` listing spells
    it: input_file_name() percent-encodes the name (`%20`, `%23`, ... but not `+`, which the decoder
    would turn into a space) and writes a local file as `file:///`. -#}
{% macro _cdc_text_source_path() %}
    try_url_decode(regexp_replace(replace(input_file_name(), '+', '%2B'), '^file:///', 'file:/'))
{%- endmacro %}

{#- SQL condition: a listed modification time lies in the route's range (`files`: its summary). -#}
{% macro _cdc_mtime_range(column, files) %}
    {{- column }} between timestamp_micros({{ files.min_mtime_us }}) and timestamp_micros({{ files.max_mtime_us }})
{%- endmacro %}

{#- A temporary view over the vendor's folder, read with the file source `format` (`binaryFile` or
    `text`), sub-folders searched. A `text` source is limited to the modification times of `files`
    (the route's summary) when it lists the folder: its rows carry no time to filter on. -#}
{% macro _cdc_landing_source(vendor, format, files, wholetext=false) %}
    {%- set view_name = _cdc_landing_view_name(vendor, format ~ ('_whole' if wholetext else '')) -%}
    {%- if execute -%}
        {%- set options = ["path " ~ _cdc_sql_text(_cdc_vendor_folder_uri(vendor)), "recursiveFileLookup 'true'"] -%}
        {%- if format == 'text' -%}
            {#- modifiedAfter / modifiedBefore are exclusive: one millisecond either side -#}
            {%- do options.append("modifiedAfter '" ~ files.modified_after ~ "'") -%}
            {%- do options.append("modifiedBefore '" ~ files.modified_before ~ "'") -%}
            {%- do options.append("lineSep '\\n'") -%}
            {%- do options.append("wholetext '" ~ ('true' if wholetext else 'false') ~ "'") -%}
        {%- endif -%}
        {%- do run_query("create or replace temporary view " ~ view_name ~ " using " ~ format
                         ~ " options (" ~ options | join(', ') ~ ")") -%}
    {%- endif -%}
    {{ return(view_name) }}
{% endmacro %}

{#- The listing of the whole landing folder, as a temporary view over Spark's binaryFile source
    (re-created on every call, so it lists what is there now): `path`, `length`,
    `modificationTime`. Every file counts, whatever its name (one the project cannot read is
    refused with a reason); Spark skips names starting with `.` or `_` (files being written). -#}
{% macro _cdc_landing_view(vendor) %}
    {%- set view_name = _cdc_landing_view_name(vendor) -%}
    {%- if execute -%}
        {%- do run_query(
            "create or replace temporary view " ~ view_name ~ " using binaryFile options ("
            ~ "path " ~ _cdc_sql_text(var('cdc_landing_dir')) ~ ", recursiveFileLookup 'true')"
        ) -%}
    {%- endif -%}
    {{ return(view_name) }}
{% endmacro %}

{#- The name of one of the vendor's temporary views: `cdc_landing_files__<vendor>` (the listing),
    or `cdc_landing_<purpose>__<vendor>`. -#}
{% macro _cdc_landing_view_name(vendor, purpose='files') %}
    {{ return('cdc_landing_' ~ purpose | lower ~ '__' ~ vendor) }}
{% endmacro %}

{#- `<landing folder>/<vendor>`, as Spark's sources take it. -#}
{% macro _cdc_vendor_folder_uri(vendor) %}
    {{ return((var('cdc_landing_dir') | trim).rstrip('/') ~ '/' ~ vendor) }}
{% endmacro %}

{#- The vendor's folder as this model sees it: `routes`, the files it has not read by route
    (_cdc_landing_route), each a dict of `files`, `avro` (how many are Avro), `min_mtime_us` /
    `max_mtime_us` (their modification times in microseconds) and `modified_after` /
    `modified_before` (the same range, widened by a millisecond, as the text source takes it);
    `listed`, how many files the folder holds; `listing`, a summary of the folder
    (`files:<count>:<hash>`, the hash of every file's path and modification time) for the table to
    keep in its property `cdc_consumed` once it has read them, none when it keeps that one
    already. When the folder is as it was when the table last took it in, no file can be new: the
    ledger is not searched (DECISIONLOG D51). Otherwise the unread files are kept in a cached
    temporary view (`cdc_landing_new_files__<vendor>`) that the content query reads, so both see
    the same files. Only names, sizes and times are listed; no file is opened. -#}
{% macro _cdc_new_landing_files(vendor) %}
    {%- if not execute -%}
        {{ return({'routes': {}, 'listed': 0, 'listing': none}) }}
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
    {%- set folder = {'routes': {}, 'listed': summary[0] | int, 'listing': none if unchanged else listing} -%}
    {%- if unchanged or folder.listed == 0 -%}
        {{ return(folder) }}
    {%- endif -%}
    {%- set new_files = _cdc_landing_view_name(vendor, 'new_files') -%}
    {%- set unread_query -%}
select
    listed.path,
    listed.length as size_bytes,
    unix_micros(listed.modificationTime) * 1000 as mtime_ns,
    {{ _cdc_landing_route('listed.path', 'listed.length') }}
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
    {%- endset -%}
    {#- dropping the view uncaches the previous run's -#}
    {%- do run_query("drop view if exists " ~ new_files) -%}
    {%- do run_query("cache table " ~ new_files ~ " as " ~ unread_query) -%}
    {%- set routes_query -%}
select
    route,
    count(*) as files,
    count_if(endswith(lower(path), '.avro')) as avro,
    min(mtime_ns) div 1000 as min_mtime_us,
    max(mtime_ns) div 1000 as max_mtime_us,
    date_format(timestamp_micros(min(mtime_ns) div 1000 - 1000), "yyyy-MM-dd'T'HH:mm:ss.SSSSSS") as modified_after,
    date_format(timestamp_micros(max(mtime_ns) div 1000 + 1000), "yyyy-MM-dd'T'HH:mm:ss.SSSSSS") as modified_before
from {{ new_files }}
group by route
    {%- endset -%}
    {%- for row in run_query(routes_query).rows -%}
        {%- do folder.routes.update({row[0]: {
            'files': row[1] | int, 'avro': row[2] | int, 'min_mtime_us': row[3] | int, 'max_mtime_us': row[4] | int,
            'modified_after': row[5], 'modified_before': row[6]}}) -%}
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
    contains({{ path_expression }}, {{ _cdc_sql_text(folder) }})
{% endmacro %}

{#- CTEs ending in `text_records` (path, size_bytes, mtime_ns, records, read_error): each text
    file of `texts` (a CTE of path, size_bytes, mtime_ns, body) as its array of records
    (DECISIONLOG D8). A text file loses one leading `/* ... */` licence block; if the rest is one
    JSON document, an array gives one record per element, an object whose values are all
    messages one record per value, any other document one record; else every line is a record
    (an empty line too: the parser quarantines it). -#}
{% macro _cdc_split_landing_texts(texts) %}
    {%- set envelope_keys = ['payload', 'op', 'before', 'after', 'source', 'schema', 'value', 'topic', 'data',
                             'headers', 'magic', 'type', 'uuid', 'data_change_record', 'mods', 'sequenceId'] -%}
    {%- set envelope = "array('" ~ envelope_keys | join("', '") ~ "')" -%}
text_files as (
    select
        path,
        size_bytes,
        mtime_ns,
        case
            when ltrim(body) like '/*%'
                then regexp_replace(body, '^\\s*/\\*(?s:.*?)\\*/\\s*', '')
            else body
        end as body
    from {{ texts }}
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
{% endmacro %}
