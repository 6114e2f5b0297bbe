-- Raw records = change events + control records + quarantined records: every record read from
-- a landing file has exactly one outcome. Returns the records with none or more than one.
-- A Qlik data message still waiting for its table's metadata message counts as waiting.
with landing_records as (
    {{ cdc_union_vendors('base_<vendor>__landing_records', columns='source_vendor, _source_file, record_no', where='record_no > 0') }}
),

outcomes as (
    select distinct source_vendor, _source_file, _record_no, 'change' as outcome
    from {{ ref('int_cdc__change_events') }}
    union all
    select distinct source_vendor, _source_file, _record_no, 'control' as outcome
    from {{ ref('int_cdc__control_events') }}
    union all
    select distinct source_vendor, _source_file, _record_no, 'quarantine' as outcome
    from {{ ref('int_cdc__quarantine') }}
    {%- if 'qlik' in cdc_vendors() %}
        union all
        select distinct source_vendor, _source_file, _record_no, 'awaiting_metadata' as outcome
        from {{ ref('stg_qlik__awaiting_metadata') }}
    {%- endif %}
)

select
    landing_records.source_vendor,
    landing_records._source_file,
    landing_records.record_no,
    count(outcomes.outcome) as outcome_count,
    collect_list(outcomes.outcome) as outcomes
from landing_records
left join outcomes
    on landing_records.source_vendor = outcomes.source_vendor
    and landing_records._source_file = outcomes._source_file
    and landing_records.record_no = outcomes._record_no
group by landing_records.source_vendor, landing_records._source_file, landing_records.record_no
having count(outcomes.outcome) != 1
