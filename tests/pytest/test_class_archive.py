"""The JVM class archive (python_udfs/class_archive.py): which archive a session maps, and when none."""

from __future__ import annotations

import pytest

from python_udfs import class_archive


@pytest.fixture
def archive_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(class_archive, "ARCHIVE_DIR", tmp_path)
    monkeypatch.delenv("CDC_CLASS_ARCHIVE", raising=False)
    return tmp_path


def test_no_archive_written_means_no_options(archive_dir):
    assert class_archive.archive_path().parent == archive_dir
    assert class_archive.java_options() == ""


def test_the_archive_of_this_jvm_is_mapped_and_its_warnings_go_to_stderr(archive_dir):
    path = class_archive.archive_path()
    path.write_bytes(b"archive")
    options = class_archive.java_options().split()
    assert f"-XX:SharedArchiveFile={path}" in options
    # a refused archive must not print into what `cdc-dbt show --output json` writes on stdout
    assert options[-2:] == ["-Xlog:disable", "-Xlog:all=warning:stderr"]


def test_off_starts_without_the_archive(archive_dir, monkeypatch):
    class_archive.archive_path().write_bytes(b"archive")
    monkeypatch.setenv("CDC_CLASS_ARCHIVE", "off")
    assert class_archive.java_options() == ""


def test_other_delta_jars_need_another_archive(archive_dir, tmp_path_factory, monkeypatch):
    without = class_archive.archive_path()
    jars = tmp_path_factory.mktemp("jars")
    for name in ("delta-spark_2.13-9.9.9.jar", "delta-storage-9.9.9.jar"):
        (jars / name).write_bytes(b"")
    monkeypatch.setenv("CDC_DELTA_JARS", str(jars))
    assert class_archive.archive_path() != without


def test_without_java_there_is_no_archive(archive_dir, monkeypatch):
    monkeypatch.setenv("PATH", str(archive_dir))
    monkeypatch.setenv("JAVA_HOME", str(archive_dir))
    assert class_archive.archive_path() is None
    assert class_archive.java_options() == ""
