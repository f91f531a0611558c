"""Run Caltrop's benchmarks: ``python benchmarks/run.py [SECTION ...] [--quick]``.

Every section measures Caltrop against a named baseline in the same run, prints its tables and
returns its targets; the runner prints every target with PASS / MISS (a failed correctness check
is FAIL) and exits 0 only when all are met. With no SECTION every section runs.

A section is a module of this package with ``run(console, *, quick) -> list[Target]``; add one by
adding a line to :data:`SECTIONS`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from rich.console import Console

#: name → (module, what it measures); run in this order.
SECTIONS: dict[str, tuple[str, str]] = {
    "dice": ("benchmarks.dice", "odds tables vs icepool; 5d4 rolling vs raw numpy"),
    "encounter": ("benchmarks.encounter", "decisions/s of a 4 v 4 play-out; clone() vs deepcopy"),
    "fast": ("benchmarks.fast", "encounters/s of the 4 v 4 example: engine vs numba fast path"),
    "sim": ("benchmarks.sim", "simulator: encounters/s of the 4 v 4 example, reference engine"),
    "points": (
        "benchmarks.points",
        "tactical on Action Point encounters: reference engine vs compiled kernel",
    ),
    "difficulty": (
        "benchmarks.difficulty",
        "caltrop difficulty: the default answer per bundled encounter; compiled vs engine",
    ),
    "server": ("benchmarks.server", "table server: 200 tables × 5 sockets on SQLite vs WS echo"),
    "openloop": (
        "benchmarks.openloop",
        "table server, open-loop Poisson arrivals: p99, CPU/command vs echo",
    ),
}


def _parser() -> argparse.ArgumentParser:
    listing = "; ".join(f"{name}: {what}" for name, (_, what) in SECTIONS.items())
    parser = argparse.ArgumentParser(
        prog="benchmarks/run.py",
        description=f"Caltrop's benchmarks against named baselines. Sections: {listing}.",
    )
    parser.add_argument(
        "sections", nargs="*", metavar="SECTION", help="sections to run (default: all)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="few repetitions: a fast, rough run (figures vary)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    unknown = [s for s in args.sections if s not in SECTIONS]
    if unknown:
        _parser().error(f"unknown section {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    # Run as a script, Python puts benchmarks/ itself on the path: make the package importable.
    root = str(Path(__file__).resolve().parent.parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    from benchmarks.harness import Target, print_targets

    console = Console(width=max(Console().width, 140))
    targets: list[Target] = []
    for name in args.sections or list(SECTIONS):
        module = importlib.import_module(SECTIONS[name][0])
        targets += module.run(console, quick=args.quick)
    console.rule("[bold]summary[/]")
    print_targets(console, targets)
    return 0 if all(t.passed for t in targets) else 1


if __name__ == "__main__":
    sys.exit(main())
