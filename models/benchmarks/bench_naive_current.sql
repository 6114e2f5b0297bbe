{{ config(enabled=var('cdc_benchmark', false), materialized='table') }}

-- Benchmark baseline (benchmarks/run_benchmark.py), built only with --vars '{cdc_benchmark: true}':
-- the dedupe an engineer writes by hand today. The latest event of a key wins and deleted keys
-- are dropped; no partial-row fill, no truncates, no history, and every run recomputes all keys.
with ranked_events as (
    select
        source_vendor,
        source_table,
        pk,
        op,
        after,
        sequence,
        source_committed_at,
        row_number() over (
            partition by source_vendor, source_table, pk
            order by sequence desc
        ) as version_rank
    from {{ ref('int_cdc__change_events') }}
    where pk is not null
)

select
    source_vendor,
    source_table,
    pk,
    after,
    sequence,
    source_committed_at,
    op as last_op
from ranked_events
where
    version_rank = 1
    and op != 'delete'
