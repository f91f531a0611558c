"""From raw records to the numbers a designer reads: per-variant summaries, paired differences,
and sweep curves with where they cross a target win rate. Everything here is JSON-ready.

The shapes (``caltrop sim --json``)::

    {"variants": [{"name", "n", "win_rate": {SIDE: {"p", "lo", "hi"}}, "rounds": {"mean",
      "median", "p90", "histogram"}, …}], "differences": [{"a", "b", "side", "diff", "lo", "hi"}]}

Win rates carry Wilson 95% intervals; differences are paired (encounter *i* of every variant
shares its random streams) with the interval ``mean(d) ± z·sd(d)/√n`` of the per-encounter
differences ``d_i ∈ {−1, 0, 1}`` (see :mod:`caltrop.sim.stats`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from caltrop.core.model import EncounterDef
from caltrop.errors import OverrideError
from caltrop.sim.overrides import select_creatures
from caltrop.sim.runner import SIDES, SimResult, VariantRun
from caltrop.sim.stats import (
    distribution_summary,
    mean_interval,
    newcombe_paired,
    paired_difference,
    paired_p_value,
    wilson,
)

#: The interval method of every paired difference, named in the JSON. Win-rate differences also
#: carry Newcombe's (1998, method 10) score interval for paired proportions as ``newcombe``.
DIFFERENCE_METHOD = (
    "paired: mean(d) ± 1.96·sd(d)/√n over per-encounter differences d_i "
    "(win rates also give Newcombe's paired score interval as 'newcombe'; where no pair is "
    "discordant, 'identical', the interval is Newcombe's: never a bare [0, 0])"
)


def variant_summary(run: VariantRun) -> dict[str, Any]:
    """Everything measured for one variant."""
    rec = run.records
    n = rec.n
    creatures = run.definition.participants
    side_cols = {
        side: np.array([c.side.value == side for c in creatures], dtype=bool) for side in SIDES
    }
    rounds = np.maximum(rec.rounds, 1).astype(np.float64)
    win_rate = {side: wilson(float(rec.wins(side).sum()), n).as_dict() for side in SIDES}
    draws = float((rec.winner == 0).sum())
    per_side: dict[str, dict[str, float]] = {
        "damage_per_round": {},
        "cost_per_encounter": {},
        "reactions_per_encounter": {},
        "team_actions_per_encounter": {},
        "down_per_encounter": {},
    }
    # each measure's 95% interval of the mean (issue 25 item 2: the plots draw them)
    per_side_interval: dict[str, dict[str, dict[str, float]]] = {m: {} for m in per_side}
    for side, cols in side_cols.items():
        samples = {
            "damage_per_round": rec.dealt[:, cols].sum(1) / rounds,
            "cost_per_encounter": rec.cost[:, cols].sum(1),
            "reactions_per_encounter": rec.reactions[:, cols].sum(1),
            "team_actions_per_encounter": rec.team[:, cols].sum(1),
            "down_per_encounter": rec.down[:, cols].sum(1),
        }
        for measure, x in samples.items():
            iv = mean_interval(x)
            per_side[measure][side] = iv.estimate
            per_side_interval[measure][side] = {"lo": iv.lo, "hi": iv.hi}
    table = []
    for k, c in enumerate(creatures):
        lost = c.health - np.maximum(rec.health[:, k], 0)
        down = wilson(float(rec.down[:, k].sum()), n)
        dealt = mean_interval(rec.dealt[:, k])
        lost_iv = mean_interval(lost)
        table.append(
            {
                "id": c.id,
                "side": c.side.value,
                "cost_per_encounter": float(rec.cost[:, k].mean()),
                "cost_per_round": float((rec.cost[:, k] / rounds).mean()),
                "damage_dealt": float(rec.dealt[:, k].mean()),
                "reactions": float(rec.reactions[:, k].mean()),
                "helps": float(rec.helps[:, k].mean()),
                "hinders": float(rec.hinders[:, k].mean()),
                "down_rate": float(rec.down[:, k].mean()),
                # Health lost (down to 0, not below): the damage it took that counted
                "health_lost": float(lost.mean()),
                "interval": {
                    "down_rate": {"lo": down.lo, "hi": down.hi},
                    "damage_dealt": {"lo": dealt.lo, "hi": dealt.hi},
                    "health_lost": {"lo": lost_iv.lo, "hi": lost_iv.hi},
                },
            }
        )
    return {
        "name": run.name,
        "n": n,
        "overrides": [str(o) for o in run.variant.overrides],
        "win_rate": win_rate,
        "draw_rate": wilson(draws, n).as_dict(),
        "timeouts": int(rec.timeout.sum()),
        "rounds": distribution_summary(rec.rounds),
        "rounds_mean_interval": mean_interval(rec.rounds).as_dict("mean"),
        **per_side,
        "per_side_interval": per_side_interval,
        "creatures": table,
    }


def differences(runs: Sequence[VariantRun]) -> list[dict[str, Any]]:
    """Each variant against the first (``b − a``): win rate per side, paired; and mean rounds."""
    if len(runs) < 2:
        return []
    base = runs[0]
    out: list[dict[str, Any]] = []
    for other in runs[1:]:
        for side in SIDES:
            a, b = base.records.wins(side), other.records.wins(side)
            iv = paired_difference(a, b)
            score = newcombe_paired(a, b)
            discordant = int((a != b).sum())
            if discordant == 0:
                iv = score  # no bare [0, 0]: the same outcome in every pair is not certainty
            out.append(
                {
                    "a": base.name,
                    "b": other.name,
                    "side": side,
                    "measure": "win_rate",
                    "diff": iv.estimate,
                    "lo": iv.lo,
                    "hi": iv.hi,
                    "p_value": paired_p_value(a, b),
                    "newcombe": {"lo": score.lo, "hi": score.hi},
                    "discordant": discordant,
                    "identical": discordant == 0,
                }
            )
        iv = paired_difference(base.records.rounds, other.records.rounds)
        out.append(
            {
                "a": base.name,
                "b": other.name,
                "side": None,
                "measure": "rounds_mean",
                "diff": iv.estimate,
                "lo": iv.lo,
                "hi": iv.hi,
                "p_value": paired_p_value(base.records.rounds, other.records.rounds),
                "identical": bool((base.records.rounds == other.records.rounds).all()),
            }
        )
    return out


def exact_differences(summary: dict[str, Any]) -> None:
    """With ``--exact`` and two or more variants, each win-rate difference row (and each row of
    the comparison under each tactic played by the run's own policy) gets ``exact``: the exact
    difference from the baseline, ``{"diff": float, "fraction": "p/q"}`` — the subtraction of
    the exact win probabilities a reader had to do from the JSON (issue 25 item 1)."""
    from fractions import Fraction

    exact = {
        v["name"]: {side: Fraction(v["exact"]["win_rate"][side]["exact"]) for side in ("pc", "npc")}
        for v in summary["variants"]
        if "exact" in v
    }
    own = (
        summary["policies"]["pc"]
        if summary["policies"]["pc"] == summary["policies"]["npc"]
        else None
    )
    rows = list(summary["differences"])
    across = summary.get("across_tactics")
    if across and own is not None:
        rows += [r for r in across["rows"] if r["policy"] == own]
    for d in rows:
        if d["measure"] != "win_rate" or d["a"] not in exact or d["b"] not in exact:
            continue
        delta = exact[d["b"]][d["side"]] - exact[d["a"]][d["side"]]
        d["exact"] = {
            "diff": float(delta),
            "fraction": f"{delta.numerator}/{delta.denominator}",
            "within_interval": d["lo"] <= float(delta) <= d["hi"],
        }


def summarise(result: SimResult) -> dict[str, Any]:
    """The whole ``caltrop sim --json`` document."""
    return {
        "encounter": result.encounter,
        "seed": result.seed,
        "n": result.n,
        "policies": result.policies,
        "max_rounds": result.max_rounds,
        "variants": [variant_summary(r) for r in result.runs],
        "differences": differences(result.runs),
        "difference_method": DIFFERENCE_METHOD,
        **result.extra,
    }


# -- sweeps ---------------------------------------------------------------------------------------


def sweep_summary(
    result: SimResult,
    path: str,
    values: Sequence[str],
    *,
    side: str = "pc",
    target: float | None = None,
    definition: EncounterDef | None = None,
) -> dict[str, Any]:
    """One point per value with its Wilson interval; with ``target`` (a win rate a designer aims
    at, e.g. 0.5 for a fair fight), where ``side``'s win rate crosses it (:func:`crossing`).
    There is no "best" value: the highest win rate is rarely what a designer wants."""
    points = []
    for value, run in zip(values, result.runs, strict=True):
        s = variant_summary(run)
        points.append(
            {
                "value": value,
                "n": s["n"],
                "win_rate": s["win_rate"],
                "rounds": {k: s["rounds"][k] for k in ("mean", "median", "p90")},
                "play": play_measures(s),
            }
        )
    out: dict[str, Any] = {
        "encounter": result.encounter,
        "seed": result.seed,
        "n": result.n,
        "policies": result.policies,
        "param": path,
        "side": side,
        "points": points,
    }
    if target is not None:
        out["crossing"] = crossing(points, side=side, target=target)
    steps = sweep_steps(result.runs, values, side=side)
    out["steps"] = steps
    expected = expected_direction(definition, path, side) if definition is not None else None
    out["against_trend"] = against_trend(points, steps, side=side, expected=expected)
    if expected is not None:
        out["expected"] = expected
    return out


#: The stats a creature is the stronger for the higher they are (the rules' meaning: R10's Load
#: Buffer, R40's Evasion, block, dodge and Resistance, an Aspect's dice, Health and Stamina,
#: the Action Point module's points): raising one should raise its own side's win rate and
#: lower the other's. A stat not listed (Exhaustion, Cost, a weapon's dice, positions…) sets no
#: expectation: the sweep's own majority decides its trend.
STRONGER_WHEN_HIGHER = frozenset(
    {
        "health", "max_health", "evasion", "load_buffer", "aspects", "stamina", "ap", "rp",
        "resistance", "block_rating", "dodge_rating", "power_mod", "travel_speed",
    }
)  # fmt: skip


def expected_direction(definition: EncounterDef, path: str, side: str) -> int | None:
    """+1 or −1: how ``side``'s win rate should move as the stat ``path`` rises, from what the
    stat means (:data:`STRONGER_WHEN_HIGHER`) and whose it is (``goblin.evasion``: the NPCs'
    goblins' Evasion, so the PC win rate should fall); None where that says nothing (an option,
    a stat not listed, creatures of both sides)."""
    parts = path.split(".")
    if len(parts) < 2:
        return None
    stat = parts[1]
    name = parts[2] if stat == "stats" else stat
    if name not in STRONGER_WHEN_HIGHER and stat != "aspects":
        return None
    try:
        ids = set(select_creatures(definition, parts[0]))
    except OverrideError:
        return None
    sides = {c.side.value for c in definition.participants if c.id in ids}
    if len(sides) != 1:
        return None
    return 1 if sides == {side} else -1


#: What a sweep shows of play at each value (issue 25 item 6): per side, per encounter (damage
#: per round), named as a designer reads them.
PLAY_MEASURES = {
    "damage_per_round": "damage / round",
    "cost_per_encounter": "Load or points used",
    "reactions_per_encounter": "reactions",
    "team_actions_per_encounter": "team actions",
    "helps_per_encounter": "helps",
    "hinders_per_encounter": "hinders",
    "rounds": "rounds",
}


def play_measures(s: dict[str, Any]) -> dict[str, dict[str, float]]:
    """``{measure: {side: mean}}`` of one value's play (``rounds``: the fight's, on both sides),
    from its :func:`variant_summary` ``s``."""
    out: dict[str, dict[str, float]] = {}
    for key in PLAY_MEASURES:
        if key in s and isinstance(s[key], dict) and "pc" in s[key]:
            out[key] = {side: float(s[key][side]) for side in SIDES}
    for key, field in (("helps_per_encounter", "helps"), ("hinders_per_encounter", "hinders")):
        out[key] = {
            side: float(sum(c[field] for c in s["creatures"] if c["side"] == side))
            for side in SIDES
        }
    mean = float(s["rounds"]["mean"])
    out["rounds"] = {side: mean for side in SIDES}
    return out


def sweep_steps(
    runs: Sequence[VariantRun], values: Sequence[str], *, side: str
) -> list[dict[str, Any]]:
    """``side``'s win-rate change from each value to the next, paired (encounter *i* of every
    value shares its dice), with its 95% interval."""
    out = []
    for k in range(len(runs) - 1):
        a, b = runs[k].records.wins(side), runs[k + 1].records.wins(side)
        iv = paired_difference(a, b)
        if int((a != b).sum()) == 0:
            iv = newcombe_paired(a, b)
        out.append(
            {"from": values[k], "to": values[k + 1], "diff": iv.estimate, "lo": iv.lo, "hi": iv.hi}
        )
    return out


def _sign(step: dict[str, Any]) -> int:
    """+1 / −1 where the step's paired interval is clear of 0 on that side, else 0."""
    return 1 if step["lo"] > 0 else -1 if step["hi"] < 0 else 0


def against_trend(
    points: Sequence[dict[str, Any]],
    steps: Sequence[dict[str, Any]],
    *,
    side: str,
    expected: int | None = None,
) -> list[dict[str, Any]]:
    """The steps of a numeric sweep where ``side``'s win rate moves against the sweep's trend
    — e.g. goblin Evasion 12 → 13 raising the PC win rate that every other step of Evasion
    lowers (issue 25 item 6). Only significant steps count (the paired interval clear of 0):
    when they go both ways, the trend is the direction most of them take (ties: the larger
    total move), and the others are against it. Each names what changed most in play between
    the two values (``changed``: the play measures by relative change, largest first), so a
    designer can tell a tactic's quirk (it plays differently) from a rule's effect.

    ``expected`` (:func:`expected_direction`, from what the stat means): where known, it is
    the trend, and every significant step the other way is against it — also when most steps
    go that way (``against_stat``): raising the goblins' Evasion should lower the PC win rate,
    whatever the sweep's majority says (with two steps, one up and one down, the majority had
    flagged the step that went the right way)."""
    xs = _numbers([p["value"] for p in points])
    if xs is None or len(xs) < 2 or sorted(xs) != xs:
        return []
    signs = [_sign(step) for step in steps]
    up, down = signs.count(1), signs.count(-1)
    if expected is not None:
        trend = expected
    else:
        if len(xs) < 3 or not up or not down:
            return []  # monotone, as far as the samples can tell
        moved = sum(step["diff"] for step, sign in zip(steps, signs, strict=True) if sign)
        trend = 1 if up > down else -1 if down > up else (1 if moved > 0 else -1)
    out = []
    for k, step in enumerate(steps):
        if signs[k] != -trend:
            continue
        before, after = points[k]["play"], points[k + 1]["play"]
        changed = []
        for measure, sides in before.items():
            for who in SIDES if measure != "rounds" else ("pc",):
                a, b = sides[who], after[measure][who]
                if a == b:
                    continue
                relative = (b - a) / abs(a) if a else None  # from none at all: first
                changed.append(
                    {
                        "measure": measure,
                        "side": None if measure == "rounds" else who,
                        "from": a,
                        "to": b,
                        "relative": relative,
                    }
                )
        changed.sort(key=lambda c: -math.inf if c["relative"] is None else -abs(c["relative"]))
        out.append(
            {
                **step,
                "trend": trend,
                "against_stat": expected is not None,
                "changed": changed[:PLAY_CHANGES_SHOWN],
            }
        )
    return out


#: The play measures named for a step against the trend: the ones that moved most.
PLAY_CHANGES_SHOWN = 4


def _numbers(values: Sequence[str]) -> list[float] | None:
    try:
        return [float(v) for v in values]
    except ValueError:
        return None


def _interpolate(xs: Sequence[float], ys: Sequence[float], target: float) -> list[float]:
    """Every x where the piecewise-linear curve through (xs, ys) meets ``target``."""
    out: list[float] = []
    for k in range(len(xs) - 1):
        y0, y1 = ys[k] - target, ys[k + 1] - target
        if y0 == 0:
            out.append(xs[k])
        elif y0 * y1 < 0:
            out.append(xs[k] + (xs[k + 1] - xs[k]) * y0 / (y0 - y1))
    if ys and ys[-1] == target:
        out.append(xs[-1])
    return out


def crossing(points: Sequence[dict[str, Any]], *, side: str, target: float) -> dict[str, Any]:
    """Where ``side``'s win rate crosses ``target`` along a numeric sweep: the value, linearly
    interpolated between the two swept values around it, and an interval — the values where the
    Wilson 95% band of the (interpolated) curve still holds the target, around the crossing.
    ``lo``/``hi`` are None where that band reaches past the values swept (sweep further)."""
    xs = _numbers([p["value"] for p in points])
    base: dict[str, Any] = {"side": side, "target": target}
    if xs is None or len(xs) < 2 or sorted(xs) != xs:
        return {**base, "value": None, "why": "the values swept are not increasing numbers"}
    ps = [p["win_rate"][side]["p"] for p in points]
    found = _interpolate(xs, ps, target)
    if not found:
        above = all(p > target for p in ps)
        return {
            **base,
            "value": None,
            "why": f"the {side} win rate is {'above' if above else 'below'} {target:g} at every "
            "value swept",
        }
    value = found[0]
    # the band holds the target on [first crossing of one edge, next crossing of the other]
    edges = sorted(
        _interpolate(xs, [p["win_rate"][side]["lo"] for p in points], target)
        + _interpolate(xs, [p["win_rate"][side]["hi"] for p in points], target)
    )
    lo = max((x for x in edges if x <= value), default=None)
    hi = min((x for x in edges if x >= value), default=None)
    return {
        **base,
        "value": value,
        "lo": lo,
        "hi": hi,
        "crossings": len(found),
    }


# -- two stats at once ------------------------------------------------------------------------


def grid_summary(
    result: SimResult,
    paths: tuple[str, str],
    values: tuple[Sequence[str], Sequence[str]],
    *,
    side: str = "pc",
    target: float | None = None,
) -> dict[str, Any]:
    """``caltrop sweep --set A=… --set B=…`` (issue 25 item 7): one cell per pair of values
    (``result.runs`` in row-major order: A's first value with every B value, then the next),
    each with its Wilson interval; with ``target``, per value of A, where ``side``'s win rate
    crosses it along B (:func:`crossing`) — the contour a heat map draws."""
    rows_a, cols_b = values
    if len(result.runs) != len(rows_a) * len(cols_b):
        raise ValueError("a grid needs one run per pair of values")
    cells: list[list[dict[str, Any]]] = []
    for i, _a in enumerate(rows_a):
        row = []
        for j, b in enumerate(cols_b):
            run = result.runs[i * len(cols_b) + j]
            s = variant_summary(run)
            row.append(
                {
                    "value": b,
                    "n": s["n"],
                    "win_rate": s["win_rate"],
                    "rounds": {k: s["rounds"][k] for k in ("mean", "median", "p90")},
                }
            )
        cells.append(row)
    out: dict[str, Any] = {
        "encounter": result.encounter,
        "seed": result.seed,
        "n": result.n,
        "policies": result.policies,
        "grid": {"params": list(paths), "values": [list(rows_a), list(cols_b)], "cells": cells},
        "side": side,
    }
    if target is not None:
        out["contour"] = [
            {"row": a, **crossing(row, side=side, target=target)}
            for a, row in zip(rows_a, cells, strict=True)
        ]
    return out
