"""The roll stages of the Action Point module (seed 004): what each pushed stage rolls and how
it resolves (hit, damage, defence: R38-R40, R45; check: R39, R41, R44; contest: R4, R41-R43).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from caltrop.dice.ast import Const, Expr, Term
from caltrop.dice.parse import parse
from caltrop.economy.base import Engine
from caltrop.economy.outcome import Outcome
from caltrop.economy.pending import PendingRoll, RollKind
from caltrop.economy.points.common import (
    pool,
    push,
    set_unaware,
    state_of,
)
from caltrop.economy.points.defence import apply_damage
from caltrop.economy.points.grapple import contest_result
from caltrop.economy.points.state import stat


def _roll_hit(enc: Engine, p: PendingRoll) -> Expr:
    """R39: a shot is a Dexterity check against the distance, with its Favor (range, Aim)."""
    ctx = p.context
    return pool(enc.creatures[p.roller].aspects.get("Dexterity", 0) + int(ctx["favor"]))


def _resolve_hit(enc: Engine, p: PendingRoll, total: int, base: dict[str, Any]) -> Outcome:
    """R39/R45: a hit pushes the damage roll; a miss by a conspicuous attacker reveals it (R41)."""
    ctx = p.context
    roller = enc.creatures[p.roller]
    dc = int(ctx["dc"])
    target = enc.creatures[int(ctx["target"])]
    if total >= dc:
        push(
            enc,
            p.roller,
            "damage",
            **{k: v for k, v in ctx.items() if k not in ("dc", "favor")},
        )
        return Outcome(**base, target=target.id, dc=dc, success=True, note="hit")
    if ctx.get("reveals"):
        set_unaware(enc, int(ctx["target"]), roller.id, False)
    return Outcome(**base, target=target.id, dc=dc, success=False, note="miss")


def _roll_damage(enc: Engine, p: PendingRoll) -> Expr:
    """R38/R39: the weapon's damage expression."""
    ctx = p.context
    return parse(str(ctx["damage"]))


def _resolve_damage(enc: Engine, p: PendingRoll, total: int, base: dict[str, Any]) -> Outcome:
    """R45: the damage opens the defence window, unless the target is unsuspecting (R40/R41)."""
    ctx = p.context
    enc.creatures[p.roller]
    verb = str(ctx["verb"])
    target_i = int(ctx["target"])
    target = enc.creatures[target_i]
    attacker = enc.creatures[int(ctx["attacker"])]
    if attacker.id in state_of(enc, target_i).unaware_of:
        # R40/R41: an unsuspecting target cannot defend; Resistance still applies.
        if ctx.get("reveals"):
            set_unaware(enc, target_i, attacker.id, False)
        return apply_damage(enc, target_i, total, 0, base, note="unsuspecting")
    push(enc, target_i, "defence", verb=verb, attacker=int(ctx["attacker"]), incoming=total)
    return Outcome(**base, target=target.id, note=f"{total} damage incoming")


def _roll_defence(enc: Engine, p: PendingRoll) -> Expr:
    """R40: the Block or Dodge Rating in d4s, one more per assist; no defence rolls 0."""
    ctx = p.context
    mode = ctx.get("mode")
    if not mode:
        return Expr((Term(1, Const(0)),))
    rating = stat(enc.creatures[p.roller], f"{mode}_rating")
    return pool(rating + int(ctx.get("assists", 0)))


def _resolve_defence(enc: Engine, p: PendingRoll, total: int, base: dict[str, Any]) -> Outcome:
    """R40: Block takes off dice + Resistance (doubled dice in cover); Dodge all or nothing."""
    ctx = p.context
    roller = enc.creatures[p.roller]
    incoming = int(ctx["incoming"])
    mode = ctx.get("mode")
    resistance = stat(roller, "resistance")
    attacker_id = enc.creatures[int(ctx["attacker"])].id
    # R40: Take Cover doubles the dice against that source "until the positions are
    # changed": cover taken in this window or in an earlier one still standing.
    cover = bool(ctx.get("cover")) or attacker_id in state_of(enc, p.roller).cover_from
    dice_total = total * (2 if cover else 1)
    defence = dice_total + resistance
    if mode == "block":
        dealt = max(0, incoming - defence)
        note = f"block {defence} (dice {dice_total} + Resistance {resistance})"
    elif mode == "dodge":
        dealt = 0 if defence >= incoming else incoming
        note = f"dodge {defence} vs {incoming}: {'all prevented' if dealt == 0 else 'fully dealt'}"
    else:
        dealt = max(0, incoming - resistance)
        note = f"no defence: Resistance {resistance}"
    base["roller"] = roller.id
    return apply_damage(enc, p.roller, dealt, None, base, note=note, raw=True)


def _roll_check(enc: Engine, p: PendingRoll) -> Expr:
    """R41/R44: the stat's pool with its Favor."""
    ctx = p.context
    return pool(enc.creatures[p.roller].aspects.get(str(ctx["stat"]), 0) + int(ctx["favor"]))


def _resolve_check(enc: Engine, p: PendingRoll, total: int, base: dict[str, Any]) -> Outcome:
    """R44: a met DC gives a Martial hint; R41: a stealth check decides awareness."""
    ctx = p.context
    roller = enc.creatures[p.roller]
    verb = str(ctx["verb"])
    dc = int(ctx["dc"])
    success = total >= dc
    if verb == "martial" and success:
        state_of(enc, p.roller).hints += 1
    if verb == "stealth":
        observer = enc.creatures[int(ctx["observer"])]
        set_unaware(enc, int(ctx["observer"]), roller.id, success)
        return Outcome(
            **base,
            target=observer.id,
            dc=dc,
            success=success,
            note="unnoticed" if success else "noticed",
        )
    return Outcome(**base, dc=dc, success=success)


def _roll_contest(enc: Engine, p: PendingRoll) -> Expr:
    """R4: the initiator's stat with its Favor, then the opposer's."""
    ctx = p.context
    if "total_a" not in ctx:
        return pool(enc.creatures[p.roller].aspects.get(str(ctx["stat_a"]), 0) + int(ctx["favor"]))
    opposer = enc.creatures[int(ctx["opposer"])]
    return pool(opposer.aspects.get(str(ctx["stat_b"]), 0))


def _resolve_contest(enc: Engine, p: PendingRoll, total: int, base: dict[str, Any]) -> Outcome:
    """R4: the initiator must beat the opposer; R42/R43: unopposed, it simply succeeds."""
    ctx = p.context
    roller = enc.creatures[p.roller]
    verb = str(ctx["verb"])
    if "total_a" not in ctx:
        if verb in ("escape", "shake", "scale") and not ctx.get("opposed"):
            # R42/R43: not opposed, the escape (or the scaling) simply succeeds.
            contest_result(enc, ctx, True)
            return Outcome(**base, success=True, note="not opposed")
        ctx["total_a"] = total
        enc.pending.append(p)  # the opposer rolls next (R4)
        return Outcome(**base, note=f"{roller.name} rolls {total}; the opposer answers")
    success = int(ctx["total_a"]) > total  # R4: the initiator must beat the opposer
    opposer = enc.creatures[int(ctx["opposer"])]
    contest_result(enc, ctx, success)
    base["roller"] = opposer.id
    return Outcome(
        **base,
        target=opposer.id,
        success=success,
        note=f"{ctx['total_a']} vs {total}: {'success' if success else 'the status quo holds'}",
    )


@dataclass(frozen=True, slots=True)
class Stage:
    """One roll stage: what it rolls and how its roll resolves."""

    roll: Callable[[Engine, PendingRoll], Expr]
    resolve: Callable[[Engine, PendingRoll, int, dict[str, Any]], Outcome]


#: The module's roll stages by ``PendingRoll.stage`` (R45: hit, then damage, then defence).
STAGES: dict[str, Stage] = {
    "hit": Stage(_roll_hit, _resolve_hit),
    "damage": Stage(_roll_damage, _resolve_damage),
    "defence": Stage(_roll_defence, _resolve_defence),
    "check": Stage(_roll_check, _resolve_check),
    "contest": Stage(_roll_contest, _resolve_contest),
}


def expression(enc: Engine, p: PendingRoll) -> Expr:
    """The dice stage ``p`` rolls now."""
    return STAGES[p.stage].roll(enc, p)


def resolve(enc: Engine, p: PendingRoll, expr: Expr, faces: tuple[int, ...], total: int) -> Outcome:
    """Resolve the popped stage roll ``p`` with these dice."""
    base: dict[str, Any] = {
        "roller": enc.creatures[p.roller].id,
        "kind": RollKind.STAGE,
        "expression": str(expr),
        "faces": faces,
        "total": total,
        "action": str(p.context["verb"]),
    }
    return STAGES[p.stage].resolve(enc, p, total, base)
