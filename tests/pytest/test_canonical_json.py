"""cdc_json_object, the canonical JSON text of `pk` and `row` (macros/cdc/json.sql), run in Spark on
maps a row can hold, against the same text written in Python: keys sorted by code point, each key
escaped as JSON, the values as they are (already JSON text), an entry with a SQL null value left
out, no whitespace. The oracle of every workload compares rows in this form (DESIGN §5). And the
history's fold, which builds the maps that text is written from (DECISIONLOG D58)."""

from __future__ import annotations

import json
import random

import pytest
from macro_rendering import macro_environment, macro_source

pytestmark = pytest.mark.spark

# key -> value (JSON text, or None for a SQL null); one map per entry of MAPS
MAPS = [
    {"id": "1"},
    {"b": '"x"', "a": "null", "B": "2.50", "_": '{"n":[1,2]}', "a b": '"y"'},
    # escapes (quote, backslash, newline, tab, a control character) and keys that sort differently
    # by code point than by UTF-16 unit (U+E000 before U+1D11E here, after it in UTF-16)
    {'quo"te': "1", "back\\slash": "2", "new\nline": "3", "tab\t": "4", "ctl\x01": "5",
     "\ue000": "6", "\U0001d11e": "7", "é": "8", "e": "9", "": "10"},
    {"kept": "1", "dropped": None},
    {},
    # 60 columns, written in another order than sorted
    {f"column_{(i * 37) % 60:02d}": str(i) for i in range(60)},
]


def python_canonical(mapping: dict[str, str | None] | None) -> str | None:
    if mapping is None:
        return None
    return "{" + ",".join(json.dumps(key, ensure_ascii=False) + ":" + value
                          for key, value in sorted(mapping.items()) if value is not None) + "}"


def sql_text(text: str | None) -> str:
    """A SQL expression for `text`, through hex so that no character needs a literal's escape."""
    return "cast(null as string)" if text is None else f"decode(unhex('{text.encode().hex()}'), 'UTF-8')"


def sql_map(mapping: dict[str, str | None]) -> str:
    keys = ", ".join(sql_text(key) for key in mapping)
    values = ", ".join(sql_text(value) for value in mapping.values())
    return (f"map_from_arrays(cast(array({keys}) as array<string>), "
            f"cast(array({values}) as array<string>))")


def rendered_sql(path: str, macro_names: tuple[str, ...], call: str) -> str:
    """The SQL the Jinja call `call` writes, with the macros `macro_names` of the project file `path`."""
    environment = macro_environment({"exceptions": None})
    macros = "".join(macro_source(path, name) for name in macro_names)
    return environment.from_string(macros + "{{ " + call + " }}").render()


def test_cdc_json_object_writes_what_python_writes(cdc_project):
    expression = rendered_sql("macros/cdc/json.sql", ("cdc_json_object",), "cdc_json_object('image')")
    cases = [*MAPS, None]
    # selects, not a values list: Spark evaluates a values list while analysing it, and decode is not
    # among what it evaluates there
    cases_sql = "\nunion all\n".join(
        f"select {number} as number, "
        f"{'cast(null as map<string,string>)' if mapping is None else sql_map(mapping)} as image"
        for number, mapping in enumerate(cases))
    got = cdc_project.sql(f"select number, {expression} as canonical from ({cases_sql}) as cases order by number")
    # the rows come as JSON, where a null column is left out
    assert [row.get("canonical") for row in got] == [python_canonical(mapping) for mapping in cases]
    # the cases reach the edges they are there for
    assert got[2]["canonical"].index('"\ue000"') < got[2]["canonical"].index('"\U0001d11e"')
    assert got[3]["canonical"] == '{"kept":1}'
    assert got[4]["canonical"] == "{}"
    assert "canonical" not in got[6]


FOLD_MACROS = ("_cdc_fold_versions", "_cdc_fold_changes")


def test_the_fold_lays_each_change_over_the_open_row(cdc_project):
    """_cdc_fold_versions (macros/cdc/history_rows.sql) on one key's timeline: a change replaces the
    columns it sends, a SQL null it sends included, and keeps the others; a delete closes the key
    with the last row; an insert after it starts from nothing."""
    fold = rendered_sql("macros/cdc/history_rows.sql", FOLD_MACROS, "_cdc_fold_versions('timeline')")
    changes = [  # op, the columns the change sends (None: a SQL null)
        ("insert", {"a": "1", "b": "2"}),
        ("update", {"b": None, "c": "3"}),
        ("update", {"a": "5"}),
        ("delete", {}),
        ("insert", {"d": '"x"'}),
    ]
    timeline = ", ".join(
        f"named_struct('op', '{op}', 'after', {sql_map(columns)}, 'sequence', array(cast({number} as decimal(38, 0))), "
        f"'committed_at', timestamp_micros({number}), 'event_id', 'e{number}')"
        for number, (op, columns) in enumerate(changes))
    # the row's entries in any order: json.loads makes a dict of them
    got = cdc_project.sql(
        f"select version.op, version.is_deleted, to_json(version.row) as row "
        f"from (select explode({fold}) as version from (select array({timeline}) as timeline))")
    assert [(row["op"], row["is_deleted"], json.loads(row["row"])) for row in got] == [
        ("insert", False, {"a": "1", "b": "2"}),
        ("update", False, {"a": "1", "b": None, "c": "3"}),
        ("update", False, {"a": "5", "b": None, "c": "3"}),
        ("delete", True, {"a": "5", "b": None, "c": "3"}),
        ("insert", False, {"d": '"x"'}),
    ]


def tracked_part(row: dict, tracked: list[str]) -> dict:
    """The tracked columns a row holds (a column held as null differs from one not held)."""
    return {name: value for name, value in row.items() if name in tracked}


def reference_fold(changes: list[dict], tracked: list[str] | None = None) -> list[tuple]:
    """The fold of DECISIONLOG D5/D6 in Python: (op, is_deleted, row, event_id) per version."""
    versions: list[tuple] = []
    for change in changes:
        live = bool(versions) and not versions[-1][1]
        if change["op"] in ("delete", "truncate"):
            if live:
                versions.append((change["op"], True, versions[-1][2], change["event_id"]))
            continue
        row = {**(versions[-1][2] if live else {}), **change["after"]}
        if tracked is not None and live and tracked_part(versions[-1][2], tracked) == tracked_part(row, tracked):
            versions[-1] = (versions[-1][0], False, row, versions[-1][3])  # updated in place
        else:
            versions.append((change["op"], False, row, change["event_id"]))
    return versions


@pytest.mark.parametrize("tracked", [None, ["a"]])
def test_a_long_timeline_folds_in_chunks_as_in_one_pass(cdc_project, tracked):
    """A timeline of over 256 events is folded in chunks, each starting from the version the one
    before ended with (D59). 1,100 random changes (5 chunks of 256) give the versions of the
    Python fold above; a change updating a version in place, a delete and a delete of a key that
    is not alive each come first in a chunk."""
    rng = random.Random(59)
    changes = []
    for number in range(1100):
        op = rng.choice(["insert", "update", "update", "update", "delete", "truncate"])
        after = {name: rng.choice([str(number), '"x"', None]) for name in rng.sample("abcde", rng.randint(1, 3))}
        if number in (255, 511, 766):
            op, after = "update", {"a": str(number)}  # live before the chunk's first event
        elif number == 256:
            op, after = "update", {"b": str(number)}  # leaves `a` as it was: in place when tracked
        elif number in (512, 767, 768):
            op, after = "delete", {}  # 768: the key is no longer alive
        changes.append({"op": op, "after": after, "sequence": [number], "event_id": f"e{number:04d}",
                        "committed_at": "2026-01-01T00:00:00"})
    struct = ("array<struct<op: string, after: map<string, string>, sequence: array<decimal(38, 0)>, "
              "committed_at: timestamp, event_id: string>>")
    if tracked is None:
        call = "_cdc_fold_versions('timeline')"
    else:
        call = "_cdc_fold_versions('timeline', \"array(" + ", ".join(f"'{name}'" for name in tracked) + ")\")"
    fold = rendered_sql("macros/cdc/history_rows.sql", FOLD_MACROS, call)
    # 1,100 events take the fold's chunked branch, not the one for 256 events or fewer
    assert "when size(timeline) <= 256" in fold and len(changes) > 256
    got = cdc_project.sql(
        "select version.op, version.is_deleted, to_json(version.row) as row, version.event_id "
        f"from (select posexplode({fold}) as (position, version) "
        f"from (select from_json({sql_text(json.dumps(changes))}, '{struct}') as timeline)) order by position")
    expected = reference_fold(changes, tracked)
    assert [(row["op"], row["is_deleted"], json.loads(row["row"]), row["event_id"]) for row in got] == expected
    # the edges the timeline was built for: a delete that closes, one that finds nothing to close,
    # and (tracked) a version that event 256 updated in place
    event_ids = [version[3] for version in expected]
    assert "e0512" in event_ids and "e0768" not in event_ids
    assert ("e0256" in event_ids) is (tracked is None)
