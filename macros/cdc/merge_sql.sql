{#- The two ways cdc_merge publishes a staging table (macros/materializations/cdc_merge.sql).
    Plain macros with plain arguments, so tests can render them and parse the SQL. -#}
{% macro cdc_overwrite_buckets_sql(target, staging, columns) %}
    -- cdc_merge: replace the buckets present in the staging table (dynamic partition overwrite)
    insert overwrite table {{ target }} partition (_bucket)
    select {{ columns | join(', ') }} from {{ staging }}
{% endmacro %}

{#- MERGE INTO for table formats with row-level operations. The staging table holds the
    recomputed rows of the keys a batch touched, and, flagged `_cdc_delete`, the stored rows of
    those keys that are gone (their versions were renumbered or retired): those are deleted; a
    row only replaces a stored row whose sequence is not newer (the guard) and, unless
    `changed_rows_only`, only when one of its other columns differs (the key's are equal, the match
    says so): a batch recomputes every version of a key it touches, but usually changes only the
    last, and a row left alone is not rewritten (deletion vectors mark only replaced rows).
    Publishing the same staging table twice gives the same table, so a run killed after the MERGE
    converges, and with the check the second publish writes nothing. `changed_rows_only`: the
    staging table was built against the target as it is now and holds only rows that differ from
    their stored row (_cdc_stage_changes), so the check is left out: it made Delta read every
    column of every file a matched row is in (DECISIONLOG D50). -#}
{% macro cdc_merge_into_sql(target, staging, columns, unique_key, sequence_column, changed_rows_only=false) %}
    -- cdc_merge: MERGE INTO with a delete branch and a sequence guard
    merge into {{ target }} as target
    using (select {{ columns | join(', ') }}, _cdc_delete from {{ staging }}) as source
    on {{ cdc_null_safe_equal(unique_key, 'target', 'source') }}
    when matched and source._cdc_delete then delete
    when matched and source.{{ sequence_column }} >= target.{{ sequence_column }}
        {%- if not changed_rows_only %}
        and not ({{ cdc_null_safe_equal(columns | reject('in', unique_key) | list, 'target', 'source') }})
        {%- endif %} then update set
        {% for column in columns %}{{ column }} = source.{{ column }}{% if not loop.last %}, {% endif %}{% endfor %}
    when not matched and not source._cdc_delete then insert ({{ columns | join(', ') }})
        values ({% for column in columns %}source.{{ column }}{% if not loop.last %}, {% endif %}{% endfor %})
{% endmacro %}

{#- SQL condition: the rows `left` and `right` hold equal values in `columns`, a null equal to a
    null (`true` when there are no columns). -#}
{% macro cdc_null_safe_equal(columns, left, right) -%}
    {%- for column in columns -%}
        {{ left }}.{{ column }} <=> {{ right }}.{{ column }}{% if not loop.last %} and {% endif %}
    {%- else -%}
        true
    {%- endfor -%}
{%- endmacro %}
