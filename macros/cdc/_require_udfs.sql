{#- Fails a model that calls the project's Python UDFs when they are not registered:
    plain `dbt run` starts a Spark session without them; `cdc-dbt` registers them first. Only
    commands that run model SQL check (compiling, docs and linting need no UDFs). -#}
{% macro cdc_require_udfs() %}
    {%- if execute and flags.WHICH in ('run', 'build', 'show', 'test', 'retry') -%}
        {{ _cdc_fail_without_udfs('Model ' ~ this.identifier) }}
    {%- endif -%}
{% endmacro %}

{#- on-run-start (dbt_project.yml): the same check once per run, so that plain `dbt run` stops
    before its first model, whichever models are selected, with the message to use cdc-dbt. -#}
{% macro cdc_require_runner() %}
    {%- if execute and flags.WHICH in ('run', 'build', 'test', 'retry') -%}
        {{ _cdc_fail_without_udfs('`dbt ' ~ flags.WHICH ~ '` on this project') }}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}

{% macro _cdc_fail_without_udfs(who) %}
    {%- set found = run_query("show user functions like 'cdc_avro_records'") -%}
    {%- if found | length == 0 -%}
        {%- set msg -%}
{{ who }} needs the project's Python UDFs, which are not registered in this Spark session.
Run it through the project runner instead of plain dbt:
    .venv/bin/cdc-dbt {{ flags.WHICH }} ...
(on a cluster: start `cdc-spark-server` and use `--target thrift`; it registers them on the server).
        {%- endset -%}
        {{ exceptions.raise_compiler_error(msg) }}
    {%- endif -%}
{% endmacro %}
