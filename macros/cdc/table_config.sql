{#- Per-table CDC configuration (README "Per-table configuration"; DECISIONLOG D26), read from two
    dbt vars in dbt_project.yml (or `--vars`):

    cdc_tables: a list, one entry per source table (optionally per feed):
        - table: inventory.customers     # required: source_table as the contract names it
          vendor: debezium               # optional: only this feed (default: every feed)
          keys: [id]                     # key columns; win over the message's key and the seed
          sequence_by: [updated_at]      # order by these row columns (numbers or timestamps), part by part
          scd_type: 1                    # 1 = current state only, 2 = current and history (default)
          except_columns: [ssn]          # columns left out of current, history and typed models
          track_history_columns: [tier]  # only a change of these opens a new history version
          deletes: soft                  # soft = a deleted key stays in cdc_current flagged is_deleted; hard (default)
    cdc_feeds: which tables of a feed are kept, by name or `*` pattern:
        debezium: {include: ['inventory.*'], exclude: ['inventory.audit_log']}

    Everything is checked when dbt compiles, with a message that says what to write. -#}

{% macro _cdc_table_config_fields() %}
    {{ return(['table', 'vendor', 'keys', 'sequence_by', 'scd_type', 'except_columns', 'track_history_columns', 'deletes']) }}
{% endmacro %}

{% macro _cdc_config_error(message) %}
    {%- set example -%}
vars:
  cdc_tables:
    - table: inventory.customers   # required
      vendor: debezium             # optional: one feed only
      keys: [id]
      sequence_by: [updated_at]
      scd_type: 1                  # or 2 (default)
      except_columns: [ssn]
      track_history_columns: [tier]
      deletes: soft                # or hard (default)
  cdc_feeds:
    debezium: {include: ['inventory.*'], exclude: ['inventory.audit_log']}
    {%- endset -%}
    {{ exceptions.raise_compiler_error("cdc per-table configuration (dbt var cdc_tables / cdc_feeds): " ~ message ~ "\nWrite it like this in dbt_project.yml (README 'Per-table configuration'):\n" ~ example) }}
{% endmacro %}

{#- A list of non-empty strings, or none when the entry does not set `field`. -#}
{% macro _cdc_config_names(entry, field, where) %}
    {%- set value = entry.get(field) -%}
    {%- if value is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if value is string or value is mapping or value is not iterable or value | length == 0 -%}
        {{ _cdc_config_error(where ~ ": " ~ field ~ " must be a non-empty list of column names, e.g. " ~ field ~ ": [id]; got " ~ value) }}
    {%- endif -%}
    {%- for name in value if name is not string or name | trim == '' -%}
        {{ _cdc_config_error(where ~ ": " ~ field ~ " must list column names as text; got " ~ name) }}
    {%- endfor -%}
    {{ return(value | list) }}
{% endmacro %}

{#- The validated cdc_tables entries, one per (vendor, table): an entry without `vendor` is
    copied to every vendor in cdc_vendors; a vendor's own entry for a table wins over it. -#}
{% macro cdc_table_config() %}
    {%- set entries = var('cdc_tables', []) or [] -%}
    {%- if entries is mapping or entries is string -%}
        {{ _cdc_config_error("cdc_tables must be a list of entries (each starting with `- table: ...`); got " ~ entries) }}
    {%- endif -%}
    {%- set vendors = cdc_vendors() -%}
    {%- set fields = _cdc_table_config_fields() -%}
    {%- set for_all = {} -%}
    {%- set for_one = {} -%}
    {%- for entry in entries -%}
        {%- set where = "cdc_tables entry " ~ loop.index -%}
        {%- if entry is not mapping -%}
            {{ _cdc_config_error(where ~ " must be a mapping with at least `table:`; got " ~ entry) }}
        {%- endif -%}
        {%- for field in entry if field not in fields -%}
            {{ _cdc_config_error(where ~ ": unknown setting '" ~ field ~ "'; the settings are " ~ fields | join(', ')) }}
        {%- endfor -%}
        {%- if entry.get('table') is not string or entry.get('table') | trim == '' -%}
            {{ _cdc_config_error(where ~ ": set `table:` to the source_table the feed sends (as in cdc_current.source_table)") }}
        {%- endif -%}
        {%- set where = where ~ " (table " ~ entry['table'] ~ ")" -%}
        {%- set vendor = entry.get('vendor') -%}
        {%- if vendor is not none and vendor not in cdc_known_vendors() -%}
            {{ _cdc_config_error(where ~ ": vendor '" ~ vendor ~ "' is not one of " ~ cdc_known_vendors() | join(', ')) }}
        {%- endif -%}
        {%- set scd_type = entry.get('scd_type', 2) -%}
        {%- if scd_type not in [1, 2] -%}
            {{ _cdc_config_error(where ~ ": scd_type must be 1 (current state only) or 2 (current and history); got " ~ scd_type) }}
        {%- endif -%}
        {%- set deletes = entry.get('deletes', 'hard') -%}
        {%- if deletes not in ['hard', 'soft'] -%}
            {{ _cdc_config_error(where ~ ": deletes must be hard (a deleted key leaves cdc_current) or soft (it stays, flagged is_deleted); got " ~ deletes) }}
        {%- endif -%}
        {%- set keys = _cdc_config_names(entry, 'keys', where) -%}
        {%- set except_columns = _cdc_config_names(entry, 'except_columns', where) or [] -%}
        {%- for column in except_columns if keys is not none and column in keys -%}
            {{ _cdc_config_error(where ~ ": " ~ column ~ " is a key column and cannot be in except_columns") }}
        {%- endfor -%}
        {%- set tracked = _cdc_config_names(entry, 'track_history_columns', where) -%}
        {%- for column in except_columns if tracked is not none and column in tracked -%}
            {{ _cdc_config_error(where ~ ": " ~ column ~ " is in except_columns, so its history cannot be tracked") }}
        {%- endfor -%}
        {%- set setting = {
            'source_table': entry['table'],
            'key_columns': keys,
            'sequence_by': _cdc_config_names(entry, 'sequence_by', where),
            'scd_type': scd_type,
            'except_columns': except_columns,
            'track_history_columns': tracked,
            'soft_deletes': deletes == 'soft',
        } -%}
        {%- set bucket = for_all if vendor is none else for_one -%}
        {%- set id = (vendor or '*') ~ '|' ~ entry['table'] -%}
        {%- if id in bucket -%}
            {{ _cdc_config_error(where ~ ": the table is configured twice" ~ ("" if vendor is none else " for vendor " ~ vendor) ~ "; merge the two entries") }}
        {%- endif -%}
        {%- do bucket.update({id: setting}) -%}
    {%- endfor -%}
    {%- set resolved = [] -%}
    {%- for vendor in vendors -%}
        {%- for id, setting in for_all.items() if (vendor ~ '|' ~ setting['source_table']) not in for_one -%}
            {%- do resolved.append(dict(setting, source_vendor=vendor)) -%}
        {%- endfor -%}
        {%- for id, setting in for_one.items() if id.startswith(vendor ~ '|') -%}
            {%- do resolved.append(dict(setting, source_vendor=vendor)) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(resolved) }}
{% endmacro %}

{#- The settings of one vendor's tables (or all vendors') as a relation body: source_vendor,
    source_table, key_columns, sequence_by (arrays, null when not set), scd_type, except_columns,
    soft_deletes. No rows when nothing is configured. -#}
{% macro cdc_table_settings(vendor=none) %}
    {%- set settings = [] -%}
    {%- for setting in cdc_table_config() if vendor is none or setting['source_vendor'] == vendor -%}
        {%- do settings.append(setting) -%}
    {%- endfor -%}
    select
        source_vendor,
        source_table,
        key_columns,
        sequence_by,
        scd_type,
        except_columns,
        soft_deletes
    from values
    {%- for setting in settings %}
        ({{ _cdc_sql_text(setting['source_vendor']) }}, {{ _cdc_sql_text(setting['source_table']) }},
         {{ _cdc_sql_names(setting['key_columns']) }}, {{ _cdc_sql_names(setting['sequence_by']) }},
         {{ setting['scd_type'] }}, {{ _cdc_sql_names(setting['except_columns']) }}, {{ setting['soft_deletes'] }}){{ ',' if not loop.last }}
    {%- else %}
        (cast(null as string), cast(null as string), cast(null as array<string>), cast(null as array<string>),
         2, cast(array() as array<string>), false)
    {%- endfor %}
        as settings(source_vendor, source_table, key_columns, sequence_by, scd_type, except_columns, soft_deletes)
    {%- if settings | length == 0 %}
    where false
    {%- endif %}
{% endmacro %}

{% macro _cdc_sql_text(value) %}
    {{- "'" ~ value | replace("\\", "\\\\") | replace("'", "\\'") ~ "'" -}}
{% endmacro %}

{% macro _cdc_sql_names(names) %}
    {%- if names is none -%}
        cast(null as array<string>)
    {%- else -%}
        cast(array({% for name in names %}{{ _cdc_sql_text(name) }}{{ ', ' if not loop.last }}{% endfor %}) as array<string>)
    {%- endif -%}
{% endmacro %}

{#- A SQL predicate over source_vendor / source_table (with `prefix`, e.g. 'events.'): true for
    the (vendor, table) pairs whose setting passes `test` ('scd_type_1', 'soft_deletes'); false
    when none does. -#}
{% macro cdc_tables_where(test, prefix='') %}
    {%- if test not in ['scd_type_1', 'soft_deletes'] -%}
        {{ exceptions.raise_compiler_error("cdc_tables_where: test must be 'scd_type_1' or 'soft_deletes'; got " ~ test) }}
    {%- endif -%}
    {%- set pairs = [] -%}
    {%- for setting in cdc_table_config() -%}
        {%- if (test == 'scd_type_1' and setting['scd_type'] == 1) or (test == 'soft_deletes' and setting['soft_deletes']) -%}
            {%- do pairs.append('(' ~ _cdc_sql_text(setting['source_vendor']) ~ ', ' ~ _cdc_sql_text(setting['source_table']) ~ ')') -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if pairs | length == 0 -%}
        false
    {%- else -%}
        ({{ prefix }}source_vendor, {{ prefix }}source_table) in ({{ pairs | join(', ') }})
    {%- endif -%}
{% endmacro %}

{#- `image` (a row map) without the columns except_columns leaves out for its table; the map
    itself when no table sets except_columns. -#}
{% macro cdc_without_excepted_columns(image, is_array=false) %}
    {%- set cases = [] -%}
    {%- for setting in cdc_table_config() if setting['except_columns'] | length > 0 -%}
        {%- do cases.append(setting) -%}
    {%- endfor -%}
    {%- if cases | length == 0 -%}
        {{ image }}
    {%- else -%}
        case
        {%- for setting in cases %}
            when source_vendor = {{ _cdc_sql_text(setting['source_vendor']) }} and source_table = {{ _cdc_sql_text(setting['source_table']) }}
                then {% if is_array %}filter({{ image }}, column_name -> {% else %}map_filter({{ image }}, (column_name, column_value) -> {% endif %}not array_contains({{ _cdc_sql_names(setting['except_columns']) }}, column_name))
        {%- endfor %}
            else {{ image }}
        end
    {%- endif -%}
{% endmacro %}

{#- An expression over source_vendor / source_table: the table's track_history_columns as an
    array, null for tables that track every column; none when no table sets it. -#}
{% macro cdc_tracked_history_columns() %}
    {%- set cases = [] -%}
    {%- for setting in cdc_table_config() if setting['track_history_columns'] is not none -%}
        {%- do cases.append(setting) -%}
    {%- endfor -%}
    {%- if cases | length == 0 -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set expression -%}
        case
        {%- for setting in cases %}
            when source_vendor = {{ _cdc_sql_text(setting['source_vendor']) }} and source_table = {{ _cdc_sql_text(setting['source_table']) }}
                then {{ _cdc_sql_names(setting['track_history_columns']) }}
        {%- endfor %}
        end
    {%- endset -%}
    {{ return(expression) }}
{% endmacro %}

{#- A SQL predicate: true for the events of tables cdc_feeds keeps (all, when it says nothing). -#}
{% macro cdc_kept_tables_where() %}
    {%- set feeds = var('cdc_feeds', {}) or {} -%}
    {%- if feeds is not mapping -%}
        {{ _cdc_config_error("cdc_feeds must map a vendor to {include: [...], exclude: [...]}; got " ~ feeds) }}
    {%- endif -%}
    {%- set tests = [] -%}
    {%- for vendor, rule in feeds.items() -%}
        {%- if vendor not in cdc_known_vendors() -%}
            {{ _cdc_config_error("cdc_feeds: '" ~ vendor ~ "' is not one of " ~ cdc_known_vendors() | join(', ')) }}
        {%- endif -%}
        {%- if rule is not mapping -%}
            {{ _cdc_config_error("cdc_feeds." ~ vendor ~ " must be {include: [...], exclude: [...]}; got " ~ rule) }}
        {%- endif -%}
        {%- for field in rule if field not in ['include', 'exclude'] -%}
            {{ _cdc_config_error("cdc_feeds." ~ vendor ~ ": unknown setting '" ~ field ~ "'; write include and/or exclude") }}
        {%- endfor -%}
        {%- set include = _cdc_config_names(rule, 'include', 'cdc_feeds.' ~ vendor) -%}
        {%- set exclude = _cdc_config_names(rule, 'exclude', 'cdc_feeds.' ~ vendor) -%}
        {%- if include is not none -%}
            {%- do tests.append("(source_vendor != " ~ _cdc_sql_text(vendor) ~ " or source_table rlike " ~ _cdc_sql_text(_cdc_patterns_regex(include)) ~ ")") -%}
        {%- endif -%}
        {%- if exclude is not none -%}
            {%- do tests.append("(source_vendor != " ~ _cdc_sql_text(vendor) ~ " or not source_table rlike " ~ _cdc_sql_text(_cdc_patterns_regex(exclude)) ~ ")") -%}
        {%- endif -%}
    {%- endfor -%}
    {{ tests | join(' and ') if tests | length > 0 else 'true' }}
{% endmacro %}

{#- Table-name patterns (`*` = any text) as one anchored regular expression. -#}
{% macro _cdc_patterns_regex(patterns) %}
    {%- set alternatives = [] -%}
    {%- for pattern in patterns -%}
        {%- do alternatives.append(modules.re.escape(pattern) | replace('\\*', '.*')) -%}
    {%- endfor -%}
    {{- '^(' ~ alternatives | join('|') ~ ')$' -}}
{% endmacro %}

{#- A fingerprint of the configuration: a model built with another one is rebuilt in full
    (cdc_is_incremental), so a changed key or ordering applies to every event, not only new ones. -#}
{#- The model's table format is part of it: a state table moving from parquet to delta (or back)
    is rebuilt too. -#}
{% macro cdc_table_config_md5() %}
    {{ return(_cdc_config_fingerprint(cdc_table_config(), var('cdc_feeds', {}) or {}, cdc_key_fallback_columns(),
                                      config.get('file_format', 'parquet'))) }}
{% endmacro %}

{#- The fingerprint of a model built before the configuration existed: none, the default
    fallback key columns (dbt_project.yml) and parquet, so upgrading rebuilds nothing else. -#}
{% macro cdc_default_table_config_md5() %}
    {{ return(_cdc_config_fingerprint([], {}, ['id', '_id'], 'parquet')) }}
{% endmacro %}

{% macro _cdc_config_fingerprint(tables, feeds, fallback, file_format) %}
    {{ return(local_md5(tojson(tables) ~ '|' ~ tojson(feeds) ~ '|' ~ tojson(fallback) ~ '|' ~ file_format)) }}
{% endmacro %}
