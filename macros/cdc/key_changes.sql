{#- Key changes sent as one update (Qlik UPDATE with a before image, DataHub update halves): when
    the key columns differ between the before and the after image, the row moved, so the old key
    gets a delete and the new key the update (DESIGN §5).

    cdc_key_change_ranks: a `lateral view` that yields `change_rank` 0 (the delete of the old key)
    and 1 (the change itself) for a key change, only 1 otherwise. Then use
    cdc_key_change_columns(...) in the select list. -#}
{% macro cdc_key_change_ranks(key_columns=none, before=none, after=none) %}
    {%- if key_columns is none or before is none or after is none -%}
        {{ exceptions.raise_compiler_error("cdc_key_change_ranks needs key_columns=, before= and after= SQL expressions") }}
    {%- endif -%}
    -- `outer`, though the array is never empty: for a plain explode Spark infers a filter on the
    -- array's size and pushes it down, computing both images' keys twice
    lateral view outer explode(
        case
            when {{ key_columns }} is not null
                and {{ cdc_image_key(key_columns, before) }} is not null
                and {{ cdc_image_key(key_columns, after) }} is not null
                and {{ cdc_image_key(key_columns, before) }} != {{ cdc_image_key(key_columns, after) }}
                then array(0, 1)
            else array(1)
        end
    ) key_change as change_rank
{% endmacro %}

{#- The key columns' values of an image as a comparable sorted array; null unless all are there. -#}
{% macro cdc_image_key(key_columns, image) %}
    case
        when size(map_filter({{ image }}, (column_name, column_value) -> array_contains({{ key_columns }}, column_name)))
            = size({{ key_columns }})
            then sort_array(map_entries(
                map_filter({{ image }}, (column_name, column_value) -> array_contains({{ key_columns }}, column_name))
            ))
    end
{% endmacro %}

{#- The columns a change row has after cdc_key_change_ranks, for the delete (change_rank 0) or
    the change itself: moved_vendor_op, moved_key, moved_before, moved_after, moved_position
    (with a change_rank entry, so both rows have their own identity and order). -#}
{% macro cdc_key_change_columns(vendor_op=none, key_columns=none, key=none, before=none, after=none, position=none, delete_op=none) %}
    {%- for name, value in [('vendor_op', vendor_op), ('key_columns', key_columns), ('key', key), ('before', before),
                            ('after', after), ('position', position), ('delete_op', delete_op)] if value is none -%}
        {%- set msg -%}
cdc_key_change_columns needs {{ name }}=: write SQL expressions for vendor_op, key_columns, key, before, after and position, and delete_op='<the vendor op code of a delete>'
        {%- endset -%}
        {{ exceptions.raise_compiler_error(msg) }}
    {%- endfor %}
    case when change_rank = 0 then '{{ delete_op }}' else {{ vendor_op }} end as moved_vendor_op,
    case
        when change_rank = 0
            then map_filter({{ before }}, (column_name, column_value) -> array_contains({{ key_columns }}, column_name))
        else {{ key }}
    end as moved_key,
    {{ before }} as moved_before,
    case when change_rank = 1 then {{ after }} end as moved_after,
    case
        when {{ position }} is not null then map_concat({{ position }}, map('change_rank', cast(change_rank as string)))
    end as moved_position
{% endmacro %}
