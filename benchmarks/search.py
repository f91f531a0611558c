"""The strong player against ``tactical``, head to head (issue 13): on each bundled encounter,
``search`` plays one side and ``tactical`` the other, against ``tactical`` on both sides, on the
same paired seeds (encounter *i* rolls the same engine dice in both runs). Reports each side's
win rate under both, the paired difference with its 99% interval and p-value, and the seconds
per encounter.

    python -m benchmarks.search [--n N] [--workers W] [--seed S] [NAME…]
"""

from __future__ import annotations

import argparse
import os
import time

from caltrop.content import bundled_encounters, load_encounter
from caltrop.sim.overrides import Variant
from caltrop.sim.runner import simulate
from caltrop.sim.stats import paired_difference, paired_p_value


def head_to_head(name: str, side: str, n: int, seed: int, workers: int) -> dict[str, float]:
    definition = load_encounter(name)
    base = {"pc": "tactical", "npc": "tactical"}
    strong = {**base, side: "search"}
    began = time.perf_counter()
    a = simulate(definition, [Variant("baseline")], base, n=n, seed=seed, workers=workers)
    mid = time.perf_counter()
    b = simulate(definition, [Variant("baseline")], strong, n=n, seed=seed, workers=workers)
    end = time.perf_counter()
    wa, wb = a.runs[0].records.wins(side), b.runs[0].records.wins(side)
    iv = paired_difference(wa, wb, confidence=0.99)
    return {
        "tactical": float(wa.mean()),
        "search": float(wb.mean()),
        "diff": iv.estimate,
        "lo": iv.lo,
        "hi": iv.hi,
        "p": paired_p_value(wa, wb),
        "tactical_s": (mid - began) / n,
        "search_s": (end - mid) / n,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--sides", default="pc,npc")
    args = parser.parse_args()
    names = args.names or list(bundled_encounters())
    print(f"load average before: {os.getloadavg()}")
    for name in names:
        for side in args.sides.split(","):
            r = head_to_head(name, side, args.n, args.seed, args.workers)
            print(
                f"{name:15} {side:3} n={args.n}: {side} wins {100 * r['tactical']:.1f}% under "
                f"tactical, {100 * r['search']:.1f}% with search; diff {100 * r['diff']:+.1f} pp "
                f"[99%: {100 * r['lo']:+.1f}, {100 * r['hi']:+.1f}], p = {r['p']:.2g}; "
                f"{r['search_s']:.2f} s/encounter (tactical {r['tactical_s'] * 1000:.1f} ms)",
                flush=True,
            )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
