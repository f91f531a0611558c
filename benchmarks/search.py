"""The strong player against ``tactical``, head to head (issue 13): on each bundled encounter,
``search`` plays one side and ``tactical`` the other, against ``tactical`` on both sides, on the
same paired seeds (encounter *i* rolls the same engine dice in both runs until the first choice
that differs). Reports each side's win rate under both, the paired difference with its 99%
interval, the exact McNemar p-value (significant at 1%: p < 0.01), how often the search
overruled ``tactical``, and the seconds per encounter; the load average before and after.

    python -m benchmarks.search [--n N] [--workers W] [--seed S] [--budget B] [NAME…]

The ``duel`` has one sensible choice: ``tests/sim/test_best_response.py`` shows with the exact
best response that ``tactical`` is already optimal there, so no search can beat it.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from caltrop.content import bundled_encounters, load_encounter
from caltrop.core.model import Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollDice
from caltrop.sim.search import DEFAULT_MARGIN, SearchPolicy
from caltrop.sim.stats import mcnemar_exact, paired_difference
from caltrop.sim.tactics import TacticalPolicy

_ROLL = RollDice()


def game(
    name: str, side: str | None, seed: int, settings: dict[str, Any]
) -> tuple[float, int, int, float]:
    """Encounter ``seed`` with ``search`` on ``side`` (None: tactical on both): 1 if the PCs
    won, the decisions the search overruled and searched, and the CPU seconds it took."""
    began = time.process_time()
    enc = Encounter.begin(load_encounter(name), seed, record=False)
    tactical = TacticalPolicy()
    strong = SearchPolicy(np.random.default_rng(seed), **settings)
    while (who := enc.current()) != TERMINAL:
        if who == CHANCE:
            enc.apply(_ROLL)
            continue
        mine = side is not None and enc.creature(who).side.value == side
        enc.apply((strong if mine else tactical).choose(enc, who))
    return _won(enc), strong.overruled, strong.searched, time.process_time() - began


def _won(enc: Encounter) -> float:
    return 1.0 if enc.winner is Side.PC else 0.0


def head_to_head(
    name: str, side: str, n: int, seed: int, workers: int, search: int | dict[str, Any]
) -> dict[str, float]:
    """The paired comparison on ``n`` seeds (see the module docs), ``search`` the budget or
    the :class:`SearchPolicy` settings; CPU seconds are the games' own (``time.process_time``
    in each worker), not wall time."""
    settings = {"budget": search} if isinstance(search, int) else search
    seeds = [seed * 1_000_003 + i for i in range(n)]
    with ProcessPoolExecutor(workers) as pool:
        base = list(pool.map(game, [name] * n, [None] * n, seeds, [settings] * n))
        strong = list(pool.map(game, [name] * n, [side] * n, seeds, [settings] * n))
    flip = side == Side.NPC.value
    wa = np.array([1.0 - r[0] if flip else r[0] for r in base])
    wb = np.array([1.0 - r[0] if flip else r[0] for r in strong])
    iv = paired_difference(wa, wb, confidence=0.99)
    return {
        "tactical": float(wa.mean()),
        "search": float(wb.mean()),
        "diff": iv.estimate,
        "lo": iv.lo,
        "hi": iv.hi,
        "p": mcnemar_exact(wa, wb),
        "overruled": sum(r[1] for r in strong),
        "searched": sum(r[2] for r in strong),
        "won": float(np.sum(wb > wa)),
        "lost": float(np.sum(wb < wa)),
        "tactical_s": sum(r[3] for r in base) / n,
        "search_s": sum(r[3] for r in strong) / n,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--budget", type=int, help="default: the module's (search.settings_for)")
    parser.add_argument("--sides", default="pc,npc")
    parser.add_argument("--horizon", type=float, help="rounds; 0: to the end")
    parser.add_argument("--first", type=int)
    parser.add_argument("--extra", type=int, help="default: the module's")
    parser.add_argument("--candidates", type=int)
    parser.add_argument("--margin", type=float, default=DEFAULT_MARGIN)
    args = parser.parse_args()
    settings: dict[str, Any] = {
        "budget": args.budget,
        "horizon": None if args.horizon is None else args.horizon or math.inf,
        "first": args.first,
        "extra": args.extra,
        "candidates": args.candidates,
        "margin": args.margin,
    }
    names = args.names or [n for n in bundled_encounters() if n != "duel"]
    print(f"load average before: {os.getloadavg()}", flush=True)
    for name in names:
        for side in args.sides.split(","):
            r = head_to_head(name, side, args.n, args.seed, args.workers, settings)
            print(
                f"{name:15} {side:3} n={args.n} {settings}: {side} wins "
                f"{100 * r['tactical']:.1f}% under tactical, {100 * r['search']:.1f}% with "
                f"search; diff {100 * r['diff']:+.1f} pp [99%: {100 * r['lo']:+.1f}, "
                f"{100 * r['hi']:+.1f}], won/lost pairs {r['won']:.0f}/{r['lost']:.0f}, "
                f"McNemar p = {r['p']:.2g}"
                f"{' (significant at 1%)' if r['p'] < 0.01 and r['diff'] > 0 else ''}; "
                f"overruled {r['overruled']:.0f} of {r['searched']:.0f} decisions; "
                f"{r['search_s']:.2f} CPU-s/encounter (tactical {r['tactical_s'] * 1000:.1f} ms)",
                flush=True,
            )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
