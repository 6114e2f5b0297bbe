"""The options the project session gives its driver JVM (python_udfs/runner.py: build_spark_session)."""

from __future__ import annotations

from types import SimpleNamespace

import pyspark.sql
import pytest

from python_udfs import runner


class _RecordingBuilder:
    """Stands in for SparkSession.builder: keeps every config, starts no JVM."""

    def __init__(self) -> None:
        self.conf: dict[str, str] = {}

    def appName(self, name):
        return self

    def master(self, master):
        return self

    def config(self, key, value):
        self.conf[key] = value
        return self

    def enableHiveSupport(self):
        return self

    def getOrCreate(self):
        return SimpleNamespace(sparkContext=SimpleNamespace(setLogLevel=lambda level: None))


@pytest.fixture
def driver_options(tmp_path, monkeypatch):
    """The driver's extraJavaOptions as a list, from a build_spark_session that starts nothing."""
    builder = _RecordingBuilder()
    monkeypatch.setattr(pyspark.sql, "SparkSession", SimpleNamespace(builder=builder))
    monkeypatch.setenv("CDC_SPARK_DIR", str(tmp_path))
    for name in ("JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS"):
        monkeypatch.delenv(name, raising=False)

    def options(java_options: str = "-Dcdc.test=1") -> list[str]:
        runner.build_spark_session(java_options=java_options)
        return builder.conf["spark.driver.extraJavaOptions"].split()

    return options


def test_the_driver_runs_the_parallel_collector(driver_options):
    options = driver_options()
    assert runner.DRIVER_GC_OPTION == "-XX:+UseParallelGC"
    assert options.count("-XX:+UseParallelGC") == 1
    # the class archive's options (or the caller's) still follow
    assert options[-1] == "-Dcdc.test=1"
    assert "-Duser.timezone=UTC" in options


@pytest.mark.parametrize("variable", ["JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS"])
def test_a_collector_chosen_in_the_java_environment_is_kept(driver_options, monkeypatch, variable):
    # two collectors on one command line stop the JVM ("Multiple garbage collectors selected")
    monkeypatch.setenv(variable, "-Xss4m -XX:+UseG1GC")
    options = driver_options()
    assert not [option for option in options if option.startswith("-XX:+Use") and option.endswith("GC")]


def test_other_java_options_in_the_environment_keep_the_collector(driver_options, monkeypatch):
    monkeypatch.setenv("JDK_JAVA_OPTIONS", "-Xss4m -XX:+UseCompressedOops")
    assert "-XX:+UseParallelGC" in driver_options()
