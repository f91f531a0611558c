"""A roll's pool explained before it is rolled (issue 12): where each die comes from.

``5d4+1d8: Finesse 6 − Load 2, +1 torch, +1 advice, −1 dark, dagger 1d8`` — the Aspect and
the Load the pool's base was fixed at when the action was declared (R12, R46), each advantage
or disadvantage source once with its sign (R14), the minimum of one d4 (R3) and the weapon's
and action's extra dice (R12). In the Action Point module the stat, each Favor and Disfavor
with its reason (R39 range and Aim, R41 sight and care), the damage dice (R38 halved up) and a
defence's rating, assists and cover (R40).

A number the viewer may not see (an NPC's Aspect or Load) is left out by the caller's
``shows(creature_id, what)``; the source names stay (rolls are made in the open, R5).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from caltrop.core.commands import Act
from caltrop.core.model import CreatureDef
from caltrop.core.pool import Advantage, Revision
from caltrop.dice.ast import Expr
from caltrop.economy.points.state import points, stat
from caltrop.encounter import Encounter, PendingRoll, RollKind
from caltrop.table.odds import expression

#: ``shows(creature_id, "aspects" | "resources")``: may the viewer see that creature's numbers?
Shows = Callable[[str, Literal["aspects", "resources"]], bool]


def _everything(creature_id: str, what: Literal["aspects", "resources"]) -> bool:
    return True


def pool_text(enc: Encounter, p: PendingRoll, shows: Shows = _everything) -> str:
    """``p``'s dice and where they come from, as one line (see the module doc)."""
    expr = expression(enc, p)
    parts = _parts(enc, p, expr, shows)
    return f"{expr}: {', '.join(parts)}" if parts else str(expr)


def dice_of(enc: Encounter, p: PendingRoll) -> list[int]:
    """The faces of every die ``p`` rolls now, in entry order (``5d4+1d8`` → 4,4,4,4,4,8): one
    field per die of the physical-dice form (``roll 3,1,4,4,2,7``, R5)."""
    return list(expression(enc, p).dice_slots())


def _parts(enc: Encounter, p: PendingRoll, expr: Expr, shows: Shows) -> list[str]:
    roller = enc.creatures[p.roller]
    if p.kind is RollKind.STAGE:
        return _stage_parts(enc, p, shows)
    if p.kind is RollKind.INITIATIVE:
        assert p.aspect is not None
        return [f"{_aspect(roller, p.aspect, shows)} (initiative, R30)"]
    load = enc.resources[p.roller].as_dict().get("load")
    if p.kind is RollKind.GM_CALL:
        assert p.aspect is not None
        base = _aspect(roller, p.aspect, shows)
        if not p.count_load:
            base += " (GM call: Load not counted, R17)"
        elif isinstance(load, int):
            base += _load(roller, load, shows, legacy=False)
        return [base, *_sources(p.advantages), *_minimum(expr, p, roller, load, p.aspect)]
    action = p.action
    assert action is not None
    declared = p.context.get("load", load)  # R46: the base is fixed at declaration
    legacy = enc.definition.ruleset.revision is Revision.LEGACY
    if action.fixed_pool is not None:
        base = f"{action.name} {action.fixed_pool}d4 (fixed pool, R20)"
    else:
        base = _aspect(roller, action.aspect, shows)
        if isinstance(declared, int):
            base += _load(roller, declared, shows, legacy=legacy)
    parts = [base, *_sources(p.advantages)]
    if action.fixed_pool is None:
        parts += _minimum(expr, p, roller, declared, action.aspect)
    if p.weapon is not None:
        parts.append(f"{p.weapon.name} {p.weapon.dice}")
    if action.extra is not None:
        parts.append(f"{action.name} {action.extra}")
    return parts


def _aspect(creature: CreatureDef, name: str, shows: Shows) -> str:
    value = creature.aspects.get(name, 0)
    return f"{name} {value}" if shows(creature.id, "aspects") else name


def _load(creature: CreatureDef, load: int, shows: Shows, *, legacy: bool) -> str:
    """R12: only a positive Load takes dice away (``max(0, Load)``, so a negative one is not
    named); legacy R20: Aspect − Load."""
    if not shows(creature.id, "resources"):
        return ""
    if load > 0 or (legacy and load != 0):
        return f" − Load {load}"
    return ""


def _sources(advantages: list[Advantage]) -> list[str]:
    """Each source once, with its sign (R14: a source counts once per action)."""
    seen = dict.fromkeys((a.kind, a.source) for a in advantages)
    return [f"{'+1' if kind == 'adv' else '−1'} {source}" for kind, source in seen]


def _minimum(
    expr: Expr, p: PendingRoll, roller: CreatureDef, load: Any, aspect: str | None
) -> list[str]:
    """R3: a pool that would fall below one d4 still rolls one."""
    d4 = next((d.count for d in expr.dice() if d.sides == 4), 0)
    wanted = roller.aspects.get(aspect or "", 0) - max(0, load if isinstance(load, int) else 0)
    if d4 == 1 and wanted + p.net_advantage < 1:
        return ["at least 1d4 (R3)"]
    return []


# -- the Action Point module (seed 004) ------------------------------------------------------


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"−{-n}"


def _declared(enc: Encounter, roller: str, verb: str | None, flag: str | None) -> Act | None:
    """The latest command of ``roller`` that declared this roll (by verb, or by flag)."""
    for command in reversed(enc.commands):
        if (
            isinstance(command, Act)
            and command.actor == roller
            and (verb is None or command.action == verb)
            and (flag is None or flag in command.flags)
        ):
            return command
    return None


def _stage_parts(enc: Encounter, p: PendingRoll, shows: Shows) -> list[str]:
    """The stat and each Favor / Disfavor with its source (R39: close or far range, Aim
    stacks; R41: the observer's line of sight, care; the declared +adv/+dis), the damage dice
    (R38, R39) or the defence (R40). The engine keeps the net Favor in the roll's context; the
    sources are read back from the declaring command and the weapon's close range, what is
    left of the Favor being the Aim (R39) or the line of sight (R41)."""
    ctx = p.context
    roller = enc.creatures[p.roller]
    if p.stage == "damage":
        rule = "halved up, R38" if ctx.get("verb") == "attack" else "R39"
        return [f"{ctx.get('weapons', 'damage')} ({rule})"]
    if p.stage == "defence":
        return _defence_parts(enc, p, shows)
    if p.stage == "contest" and "total_a" in ctx:
        opposer = enc.creatures[int(ctx["opposer"])]
        return [f"{opposer.name}'s {_aspect(opposer, str(ctx['stat_b']), shows)} (opposed, R4)"]
    name = str(ctx.get("stat") or ctx.get("stat_a") or "Dexterity")  # R39: a Dexterity check
    parts = [_aspect(roller, name, shows)]
    favor = int(ctx.get("favor", 0))
    verb = str(ctx.get("verb"))
    stealth = verb == "stealth"
    command = _declared(enc, roller.id, None if stealth else verb, "stealth" if stealth else None)
    rest = favor
    if p.stage == "hit":
        weapon = roller.weapon(str(ctx.get("weapons", "")))
        close = weapon.close if weapon is not None and weapon.close is not None else 0
        near = int(ctx["dc"]) <= close
        parts.append(f"{'+1 close' if near else '−1 far'} range (R39)")
        rest -= 1 if near else -1
    if stealth and command is not None and "careful" in command.flags:
        parts.append("+1 careful (R41)")
        rest -= 1
    if command is not None and command.advantages:
        for kind, source in dict.fromkeys((a.kind, a.source) for a in command.advantages):
            parts.append(f"{'+1' if kind == 'adv' else '−1'} {source}")
            rest -= 1 if kind == "adv" else -1
    if rest and p.stage == "hit":
        parts.append(f"{_signed(rest)} aim (R39)")
    elif rest and stealth:
        observer = enc.creatures[int(ctx.get("observer", ctx.get("opposer", 0)))]
        parts.append(f"{_signed(rest)} in {observer.name}'s line of sight (R41)")
    elif rest:
        parts.append(f"{_signed(rest)} other")
    return parts


def _defence_parts(enc: Encounter, p: PendingRoll, shows: Shows) -> list[str]:
    ctx = p.context
    defender = enc.creatures[p.roller]
    mode = ctx.get("mode")
    if mode not in ("block", "dodge"):
        return [f"no defence chosen: {ctx.get('incoming')} damage − Resistance (R40)"]
    rating = stat(defender, f"{mode}_rating")
    label = f"{str(mode).title()} Rating"
    parts = [f"{label} {rating}" if shows(defender.id, "aspects") else label]
    assists = int(ctx.get("assists", 0))
    if assists:
        parts.append(f"+{assists} assist (R40)")
    attacker = enc.creatures[int(ctx["attacker"])].id
    if ctx.get("cover") or attacker in points(enc.resources[p.roller]).cover_from:
        parts.append("×2 cover (R40)")
    return parts


__all__ = ["Shows", "dice_of", "pool_text"]
