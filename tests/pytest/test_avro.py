"""Tests of the Avro container reader on the Datastream samples, on hand-written files and on
empty, truncated and corrupt copies."""

from __future__ import annotations

import datetime as dt
import io
import json
import uuid
from decimal import Decimal
from pathlib import Path

import fastavro
import pytest
from landing_split import read_landing_file

from python_udfs.avro import AvroFileDamaged, avro_records, read_avro, render

CONFORMANCE = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "datastream" / "published"
AVRO_FILES = sorted(CONFORMANCE.glob("*.avro")) if CONFORMANCE.is_dir() else []

ROWS_SCHEMA = {
    "type": "record",
    "name": "row",
    "fields": [{"name": "id", "type": "long"}, {"name": "name", "type": ["null", "string"]}],
}


def sample(name: str) -> Path:
    path = CONFORMANCE / name
    if not path.is_file():
        pytest.skip(f"conformance sample {name} not found under {CONFORMANCE}")
    return path


def write_avro(path: Path, rows: list[dict], schema: dict = ROWS_SCHEMA, **options) -> bytes:
    buffer = io.BytesIO()
    fastavro.writer(buffer, fastavro.parse_schema(schema), rows, **options)
    path.write_bytes(buffer.getvalue())
    return buffer.getvalue()


def rows(count: int) -> list[dict]:
    return [{"id": n, "name": f"name {n}" if n % 3 else None} for n in range(count)]


# --- the conformance samples -----------------------------------------------------------------


@pytest.mark.parametrize("path", AVRO_FILES, ids=[p.name for p in AVRO_FILES])
def test_every_sample_decodes_like_fastavro_reads_it(path):
    records, error = read_avro(str(path))
    assert error is None
    assert records
    with path.open("rb") as handle:
        assert records == [render(datum) for datum in fastavro.reader(handle)]
    for text in records:
        assert isinstance(json.loads(text), dict)


def test_sample_record_total():
    if not AVRO_FILES:
        pytest.skip("no conformance samples")
    assert sum(len(avro_records(str(path))) for path in AVRO_FILES) == 273


def test_sample_rendering_of_logical_types():
    (text,) = avro_records(str(sample("delete.avro")))
    datum = json.loads(text)
    assert datum["source_timestamp"] == "2021-03-22T07:58:18Z"  # timestamp-millis
    assert datum["read_timestamp"] == "2021-03-22T08:05:33.148Z"
    assert datum["payload"]["SALARY"] == "8888.00"  # decimal bytes
    assert datum["source_metadata"]["rs_id"] == " 0x0000d6.00000002.0010 "
    (text,) = avro_records(str(sample("bytearray.avro")))
    assert json.loads(text)["payload"]["binary_content"] == "3q2+7w=="  # bytes as base64


def test_text_is_canonical_json():
    (text,) = avro_records(str(sample("insert.avro")))
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# --- rendering -------------------------------------------------------------------------------


def test_render_of_python_values():
    datum = {
        "u": uuid.UUID("7b7f2b1e-0c5a-4d6e-9a4c-2b4c9b0f7c11"),
        "tiny": Decimal("0.000000001"),
        "big": Decimal("1E+3"),
        "nan": Decimal("NaN"),
        "day": dt.date(2024, 5, 9),
        "at": dt.datetime(2024, 5, 9, 6, 56, 53, 100000, tzinfo=dt.UTC),
        "clock": dt.time(1, 2, 3),
        "raw": b"\xde\xad\xbe\xef",
        "nested": [{"d": Decimal("12.50")}],
    }
    assert json.loads(render(datum)) == {
        "u": "7b7f2b1e-0c5a-4d6e-9a4c-2b4c9b0f7c11",
        "tiny": "0.000000001",
        "big": "1000",
        "nan": "NaN",
        "day": "2024-05-09",
        "at": "2024-05-09T06:56:53.1Z",
        "clock": "01:02:03",
        "raw": "3q2+7w==",
        "nested": [{"d": "12.50"}],
    }


def test_logical_types_in_a_written_file(tmp_path):
    schema = {
        "type": "record",
        "name": "typed",
        "fields": [
            {"name": "u", "type": {"type": "string", "logicalType": "uuid"}},
            {"name": "d", "type": {"type": "bytes", "logicalType": "decimal", "precision": 20, "scale": 9}},
            {"name": "t", "type": {"type": "long", "logicalType": "timestamp-micros"}},
            {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        ],
    }
    value = {"u": uuid.UUID("7b7f2b1e-0c5a-4d6e-9a4c-2b4c9b0f7c11"), "d": Decimal("0.000000001"),
             "t": dt.datetime(2024, 5, 9, 6, 56, 53, 123456, tzinfo=dt.UTC), "day": dt.date(2024, 5, 9)}
    path = tmp_path / "typed.avro"
    write_avro(path, [value], schema)
    expected = ('{"d":"0.000000001","day":"2024-05-09","t":"2024-05-09T06:56:53.123456Z",'
                '"u":"7b7f2b1e-0c5a-4d6e-9a4c-2b4c9b0f7c11"}')
    assert avro_records(str(path)) == [expected]


# --- valid files of other shapes -------------------------------------------------------------


@pytest.mark.parametrize("codec", ["null", "deflate", "bzip2"])
def test_multi_block_files_of_each_codec(tmp_path, codec):
    path = tmp_path / f"{codec}.avro"
    write_avro(path, rows(500), codec=codec, sync_interval=1000)
    records, error = read_avro(str(path))
    assert error is None
    assert [json.loads(text) for text in records] == rows(500)


def test_a_file_with_a_header_and_no_blocks_has_no_records(tmp_path):
    path = tmp_path / "none.avro"
    write_avro(path, [])
    assert read_avro(str(path)) == ([], None)


# --- empty, truncated and corrupt files ------------------------------------------------------


def test_empty_file_is_an_error_not_a_crash(tmp_path):
    path = tmp_path / "empty.avro"
    path.write_bytes(b"")
    records, error = read_avro(str(path))
    assert records == [] and "empty file" in error
    with pytest.raises(AvroFileDamaged) as raised:
        avro_records(str(path))
    assert raised.value.records == []


def test_not_an_avro_file(tmp_path):
    path = tmp_path / "text.avro"
    path.write_text('{"payload": {}}\n', encoding="utf-8")
    records, error = read_avro(str(path))
    assert records == [] and "not an Avro object container file" in error


def test_truncated_sample_keeps_the_records_before_the_cut(tmp_path):
    data = sample("dump.avro").read_bytes()
    full = avro_records(str(sample("dump.avro")))
    path = tmp_path / "dump-cut.avro"
    path.write_bytes(data[: len(data) * 2 // 3])
    records, error = read_avro(str(path))
    # one block holds all 108 rows: the rows before the cut are decoded datum by datum
    assert 50 < len(records) < len(full)
    assert records == full[: len(records)]
    assert "the last block is cut" in error and f"after {len(records)} records" in error
    with pytest.raises(AvroFileDamaged) as raised:
        avro_records(str(path))
    assert raised.value.records == records


def test_every_cut_of_a_sample_gives_a_prefix_of_its_records(tmp_path):
    source = sample("mysql-cdc-Users.avro")
    data = source.read_bytes()
    full = avro_records(str(source))
    path = tmp_path / "cut.avro"
    header_end = data.index(data[-16:]) + 16  # the header ends with the sync marker
    for size in range(len(data)):
        path.write_bytes(data[:size])
        records, error = read_avro(str(path))
        assert records == full[: len(records)]
        if size == header_end:
            assert (records, error) == ([], None)  # a header alone is a valid empty file
        else:
            assert error is not None, size
            assert "0x" not in error  # no object addresses: the same detail every run
    assert len(read_avro(str(path)).records) == len(full)  # cut inside the last sync marker


@pytest.mark.parametrize("codec", ["null", "deflate", "bzip2"])
def test_cut_in_a_later_block_keeps_earlier_blocks(tmp_path, codec):
    path = tmp_path / "multi.avro"
    data = write_avro(path, rows(300), codec=codec, sync_interval=500)
    sync = data[-16:]
    last_block = data.rindex(sync, 0, len(data) - 16) + 16  # where the last block starts
    for size in (last_block + 1, (last_block + len(data)) // 2, len(data) - 20):
        path.write_bytes(data[:size])
        records, error = read_avro(str(path))
        assert 200 < len(records) <= 300, size  # a cut deflate stream may still hold every row
        assert [json.loads(text) for text in records] == rows(len(records))
        assert error is not None


def test_corrupt_sync_marker(tmp_path):
    path = tmp_path / "sync.avro"
    data = bytearray(write_avro(path, rows(5)))
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    records, error = read_avro(str(path))
    assert len(records) == 5 and "sync marker" in error


def test_corrupt_block_header(tmp_path):
    path = tmp_path / "count.avro"
    data = write_avro(path, rows(3))
    header_end = data.index(data[-16:]) + 16
    path.write_bytes(data[:header_end] + b"\x01" + data[header_end + 1:])  # a count of -1
    records, error = read_avro(str(path))
    assert records == [] and "corrupt block header" in error


def test_landing_reader_does_not_crash_on_damaged_files(tmp_path):
    empty = tmp_path / "empty.avro"
    empty.write_bytes(b"")
    cut = tmp_path / "cut.avro"
    data = write_avro(cut, rows(50))
    cut.write_bytes(data[:-40])
    for path in (empty, cut):
        read = list(read_landing_file(str(path)))
        numbers = [number for number, _text, _error in read]
        assert len(numbers) == len(set(numbers)), read  # every record number once
        assert read[-1][1] is None and read[-1][2]  # the damage is reported as the last record
        # the records before the damage, if the landing reader passes them on, come first
        good = [text for _number, text, error in read if error is None]
        assert good == read_avro(str(path)).records[: len(good)]
