"""The benchmark's account of a JVM's CPU by kind of thread (benchmarks/jvm_cpu.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from conftest import PROJECT_DIR

sys.path.insert(0, str(PROJECT_DIR / "benchmarks"))
import jvm_cpu  # benchmarks/ is a folder of scripts, not a package


def test_a_stat_line_gives_name_parent_and_ticks_even_with_parentheses_in_the_name():
    fields = " ".join(str(n) for n in range(3, 53))  # state is field 3, ppid 4, utime 14, stime 15
    line = f"4242 (C2 Compiler) (x)) {fields}\n".replace(" 3 4 ", " S 17 ", 1)
    name, parent, ticks = jvm_cpu.parse_stat(line)
    assert (name, parent, ticks) == ("C2 Compiler) (x)", 17, 14 + 15)


def test_threads_are_grouped_by_the_names_the_jvm_gives_them():
    assert jvm_cpu.thread_kind("C2 CompilerThre") == "JIT compilers"
    assert jvm_cpu.thread_kind("C1 CompilerThre") == "JIT compilers"
    assert jvm_cpu.thread_kind("Executor task l") == "Spark tasks"
    assert jvm_cpu.thread_kind("GC Thread#1") == "garbage collector"
    assert jvm_cpu.thread_kind("VM Thread") == "garbage collector"
    assert jvm_cpu.thread_kind("Thread-5") == jvm_cpu.OTHER
    assert jvm_cpu.thread_kind("java") == jvm_cpu.OTHER


@pytest.mark.skipif(not jvm_cpu.PROC.joinpath("self", "task").is_dir(), reason="needs Linux's /proc")
def test_a_jvm_started_below_a_shell_is_found_and_its_cpu_counted(tmp_path):
    """A real JVM, a grandchild as Spark's is under cdc-dbt, spins for about two seconds."""
    source = tmp_path / "Spin.java"
    source.write_text(textwrap.dedent("""
        public class Spin {
            public static void main(String[] args) {
                long until = System.nanoTime() + 2_000_000_000L, spins = 0;
                while (System.nanoTime() < until) { spins++; }
                System.out.println(spins > 0 ? "spun" : "never spun");
            }
        }
    """), encoding="utf-8")
    with subprocess.Popen(["bash", "-c", f"java {source}; true"], stdout=subprocess.PIPE, text=True) as shell:
        sampler = jvm_cpu.JvmCpuSampler(shell.pid)
        sampler.start()
        out, _ = shell.communicate(timeout=120)
        sampler.stop()
    assert out.strip() == "spun"
    seconds = sampler.seconds()
    assert seconds is not None
    assert seconds["total"] >= 1.0  # two seconds of spinning, most of it sampled
    assert seconds["total"] == pytest.approx(sum(v for k, v in seconds.items() if k != "total"), abs=0.2)
    assert seconds[jvm_cpu.OTHER] >= 1.0  # the spinning main thread
    assert seconds["JIT compilers"] > 0  # the source launcher compiles, the loop gets compiled
    # a process tree without a JVM: nothing to report
    with subprocess.Popen(["sleep", "0.7"]) as sleeper:
        idle = jvm_cpu.JvmCpuSampler(sleeper.pid)
        idle.start()
        sleeper.wait()
        idle.stop()
    assert idle.seconds() is None


def test_the_command_line_passes_the_exit_code_through_and_says_when_no_jvm_ran(capfd):
    assert jvm_cpu.main(["bash", "-c", "echo hello; exit 3"]) == 3
    out, err = capfd.readouterr()
    assert out == "hello\n"
    assert "jvm_cpu: bash -c echo hello; exit 3: exit 3" in err
    assert "no JVM was seen below the command" in err
    assert jvm_cpu.main(["/nonexistent/command"]) == 127
    assert "cannot run /nonexistent/command" in capfd.readouterr().err
    assert jvm_cpu.main([]) == 2
    assert "usage: python benchmarks/jvm_cpu.py COMMAND" in capfd.readouterr().out
