"""What every benchmark section shares: cold, interleaved repetitions, and PASS/MISS targets."""

from __future__ import annotations

import gc
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version

from rich.console import Console
from rich.table import Table


@dataclass(frozen=True)
class Timing:
    """Wall-clock seconds of every repetition of one case."""

    samples: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def best(self) -> float:
        return min(self.samples)

    @property
    def repeats(self) -> int:
        return len(self.samples)


@dataclass(frozen=True)
class Case:
    """One thing to time: ``setup()`` runs before every ``run()``; ``repeat`` samples are taken.

    A sample is ``number`` consecutive ``setup(); run()`` pairs timed together and divided by
    ``number``. With ``number == 1`` the ``setup()`` is untimed; with more it is inside the timed
    loop (keep it cheap): sub-millisecond runs then span tens of milliseconds per sample, so one
    scheduler time slice lost to another process is averaged in, as it is in a long run, rather
    than multiplying a single short run.

    With ``prime`` every sample is preceded by an untimed ``setup(); run()``, so the CPU's caches
    hold this case's code and data rather than the previous case's, while the library's own
    caches are reset by ``setup()`` (cold in that sense, warm in the CPU's).
    """

    name: str
    run: Callable[[], object]
    repeat: int
    setup: Callable[[], object] | None = None
    prime: bool = False
    number: int = 1


def measure(cases: Sequence[Case], *, warmup: bool = False) -> dict[str, Timing]:
    """Time every case with ``time.perf_counter``, round-robin so that load drifts hit all alike.

    Each sample is taken with the garbage collector paused, as :mod:`timeit` does (and without a
    ``gc.collect()`` first: a full collection just before a sub-millisecond run evicts the CPU
    caches and doubles its time). ``warmup`` runs every case once, untimed, before any sample.
    """
    if warmup:
        for case in cases:
            if case.setup is not None:
                case.setup()
            case.run()
    samples: dict[str, list[float]] = {case.name: [] for case in cases}
    for rep in range(max((case.repeat for case in cases), default=0)):
        for case in cases:
            if rep >= case.repeat:
                continue
            if case.prime:
                if case.setup is not None:
                    case.setup()
                case.run()
            if case.setup is not None and case.number == 1:
                case.setup()
            gc.disable()
            try:
                start = time.perf_counter()
                if case.number == 1:
                    case.run()
                else:
                    for _ in range(case.number):
                        if case.setup is not None:
                            case.setup()
                        case.run()
                samples[case.name].append((time.perf_counter() - start) / case.number)
            finally:
                gc.enable()
    return {name: Timing(tuple(s)) for name, s in samples.items()}


@dataclass(frozen=True)
class Target:
    """One goal of a section and whether this run met it."""

    section: str
    name: str
    required: str
    measured: str
    passed: bool
    #: a correctness check fails (FAIL); a missed speed target is a MISS
    check: bool = False

    @property
    def verdict(self) -> str:
        if self.passed:
            return "PASS"
        return "FAIL" if self.check else "MISS"


def seconds(s: float) -> str:
    """``0.291 ms``, ``52.3 ms``, ``1.20 s``."""
    if s < 1e-3:
        return f"{s * 1e3:.3f} ms"
    if s < 1.0:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def ratio(x: float) -> str:
    return f"{x:,.0f}×" if x >= 100 else f"{x:.1f}×"


def _version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:  # pragma: no cover - every benchmark dependency is installed
        return "?"


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment() -> str:
    py = sys.version.split()[0]
    libs = ", ".join(f"{d} {_version(d)}" for d in ("caltrop", "numpy", "icepool"))
    load = f"; load average {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else ""
    return (
        f"Python {py} on {platform.system()}, {_cpu()} × {os.cpu_count()} CPUs{load}; "
        f"{libs}; {time.strftime('%Y-%m-%d %H:%M %Z')}"
    )


def print_targets(console: Console, targets: Sequence[Target]) -> None:
    table = Table(title="Targets", title_justify="left")
    for column in ("section", "target", "required", "measured", "result"):
        table.add_column(column, justify="left")
    for t in targets:
        style = "bold green" if t.passed else "bold red"
        table.add_row(t.section, t.name, t.required, t.measured, f"[{style}]{t.verdict}[/]")
    console.print(table)
    met = sum(t.passed for t in targets)
    overall = "PASS" if met == len(targets) else "MISS"
    style = "bold green" if overall == "PASS" else "bold red"
    console.print(f"[{style}]Overall: {overall}[/] ({met} of {len(targets)} targets met)")
