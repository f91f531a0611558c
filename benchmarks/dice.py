"""Dice core: the GM's odds table against icepool, and vectorised rolling against raw numpy.

The odds table is the one ``caltrop table`` shows, at the size issue #2 names: P(total ≥ DC) for
pools of 1–60 d4 + 1d8 at every DC (from the smallest pool's minimum to one past the largest
pool's maximum), and expected damage E[max(0, total − Evasion)] for pools of 1–20 d4 + 1d8
against Evasion 0–40. Caltrop builds it with :func:`caltrop.dice.tables.success_table` and
:func:`~caltrop.dice.tables.damage_table` (float64, and exact with ``exact=True``); icepool builds
the same cells as ``Fraction``. Both are checked to agree before anything is timed.

Rolling: totals of 5d4 pools per second through :func:`caltrop.dice.vector.roll_totals`, beside
plain-numpy ways of rolling the same pools and the random-bit ceiling of the generator itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial

import icepool
import numpy as np
import numpy.typing as npt
from rich.console import Console
from rich.table import Table

from benchmarks.harness import Case, Target, Timing, environment, measure, ratio, seconds
from caltrop.dice import clear_caches
from caltrop.dice.tables import damage_table, success_table
from caltrop.dice.vector import roll_totals

SECTION = "dice"
TOLERANCE = 1e-12
FLOAT_TARGET = 100.0  # float64 path at least this many times faster than icepool
EXACT_TARGET = 1.0  # exact path no slower than icepool
ROLL_TARGET = 30e6  # 5d4 pools per second

Rows = tuple[tuple[Fraction, ...], ...]
IcepoolDice = tuple[icepool.Die, icepool.Die]
IntArray = npt.NDArray[np.int64]
_ZERO, _ONE = Fraction(0), Fraction(1)


# -- the odds table ------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableSpec:
    """The odds table to build: pools of d4 plus one ``d{extra_sides}``."""

    success_pools: range = range(1, 61)
    damage_pools: range = range(1, 21)
    evasions: range = range(0, 41)
    extra_sides: int = 8

    @property
    def extra(self) -> str:
        return f"1d{self.extra_sides}"

    @property
    def dcs(self) -> range:
        """Every DC that tells pools apart: each pool's minimum up to one past its maximum."""
        lowest = self.success_pools[0] + 1
        highest = 4 * self.success_pools[-1] + self.extra_sides
        return range(lowest, highest + 2)

    def describe(self) -> str:
        s, d = self.success_pools, self.damage_pools
        return (
            f"P(total ≥ DC): {s[0]}–{s[-1]} d4 + {self.extra} × DC {self.dcs[0]}–{self.dcs[-1]}"
            f" ({len(s) * len(self.dcs):,} cells); expected damage: {d[0]}–{d[-1]} d4 +"
            f" {self.extra} × Evasion {self.evasions[0]}–{self.evasions[-1]}"
            f" ({len(d) * len(self.evasions):,} cells)"
        )


def caltrop_success(spec: TableSpec, *, exact: bool = False) -> object:
    """The success table's values from Caltrop (the extra die as text, so parsing is timed)."""
    return success_table(spec.success_pools, spec.dcs, spec.extra, exact=exact).values


def caltrop_damage(spec: TableSpec, *, exact: bool = False) -> object:
    return damage_table(spec.damage_pools, spec.evasions, spec.extra, exact=exact).values


def _fresh_dice(spec: TableSpec) -> IcepoolDice:
    """New icepool dice: ``icepool.d`` is ``functools.cache``d and each Die caches its n-fold sums."""
    return icepool.Die(range(1, 5)), icepool.Die(range(1, spec.extra_sides + 1))


def _pool_dice(
    pools: range, d4: icepool.Die, extra: icepool.Die, *, matmul: bool = False
) -> list[icepool.Die]:
    """``n``d4 + extra for every n in ``pools``: one icepool addition (convolution) per pool, or
    with ``matmul`` the textbook ``n @ d4 + extra`` (icepool caches n-fold sums on ``d4``)."""
    if matmul:
        return [n @ d4 + extra for n in pools]
    out: list[icepool.Die] = []
    total, n = extra, 0
    for pool in pools:
        while n < pool:
            total = total + d4
            n += 1
        out.append(total)
    return out


def _at_least_row(die: icepool.Die, dcs: range) -> tuple[Fraction, ...]:
    at_least = dict(zip(die.outcomes(), die.probabilities(">="), strict=True))
    lo, hi = die.min_outcome(), die.max_outcome()
    return tuple(_ONE if dc <= lo else _ZERO if dc > hi else at_least[dc] for dc in dcs)


def _damage_row(die: icepool.Die, evasions: range) -> tuple[Fraction, ...]:
    items, den = list(die.items()), die.denominator()
    return tuple(Fraction(sum(max(0, o - e) * q for o, q in items), den) for e in evasions)


def icepool_success(
    spec: TableSpec, dice: IcepoolDice | None = None, *, matmul: bool = False
) -> Rows:
    """P(≥ DC) read off each pool's Die (icepool's fastest way found: the pool grown by additions)."""
    d4, extra = dice or _fresh_dice(spec)
    pools = _pool_dice(spec.success_pools, d4, extra, matmul=matmul)
    return tuple(_at_least_row(die, spec.dcs) for die in pools)


def icepool_damage(
    spec: TableSpec, dice: IcepoolDice | None = None, *, matmul: bool = False
) -> Rows:
    """Expected damage read off each pool's Die: Σ max(0, o − e)·q / denominator."""
    d4, extra = dice or _fresh_dice(spec)
    pools = _pool_dice(spec.damage_pools, d4, extra, matmul=matmul)
    return tuple(_damage_row(die, spec.evasions) for die in pools)


def icepool_damage_idiomatic(spec: TableSpec, dice: IcepoolDice | None = None) -> Rows:
    """The textbook spelling: ``(die − e).clip(0, None).mean()`` for every pool and Evasion."""
    d4, extra = dice or _fresh_dice(spec)
    rows: list[tuple[Fraction, ...]] = []
    for n in spec.damage_pools:
        die = n @ d4 + extra
        rows.append(tuple(Fraction((die - e).clip(0, None).mean()) for e in spec.evasions))
    return tuple(rows)


@dataclass(frozen=True)
class Agreement:
    """How Caltrop's tables compare with icepool's, cell by cell."""

    cells: int
    max_float_error: float
    exact_equal: bool
    idiomatic_equal: bool

    @property
    def float_ok(self) -> bool:
        return self.max_float_error <= TOLERANCE


def _max_error(values: object, rows: Rows) -> float:
    got = np.asarray(values, dtype=np.float64)
    want = np.array([[float(x) for x in row] for row in rows], dtype=np.float64)
    if got.shape != want.shape:
        return float("inf")
    return float(np.abs(got - want).max()) if got.size else 0.0


def check_agreement(spec: TableSpec) -> Agreement:
    """Build every table once (untimed) and compare with icepool's exact fractions."""
    clear_caches()
    want_s, want_d = icepool_success(spec), icepool_damage(spec)
    float_error = max(
        _max_error(caltrop_success(spec), want_s), _max_error(caltrop_damage(spec), want_d)
    )
    exact_equal = (
        caltrop_success(spec, exact=True) == want_s and caltrop_damage(spec, exact=True) == want_d
    )
    idiomatic_equal = (
        icepool_success(spec, matmul=True) == want_s and icepool_damage_idiomatic(spec) == want_d
    )
    cells = sum(len(row) for row in want_s) + sum(len(row) for row in want_d)
    return Agreement(cells, float_error, exact_equal, idiomatic_equal)


@dataclass(frozen=True)
class TableTimings:
    """Per-engine timings of the two tables; a repetition's total is the sum of its two parts."""

    success: Timing
    damage: Timing

    @property
    def total(self) -> Timing:
        return Timing(
            tuple(a + b for a, b in zip(self.success.samples, self.damage.samples, strict=True))
        )


#: (key, label) of every row of the odds-table report, in order.
ENGINES: tuple[tuple[str, str], ...] = (
    ("float", "Caltrop float64"),
    ("exact", "Caltrop exact (Fraction)"),
    ("icepool", "icepool baseline: s + d4 per pool"),
    ("idiomatic", "icepool textbook: n @ d4 + d8, clip().mean()"),
    ("float-warm", "Caltrop float64, caches kept (info)"),
    ("icepool-warm", "icepool n @ d4 + d8, d4 reused (info)"),
)


def float_builds_per_sample(*, quick: bool) -> int:
    return 5 if quick else 20


def time_tables(spec: TableSpec, *, quick: bool) -> dict[str, TableTimings]:
    """Time each engine on each table, cold, round-robin across engines."""
    # float64 samples each time `number` consecutive cold builds (see harness.Case)
    number = float_builds_per_sample(quick=quick)
    fast, slow, slowest = (5, 3, 1) if quick else (15, 9, 3)
    reused = _fresh_dice(spec)  # only for the warm icepool row: its d4 keeps n-fold sums
    builders: dict[str, tuple[Callable[[], object], Callable[[], object], int, bool, int]] = {
        "float": (lambda: caltrop_success(spec), lambda: caltrop_damage(spec), fast, True, number),
        "exact": (
            lambda: caltrop_success(spec, exact=True),
            lambda: caltrop_damage(spec, exact=True),
            slow,
            True,
            1,
        ),
        "icepool": (lambda: icepool_success(spec), lambda: icepool_damage(spec), slow, False, 1),
        "idiomatic": (
            lambda: icepool_success(spec, matmul=True),
            lambda: icepool_damage_idiomatic(spec),
            slowest,
            False,
            1,
        ),
        "float-warm": (
            lambda: caltrop_success(spec),
            lambda: caltrop_damage(spec),
            fast,
            False,
            number,
        ),
        "icepool-warm": (
            lambda: icepool_success(spec, reused, matmul=True),
            lambda: icepool_damage(spec, reused, matmul=True),
            slow,
            False,
            1,
        ),
    }
    cases: list[Case] = []
    for key, (success, damage, repeat, clears, n) in builders.items():
        setup = clear_caches if clears else None
        cases.append(Case(f"{key}/success", success, repeat, setup, prime=True, number=n))
        cases.append(Case(f"{key}/damage", damage, repeat, setup, prime=True, number=n))
    timings = measure(cases)
    return {
        key: TableTimings(timings[f"{key}/success"], timings[f"{key}/damage"]) for key in builders
    }


# -- rolling -------------------------------------------------------------------------------------


def _five_d4_sums() -> IntArray:
    """``table[w]`` = total of five d4 whose faces − 1 are the 2-bit fields of the 10-bit ``w``."""
    words = np.arange(1024, dtype=np.int64)
    out: IntArray = sum((((words >> (2 * i)) & 3) + 1 for i in range(5)), np.zeros(1024, np.int64))
    return out


_SUMS = _five_d4_sums()
_HIGH_BITS, _LOW_BITS = np.uint16(0b10_1010_1010), np.uint16(0b01_0101_0101)


def roll_caltrop(rng: np.random.Generator, n: int) -> IntArray:
    return roll_totals("5d4", n, rng)


def roll_numpy_int64(rng: np.random.Generator, n: int) -> IntArray:
    out: IntArray = rng.integers(1, 5, size=(n, 5)).sum(axis=1)
    return out


def roll_numpy_int8(rng: np.random.Generator, n: int) -> IntArray:
    faces = rng.integers(1, 5, size=(n, 5), dtype=np.int8)
    out: IntArray = faces.sum(axis=1, dtype=np.int64)
    return out


def roll_numpy_popcount(rng: np.random.Generator, n: int) -> IntArray:
    """10 random bits per pool; a face − 1 is 2·high bit + low bit, so count the set bits."""
    words = rng.integers(0, 1024, size=n, dtype=np.uint16)
    high = np.bitwise_count(words & _HIGH_BITS)
    low = np.bitwise_count(words & _LOW_BITS)
    out: IntArray = (2 * high + low).astype(np.int64) + 5
    return out


def roll_numpy_lookup(rng: np.random.Generator, n: int) -> IntArray:
    """10 random bits per pool and a 1024-entry table of their five faces' total."""
    out: IntArray = _SUMS[rng.integers(0, 1024, size=n, dtype=np.uint16)]
    return out


def random_bits_only(rng: np.random.Generator, n: int) -> bytes:
    """The generator's ceiling: the 16 random bits per pool that Caltrop draws, no dice."""
    return rng.bytes(2 * n)


ROLLERS: tuple[tuple[str, str, Callable[[np.random.Generator, int], object]], ...] = (
    ("caltrop", "Caltrop roll_totals('5d4', n, rng)", roll_caltrop),
    ("int64", "numpy integers(1, 5, (n, 5)).sum(axis=1)", roll_numpy_int64),
    ("int8", "numpy int8 faces, sum as int64", roll_numpy_int8),
    ("popcount", "numpy 10 random bits, two popcounts", roll_numpy_popcount),
    ("lookup", "numpy 10 random bits → table of totals", roll_numpy_lookup),
    ("bits", "ceiling: rng.bytes(2n), no dice", random_bits_only),
)


def exact_five_d4() -> npt.NDArray[np.float64]:
    """P(5d4 = t) for t = 5‥20, by convolution of counts (independent of Caltrop)."""
    counts = np.ones(1, dtype=np.int64)
    for _ in range(5):
        counts = np.convolve(counts, np.ones(4, dtype=np.int64))
    out: npt.NDArray[np.float64] = counts / 4**5
    return out


def roll_tolerance(n: int) -> float:
    """Six standard errors of an empirical frequency from ``n`` rolls (at most 0.5/√n each)."""
    return 6 * 0.5 / math.sqrt(n)


def check_rollers(n: int, seed: int = 2) -> dict[str, float]:
    """Roll ``n`` pools with each roller; max |empirical − exact| of the PMF (inf if out of range)."""
    want = exact_five_d4()
    errors: dict[str, float] = {}
    for key, _, roller in ROLLERS:
        if key == "bits":
            continue
        totals = np.asarray(roller(np.random.default_rng(seed), n))
        if totals.shape != (n,) or totals.min() < 5 or totals.max() > 20:
            errors[key] = float("inf")
            continue
        got = np.bincount(totals - 5, minlength=16) / n
        errors[key] = float(np.abs(got - want).max())
    return errors


def time_rollers(batches: tuple[int, ...], *, quick: bool) -> dict[tuple[str, int], Timing]:
    repeat = 3 if quick else 9
    out: dict[tuple[str, int], Timing] = {}
    for n in batches:
        rng = np.random.default_rng(1)
        cases = [
            Case(key, partial(roller, rng, n), repeat, clear_caches) for key, _, roller in ROLLERS
        ]
        for key, timing in measure(cases, warmup=True).items():
            out[(key, n)] = timing
    return out


# -- the report ----------------------------------------------------------------------------------


def _notes(console: Console, spec: TableSpec, quick: bool) -> None:
    number = float_builds_per_sample(quick=quick)
    console.print(
        "[bold]How each side is measured[/] (time.perf_counter; garbage collector paused while a"
        " repetition runs; engines interleaved round-robin; median and best of the repetitions):",
        "• Caltrop, cold: caltrop.dice.clear_caches() before every build; the extra die is passed"
        f" as the text {spec.extra!r}, so parsing it is timed; the float64 and exact paths are the"
        f" library's success_table / damage_table. A float64 sample times {number} consecutive"
        f" cold builds (clear_caches() inside the timed loop) and divides by {number}, so it spans"
        " about as"
        " long as one icepool build and absorbs the same scheduler noise; exact samples are one"
        " build each, with clear_caches() untimed.",
        "• icepool, cold: icepool.d() is functools.cache'd and every Die memoises its n-fold sums"
        " (Die._sum_cache) and other cached properties, so each repetition builds new Die objects"
        " inside the timed region. The baseline is the fastest formulation found: grow the pool"
        " one d4 at a time (one convolution per pool, as Caltrop does), P(≥DC) from"
        " Die.probabilities('>='), expected damage as Σ max(0, o − e)·q / denominator over"
        " Die.items(); results are exact Fractions. The textbook spelling (n @ d4 + d8,"
        " clip().mean()) is shown too.",
        "• Each table is timed on its own; a repetition's total is success + damage. Every timed"
        " repetition follows an untimed one of the same case (then the caches above are reset"
        " again), so each engine starts with its own code in the CPU caches, not the previous"
        " engine's. Ratios are icepool baseline median ÷ engine median. (info) rows keep their"
        " library caches between repetitions and are not used for targets.",
        "• Rolling (M pools/s = n ÷ seconds per call, one fresh seeded Generator per batch size,"
        " one untimed warm-up call per method, then round-robin): Caltrop draws 16 random bits"
        " per pool and looks the five faces' total up in a packed-face table; the numpy rows are"
        " the issue's raw ceiling rng.integers(1, 5, size=(n, 5)).sum(axis=1), the same with"
        " int8 faces, and the best plain numpy found: 10 bits per pool from"
        " rng.integers(0, 1024, dtype=uint16), totalled by 2·popcount(odd bits) + popcount(even"
        " bits) + 5 or by a 1024-entry table; the ceiling row draws Caltrop's random bits and"
        " does nothing else. Lookup tables are built once and kept.",
        sep="\n",
    )
    if quick:
        console.print("[yellow]--quick: few repetitions; figures are rough.[/]")


def _table_report(
    console: Console, spec: TableSpec, timings: dict[str, TableTimings]
) -> dict[str, float]:
    base = timings["icepool"].total.median
    table = Table(title=f"Odds table — {spec.describe()}", title_justify="left")
    table.add_column("engine")
    for column in ("success (median)", "damage (median)", "total median", "total best", "reps"):
        table.add_column(column, justify="right")
    table.add_column("icepool ÷ this: medians", justify="right")
    table.add_column("bests", justify="right")
    base_best = timings["icepool"].total.best
    speedups: dict[str, float] = {}
    for key, label in ENGINES:
        t = timings[key]
        speedups[key] = base / t.total.median
        table.add_row(
            label,
            seconds(t.success.median),
            seconds(t.damage.median),
            seconds(t.total.median),
            seconds(t.total.best),
            str(t.total.repeats),
            ratio(speedups[key]),
            ratio(base_best / t.total.best),
        )
    console.print(table)
    return speedups


def _roll_report(
    console: Console, batches: tuple[int, ...], timings: dict[tuple[str, int], Timing]
) -> dict[int, float]:
    table = Table(title="Rolling 5d4 pools (totals as int64)", title_justify="left")
    table.add_column("method")
    for n in batches:
        table.add_column(f"{n:,} pools: M/s median / best", justify="right")
        table.add_column("÷ Caltrop", justify="right")
    rates: dict[int, float] = {}
    for key, label, _ in ROLLERS:
        cells: list[str] = []
        for n in batches:
            t, mine = timings[(key, n)], timings[("caltrop", n)]
            cells.append(f"{n / t.median / 1e6:,.1f} / {n / t.best / 1e6:,.1f}")
            cells.append(f"{mine.median / t.median:.2f}")
            if key == "caltrop":
                rates[n] = n / t.median
        table.add_row(label, *cells)
    console.print(table)
    return rates


def run(
    console: Console,
    *,
    quick: bool = False,
    spec: TableSpec | None = None,
    batches: tuple[int, ...] | None = None,
) -> list[Target]:
    """Check, time and report the dice core; returns this section's targets."""
    spec = spec or TableSpec()
    batches = batches or ((1_000_000,) if quick else (1_000_000, 10_000_000))
    console.rule("[bold]dice[/]: odds tables vs icepool, rolling vs numpy")
    console.print(environment())
    _notes(console, spec, quick)

    agreement = check_agreement(spec)
    roll_checked = min(batches[0], 200_000)
    roll_errors = check_rollers(roll_checked)
    targets = [
        Target(
            SECTION,
            "float64 table agrees with icepool",
            f"max |Δ| ≤ {TOLERANCE:g}",
            f"max |Δ| = {agreement.max_float_error:.1e} over {agreement.cells:,} cells",
            agreement.float_ok,
            check=True,
        ),
        Target(
            SECTION,
            "exact table equals icepool",
            "every Fraction equal",
            f"{'all' if agreement.exact_equal else 'NOT all'} {agreement.cells:,} cells equal"
            + ("" if agreement.idiomatic_equal else "; icepool's two spellings DISAGREE"),
            agreement.exact_equal and agreement.idiomatic_equal,
            check=True,
        ),
        Target(
            SECTION,
            "rolled totals follow 5d4",
            f"|empirical − exact PMF| ≤ {roll_tolerance(roll_checked):.4f} ({roll_checked:,} rolls)",
            "max " + ", ".join(f"{k} {v:.4f}" for k, v in roll_errors.items()),
            all(v <= roll_tolerance(roll_checked) for v in roll_errors.values()),
            check=True,
        ),
    ]
    if not all(t.passed for t in targets):
        console.print("[bold red]The engines disagree: nothing was timed.[/]")
        return targets

    speedups = _table_report(console, spec, time_tables(spec, quick=quick))
    rates = _roll_report(console, batches, time_rollers(batches, quick=quick))
    slowest_rate = min(rates.values())
    targets += [
        Target(
            SECTION,
            "float64 odds table vs icepool",
            f"≥ {FLOAT_TARGET:.0f}× faster",
            f"{ratio(speedups['float'])} faster (medians)",
            speedups["float"] >= FLOAT_TARGET,
        ),
        Target(
            SECTION,
            "exact odds table vs icepool",
            "no slower (≥ 1×)",
            f"{ratio(speedups['exact'])} faster (medians)",
            speedups["exact"] >= EXACT_TARGET,
        ),
        Target(
            SECTION,
            "5d4 pools rolled per second",
            f"≥ {ROLL_TARGET / 1e6:.0f} M/s",
            f"{slowest_rate / 1e6:,.1f} M/s (median, slowest batch size)",
            slowest_rate >= ROLL_TARGET,
        ),
    ]
    return targets
