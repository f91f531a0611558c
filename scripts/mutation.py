"""A small mutation test of the rules core (issue 24 item 7): fails below 95 % of mutants killed.

Each mutant is one explicit edit of the rules (``>=`` for ``>``, a dropped ``max(1, …)``, a Load
added instead of subtracted), written out below with the ruling it breaks. The script copies
``src/caltrop`` to a temporary folder, applies one mutant at a time there (never to the work
tree) and runs the tests of the mutated area against the copy (``-x``: the first failure kills
the mutant). A mutant no test fails *survives*. The unmutated copy must pass the same tests
first, and every mutant's text must occur exactly once where it is looked for, so a list gone
stale after a refactoring fails loudly instead of counting a mutant that changed nothing.

Run ``python scripts/mutation.py`` (``--jobs 2`` to run two mutants at a time, ``-k TEXT`` for
the mutants whose text contains TEXT); ``scripts/check`` runs it after the test suite. About 50
mutants take three to six minutes on one core.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "caltrop"
#: the least share of mutants the tests must kill
THRESHOLD = 0.95
#: a mutant that makes the tests run this long (an endless loop) counts as killed, as mutmut does
TIMEOUT_S = 300

#: area → the tests that guard it (run with ``-x`` against the mutated copy)
TESTS: dict[str, tuple[str, ...]] = {
    "core/pool.py": ("tests/core", "tests/encounter/test_rules.py"),
    "dice/distribution.py": ("tests/dice/test_distribution.py", "tests/dice/test_defence.py"),
    "economy": (
        "tests/economy/test_conformance.py",
        "tests/economy/test_pools.py",
        "tests/economy/load",
        "tests/economy/points/test_rolls.py",
        "tests/economy/points/test_state.py",
        "tests/economy/points/test_verbs.py",
        "tests/encounter/test_rules.py",
        "tests/encounter/test_seed_examples.py",
        "tests/economy/points/test_attacks.py",
        "tests/economy/points/test_economy.py",
        "tests/economy/points/test_misc.py",
    ),
    "encounter/state.py": (
        "tests/encounter/test_rules.py",
        "tests/encounter/test_gm_calls.py",
        "tests/encounter/test_seed_examples.py",
        "tests/encounter/test_golden.py",
        "tests/encounter/test_undo.py",
        "tests/encounter/test_gm.py",
        "tests/encounter/test_window_order.py",
    ),
    "encounter": (
        "tests/encounter/test_rules.py",
        "tests/encounter/test_gm_calls.py",
        "tests/encounter/test_seed_examples.py",
        "tests/encounter/test_golden.py",
        "tests/encounter/test_undo.py",
        "tests/encounter/test_gm.py",
        "tests/encounter/test_window_order.py",
    ),
}


@dataclass(frozen=True)
class Mutant:
    #: a file under src/caltrop, or a folder: the one file in it that holds ``old`` (so the
    #: economy's mutants find their lines wherever a refactoring moves them)
    area: str
    old: str
    new: str
    why: str


MUTANTS: tuple[Mutant, ...] = (
    # -- core/pool.py: the gate, the pool, Advantage -------------------------------------------
    Mutant("core/pool.py", '1 if kind == "adv" else -1', '1 if kind == "adv" else 0', "R14"),
    Mutant(
        "core/pool.py", "seen.add((kind, key))", "seen.add((kind, key + str(len(seen))))", "R14"
    ),
    Mutant(
        "core/pool.py",
        "LEGACY and left <= 0:\n        return False",
        "LEGACY and left < 0:\n        return False",
        "R20",
    ),
    Mutant("core/pool.py", "    return left >= cost", "    return left > cost", "R11"),
    Mutant(
        "core/pool.py",
        "if revision is Revision.LEGACY and left <= 0:",
        "if revision is Revision.LEGACY and left < 0:",
        "R20",
    ),
    Mutant("core/pool.py", "    if left < cost:", "    if left <= cost:", "R11"),
    Mutant("core/pool.py", "    if cost < 0:", "    if cost < -1:", "R11"),
    Mutant("core/pool.py", "else aspect - load\n", "else aspect - max(0, load)\n", "R20"),
    Mutant("core/pool.py", "else aspect - max(0, load)\n", "else aspect - load\n", "R12"),
    Mutant(
        "core/pool.py",
        "    return max(1, base + net_adv)",
        "    return max(0, base + net_adv)",
        "R3",
    ),
    Mutant(
        "core/pool.py",
        "base = fixed_pool if fixed_pool is not None else aspect - load",
        "base = aspect - load",
        "R20",
    ),
    Mutant(
        "core/pool.py",
        "(max(0, load) if count_load else 0)",
        "(max(0, load) if not count_load else 0)",
        "R17",
    ),
    Mutant(
        "core/pool.py",
        "return max(1, aspect - (max(0, load)",
        "return max(0, aspect - (max(0, load)",
        "R17",
    ),
    # -- the economies: Load (R10-R13) and Action Points (R31-R37) -----------------------------
    Mutant(
        "economy",
        "return creature.exhaustion - creature.load_buffer",
        "return creature.exhaustion + creature.load_buffer",
        "R10",
    ),
    Mutant(
        "economy",
        "            return aspect - max(action.cost, 1)",
        "            return aspect - action.cost",
        "R20",
    ),
    Mutant(
        "economy",
        "        return aspect - action.cost\n",
        "        return aspect - action.cost + 1\n",
        "R11",
    ),
    Mutant(
        "economy",
        "_state(resources).load += action.cost",
        "_state(resources).load -= action.cost",
        "R13",
    ),
    Mutant(
        "economy",
        "        if self.reset_each_round:",
        "        if not self.reset_each_round:",
        "R10",
    ),
    Mutant("economy", "net_adv, count_load=count_load)", "net_adv, count_load=True)", "R17"),
    Mutant(
        "economy",
        "damage = max(0, total - target.evasion)  # R16",
        "damage = max(0, total - target.evasion + 1)  # R16",
        "R16",
    ),
    Mutant("economy", "        if state.ap >= price:", "        if state.ap > price:", "R32"),
    Mutant(
        "economy",
        'need = price * 2 if unit == "ap" else price',
        'need = price if unit == "ap" else price',
        "R32",
    ),
    Mutant("economy", "    if have < need:", "    if have <= need:", "R32"),
    Mutant("economy", "from_rp = min(state.rp, need)", "from_rp = need", "R32"),
    Mutant("economy", "    state.rp -= pay.rp", "    state.rp -= pay.rp * 0", "R32"),
    Mutant(
        "economy",
        "        return max(1, aspect + net_adv)",
        "        return max(0, aspect + net_adv)",
        "R3",
    ),
    # -- encounter/state.py: turns, rounds, GM calls, the end ----------------------------------
    Mutant(
        "encounter/state.py",
        "success = None if p.dc is None else total >= p.dc",
        "success = None if p.dc is None else total > p.dc",
        "R4",
    ),
    Mutant("encounter/state.py", "        enc.boons[self.target] = ()", "        pass", "R15"),
    Mutant(
        "encounter/state.py",
        "advantages = list(c.advantages) + list(enc.boons[self.target])",
        "advantages = list(c.advantages)",
        "R15",
    ),
    Mutant("encounter/state.py", "if c.count_load is None", "if c.count_load is not None", "R17"),
    Mutant(
        "encounter/state.py",
        "        while pos < n and self.down[self.order[pos]]:\n            pos += 1",
        "        while pos < n and self.down[self.order[pos]]:\n            pos += 2",
        "R21",
    ),
    Mutant(
        "encounter/state.py",
        "        if len(standing) <= 1:",
        "        if len(standing) < 1:",
        "R16",
    ),
    Mutant(
        "encounter/state.py",
        "return (-total, is_npc, -score, i)",
        "return (total, is_npc, -score, i)",
        "R30",
    ),
    Mutant(
        "encounter/state.py",
        "return (-total, is_npc, -score, i)",
        "return (-total, -is_npc, -score, i)",
        "R30",
    ),
    Mutant(
        "encounter/state.py",
        "return (-total, is_npc, -score, i)",
        "return (-total, is_npc, score, i)",
        "R30",
    ),
    Mutant("encounter/state.py", "        self.round += 1", "        self.round += 2", "R21"),
    Mutant(
        "encounter",
        "[pos + 1 :], *",
        "[pos + 2 :], *",
        "R15",
    ),
    Mutant(
        "encounter",
        "[:pos])",
        "[:0])",
        "R15",
    ),
    Mutant(
        "encounter/state.py",
        "not self.down[p.roller]",
        "self.down[p.roller]",
        "R16",
    ),
    Mutant(
        "encounter/state.py",
        "if advantages and len(set(advantages)) < len(advantages):",
        "if False:",
        "R14",
    ),
    Mutant(
        "encounter/state.py",
        "self.down = [c.health <= 0 for c in self.creatures]",
        "self.down = [c.health < 0 for c in self.creatures]",
        "R16",
    ),
    # -- dice/distribution.py: the exact odds --------------------------------------------------
    Mutant(
        "dice/distribution.py",
        "        if dc > self.max:\n            return 0.0",
        "        if dc >= self.max:\n            return 0.0",
        "R4",
    ),
    Mutant(
        "dice/distribution.py",
        "return 1.0 - self.p_at_least(k + 1)",
        "return 1.0 - self.p_at_least(k)",
        "R4",
    ),
    Mutant(
        "dice/distribution.py",
        "start = max(dc - e.offset, 0)",
        "start = max(dc - e.offset + 1, 0)",
        "R4",
    ),
    Mutant(
        "dice/distribution.py",
        "return 1 - self.p_at_least_exact(k + 1)",
        "return 1 - self.p_at_least_exact(k)",
        "R4",
    ),
    Mutant(
        "dice/distribution.py", "        return second - m * m", "        return second - m", "R1"
    ),
    Mutant(
        "dice/distribution.py",
        "total = sum(max(0, e.offset + i - evasion) * c",
        "total = sum(max(0, e.offset + i - evasion + 1) * c",
        "R16",
    ),
    Mutant(
        "dice/distribution.py",
        "return (self - evasion).clamp_min(0)",
        "return (self - evasion).clamp_min(1)",
        "R16",
    ),
    Mutant("dice/distribution.py", "return self + (-rhs)", "return self + rhs", "R16"),
    Mutant(
        "dice/distribution.py",
        "np.maximum(values, 0), self._float.probs",
        "np.maximum(values, 1), self._float.probs",
        "R16",
    ),
    Mutant(
        "dice/distribution.py",
        "sum((e.offset + i) * c for i, c in enumerate(e.counts))",
        "sum((e.offset + i + 1) * c for i, c in enumerate(e.counts))",
        "R1",
    ),
)


def locate(copy: Path, mutant: Mutant) -> Path:
    """The file of ``copy`` (a copy of src/caltrop) that holds ``mutant.old`` exactly once."""
    where = copy / mutant.area
    files = sorted(where.rglob("*.py")) if where.is_dir() else [where]
    found = [f for f in files if mutant.old in f.read_text(encoding="utf-8")]
    if len(found) != 1 or found[0].read_text(encoding="utf-8").count(mutant.old) != 1:
        names = ", ".join(str(f.relative_to(copy)) for f in found) or "no file"
        raise SystemExit(
            f"mutation: {mutant.old!r} must occur exactly once in {mutant.area} "
            f"(found in {names}): the list is stale, update it"
        )
    return found[0]


def tests_of(mutant: Mutant) -> tuple[str, ...]:
    return TESTS[mutant.area]


def run_tests(src: Path, tests: tuple[str, ...]) -> tuple[bool, float]:
    """Whether ``tests`` pass against the package at ``src``; the seconds they took."""
    env = {**os.environ, "PYTHONPATH": f"{src.parent}{os.pathsep}{ROOT}"}
    start = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
             "--hypothesis-seed=0", *tests],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            timeout=TIMEOUT_S, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return False, time.monotonic() - start
    return done.returncode == 0, time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at a time (default 1)")
    parser.add_argument("-k", default="", help="only the mutants whose old text contains this")
    args = parser.parse_args(argv)
    mutants = [m for m in MUTANTS if args.k in m.old]
    if not mutants:
        raise SystemExit(f"mutation: no mutant's text contains {args.k!r}")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="caltrop-mutation-") as tmp:
        # one copy per job, so two mutants never share a file
        copies = []
        for j in range(max(1, args.jobs)):
            copy = Path(tmp) / f"job{j}" / "caltrop"
            shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__"))
            copies.append(copy)
        for mutant in mutants:
            locate(copies[0], mutant)  # every mutant's text is where it is looked for
        areas = sorted({m.area for m in mutants})
        baseline = tuple(dict.fromkeys(t for a in areas for t in TESTS[a]))
        ok, seconds = run_tests(copies[0], baseline)
        if not ok:
            print("mutation: the unmutated tests fail; fix them first", file=sys.stderr)
            return 1
        print(f"baseline: {len(baseline)} test files pass ({seconds:.0f} s)")
        free = list(copies)

        def judge(mutant: Mutant) -> tuple[Mutant, bool, float]:
            copy = free.pop()
            try:
                path = locate(copy, mutant)
                original = path.read_text(encoding="utf-8")
                path.write_text(original.replace(mutant.old, mutant.new), encoding="utf-8")
                try:
                    passed, took = run_tests(copy, tests_of(mutant))
                finally:
                    path.write_text(original, encoding="utf-8")
                return mutant, not passed, took
            finally:
                free.append(copy)

        with ThreadPoolExecutor(max_workers=len(copies)) as pool:
            results = list(pool.map(judge, mutants))
    survivors = [m for m, killed, _ in results if not killed]
    for mutant, killed, took in results:
        verdict = "killed  " if killed else "SURVIVED"
        print(f"{verdict} {took:5.1f} s  {mutant.area}  {mutant.why}: {mutant.old.strip()!r}")
    killed_n = len(results) - len(survivors)
    score = killed_n / len(results)
    print(
        f"mutation score: {killed_n}/{len(results)} killed = {score:.1%} "
        f"(at least {THRESHOLD:.0%} needed), {time.monotonic() - started:.0f} s"
    )
    return 0 if score >= THRESHOLD else 1


if __name__ == "__main__":
    sys.exit(main())
