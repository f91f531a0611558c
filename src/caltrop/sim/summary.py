"""From raw records to the numbers a designer reads: per-variant summaries, paired differences,
and sweep curves with a Holm-corrected best value. Everything here is JSON-ready.

The shapes (``caltrop sim --json``)::

    {"variants": [{"name", "n", "win_rate": {SIDE: {"p", "lo", "hi"}}, "rounds": {"mean",
      "median", "p90", "histogram"}, …}], "differences": [{"a", "b", "side", "diff", "lo", "hi"}]}

Win rates carry Wilson 95% intervals; differences are paired (encounter *i* of every variant
shares its random streams) with the interval ``mean(d) ± z·sd(d)/√n`` of the per-encounter
differences ``d_i ∈ {−1, 0, 1}`` (see :mod:`caltrop.sim.stats`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from caltrop.sim.runner import SIDES, SimResult, VariantRun
from caltrop.sim.stats import (
    distribution_summary,
    holm,
    mean_interval,
    newcombe_paired,
    one_sample_p_value,
    paired_difference,
    paired_p_value,
    wilson,
)

#: The interval method of every paired difference, named in the JSON. Win-rate differences also
#: carry Newcombe's (1998, method 10) score interval for paired proportions as ``newcombe``.
DIFFERENCE_METHOD = (
    "paired: mean(d) ± 1.96·sd(d)/√n over per-encounter differences d_i "
    "(win rates also give Newcombe's paired score interval as 'newcombe')"
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
    for side, cols in side_cols.items():
        per_side["damage_per_round"][side] = float((rec.dealt[:, cols].sum(1) / rounds).mean())
        per_side["cost_per_encounter"][side] = float(rec.cost[:, cols].sum(1).mean())
        per_side["reactions_per_encounter"][side] = float(rec.reactions[:, cols].sum(1).mean())
        per_side["team_actions_per_encounter"][side] = float(rec.team[:, cols].sum(1).mean())
        per_side["down_per_encounter"][side] = float(rec.down[:, cols].sum(1).mean())
    table = []
    for k, c in enumerate(creatures):
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
            iv = paired_difference(base.records.wins(side), other.records.wins(side))
            score = newcombe_paired(base.records.wins(side), other.records.wins(side))
            out.append(
                {
                    "a": base.name,
                    "b": other.name,
                    "side": side,
                    "measure": "win_rate",
                    "diff": iv.estimate,
                    "lo": iv.lo,
                    "hi": iv.hi,
                    "p_value": paired_p_value(base.records.wins(side), other.records.wins(side)),
                    "newcombe": {"lo": score.lo, "hi": score.hi},
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
            }
        )
    return out


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
    alpha: float = 0.05,
) -> dict[str, Any]:
    """One point per value with its Wilson interval, and the best value, Holm-corrected.

    Without ``target`` the best value is the one with the highest win rate for ``side``; each
    other value is compared with it by a paired test (all values share their seeds), and the
    Holm-adjusted p-values say which of them cannot be told apart from it at level ``alpha``.
    With ``target`` (a win rate a designer aims at, e.g. 0.5) each value is tested against the
    target (H0: p = target), Holm-corrected across the values; the best is the value closest
    to the target, and ``consistent`` lists every value whose rate the data do not reject.
    """
    points = []
    for value, run in zip(values, result.runs, strict=True):
        s = variant_summary(run)
        points.append(
            {
                "value": value,
                "n": s["n"],
                "win_rate": s["win_rate"],
                "rounds": {k: s["rounds"][k] for k in ("mean", "median", "p90")},
            }
        )
    rates = [p["win_rate"][side]["p"] for p in points]
    best: dict[str, Any]
    if target is None:
        b = int(np.argmax(rates))
        comparisons = []
        raw = []
        others = [k for k in range(len(points)) if k != b]
        for k in others:
            raw.append(
                paired_p_value(result.runs[b].records.wins(side), result.runs[k].records.wins(side))
            )
        adjusted = holm(raw)
        for k, p, q in zip(others, raw, adjusted, strict=True):
            comparisons.append(
                {
                    "value": values[k],
                    "diff": rates[k] - rates[b],
                    "p_value": p,
                    "p_holm": q,
                    "worse": q <= alpha,
                }
            )
        tied = [c["value"] for c in comparisons if not c["worse"]]
        best = {
            "objective": f"highest {side} win rate",
            "value": values[b],
            "p": rates[b],
            "clear": not tied,
            "not_distinguishable": tied,
            "comparisons": comparisons,
        }
    else:
        raw = [
            one_sample_p_value(float(result.runs[k].records.wins(side).sum()), result.n, target)
            for k in range(len(points))
        ]
        adjusted = holm(raw)
        b = int(np.argmin([abs(r - target) for r in rates]))
        best = {
            "objective": f"{side} win rate closest to {target}",
            "value": values[b],
            "p": rates[b],
            "consistent": [v for v, q in zip(values, adjusted, strict=True) if q > alpha],
            "comparisons": [
                {"value": v, "p_value": p, "p_holm": q, "rejected": q <= alpha}
                for v, p, q in zip(values, raw, adjusted, strict=True)
            ],
        }
    best["correction"] = f"Holm, family-wise alpha {alpha}"
    return {
        "encounter": result.encounter,
        "seed": result.seed,
        "n": result.n,
        "policies": result.policies,
        "param": path,
        "side": side,
        "points": points,
        "best": best,
    }
