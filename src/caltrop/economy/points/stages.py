"""The roll stages of the Action Point module (seed 004): what each pushed stage rolls and how
it resolves (hit, damage, defence: R38-R40, R45; check: R39, R41, R44; contest: R4, R41-R43).

Each stage is one entry of :data:`STAGES` (its roll and its resolution), and its facts one
frozen record of :mod:`.rolls`, read from the pending roll's context.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from caltrop.dice.ast import Const, Expr, Term
from caltrop.dice.parse import parse
from caltrop.economy.base import Engine
from caltrop.economy.outcome import Outcome
from caltrop.economy.pending import PendingRoll, RollKind
from caltrop.economy.points.common import pool, push, set_unaware, state_of
from caltrop.economy.points.defence import apply_damage
from caltrop.economy.points.grapple import (
    escape_decided,
    grapple_decided,
    scale_decided,
    shake_decided,
)
from caltrop.economy.points.rolls import Check, Contest, Damage, Defence, Hit
from caltrop.economy.points.state import stat
from caltrop.economy.points.stealth import stealth_decided

#: What each contest decides once rolled (R4), by the verb that started it.
CONTESTS: dict[str, Callable[[Engine, Contest, bool], None]] = {
    "stealth": stealth_decided,  # R41
    "grapple": grapple_decided,  # R42
    "escape": escape_decided,  # R42
    "scale": scale_decided,  # R43
    "shake": shake_decided,  # R43
}


def _roll_hit(enc: Engine, p: PendingRoll) -> Expr:
    """R39: a shot is a Dexterity check against the distance, with its Favor (range, Aim)."""
    hit = Hit.of(p.context)
    return pool(enc.creatures[p.roller].aspects.get("Dexterity", 0) + hit.favor)


def _resolve_hit(enc: Engine, p: PendingRoll, total: int, base: dict[str, Any]) -> Outcome:
    """R39/R45: a hit pushes the damage roll; a miss by a conspicuous attacker reveals it (R41)."""
    hit = Hit.of(p.context)
    target = enc.creatures[hit.target]
    if total >= hit.dc:
        damage = Damage(
            verb=hit.verb,
            attacker=hit.attacker,
            target=hit.target,
            damage=hit.damage,
            weapons=hit.weapons,
            reveals=hit.reveals,
        )
        push(enc, p.roller, damage)
        return Outcome(**base, target=target.id, dc=hit.dc, success=True, note="hit")
    if hit.reveals:
        set_unaware(enc, hit.target, enc.creatures[p.roller].id, False)
    return Outcome(**base, target=target.id, dc=hit.dc, success=False, note="miss")


def _roll_damage(enc: Engine, p: PendingRoll) -> Expr:
    """R38/R39: the weapon's damage expression."""
    return parse(Damage.of(p.context).damage)


def _resolve_damage(enc: Engine, p: PendingRoll, total: int, base: dict[str, Any]) -> Outcome:
    """R45: the damage opens the defence window, unless the target is unsuspecting (R40/R41)."""
    damage = Damage.of(p.context)
    target = enc.creatures[damage.target]
    attacker = enc.creatures[damage.attacker]
    if attacker.id in state_of(enc, damage.target).unaware_of:
        # R40/R41: an unsuspecting target cannot defend; Resistance still applies.
        if damage.reveals:
            set_unaware(enc, damage.target, attacker.id, False)
        return apply_damage(enc, damage.target, total, 0, base, note="unsuspecting")
    window = Defence(verb=damage.verb, attacker=damage.attacker, incoming=total)
    push(enc, damage.target, window)
    return Outcome(**base, target=target.id, note=f"{total} damage incoming")


def _roll_defence(enc: Engine, p: PendingRoll) -> Expr:
    """R40: the Block or Dodge Rating in d4s, one more per assist; no defence rolls 0."""
    window = Defence.of(p.context)
    if not window.mode:
        return Expr((Term(1, Const(0)),))
    rating = stat(enc.creatures[p.roller], f"{window.mode}_rating")
    return pool(rating + window.assists)


def _resolve_defence(enc: Engine, p: PendingRoll, total: int, base: dict[str, Any]) -> Outcome:
    """R40: Block takes off dice + Resistance (doubled dice in cover); Dodge all or nothing."""
    window = Defence.of(p.context)
    roller = enc.creatures[p.roller]
    incoming = window.incoming
    resistance = stat(roller, "resistance")
    attacker_id = enc.creatures[window.attacker].id
    # R40: Take Cover doubles the dice against that source "until the positions are
    # changed": cover taken in this window or in an earlier one still standing.
    cover = window.cover or attacker_id in state_of(enc, p.roller).cover_from
    dice_total = total * (2 if cover else 1)
    defence = dice_total + resistance
    if window.mode == "block":
        dealt = max(0, incoming - defence)
        note = f"block {defence} (dice {dice_total} + Resistance {resistance})"
    elif window.mode == "dodge":
        dealt = 0 if defence >= incoming else incoming
        note = f"dodge {defence} vs {incoming}: {'all prevented' if dealt == 0 else 'fully dealt'}"
    else:
        dealt = max(0, incoming - resistance)
        note = f"no defence: Resistance {resistance}"
    return apply_damage(enc, p.roller, dealt, None, base, note=note, raw=True)


def _roll_check(enc: Engine, p: PendingRoll) -> Expr:
    """R41/R44: the stat's pool with its Favor."""
    check = Check.of(p.context)
    return pool(enc.creatures[p.roller].aspects.get(check.stat, 0) + check.favor)


def _resolve_check(enc: Engine, p: PendingRoll, total: int, base: dict[str, Any]) -> Outcome:
    """R4: a check succeeds on meeting its DC; R44: a Martial Check met gives a hint; R41: a
    stealth check decides whether its observer notices the roller."""
    check = Check.of(p.context)
    success = total >= check.dc
    if check.verb == "martial" and success:
        state_of(enc, p.roller).hints += 1
    if check.observer is not None:
        observer = enc.creatures[check.observer]
        set_unaware(enc, check.observer, enc.creatures[p.roller].id, success)
        return Outcome(
            **base,
            target=observer.id,
            dc=check.dc,
            success=success,
            note="unnoticed" if success else "noticed",
        )
    return Outcome(**base, dc=check.dc, success=success)


def _roll_contest(enc: Engine, p: PendingRoll) -> Expr:
    """R4: the initiator's stat with its Favor, then the opposer's."""
    contest = Contest.of(p.context)
    if contest.total_a is None:
        return pool(enc.creatures[p.roller].aspects.get(contest.stat_a, 0) + contest.favor)
    return pool(enc.creatures[contest.opposer].aspects.get(contest.stat_b, 0))


def _resolve_contest(enc: Engine, p: PendingRoll, total: int, base: dict[str, Any]) -> Outcome:
    """R4: the initiator must beat the opposer; R42/R43: unopposed, it simply succeeds."""
    contest = Contest.of(p.context)
    if contest.total_a is None:
        if contest.verb in ("escape", "shake", "scale") and not contest.opposed:
            # R42/R43: not opposed, the escape (or the scaling) simply succeeds.
            CONTESTS[contest.verb](enc, contest, True)
            return Outcome(**base, success=True, note="not opposed")
        p.context = replace(contest, total_a=total).context()
        enc.pending.append(p)  # the opposer rolls next (R4)
        roller = enc.creatures[p.roller]
        return Outcome(**base, note=f"{roller.name} rolls {total}; the opposer answers")
    success = contest.total_a > total  # R4: the initiator must beat the opposer
    opposer = enc.creatures[contest.opposer]
    CONTESTS[contest.verb](enc, contest, success)
    base["roller"] = opposer.id
    return Outcome(
        **base,
        target=opposer.id,
        success=success,
        note=f"{contest.total_a} vs {total}: {'success' if success else 'the status quo holds'}",
    )


@dataclass(frozen=True, slots=True)
class Stage:
    """One roll stage: what it rolls and how its roll resolves."""

    roll: Callable[[Engine, PendingRoll], Expr]
    resolve: Callable[[Engine, PendingRoll, int, dict[str, Any]], Outcome]


#: The module's roll stages by ``PendingRoll.stage`` (R45: hit, then damage, then defence).
STAGES: dict[str, Stage] = {
    Hit.name: Stage(_roll_hit, _resolve_hit),
    Damage.name: Stage(_roll_damage, _resolve_damage),
    Defence.name: Stage(_roll_defence, _resolve_defence),
    Check.name: Stage(_roll_check, _resolve_check),
    Contest.name: Stage(_roll_contest, _resolve_contest),
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
