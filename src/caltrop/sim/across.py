"""A variant's effect under every tactic: the same comparison played by each policy, side by
side, and said in words when the tactics disagree (issue 13).

A rule change can help one style of play and hurt another: on Goblin Ambush, round reset moved
the PC win rate one way under ``tactical`` and the other way under the fast path's tactic. So a
comparison of variants is re-run under every bundled policy that can play the encounter (both
sides the same policy; the fast path's tactic too where it can play it), each on paired seeds,
and :func:`verdicts` compares the PC win-rate differences across them: a *sign* disagreement
(significant both ways), a *significance* disagreement (significant under some, not others), or
agreement.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from caltrop.core.model import Economy, EncounterDef
from caltrop.sim.overrides import Variant
from caltrop.sim.registry import policy_entry
from caltrop.sim.runner import DEFAULT_MAX_ROUNDS, SimResult, simulate
from caltrop.sim.stats import holm
from caltrop.sim.summary import differences

#: The fast path's tactic, named like a policy in these comparisons.
FAST = "fast"
#: The strong player (:mod:`caltrop.sim.search`), seconds to minutes per encounter.
SEARCH = "search"
#: The policies compared by default, in this order (those registered; ``fast`` where it plays;
#: ``search`` where it fits its budget, :func:`search_fits`).
DEFAULT_POLICIES = ("tactical", "attack-weakest", "random", SEARCH, FAST)
#: The strong player's share of a comparison: by default it plays only where this many
#: encounters per variant...
ACROSS_SEARCH_N = 40
#: ...are estimated to take at most this many seconds, and then as many as fit them (all of
#: the run's when ``--policies`` names it).
ACROSS_SEARCH_SECONDS = 300.0


def search_seconds(definition: EncounterDef) -> float:
    """Estimated CPU seconds of one encounter with ``search`` on both sides: one ``tactical``
    play-out of it is timed (after another that warms the caches) and its decisions counted;
    each decision costs the module's budget of playouts (:func:`caltrop.sim.search.settings_for`),
    each as long as the search's horizon or half the encounter, whichever is shorter — or, where
    the compiled kernel plays the playouts, each a whole fight in the kernel (an over-estimate:
    a decision with one legal command is not searched, a settled one stops at its screen)."""
    import time

    from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollDice
    from caltrop.sim.search import settings_for
    from caltrop.sim.tactics import TacticalPolicy

    tactical = TacticalPolicy()
    roll = RollDice()
    for seed in (1, 0):  # the first warms the tactics' caches; the second is timed
        began = time.process_time()
        decisions = 0
        encounter = Encounter.begin(definition, seed, record=False)
        while (who := encounter.current()) != TERMINAL and encounter.round <= DEFAULT_MAX_ROUNDS:
            if who == CHANCE:
                encounter.apply(roll)
            else:
                encounter.apply(tactical.choose(encounter, who))
                decisions += 1
        took = max(time.process_time() - began, 1e-4)
    settings = settings_for(encounter)
    playout = _kernel_seconds(definition)
    if settings.compiled is not None and playout is not None:
        # playouts in the compiled kernel (each at most a whole fight), and the engine's own
        # work per candidate (applying it and answering the window: a decision's worth each)
        fast = settings.compiled
        per_decision = took / max(1, decisions)
        return decisions * (fast.budget * playout + fast.candidates * 4 * per_decision)
    share = min(0.5, settings.horizon / max(1, encounter.round))
    return decisions * settings.budget * took * share


def _kernel_seconds(definition: EncounterDef) -> float | None:
    """CPU seconds of one whole fight in the compiled tactical kernel (timed on 256, after a
    warm-up that also compiles), or None where the kernel cannot play the encounter."""
    import time

    from caltrop.sim.fast.compile import FastPathError
    from caltrop.sim.fast.tactical import compile_tactical, play_tactical

    try:
        compiled = compile_tactical(definition)
    except FastPathError:
        return None
    play_tactical(compiled, 16, 0, threads=1)
    began = time.process_time()
    play_tactical(compiled, 256, 1, threads=1)
    return max(time.process_time() - began, 1e-6) / 256


def search_fits(
    definition: EncounterDef, variants: Sequence[Variant], n: int, workers: int
) -> tuple[bool, float]:
    """Whether ``search`` plays ``min(n, ACROSS_SEARCH_N)`` encounters of each variant within
    :data:`ACROSS_SEARCH_SECONDS` on ``workers`` processes, and the seconds estimated."""
    fits, _, seconds = search_plan(definition, variants, n, workers)
    return fits, seconds


def search_plan(
    definition: EncounterDef, variants: Sequence[Variant], n: int, workers: int
) -> tuple[bool, int, float]:
    """The strong player's share of a comparison: whether ``min(n, ACROSS_SEARCH_N)``
    encounters of each variant fit :data:`ACROSS_SEARCH_SECONDS` on ``workers`` processes,
    how many it plays (as many of ``n`` as fit that time, at least that many), and the seconds
    the smaller number is estimated to take."""
    each = search_seconds(variants[0].apply(definition)) * len(variants) / max(1, workers)
    seconds = min(n, ACROSS_SEARCH_N) * each
    count = min(n, max(ACROSS_SEARCH_N, int(ACROSS_SEARCH_SECONDS / max(each, 1e-9))))
    return seconds <= ACROSS_SEARCH_SECONDS, count, seconds


def fast_tactic(definition: EncounterDef) -> str:
    """What the fast path's one tactic does in this encounter's economy, in a few words."""
    if definition.ruleset.economy is Economy.ACTION_POINTS:
        return "attack-weakest: attack the weakest adjacent enemy, else shoot, else close in; block"
    return "attack the weakest, hinder to save an ally"


def _fast_plays(definition: EncounterDef, variants: Sequence[Variant]) -> bool:
    from caltrop.sim.fast.compile import FastPathError, compile_encounter
    from caltrop.sim.fast.points.compile import compile_points, is_points

    try:
        for v in variants:
            d = v.apply(definition)
            if is_points(d):
                compile_points(d)
            else:
                compile_encounter(d)
    except FastPathError:
        return False
    return True


def _known(name: str) -> bool:
    if name == FAST:
        return True
    try:
        policy_entry(name)
    except ValueError:
        return False
    return True


def check_policy_names(names: Sequence[str]) -> None:
    """Refuse a name of ``--policies`` that is no tactic (UnknownPolicyError naming the known
    ones): checked before any run, with one variant too (issue 21: ``--policies nope`` was
    ignored when there was nothing to compare)."""
    for name in names:
        if name != FAST:
            policy_entry(name)


def playable_policies(
    definition: EncounterDef, variants: Sequence[Variant], wanted: Sequence[str] | None = None
) -> list[str]:
    """The policies to compare under: ``wanted`` (checked: an unknown name fails) or every
    default one registered, less the fast path where it cannot play the encounter."""
    if wanted:
        check_policy_names(wanted)
        names = list(dict.fromkeys(wanted))
    else:
        names = [p for p in DEFAULT_POLICIES if _known(p)]
    if FAST in names and not _fast_plays(definition, variants):
        if wanted:
            from caltrop.sim.fast.compile import FastPathError

            raise FastPathError(f"the fast path cannot play {definition.name}")
        names.remove(FAST)
    return [policy_entry(n).name if n != FAST else FAST for n in names]


def run_under(
    policy: str,
    definition: EncounterDef,
    variants: Sequence[Variant],
    *,
    n: int,
    seed: int,
    workers: int = 1,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    progress: Callable[[int], None] | None = None,
) -> SimResult:
    """The comparison played with ``policy`` on both sides (the fast path for ``fast``)."""
    if policy == FAST:
        from caltrop.sim.fast.records import simulate_fast

        return simulate_fast(
            definition, variants, n=n, seed=seed, max_rounds=max_rounds, progress=progress
        )
    return simulate(
        definition,
        variants,
        {"pc": policy, "npc": policy},
        n=n,
        seed=seed,
        workers=workers,
        max_rounds=max_rounds,
        progress=progress,
    )


def tactic_rows(results: Mapping[str, SimResult]) -> list[dict[str, Any]]:
    """Per policy, per compared variant: the paired PC win-rate difference (JSON-ready)."""
    rows: list[dict[str, Any]] = []
    for policy, result in results.items():
        for d in differences(result.runs):
            if d["measure"] == "win_rate" and d["side"] == "pc":
                rows.append({"policy": policy, **d})
    return rows


def _pp(x: float) -> str:
    return f"{100 * x:+.1f} pp".replace("-", "−")


def _significant(row: Mapping[str, Any]) -> int:
    """+1 / −1 if the interval is clear of zero on that side, 0 if it holds zero."""
    if row["lo"] > 0:
        return 1
    if row["hi"] < 0:
        return -1
    return 0


#: The family-wise error rate Holm's correction holds the verdicts to.
FAMILY_ALPHA = 0.05


def _holm(rows: Sequence[Mapping[str, Any]]) -> list[float] | None:
    """Holm's adjusted p-values of ``rows`` (one test per tactic per compared variant), or None
    where there is nothing to correct: one policy, or rows without a p-value."""
    if len({r["policy"] for r in rows}) < 2 or not all("p_value" in r for r in rows):
        return None
    return holm([float(r["p_value"]) for r in rows])


def _holm_note(mine: Sequence[Mapping[str, Any]], adjusted: Sequence[float], tests: int) -> str:
    """The verdict's words on multiplicity (issue 25 item 3): testing the same change under
    several tactics, one of them is "significant" by chance far more often than 5% of the time;
    Holm's step-down correction over all ``tests`` keeps that family-wise rate at 5%."""
    held = [
        r["policy"]
        for r, p in zip(mine, adjusted, strict=True)
        if p <= FAMILY_ALPHA and _significant(r)
    ]
    family = f"once corrected for the {tests} tests (Holm, family-wise 5%)"
    if not held:
        return f"; none is significant {family}"
    return f"; {family}: significant under {', '.join(held)}"


def _part(row: Mapping[str, Any]) -> str:
    if row.get("identical"):
        return f"identical in every pair under {row['policy']}"
    return f"{_pp(row['diff'])} under {row['policy']}"


def verdicts(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One sentence per compared variant: whether the tactics agree on its effect on the PC win
    rate (``kind``: ``sign`` — significant both ways —, ``significance``, ``agree`` or
    ``single`` with one policy). With several tactics the sentence also says which effects stay
    significant after Holm's correction over every row (``p_holm``: policy → adjusted p)."""
    out: list[dict[str, Any]] = []
    pairs = list(dict.fromkeys((r["a"], r["b"]) for r in rows))
    adjusted_all = _holm(rows)
    for a, b in pairs:
        mine = [r for r in rows if (r["a"], r["b"]) == (a, b)]
        signs = {r["policy"]: _significant(r) for r in mine}
        parts = ", ".join(_part(r) for r in mine)
        what = f"the effect of {b} (against {a}) on the PC win rate"
        if len(mine) < 2:
            kind, text = "single", f"{what}: {parts} (one tactic only)"
        elif 1 in signs.values() and -1 in signs.values():
            kind, text = "sign", f"{what} depends on tactics: {parts}"
        elif len(set(signs.values())) > 1:
            clear = [p for p, s in signs.items() if s]
            unclear = [p for p, s in signs.items() if not s]
            kind = "significance"
            text = (
                f"{what} is significant under {', '.join(clear)} but not under "
                f"{', '.join(unclear)}: {parts}"
            )
        elif set(signs.values()) == {0}:
            kind, text = "agree", f"{what} is not significant under any tactic: {parts}"
        else:
            kind, text = "agree", f"{what} has the same sign under every tactic: {parts}"
        verdict: dict[str, Any] = {"a": a, "b": b, "kind": kind, "text": text}
        if adjusted_all is not None:
            adjusted = [
                p for r, p in zip(rows, adjusted_all, strict=True) if (r["a"], r["b"]) == (a, b)
            ]
            verdict["text"] += _holm_note(mine, adjusted, len(rows))
            verdict["p_holm"] = {r["policy"]: p for r, p in zip(mine, adjusted, strict=True)}
        out.append(verdict)
    return out


def across_tactics(
    definition: EncounterDef,
    variants: Sequence[Variant],
    policies: Sequence[str],
    *,
    n: int,
    seed: int,
    workers: int = 1,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    progress: Callable[[int], None] | None = None,
    done: Mapping[str, SimResult] | None = None,
) -> dict[str, Any]:
    """The comparison under each of ``policies`` (``done``: results already played, reused),
    as ``{"policies", "rows", "verdicts"}``."""
    results: dict[str, SimResult] = {}
    for policy in policies:
        found = (done or {}).get(policy)
        results[policy] = found or run_under(
            policy,
            definition,
            variants,
            n=n,
            seed=seed,
            workers=workers,
            max_rounds=max_rounds,
            progress=progress,
        )
    rows = tactic_rows(results)
    return {
        "policies": list(policies),
        "n": n,
        "rows": rows,
        "verdicts": verdicts(rows),
        **({"fast_tactic": fast_tactic(definition)} if FAST in policies else {}),
    }


__all__ = [
    "ACROSS_SEARCH_N",
    "ACROSS_SEARCH_SECONDS",
    "DEFAULT_POLICIES",
    "FAST",
    "SEARCH",
    "across_tactics",
    "fast_tactic",
    "playable_policies",
    "run_under",
    "search_fits",
    "search_plan",
    "search_seconds",
    "tactic_rows",
    "verdicts",
]
