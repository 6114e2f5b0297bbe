"""Where a dbt unit test puts its given rows: the same place, found for a fifth of the cost (DECISIONLOG D44).

A dbt unit test runs the model's compiled SQL with the given rows in front of it as common table
expressions. dbt finds where they go with `dbt.compilation.inject_ctes_into_sql`, which parses the
whole statement with sqlparse (lexing, splitting, grouping) to find its leading `with`: about
1.2 s of pure Python for the 160 KB compiled Datastream flattening, held under the GIL while the
other dbt thread waits.

sqlparse's lexer alone (a fifth of that) answers the question. When the SQL is one statement (no
`;` token) that opens with `with` after blanks and comments, and the next token is not
`recursive`, the CTEs go where dbt's function puts them: after `with` and the blanks that follow
it (tests/pytest/test_cte_injection.py compares the two). Anything else goes to dbt's function.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlparse import lexer
from sqlparse import tokens as T

from python_udfs.dbt_routes import route


def inject_ctes_into_sql(sql: str, ctes: Sequence, dbt_inject: Callable[[str, Sequence], str]) -> str:
    """dbt's injection of `ctes` (objects with a `.sql` of `" name as (...)"`) into `sql`, found
    with sqlparse's lexer when the SQL opens with `with`; else `dbt_inject(sql, ctes)`."""
    if len(ctes) == 0:
        return sql
    position = 0
    at = None  # where the CTEs go: after `with` and the blanks after it, before the next token
    for ttype, value in lexer.tokenize(sql):
        if at is None:
            if ttype in T.Whitespace or ttype in T.Comment:
                pass
            elif ttype in T.Keyword and value.upper() == "WITH":
                at = position + len(value)
            else:
                return dbt_inject(sql, ctes)  # no leading `with`
        elif position == at and ttype in T.Whitespace:
            at += len(value)
        elif position == at and ttype in T.Keyword and value.upper() == "RECURSIVE":
            return dbt_inject(sql, ctes)
        elif ttype in T.Punctuation and value == ";":
            return dbt_inject(sql, ctes)  # dbt keeps the first statement only
        position += len(value)
    if at is None:
        return dbt_inject(sql, ctes)
    # [with ][the CTEs][, ][the original SQL from that token on], as dbt writes it
    return sql[:at] + ", ".join(cte.sql for cte in ctes) + ", " + sql[at:]


def install() -> bool:
    """Route dbt's CTE injection through inject_ctes_into_sql; False (and nothing changed) when
    this dbt has no `dbt.compilation.inject_ctes_into_sql` to route."""
    import dbt.compilation

    def routed_version(dbt_inject: Callable[[str, Sequence], str]) -> Callable[[str, Sequence], str]:
        return lambda sql, ctes: inject_ctes_into_sql(sql, ctes, dbt_inject)

    return route(dbt.compilation, "inject_ctes_into_sql", routed_version)
