"""What would change it: for each named stat, the value that brings the PC win probability
nearest a target (issue 23, ``caltrop difficulty ENCOUNTER --target 0.6 --vary goblin.evasion``).

**What may be varied** (:func:`variable_stats`): a creature's whole-number stats that its
module's rules read — :data:`FIELDS` (Health in both modules; Evasion, Load Buffer and
Exhaustion in the Action Load module), each Aspect it has, each action's Cost (Action Load) and
each stat of the Action Point stat block but the starting position (R31, R37–R43). A stat is
named as an override names it (:mod:`caltrop.sim.overrides`): ``goblin.evasion`` sets it on
every numbered copy (``goblin-1``, ``goblin-2``), ``goblin-1.evasion`` on one. Anything else is
refused with the list of what may be varied.

**How** (:func:`find_value`): every value is played under ``tactical`` on both sides, with the
same seed and ``n`` (paired: encounter *i* rolls the same streams at every value), through
:func:`caltrop.sim.runner.simulate` (the compiled kernel where it can play). From the current
value the search steps 1, 2, 4, 8 … either way until the PC win rate passes the target (once
one way leads towards the target and the other does not, the other is dropped; a value the
content rules refuse ends a direction at the last value they take), then bisects over the
integers to two neighbours on either side of it, and plays one value beyond each (for the
interval). The answer is the one nearer the target, with its Wilson interval, and the crossing
linearly interpolated between the values played, with the interval where the Wilson band of
that curve holds the target (:func:`caltrop.sim.summary.crossing`, as ``caltrop sweep
--target``). The rate need not be monotone in a stat; the answer is then a crossing, not
necessarily the only one (``crossings`` counts those among the values played).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from caltrop.core.model import CreatureDef, Economy, EncounterDef, Side
from caltrop.economy.points.state import STAT_DEFAULTS
from caltrop.errors import CaltropError, VaryError
from caltrop.sim.overrides import MAX_VALUE, Override, Variant, select_creatures
from caltrop.sim.runner import DEFAULT_MAX_ROUNDS, default_workers, simulate
from caltrop.sim.stats import Interval, wilson
from caltrop.sim.summary import crossing

#: The whole-number fields of a creature that each module's rules read.
FIELDS: Final[dict[Economy, tuple[str, ...]]] = {
    Economy.ACTION_LOAD: ("health", "evasion", "load_buffer", "exhaustion"),
    Economy.ACTION_POINTS: ("health",),
}
#: Stats of the Action Point stat block that are not varied: the starting position (R34).
NOT_VARIED_STATS: Final = frozenset({"x", "y"})
#: Doublings of the step away from the current value at most (1, 2, 4 … 4,096 either way; the
#: content rules' limits end most directions before).
MAX_DOUBLINGS: Final = 12
#: Encounters per value played, by default, per engine (the reference engine is ~100× slower).
DEFAULT_N: Final = {"compiled-tactical": 5_000, "reference": 100}
#: … and on the compiled Action Point kernel (some 20× slower than Action Load's, issue 23).
DEFAULT_POINTS_N: Final = 500

#: ``progress(stat, values played so far)``
Progress = Callable[[str, int], None]


@dataclass(frozen=True, slots=True)
class Point:
    """One value played: the PC win rate there (Wilson 95%)."""

    value: int
    pc_win: Interval

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "pc_win": self.pc_win.as_dict()}


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The answer for one stat: ``value`` (the value played whose PC win rate is nearest the
    target), ``crossing`` (where the curve through the values played meets the target,
    interpolated; ``lo``/``hi`` its interval, None past the values played), every value played,
    and ``note`` when the target was not passed."""

    stat: str
    current: int
    target: float
    value: int
    pc_win: Interval
    crossing: float | None
    lo: float | None
    hi: float | None
    crossings: int
    points: tuple[Point, ...]
    n: int
    seed: int
    engine: str
    note: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "stat": self.stat,
            "current": self.current,
            "target": self.target,
            "value": self.value,
            "pc_win": self.pc_win.as_dict(),
            "crossing": {"value": self.crossing, "lo": self.lo, "hi": self.hi},
            "crossings": self.crossings,
            "n": self.n,
            "seed": self.seed,
            "engine": self.engine,
            "note": self.note,
            "points": [p.as_dict() for p in self.points],
        }


# -- what may be varied ---------------------------------------------------------------------------


def _creature_fields(creature: CreatureDef, economy: Economy) -> list[str]:
    fields = list(FIELDS[economy])
    fields += [f"aspects.{a}" for a in creature.aspects]
    if economy is Economy.ACTION_LOAD:
        fields += [f"actions.{a.name}.cost" for a in creature.actions]
    else:
        fields += [f"stats.{s}" for s in STAT_DEFAULTS if s not in NOT_VARIED_STATS]
    return list(dict.fromkeys(fields))


def _families(definition: EncounterDef) -> dict[str, list[CreatureDef]]:
    """Creatures by the key that names them: numbered copies (``goblin-1``, ``goblin-2``) by
    their common prefix when it is not itself an id, every other creature by its id."""
    ids = {c.id for c in definition.participants}
    out: dict[str, list[CreatureDef]] = {}
    for c in definition.participants:
        m = re.fullmatch(r"(.+?)-?\d+", c.id)
        key = c.id
        if m is not None and m.group(1) not in ids:
            copies = select_creatures(definition, m.group(1))
            if len(copies) > 1 and c.id in copies:
                key = m.group(1)
        out.setdefault(key, []).append(c)
    return out


def variable_stats(definition: EncounterDef) -> list[str]:
    """Every name ``--vary`` takes, one per family of copies where the copies agree on it."""
    economy = definition.ruleset.economy
    names: list[str] = []
    for key, creatures in _families(definition).items():
        for field in _creature_fields(creatures[0], economy):
            values = {_current(c, field) for c in creatures}
            if len(creatures) > 1 and len(values) != 1:
                names += [f"{c.id}.{field}" for c in creatures if _current(c, field) is not None]
            elif None not in values:
                names.append(f"{key}.{field}")
    return names


def listing_text(names: Sequence[str]) -> str:
    """``goblin.{health, evasion, …}; aria.{…}``: the names of :func:`variable_stats` by creature."""
    by_key: dict[str, list[str]] = {}
    for name in names:
        key, _, field = name.partition(".")
        by_key.setdefault(key, []).append(field)
    return "; ".join(f"{key}.{{{', '.join(fields)}}}" for key, fields in by_key.items())


def _current(creature: CreatureDef, field: str) -> int | None:
    """The creature's whole-number value at ``field`` (a dotted path), None if it has none."""
    head, _, rest = field.partition(".")
    if head == "aspects":
        return creature.aspects.get(rest)
    if head == "stats":
        return creature.stats.get(rest, STAT_DEFAULTS.get(rest))
    if head == "actions":
        name, _, attr = rest.rpartition(".")
        action = next((a for a in creature.actions if a.name == name), None)
        return None if action is None or attr != "cost" else action.cost
    value = getattr(creature, head, None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def resolve_stat(definition: EncounterDef, name: str) -> tuple[tuple[str, ...], int]:
    """``name``'s override path and its current value; :class:`VaryError` with the list of
    what may be varied for anything else (a ruleset option, another creature's field, a field
    that is not a whole number, copies that disagree)."""
    allowed = variable_stats(definition)
    listing = f"what may be varied in {definition.name}: {listing_text(allowed)}"
    key, dot, field = name.strip().partition(".")
    if not dot or not field or not key:
        raise VaryError(f"--vary {name!r}: write CREATURE.STAT; {listing}")
    economy = definition.ruleset.economy
    families = _families(definition)
    ids = {c.id for c in definition.participants}
    if key in families:
        creatures = families[key]
    elif key in ids:
        creatures = [c for c in definition.participants if c.id == key]
    else:  # a side (pc, npc) or an id prefix: not one stat block
        raise VaryError(f"--vary {name!r}: no creature {key!r}; {listing}")
    if any(field not in _creature_fields(c, economy) for c in creatures):
        raise VaryError(f"--vary {name!r} is not a stat that may be varied; {listing}")
    values = {c.id: _current(c, field) for c in creatures}
    if None in values.values():
        raise VaryError(f"--vary {name!r} is not a stat that may be varied; {listing}")
    if len(set(values.values())) > 1:
        shown = ", ".join(f"{i} {v}" for i, v in values.items())
        raise VaryError(f"--vary {name!r}: the copies differ ({shown}): name one; {listing}")
    current = next(iter(values.values()))
    assert current is not None
    return (key, *field.split(".")), current


# -- the search -----------------------------------------------------------------------------------


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def find_value(
    play: Callable[[int], Interval],
    valid: Callable[[int], bool],
    current: int,
    target: float,
    *,
    max_doublings: int = MAX_DOUBLINGS,
) -> tuple[dict[int, Interval], tuple[int, int] | None]:
    """Every value played and the neighbours ``(a, a + 1)`` around the target (None if the
    target was not passed), by doubling steps from ``current`` then integer bisection.
    ``play(v)`` is the PC win rate at ``v``; ``valid(v)`` whether the content rules take it."""
    points: dict[int, Interval] = {}

    def gap(v: int) -> float:
        if v not in points:
            points[v] = play(v)
        return points[v].estimate - target

    g0 = gap(current)
    if g0 == 0:
        return points, (current, current)
    alive = {1: True, -1: True}
    edge = {1: current, -1: current}
    for k in range(max_doublings + 1):
        closer: dict[int, bool] = {}
        for d in (1, -1):
            if not alive[d]:
                continue
            v = current + d * 2**k
            if abs(v) > MAX_VALUE or not valid(v):
                alive[d] = False
                v = _furthest_valid(valid, edge[d], v)
                if v == edge[d]:
                    continue
            g = gap(v)
            if _sign(g) != _sign(g0):
                return points, _bisect(gap, *sorted((edge[d], v)))
            edge[d] = v
            closer[d] = abs(g) < abs(g0)
        if len(closer) == 2 and closer[1] != closer[-1]:
            # one way leads towards the target: the other is dropped, for good (a later
            # value that looks worse is noise or a bump, not a reason to turn back)
            alive[1 if closer[-1] else -1] = False
        if not any(alive.values()):
            break
    return points, None


def _furthest_valid(valid: Callable[[int], bool], good: int, bad: int) -> int:
    """The value between ``good`` (valid) and ``bad`` (refused) furthest from ``good`` that the
    content rules take (their limits are ranges), by bisection."""
    bad = max(-MAX_VALUE - 1, min(MAX_VALUE + 1, bad))
    while abs(bad - good) > 1:
        mid = (good + bad) // 2
        if valid(mid):
            good = mid
        else:
            bad = mid
    return good


def _bisect(gap: Callable[[int], float], a: int, b: int) -> tuple[int, int]:
    """Neighbours around the sign change of ``gap`` between ``a`` and ``b``."""
    ga = gap(a)
    while b - a > 1:
        m = (a + b) // 2
        gm = gap(m)
        if gm == 0:
            return m, m
        if _sign(gm) == _sign(ga):
            a, ga = m, gm
        else:
            b = m
    return a, b


def vary(
    definition: EncounterDef,
    names: Sequence[str],
    target: float,
    *,
    n: int | None = None,
    seed: int = 0,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    workers: int | None = None,
    progress: Progress | None = None,
) -> tuple[Suggestion, ...]:
    """:class:`Suggestion` for each stat of ``names`` (all checked before any is played)."""
    if not 0.0 <= target <= 1.0:
        raise VaryError(f"--target is a PC win probability from 0 to 1, not {target}")
    if not names:
        allowed = listing_text(variable_stats(definition))
        raise VaryError(f"--vary names no stat; what may be varied in {definition.name}: {allowed}")
    stats = [(name.strip(), *resolve_stat(definition, name)) for name in names]
    engine = _engine(definition)
    default = DEFAULT_N[engine]
    if engine != "reference" and definition.ruleset.economy is Economy.ACTION_POINTS:
        default = DEFAULT_POINTS_N
    size = default if n is None else n
    if size < 1:
        raise VaryError(f"--vary-n is at least 1, not {size}")
    out: list[Suggestion] = []
    for name, path, current in stats:
        out.append(
            _one(
                definition,
                name,
                path,
                current,
                target,
                n=size,
                seed=seed,
                max_rounds=max_rounds,
                workers=workers,
                engine=engine,
                progress=progress,
            )
        )
    return tuple(out)


def _engine(definition: EncounterDef) -> str:
    from caltrop.sim.fast.compile import FastPathError
    from caltrop.sim.fast.tactical import compile_any

    try:
        compile_any(definition)
    except FastPathError:
        return "reference"
    return "compiled-tactical"


def _one(
    definition: EncounterDef,
    name: str,
    path: tuple[str, ...],
    current: int,
    target: float,
    *,
    n: int,
    seed: int,
    max_rounds: int,
    workers: int | None,
    engine: str,
    progress: Progress | None,
) -> Suggestion:
    def variant(v: int) -> Variant:
        return Variant(f"{name}={v}", (Override(path, str(v)),))

    def valid(v: int) -> bool:
        try:
            variant(v).apply(definition)
        except CaltropError:
            return False
        return True

    played = 0

    def play(v: int) -> Interval:
        nonlocal played
        result = simulate(
            definition,
            [variant(v)],
            {Side.PC.value: "tactical", Side.NPC.value: "tactical"},
            n=n,
            seed=seed,
            workers=default_workers() if workers is None else workers,
            max_rounds=max_rounds,
            engine="compiled",
        )
        played += 1
        if progress is not None:
            progress(name, played)
        return wilson(float(result.runs[0].records.wins(Side.PC.value).sum()), n)

    points, around = find_value(play, valid, current, target)
    if around is not None:  # one value either side too: the crossing's interval needs them
        for v in (min(around) - 1, max(around) + 1):
            if v not in points and abs(v) <= MAX_VALUE and valid(v):
                points[v] = play(v)
    ordered = sorted(points)
    curve = [{"value": str(v), "win_rate": {"pc": points[v].as_dict()}} for v in ordered]
    cross = crossing(curve, side="pc", target=target)
    note = None
    if around is None:
        best = min(ordered, key=lambda v: (abs(points[v].estimate - target), abs(v - current)))
        above = points[best].estimate > target
        note = (
            f"the PC win rate stays {'above' if above else 'below'} {target:g} at every value "
            f"played ({ordered[0]} to {ordered[-1]}): {best} comes nearest"
        )
    else:
        best = min(around, key=lambda v: (abs(points[v].estimate - target), abs(v - current)))
    return Suggestion(
        stat=name,
        current=current,
        target=target,
        value=best,
        pc_win=points[best],
        crossing=cross.get("value"),
        lo=cross.get("lo"),
        hi=cross.get("hi"),
        crossings=int(cross.get("crossings", 0)),
        points=tuple(Point(v, points[v]) for v in ordered),
        n=n,
        seed=seed,
        engine=engine,
        note=note,
    )


__all__ = [
    "DEFAULT_N",
    "FIELDS",
    "Point",
    "Suggestion",
    "VaryError",
    "find_value",
    "listing_text",
    "resolve_stat",
    "variable_stats",
    "vary",
]
