"""CPU time of the JVMs a benchmark step starts, by kind of thread, read from Linux's /proc.

A step's wall time says how long it took; this says what its JVM spent CPU on: Spark's tasks, the
JIT compilers (every new process compiles the JVM's, Spark's and Janino's code, and each query's
generated classes, afresh), the garbage collector, and the rest (the driver: parsing, analysing
and planning SQL, Delta's log, py4j). The threads are read every half second, so a thread that
ends between two reads loses up to half a second of its time; the pooled ones (tasks, compilers,
collector) live as long as the JVM. Where there is no /proc, nothing is measured.

Any command can be measured on its own, e.g. a run of your own project:

    .venv/bin/python benchmarks/jvm_cpu.py .venv/bin/cdc-dbt run --select stg_debezium__change_events
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

PROC = Path("/proc")
# kind -> pattern of the thread names the kernel shows (at most 15 characters)
KINDS = (
    ("Spark tasks", re.compile(r"^Executor task")),
    ("JIT compilers", re.compile(r"^C[12] Compiler")),
    ("garbage collector", re.compile(r"^(GC Thread|ParGC|G1 |VM Thread)")),
)
OTHER = "driver and other"
SAMPLE_SECONDS = 0.5
RESCAN_EVERY = 10  # samples between two searches of the process tree for new JVMs (a search reads all of /proc)


def thread_kind(name: str) -> str:
    """The kind of a JVM thread from its name, e.g. 'C2 CompilerThre' -> 'JIT compilers'."""
    return next((kind for kind, pattern in KINDS if pattern.match(name)), OTHER)


def parse_stat(text: str) -> tuple[str, int, float]:
    """(name, parent pid, CPU ticks: user + system) from a /proc/<pid>[/task/<tid>]/stat line. The
    name is in parentheses and may itself hold spaces and parentheses, hence the last ')'."""
    name_start, name_end = text.index("("), text.rindex(")")
    fields = text[name_end + 2:].split()
    # after the name: state, ppid, ... utime is field 14 and stime 15 of the whole line
    return text[name_start + 1:name_end], int(fields[1]), int(fields[11]) + int(fields[12])


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:  # the process or thread ended meanwhile
        return None


def java_descendants(root_pid: int) -> list[int]:
    """The pids of the `java` processes below `root_pid` (children, grandchildren, ...)."""
    parents, names = {}, {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (text := _read(entry / "stat")):
            names[int(entry.name)], parents[int(entry.name)], _ = parse_stat(text)
    found = []
    for pid, name in names.items():
        ancestor = parents.get(pid)
        while ancestor and ancestor != root_pid:
            ancestor = parents.get(ancestor)
        if ancestor == root_pid and name == "java":
            found.append(pid)
    return found


class JvmCpuSampler:
    """Reads the threads of the JVMs under one process until stopped; `seconds()` sums them by kind.

        sampler = JvmCpuSampler(process.pid); sampler.start(); ...; sampler.stop(); sampler.seconds()
    """

    def __init__(self, root_pid: int):
        self.root_pid = root_pid
        self.ticks: dict[tuple[int, int], tuple[str, int]] = {}  # (pid, tid) -> (name, latest ticks)
        self._jvms: list[int] = []
        self._samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.available = (PROC / "self" / "task").is_dir()

    def start(self) -> None:
        if self.available:
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def sample(self) -> None:
        if not self._jvms or self._samples % RESCAN_EVERY == 0:
            self._jvms = java_descendants(self.root_pid)
        self._samples += 1
        for pid in self._jvms:
            try:
                threads = list((PROC / str(pid) / "task").iterdir())
            except OSError:
                continue
            for task in threads:
                if text := _read(task / "stat"):
                    name, _, ticks = parse_stat(text)
                    self.ticks[(pid, int(task.name))] = (name, ticks)

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_SECONDS):
            self.sample()

    def seconds(self) -> dict[str, float] | None:
        """CPU seconds by kind and in total, or None where nothing could be measured."""
        if not self.available or not self.ticks:
            return None
        per_second = os.sysconf("SC_CLK_TCK")
        totals = dict.fromkeys([kind for kind, _ in KINDS] + [OTHER], 0.0)
        for name, ticks in self.ticks.values():
            totals[thread_kind(name)] += ticks / per_second
        return {**{kind: round(value, 1) for kind, value in totals.items()},
                "total": round(sum(totals.values()), 1)}


def main(argv: list[str]) -> int:
    """Runs `argv` as a command (its output passes through) and prints its JVMs' CPU by kind."""
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[0] + "\n\nusage: python benchmarks/jvm_cpu.py COMMAND [ARGUMENT ...]")
        return 0 if argv else 2
    started = time.perf_counter()
    try:
        process = subprocess.Popen(argv)
    except OSError as error:
        print(f"jvm_cpu: cannot run {argv[0]}: {error}", file=sys.stderr)
        return 127
    sampler = JvmCpuSampler(process.pid)
    sampler.start()
    returncode = process.wait()
    sampler.stop()
    seconds = sampler.seconds()
    print(f"\njvm_cpu: {' '.join(argv)}: exit {returncode}, {time.perf_counter() - started:.1f} s wall", file=sys.stderr)
    if seconds is None:
        print("jvm_cpu: no JVM was seen below the command (or this system has no /proc)", file=sys.stderr)
    for kind, value in (seconds or {}).items():
        print(f"jvm_cpu: {kind:<20} {value:8.1f} s CPU", file=sys.stderr)
    return returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
