"""Tests of the ddlMeta reader: the seed's real Java-serialized DDLMeta, streams the workload's
writer produces, and damaged input (which must give an error, never an exception)."""

from __future__ import annotations

import base64
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from workloads.datahub import (
    ALTER_TEXT,
    JavaClass,
    JavaObject,
    JavaStreamWriter,
    alter_add_column_meta,
    modified_utf8,
)

from python_udfs.java_serialization import DdlMeta, decode_ddl_meta, decode_modified_utf8, describe_ddl

# The real ddlMeta of the DDL example in shared/seeds/004_3b28fad0bd30944a.txt (附錄:DataHub消息格式,
# "DDL:" sample, payload.ddl.ddlMeta), copied verbatim; its ddl.text is SEED_DDL_TEXT.
SEED_DDL_TEXT = "alter table t_shiyu_nopk add column holo text"
SEED_DDL_META = (
    "rO0ABXNyACljb20uYWxpYmFiYS5kaS5wbHVnaW4uY2VudGVyLm1ldGEuRERMTWV0YQLb5Cx/YWXtAgACTAAHZGRsVGV4dHQA"
    "EkxqYXZhL2xhbmcvU3RyaW5nO0wACXN0YXRlbWVudHQAKkxjb20vYWxpYmFiYS9mYXN0c3FsL3NxbC9hc3QvU1FMU3RhdGVt"
    "ZW50O3hwdAAtYWx0ZXIgdGFibGUgdF9zaGl5dV9ub3BrIGFkZCBjb2x1bW4gaG9sbyB0ZXh0c3IAPGNvbS5hbGliYWJhLmZh"
    "c3RzcWwuc3FsLmFzdC5zdGF0ZW1lbnQuU1FMQWx0ZXJUYWJsZVN0YXRlbWVudBQPP3vMUl2cAgAPSQAHYnVja2V0c1oABmln"
    "bm9yZVoAF2ludmFsaWRhdGVHbG9iYWxJbmRleGVzWgAPbWVyZ2VTbWFsbEZpbGVzWgAHb2ZmbGluZVoABm9ubGluZVoADnJl"
    "bW92ZVBhdGl0aW5nWgATdXBkYXRlR2xvYmFsSW5kZXhlc1oAD3VwZ3JhZGVQYXRpdGluZ0wAC2NsdXN0ZXJlZEJ5dAAQTGph"
    "dmEvdXRpbC9MaXN0O0wABWl0ZW1zcQB+AAZMAAlwYXJ0aXRpb250ACxMY29tL2FsaWJhYmEvZmFzdHNxbC9zcWwvYXN0L1NR"
    "TFBhcnRpdGlvbkJ5O0wACHNvcnRlZEJ5cQB+AAZMAAx0YWJsZU9wdGlvbnNxAH4ABkwAC3RhYmxlU291cmNldAA6TGNvbS9h"
    "bGliYWJhL2Zhc3RzcWwvc3FsL2FzdC9zdGF0ZW1lbnQvU1FMRXhwclRhYmxlU291cmNlO3hyACxjb20uYWxpYmFiYS5mYXN0"
    "c3FsLnNxbC5hc3QuU1FMU3RhdGVtZW50SW1wbEOxUUDVCJMGAgADWgAJYWZ0ZXJTZW1pTAAGZGJUeXBldAAcTGNvbS9hbGli"
    "YWJhL2Zhc3RzcWwvRGJUeXBlO0wACWhlYWRIaW50c3EAfgAGeHIAKWNvbS5hbGliYWJhLmZhc3RzcWwuc3FsLmFzdC5TUUxP"
    "YmplY3RJbXBs5LvqLFggFVECAAVJAAxzb3VyY2VDb2x1bW5JAApzb3VyY2VMaW5lTAAKYXR0cmlidXRlc3QAD0xqYXZhL3V0"
    "aWwvTWFwO0wABGhpbnR0ACxMY29tL2FsaWJhYmEvZmFzdHNxbC9zcWwvYXN0L1NRTENvbW1lbnRIaW50O0wABnBhcmVudHQA"
    "J0xjb20vYWxpYmFiYS9mYXN0c3FsL3NxbC9hc3QvU1FMT2JqZWN0O3hwAAAAAAAAAABwcHAAfnIAGmNvbS5hbGliYWJhLmZh"
    "c3RzcWwuRGJUeXBlAAAAAAAAAAASAAB4cgAOamF2YS5sYW5nLkVudW0AAAAAAAAAABIAAHhwdAAFbXlzcWxwAAAAAAAAAAAA"
    "AAAAc3IAE2phdmEudXRpbC5BcnJheUxpc3R4gdIdmcdhnQMAAUkABHNpemV4cAAAAAB3BAAAAAB4c3EAfgAUAAAAAXcEAAAA"
    "AXNyADxjb20uYWxpYmFiYS5mYXN0c3FsLnNxbC5hc3Quc3RhdGVtZW50LlNRTEFsdGVyVGFibGVBZGRDb2x1bW4l5T6CFe//"
    "BAIABloAB2Nhc2NhZGVaAAVmaXJzdEwAC2FmdGVyQ29sdW1udAAlTGNvbS9hbGliYWJhL2Zhc3RzcWwvc3FsL2FzdC9TUUxO"
    "YW1lO0wAB2NvbHVtbnNxAH4ABkwAC2ZpcnN0Q29sdW1ucQB+ABhMAAhyZXN0cmljdHQAE0xqYXZhL2xhbmcvQm9vbGVhbjt4"
    "cQB+AAsAAAAAAAAAAHBwcQB+AA8AAHBzcQB+ABQAAAABdwQAAAABc3IAOWNvbS5hbGliYWJhLmZhc3RzcWwuc3FsLmFzdC5z"
    "dGF0ZW1lbnQuU1FMQ29sdW1uRGVmaW5pdGlvbst0gLKZ0qAtAgAmWgANYXV0b0luY3JlbWVudFoADGRpc2FibGVJbmRleFoA"
    "B3ByZVNvcnRJAAxwcmVTb3J0T3JkZXJaAAZzdG9yZWRaAAd2aXJ0dWFsWgAHdmlzaWJsZUwACGFubkluZGV4dAApTGNvbS9h"
    "bGliYWJhL2Zhc3RzcWwvc3FsL2FzdC9TUUxBbm5JbmRleDtMAAZhc0V4cHJ0ACVMY29tL2FsaWJhYmEvZmFzdHNxbC9zcWwv"
    "YXN0L1NRTEV4cHI7TAALY2hhcnNldEV4cHJxAH4AHkwADWNvbFByb3BlcnRpZXNxAH4ABkwAC2NvbGxhdGVFeHBycQB+AB5M"
    "AAdjb21tZW50cQB+AB5MAAtjb21wcmVzc2lvbnQALkxjb20vYWxpYmFiYS9mYXN0c3FsL3NxbC9hc3QvZXhwci9TUUxDaGFy"
    "RXhwcjtMAAtjb25zdHJhaW50c3EAfgAGTAAIZGF0YVR5cGV0AClMY29tL2FsaWJhYmEvZmFzdHNxbC9zcWwvYXN0L1NRTERh"
    "dGFUeXBlO0wABmRiVHlwZXEAfgAKTAALZGVmYXVsdEV4cHJxAH4AHkwACWRlbGltaXRlcnEAfgAeTAASZGVsaW1pdGVyVG9r"
    "ZW5pemVycQB+AB5MAAZlbmFibGVxAH4AGUwABmVuY29kZXEAfgAfTAAGZm9ybWF0cQB+AB5MABBnZW5lcmF0ZWRBbGF3c0Fz"
    "cQB+AB5MAAhpZGVudGl0eXQARExjb20vYWxpYmFiYS9mYXN0c3FsL3NxbC9hc3Qvc3RhdGVtZW50L1NRTENvbHVtbkRlZmlu"
    "aXRpb24kSWRlbnRpdHk7TAASanNvbkluZGV4QXR0cnNFeHBycQB+AB5MAAhtYXBwZWRCeXEAfgAGTAAEbmFtZXEAfgAYTAAM"
    "bmxwVG9rZW5pemVycQB+AB5MAAhvblVwZGF0ZXEAfgAeTAAEcmVseXEAfgAZTAAMc2VxdWVuY2VUeXBldAAvTGNvbS9hbGli"
    "YWJhL2Zhc3RzcWwvc3FsL2FzdC9BdXRvSW5jcmVtZW50VHlwZTtMAARzdGVwcQB+AB5MAAdzdG9yYWdlcQB+AB5MAAl1bml0"
    "Q291bnRxAH4AHkwACXVuaXRJbmRleHEAfgAeTAAIdmFsaWRhdGVxAH4AGUwACXZhbHVlVHlwZXEAfgAeeHEAfgALAAAAAAAA"
    "AABwcHEAfgAaAAAAAAAAAAAAAHBwcHBwcHBzcQB+ABQAAAAAdwQAAAAAeHNyADpjb20uYWxpYmFiYS5mYXN0c3FsLnNxbC5h"
    "c3Quc3RhdGVtZW50LlNRTENoYXJhY3RlckRhdGFUeXBlqtJac/d+04cCAAVaAAloYXNCaW5hcnlMAAtjaGFyU2V0TmFtZXEA"
    "fgABTAAIY2hhclR5cGVxAH4AAUwAB2NvbGxhdGVxAH4AAUwABWhpbnRzcQB+AAZ4cgArY29tLmFsaWJhYmEuZmFzdHNxbC5z"
    "cWwuYXN0LlNRTERhdGFUeXBlSW1wbEWL29pc1gZFAgAJSgAObmFtZUhhc2hDb2RlNjRaAAh1bnNpZ25lZFoAEXdpdGhMb2Nh"
    "bFRpbWVab25lWgAIemVyb2ZpbGxMAAlhcmd1bWVudHNxAH4ABkwABmRiVHlwZXEAfgAKTAAHaW5kZXhCeXEAfgAeTAAEbmFt"
    "ZXEAfgABTAAMd2l0aFRpbWVab25lcQB+ABl4cQB+AAsAAAAAAAAAAHBwcQB+ACP6BPTvGZVAfgAAAHNxAH4AFAAAAAB3BAAA"
    "AAB4cHB0AAR0ZXh0cABwcHBwcQB+ABJwcHBwcHBwcHBwc3IAMmNvbS5hbGliYWJhLmZhc3RzcWwuc3FsLmFzdC5leHByLlNR"
    "TElkZW50aWZpZXJFeHBy3DXH1zvWbgkCAARKAApoYXNoQ29kZTY0TAAEbmFtZXEAfgABTAAOcmVzb2x2ZWRDb2x1bW5xAH4A"
    "DkwAE3Jlc29sdmVkT3duZXJPYmplY3RxAH4ADnhyACdjb20uYWxpYmFiYS5mYXN0c3FsLnNxbC5hc3QuU1FMRXhwckltcGxs"
    "2ypmFJxWrQIAAHhxAH4ACwAAAAAAAAAAcHBwQCnxzH5tIDl0AARob2xvcHBwcHBwcHBwcHBweHBweHBzcQB+ABQAAAAAdwQA"
    "AAAAeHNxAH4AFAAAAAB3BAAAAAB4c3IAOGNvbS5hbGliYWJhLmZhc3RzcWwuc3FsLmFzdC5zdGF0ZW1lbnQuU1FMRXhwclRh"
    "YmxlU291cmNlRHD7eYJ4eswCAAVMAAdjb2x1bW5zcQB+AAZMAARleHBycQB+AB5MAApwYXJ0aXRpb25zcQB+AAZMAAhzYW1w"
    "bGluZ3QAOExjb20vYWxpYmFiYS9mYXN0c3FsL3NxbC9hc3Qvc3RhdGVtZW50L1NRTFRhYmxlU2FtcGxpbmc7TAAMc2NoZW1h"
    "T2JqZWN0dAAxTGNvbS9hbGliYWJhL2Zhc3RzcWwvc3FsL3JlcG9zaXRvcnkvU2NoZW1hT2JqZWN0O3hyADhjb20uYWxpYmFi"
    "YS5mYXN0c3FsLnNxbC5hc3Quc3RhdGVtZW50LlNRTFRhYmxlU291cmNlSW1wbAqEMenTm5zUAgAESgAPYWxpYXNIYXNoQ29k"
    "ZTY0TAAFYWxpYXNxAH4AAUwACWZsYXNoYmFja3EAfgAeTAAFaGludHNxAH4ABnhxAH4ACwAAAAAAAAAAcHBwAAAAAAAAAABw"
    "cHBwc3EAfgAqAAAAAAAAAABwcHEAfgA0NH7o4UvP9Dt0AAx0X3NoaXl1X25vcGtwcHBwcA=="
)
SEED_BYTES = base64.b64decode(SEED_DDL_META)
ERRORS = {"empty", "invalid_base64", "not_java_serialization", "truncated_stream", "invalid_stream", "no_ddl_text"}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _stream(*objects: JavaObject) -> bytes:
    writer = JavaStreamWriter()
    for obj in objects:
        writer.object(obj)
    return writer.getvalue()


HOLDER = JavaClass("com.example.Holder", 42, (("I", "version", None), ("L", "sql", "Ljava/lang/String;")))


# --- the seed's real value --------------------------------------------------------------------


def test_seed_ddl_meta_decodes_to_its_text():
    meta = decode_ddl_meta(SEED_DDL_META)
    assert meta.error is None and meta.error_detail is None
    assert meta.text == SEED_DDL_TEXT
    assert meta.operation == "ALTER"
    assert meta.table == "t_shiyu_nopk"
    assert meta.added_columns == ({"name": "holo", "type": "text"},)
    assert meta.dropped_columns == ()
    assert meta.class_name == "com.alibaba.di.plugin.center.meta.DDLMeta"


def test_seed_stream_strings_carry_their_class_and_field():
    meta = decode_ddl_meta(SEED_DDL_META)
    assert ("com.alibaba.di.plugin.center.meta.DDLMeta", "ddlText", SEED_DDL_TEXT) in meta.strings
    # the FastSQL tree holds the names again: the column, its type, the table, the enum constant
    values = [value for _owner, _field, value in meta.strings]
    assert {"holo", "text", "t_shiyu_nopk", "mysql"} <= set(values)
    assert ("com.alibaba.fastsql.sql.ast.expr.SQLIdentifierExpr", "name", "holo") in meta.strings


def test_seed_value_with_line_breaks_and_spaces_still_decodes():
    wrapped = "\n".join(SEED_DDL_META[i:i + 76] for i in range(0, len(SEED_DDL_META), 76))
    assert decode_ddl_meta(" " + wrapped + "\n").text == SEED_DDL_TEXT


def test_as_dict_is_plain_data():
    as_dict = decode_ddl_meta(SEED_DDL_META).as_dict()
    assert as_dict["text"] == SEED_DDL_TEXT and as_dict["added_columns"] == [{"name": "holo", "type": "text"}]
    assert isinstance(as_dict["strings"], list)


# --- damaged copies of the seed's value -------------------------------------------------------


@pytest.mark.parametrize("length", [5, 6, 7, 40, 60, 80, 100, 200, 1000, 2000, len(SEED_BYTES) - 1])
def test_truncated_seed_stream_is_an_error(length):
    meta = decode_ddl_meta(_b64(SEED_BYTES[:length]))
    assert meta.error == "truncated_stream", meta
    assert "bytes" in meta.error_detail


def test_truncated_after_the_text_keeps_the_text_and_the_error():
    at = SEED_BYTES.index(SEED_DDL_TEXT.encode()) + len(SEED_DDL_TEXT) + 10
    meta = decode_ddl_meta(_b64(SEED_BYTES[:at]))
    assert meta.error == "truncated_stream" and meta.text == SEED_DDL_TEXT


@pytest.mark.parametrize("value, error", [
    ("", "empty"),
    (None, "empty"),
    ("   ", "empty"),
    ("not base64 at all!", "invalid_base64"),
    (SEED_DDL_META[:-3], "invalid_base64"),  # broken padding
    (12345, "invalid_base64"),
    (_b64(b"just some plain text, not Java"), "not_java_serialization"),
    (_b64(b"\x1f\x8b\x08\x00gzip"), "not_java_serialization"),
    (_b64(b"\xac\xed"), "not_java_serialization"),
    (_b64(b"\xac\xed\x00\x04" + SEED_BYTES[4:]), "not_java_serialization"),  # protocol version 4
    (_b64(b"\xca\xfe\xba\xbe" + SEED_BYTES[4:]), "not_java_serialization"),  # flipped magic
    (_b64(b"\xac\xed\x00\x05"), "no_ddl_text"),  # an empty stream
    (_b64(b"\xac\xed\x00\x05\x74\x00\x05hello"), "no_ddl_text"),  # a string, but not a statement
    (_b64(b"\xac\xed\x00\x05\x99"), "invalid_stream"),  # unknown type code
    (_b64(b"\xac\xed\x00\x05\x71\x00\x7e\x00\x09"), "invalid_stream"),  # reference to nothing
    (_b64(b"\xac\xed\x00\x05\x78"), "invalid_stream"),  # end of block data out of place
    (_b64(b"\xac\xed\x00\x05\x7b"), "invalid_stream"),  # a serialized exception
])
def test_bad_values_give_an_error_code(value, error):
    meta = decode_ddl_meta(value)
    assert isinstance(meta, DdlMeta)
    assert meta.error == error, meta
    assert meta.error_detail


def test_a_byte_changed_inside_the_stream_is_an_error_or_a_result():
    damaged = bytearray(SEED_BYTES)
    damaged[6] ^= 0xFF  # the length of the first class name
    meta = decode_ddl_meta(_b64(bytes(damaged)))
    assert meta.error in ERRORS


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=len(SEED_BYTES)))
def test_any_truncation_never_raises(length):
    meta = decode_ddl_meta(_b64(SEED_BYTES[:length]))
    assert meta.error in ERRORS or (length == len(SEED_BYTES) and meta.error is None)
    if length < len(SEED_BYTES):
        assert meta.error is not None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(min_value=0, max_value=len(SEED_BYTES) - 1), st.integers(1, 255)),
                min_size=1, max_size=6))
def test_random_byte_flips_never_raise(flips):
    damaged = bytearray(SEED_BYTES)
    for position, mask in flips:
        damaged[position] ^= mask
    meta = decode_ddl_meta(_b64(bytes(damaged)))
    assert isinstance(meta, DdlMeta)
    assert meta.error is None or meta.error in ERRORS
    assert meta.error is not None or meta.text is not None


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=200), st.binary(max_size=300).map(_b64),
                 st.binary(max_size=300).map(lambda b: _b64(b"\xac\xed\x00\x05" + b))))
def test_arbitrary_input_never_raises(value):
    meta = decode_ddl_meta(value)
    assert meta.error is None or meta.error in ERRORS


# --- streams from the writer: the grammar beyond the seed's object ----------------------------


def test_generated_alter_meta_round_trips():
    meta = decode_ddl_meta(alter_add_column_meta(ALTER_TEXT, "accounts", "tier", "varchar", (16,)))
    assert meta.error is None, meta
    assert meta.text == ALTER_TEXT
    assert (meta.operation, meta.table) == ("ALTER", "accounts")
    assert meta.added_columns == ({"name": "tier", "type": "varchar(16)"},)


def test_long_strings_nul_and_supplementary_characters():
    text = "ALTER TABLE t ADD COLUMN c text COMMENT '" + "x" * 70_000 + "\x00😀'"
    data = _stream(JavaObject(HOLDER, {"version": 7, "sql": text}))
    assert b"\x7c" + struct.pack(">q", len(modified_utf8(text))) in data  # TC_LONGSTRING
    meta = decode_ddl_meta(_b64(data))
    assert meta.error is None and meta.text == text
    assert meta.added_columns == ({"name": "c", "type": "text"},)


def test_modified_utf8_both_ways():
    for text in ("", "plain", "Zoë", "李雷", "\x00", "a\x00b", "😀", "mix 😀 李 \x00 é"):
        assert decode_modified_utf8(modified_utf8(text)) == text
    assert modified_utf8("\x00") == b"\xc0\x80"
    assert modified_utf8("😀") == b"\xed\xa0\xbd\xed\xb8\x80"


def test_repeated_strings_are_back_references_with_their_own_field():
    other = JavaClass("com.example.Other", 1, (("L", "query", "Ljava/lang/String;"),))
    statement = "DROP TABLE IF EXISTS `db`.`old_t`"
    data = _stream(JavaObject(other, {"query": statement}), JavaObject(HOLDER, {"version": 1, "sql": statement}))
    assert data.count(statement.encode()) == 1
    meta = decode_ddl_meta(_b64(data))
    assert meta.error is None and meta.text == statement
    assert ("com.example.Holder", "sql", statement) in meta.strings
    assert (meta.operation, meta.table) == ("DROP", "db.old_t")


def test_prefers_the_ddl_text_field_over_stream_order():
    note = JavaClass("com.example.Note", 3, (("L", "comment", "Ljava/lang/String;"),
                                             ("L", "ddlText", "Ljava/lang/String;")))
    data = _stream(JavaObject(note, {"comment": "create table is what we did yesterday", "ddlText": "DROP TABLE x"}))
    assert decode_ddl_meta(_b64(data)).text == "DROP TABLE x"


def test_reset_arrays_enums_classes_and_block_data():
    # TC_RESET, then a String[] array, a Class object, an enum and block data at the top level
    words = ["RENAME TABLE a TO b", "other"]
    array = bytearray(b"\x75\x72") + struct.pack(">H", 19) + b"[Ljava.lang.String;" + struct.pack(">q", 1)
    array += b"\x02\x00\x00\x78\x70" + struct.pack(">i", 2)
    for word in words:
        array += b"\x74" + struct.pack(">H", len(word)) + word.encode()
    enum = (b"\x7e\x72" + struct.pack(">H", 5) + b"a.Dir" + struct.pack(">q", 0) + b"\x12\x00\x00\x78\x70"
            + b"\x74\x00\x04EAST")
    klass = b"\x76\x71" + struct.pack(">i", 0x7E0000)  # the class of the array (handle 0 after the reset)
    block = b"\x77\x03abc" + b"\x7a" + struct.pack(">i", 2) + b"xy"
    ints = b"\x75\x72\x00\x02[I" + struct.pack(">q", 0) + b"\x02\x00\x00\x78\x70" + struct.pack(">ii", 1, 5)
    data = b"\xac\xed\x00\x05\x74\x00\x02hi\x79" + bytes(array) + klass + enum + block + ints
    meta = decode_ddl_meta(_b64(data))
    assert meta.error is None, meta
    assert meta.text == "RENAME TABLE a TO b"
    assert (meta.operation, meta.table, meta.renamed_to) == ("RENAME", "a", "b")
    assert [value for _o, _f, value in meta.strings] == ["hi", *words, "EAST"]


# --- what the DDL says ------------------------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("alter table t_shiyu_nopk add column holo text",
     ("ALTER", "t_shiyu_nopk", [{"name": "holo", "type": "text"}], [])),
    (("ALTER TABLE `db`.`t` ADD COLUMN `a` varchar(20) NOT NULL DEFAULT '' COMMENT 'x', "
      "ADD `b` decimal(10, 2) unsigned, DROP COLUMN c, DROP d, ADD INDEX idx_a (a), DROP PRIMARY KEY;"),
     ("ALTER", "db.t", [{"name": "a", "type": "varchar(20)"}, {"name": "b", "type": "decimal(10,2) unsigned"}],
      ["c", "d"])),
    ("ALTER TABLE t ADD COLUMN (x int, y double precision NULL)",
     ("ALTER", "t", [{"name": "x", "type": "int"}, {"name": "y", "type": "double precision"}], [])),
    ("ALTER TABLE t ADD COLUMN IF NOT EXISTS z timestamp with time zone",
     ("ALTER", "t", [{"name": "z", "type": "timestamp with time zone"}], [])),
    ("ALTER TABLE t DROP COLUMN IF EXISTS gone", ("ALTER", "t", [], ["gone"])),
    ("ALTER TABLE t RENAME COLUMN a TO b", ("ALTER", "t", [], [])),
    ("/* by dts */ CREATE TABLE IF NOT EXISTS `shop`.`orders` (id bigint primary key)",
     ("CREATE", "shop.orders", [], [])),
    ("DROP TABLE IF EXISTS t1", ("DROP", "t1", [], [])),
    ("TRUNCATE TABLE t2", ("TRUNCATE", "t2", [], [])),
    ("truncate t3", ("TRUNCATE", "t3", [], [])),
    ("CREATE UNIQUE INDEX ux ON t4 (a)", ("CREATE", "t4", [], [])),
    ("DROP INDEX ix ON `t5`", ("DROP", "t5", [], [])),
    ("ALTER TABLE \"public\".\"T\" ADD \"Col\" integer", ("ALTER", "public.T", [{"name": "Col", "type": "integer"}],
                                                         [])),
    ("GRANT ALL ON t TO u", ("GRANT", None, [], [])),
])
def test_describe_ddl(text, expected):
    described = describe_ddl(text)
    operation, table, added, dropped = expected
    assert described["operation"] == operation
    assert described["table"] == table
    assert list(described["added_columns"]) == added
    assert list(described["dropped_columns"]) == dropped


@pytest.mark.parametrize("text", [None, "", "   ", "(", "'unterminated", "ALTER", "ALTER TABLE"])
def test_describe_ddl_of_fragments(text):
    described = describe_ddl(text)
    assert set(described) == {"operation", "table", "added_columns", "dropped_columns", "renamed_to"}
