{#- The two ways cdc_merge publishes a staging table (macros/materializations/cdc_merge.sql).
    Plain macros with plain arguments, so tests can render them and parse the SQL. -#}
{% macro cdc_overwrite_buckets_sql(target, staging, columns) %}
    -- cdc_merge: replace the buckets present in the staging table (dynamic partition overwrite)
    insert overwrite table {{ target }} partition (_bucket)
    select {{ columns | join(', ') }} from {{ staging }}
{% endmacro %}

{#- MERGE INTO for table formats with row-level operations. The staging table holds the whole
    new content of the buckets it covers: rows of those buckets that it no longer has are
    deleted; a row only replaces a stored row whose sequence is not newer (the guard). -#}
{% macro cdc_merge_into_sql(target, staging, columns, unique_key, sequence_column, buckets) %}
    -- cdc_merge: MERGE INTO with a delete branch and a sequence guard
    merge into {{ target }} as target
    using (select {{ columns | join(', ') }} from {{ staging }}) as source
    on {% for key in unique_key %}target.{{ key }} <=> source.{{ key }}{% if not loop.last %} and {% endif %}{% endfor %}
    when matched and source.{{ sequence_column }} >= target.{{ sequence_column }} then update set *
    when not matched then insert *
    when not matched by source and target._bucket in ({{ buckets | join(', ') }}) then delete
{% endmacro %}
