"""Renders the project's dbt macros with plain Jinja, for tests that need no dbt project: each
macro is cut out of its file, and the test gives stand-ins for the dbt functions it calls.

dbt's `return` ends the macro that calls it; the stand-in ends the whole render, so the macro
called from the template must be the one whose answer the test reads (a macro it calls that
returns early must be given as a stand-in too)."""

from __future__ import annotations

import re
import types

import jinja2
import pytest
from conftest import PROJECT_DIR


def macro_source(path: str, name: str) -> str:
    """The text of `{% macro name(...) %} ... {% endmacro %}` in the project file `path`."""
    source = (PROJECT_DIR / path).read_text(encoding="utf-8")
    return re.search(r"{% macro " + name + r"\(.*?{% endmacro %}", source, re.DOTALL).group(0)


class _Returned(Exception):
    def __init__(self, value):
        self.value = value


def _return(value):
    raise _Returned(value)


def macro_environment(stand_ins: dict) -> jinja2.Environment:
    """Plain Jinja with dbt's `do`, `return` and `modules.re`, and `stand_ins` (name -> value) for
    the other dbt functions a macro calls."""
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    env.globals.update({"return": _return, "modules": types.SimpleNamespace(re=re), **stand_ins})
    return env


def render_macro(macros: str, call: str, stand_ins: dict, **variables):
    """What the macro call `call` (Jinja, e.g. `_cdc_view_sql_md5(relation)`) returns, with the
    `macros` defined and dbt's functions replaced by `stand_ins` (name -> value)."""
    env = macro_environment(stand_ins)
    # a macro whose name starts with `_` is private to its template: call it from the template
    with pytest.raises(_Returned) as returned:
        env.from_string(macros + "{{ " + call + " }}").render(**variables)
    return returned.value.value
