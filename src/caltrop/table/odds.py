"""Exact odds of a roll before it is rolled: what an offered action or the pending roll is
likely to do (issue 12), from the dice core's exact distributions.

Nothing here re-derives the pool: the dice are the engine's own (an offered action is declared
on a clone of the encounter, and the roll it pushes is asked for its expression, R12, R46), and
"with one more help" or "with one more hinder" is the same roll with Net Advantage one higher or
lower (R14; in the Action Point module one more Favor or Disfavor, R2, or one more Defense Assist
die on a defence, R40). What the roll then does follows the module's resolution:

* **Action Load** (seed 000): an attack deals ``max(0, total − Evasion)`` (R16); it *hits*
  (``success``) when that is above 0, and ``expected_damage`` counts a miss as 0. A check
  succeeds iff total ≥ DC (R4, R16).
* **Action Point** (seed 004): a melee attack has no roll to hit, its damage is halved up (R38);
  a ranged attack is a Dexterity check against the distance (R39), then the weapon's damage.
  The target may still Block or Dodge once the damage is known (R45), which no one can know
  beforehand: an attack's odds are computed **against no defence**, damage − Resistance (R40),
  and its ``success`` is the chance it deals any damage. A defence roll (kind ``"defence"``) is
  the other way round: its ``success`` is the chance the defender takes **no** damage,
  ``expected_damage`` the damage it takes, from the rolled damage and the defender's dice
  (R40, R45); "with help" is one more Defense Assist die. Each choice of the defence window
  (no defence, Block, Dodge, Take Cover, Defense Assist) has the odds of the window it leaves
  (:func:`reaction_odds`; issue 22 item 2). An opposed check succeeds iff the initiator's total
  is strictly greater (R4).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final, Literal

from caltrop.core.commands import Act, Command, Pass
from caltrop.core.model import ActionKind
from caltrop.core.pool import Advantage
from caltrop.dice.ast import Expr
from caltrop.dice.defence import blocked, dodged, undefended
from caltrop.dice.distribution import Distribution, constant, distribution
from caltrop.dice.parse import parse
from caltrop.economy.points.state import points, stat
from caltrop.encounter import Encounter, PendingRoll, RollKind
from caltrop.errors import CaltropError, DiceLimitError

OddsKind = Literal["attack", "check", "defence"]

#: The source key of the one extra advantage or disadvantage a probe adds (R14: one per source).
PROBE_SOURCE = "odds-probe"


@dataclass(frozen=True, slots=True)
class Odds:
    """The chance a roll succeeds (an attack: deals damage), exactly, with its neighbours.

    ``about`` is the creature whose hidden numbers the odds depend on (a target's Evasion or
    Resistance, an opposer's Aspect), ``against_about`` the one whose number ``against`` names
    (None when ``against`` is public, such as a distance): the view hides them from players as
    the GM's :class:`~caltrop.table.visibility.Reveal` says.
    """

    kind: OddsKind
    success: Fraction
    expected_damage: Fraction | None = None
    against: str | None = None
    with_help: Fraction | None = None
    with_hinder: Fraction | None = None
    about: str | None = None
    against_about: str | None = None
    #: of Take Cover, which alone changes nothing (R40: it doubles a Block's or Dodge's dice):
    #: the defence these odds assume follows it (``"block"`` or ``"dodge"``)
    then: str | None = None
    #: of Take Cover, the same with the other defence following it (Dodge after Block)
    or_then: Odds | None = None

    def without_against(self) -> Odds:
        return dataclasses.replace(self, against=None, against_about=None)

    def as_dict(self) -> dict[str, Any]:
        """The view model's schema: floats for display, the exact fraction as text."""
        return {
            "kind": self.kind,
            "success": float(self.success),
            "exact": str(self.success),
            "expected_damage": _float(self.expected_damage),
            "expected_exact": _text(self.expected_damage),
            "against": self.against,
            "with_help": _float(self.with_help),
            "with_hinder": _float(self.with_hinder),
            "then": self.then,
            "or_then": None if self.or_then is None else self.or_then.as_dict(),
            "rounded": False,
        }

    def as_rounded_dict(self) -> dict[str, Any]:
        """What a player is sent against a creature whose Aspects (its Evasion) the GM has
        not shown (issue 20 §3; docs/rules.md, "What the odds tell a player"): whole
        percentages and expected damage to one decimal, no exact fraction. The fraction pins
        the number (``7987/8192`` for 5d4+1d8 is Evasion 10 and nothing else); a whole
        percentage only narrows it to the values with about that chance. A chance that is
        neither certain nor impossible never rounds to 0% or 100%."""
        damage = self.expected_damage
        return {
            "kind": self.kind,
            "success": _whole_percent(self.success),
            "exact": None,
            "expected_damage": None if damage is None else round(float(damage), 1),
            "expected_exact": None,
            "against": self.against,
            "with_help": _whole_percent(self.with_help),
            "with_hinder": _whole_percent(self.with_hinder),
            "then": self.then,
            "or_then": None if self.or_then is None else self.or_then.as_rounded_dict(),
            "rounded": True,
        }


def _whole_percent(value: Fraction | None) -> float | None:
    """``value`` to the nearest whole percent, kept off 0 and 1 unless it is exactly so."""
    if value is None:
        return None
    if value in (0, 1):
        return float(value)
    return min(max(round(value * 100), 1), 99) / 100


def _float(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def _text(value: Fraction | None) -> str | None:
    return None if value is None else str(value)


def declared_roll(enc: Encounter, command: Act) -> tuple[Encounter, PendingRoll] | None:
    """The roll ``command`` would declare, on a clone of ``enc`` where it is declared, or None
    if it rolls nothing (an effect, a team action, a move) or is not legal now. The roll is
    exactly the one the engine would push: its pool fixed at declaration (R46), an attack's
    target as given; an action's own roll, not the stealth checks pushed on top of it (R41)."""
    probe = enc.look_ahead()
    before = len(probe.pending)
    try:
        probe.apply(command)
    except CaltropError:
        return None
    for p in probe.pending[before:]:
        if p.kind is RollKind.ACTION or p.context.get("verb") not in (None, "stealth"):
            return probe, p
    return None


def option_odds(enc: Encounter, command: Act) -> Odds | None:
    """The odds of the roll ``command`` would declare (:func:`declared_roll`), or None."""
    declared = declared_roll(enc, command)
    return roll_odds(*declared) if declared is not None else None


def pending_odds(enc: Encounter) -> Odds | None:
    """The odds of the roll on top of the pending stack as it stands (what a reactor in its
    window weighs, R15), or None for a roll with nothing to succeed at (initiative, a GM call
    without a DC)."""
    top = enc.pending_roll
    return roll_odds(enc, top) if top is not None else None


def defence_window(enc: Encounter) -> PendingRoll | None:
    """The defence window open now (R45: an incoming attack's defence stage on top), or None."""
    top = enc.pending_roll
    if top is None or top.kind is not RollKind.STAGE or top.stage != "defence":
        return None
    return top


#: Take Cover alone leaves the damage as it was (R40: it doubles a Block's or Dodge's dice):
#: its odds are those of each of these that may follow it, in this order.
AFTER_COVER = ("block", "dodge")


def reaction_odds(enc: Encounter, command: Command) -> Odds | None:
    """The consequence of answering the open defence window with ``command`` (R40, R45): the
    odds of the window it leaves — passing keeps it (no defence, or the defence chosen), Block,
    Dodge and Defense Assist change it, Take Cover is shown followed by a Block (``then``) and
    by a Dodge (``or_then``). None outside a defence window or when ``command`` is not legal now."""
    top = defence_window(enc)
    if top is None:
        return None
    if isinstance(command, Pass):
        return roll_odds(enc, top)
    if not isinstance(command, Act):
        return None
    probe = enc.look_ahead()
    try:
        probe.apply(command)
    except CaltropError:
        return None
    if command.action != "cover":
        return _window_odds(probe)
    followed = [
        dataclasses.replace(odds, then=verb)
        for verb in AFTER_COVER
        if (odds := _window_odds(probe, Act(command.actor, verb))) is not None
    ]
    if not followed:  # pragma: no cover - after Take Cover, Block and Dodge are open (R45)
        return _window_odds(probe)
    first, *rest = followed
    return dataclasses.replace(first, or_then=rest[0] if rest else None)


def _window_odds(enc: Encounter, then: Act | None = None) -> Odds | None:
    """The odds of ``enc``'s defence window, after ``then`` if given (None if it is refused)."""
    if then is not None:
        enc = enc.look_ahead()
        try:
            enc.apply(then)
        except CaltropError:
            return None
    window = defence_window(enc)
    if window is None:  # pragma: no cover - a defence reaction leaves its window open
        return None
    return roll_odds(enc, window)


def roll_odds(enc: Encounter, p: PendingRoll) -> Odds | None:
    """The odds of pending roll ``p`` of ``enc`` (see the module doc for each kind)."""
    if p.kind is RollKind.INITIATIVE:
        return None
    if p.kind is RollKind.STAGE:
        return _stage_odds(enc, p)
    if p.kind is RollKind.GM_CALL:
        if p.dc is None:
            return None
        return _check(enc, p, p.dc, f"DC {p.dc}")
    action = p.action
    assert action is not None
    if action.kind is ActionKind.ATTACK:
        assert p.target is not None
        target = enc.creatures[p.target]
        evasion = target.evasion

        def hits(q: PendingRoll) -> Fraction:
            return at_least(expression(enc, q), evasion + 1)  # R16

        dice = expression(enc, p)
        return Odds(
            "attack",
            at_least(dice, evasion + 1),
            expected_damage(dice, evasion),
            f"Evasion {evasion}",
            _neighbour(hits, p, "adv"),
            _neighbour(hits, p, "dis"),
            about=target.id,
            against_about=target.id,
        )
    if p.dc is None:  # pragma: no cover - the engine refuses a check without a DC
        return None
    return _check(enc, p, p.dc, f"DC {p.dc}")


#: exact figures kept, by dice expression and number (issue 20 §5: the same pools against the
#: same Evasions and DCs come back command after command, and at every seat)
MEMO_SIZE: Final = 16_384


@lru_cache(maxsize=MEMO_SIZE)
def at_least(expr: Expr, k: int) -> Fraction:
    """Exact P(total of ``expr`` ≥ ``k``): a function of the dice expression (a frozen value)
    and the number alone, so it is memoised on them."""
    return distribution(expr).p_at_least_exact(k)


@lru_cache(maxsize=MEMO_SIZE)
def expected_damage(expr: Expr, evasion: int) -> Fraction:
    """Exact E[max(0, total of ``expr`` − ``evasion``)] (R16), memoised as :func:`at_least`."""
    return distribution(expr).expected_damage_exact(evasion)


def expression(enc: Encounter, p: PendingRoll) -> Expr:
    """The dice ``p`` rolls now, as the engine builds them (``p`` need not be on top)."""
    if p.kind is RollKind.ACTION or p.kind is RollKind.STAGE:
        return enc.module.expression(enc, p)[0]
    probe = enc.look_ahead()
    probe.pending.append(p)
    return probe.pending_expression()


def _check(enc: Encounter, p: PendingRoll, dc: int, against: str) -> Odds:
    """R4/R16: a check succeeds iff total ≥ DC."""

    def succeeds(q: PendingRoll) -> Fraction:
        return at_least(expression(enc, q), dc)

    return Odds(
        "check",
        succeeds(p),
        None,
        against,
        _neighbour(succeeds, p, "adv"),
        _neighbour(succeeds, p, "dis"),
    )


def _neighbour(
    odds: Callable[[PendingRoll], Fraction], p: PendingRoll, kind: Literal["adv", "dis"]
) -> Fraction | None:
    """``odds`` of ``p`` with one more help or hinder, or None when that one more die would be
    past the dice limits (a pool of exactly 1,000 dice has no "with one more help", issue 21)."""
    try:
        return odds(_advantaged(p, kind))
    except DiceLimitError:
        return None


def _times(value: Fraction | None, factor: Fraction) -> Fraction | None:
    return None if value is None else value * factor


def _advantaged(p: PendingRoll, kind: Literal["adv", "dis"]) -> PendingRoll:
    """``p`` with one more advantage or disadvantage of a source it does not have (R14); in the
    Action Point module one more Favor or Disfavor (R2), or a Defense Assist die more or less."""
    q = p.copy()
    step = 1 if kind == "adv" else -1
    if p.kind is RollKind.STAGE:
        key = "assists" if p.stage == "defence" else "favor"
        q.context[key] = int(q.context.get(key, 0)) + step
    else:
        q.advantages.append(Advantage(kind, PROBE_SOURCE))
    return q


# -- the Action Point module's stages (seed 004) ----------------------------------------------


def _stage_odds(enc: Encounter, p: PendingRoll) -> Odds | None:
    ctx = p.context
    if p.stage == "hit":
        return _ranged(enc, p, ctx)
    if p.stage == "damage":
        target = enc.creatures[int(ctx["target"])]
        dealt = undefended(distribution(expression(enc, p)), stat(target, "resistance"))
        return Odds(
            "attack",
            dealt.p_at_least_exact(1),
            dealt.mean_exact,
            None,
            about=target.id,  # R38: no Favor on damage, so no help/hinder figures
        )
    if p.stage == "defence":
        return _defence(enc, p, ctx)
    if p.stage == "check":
        dc = int(ctx["dc"])
        odds = _check(enc, p, dc, f"DC {dc}")
        observer = ctx.get("observer")
        if observer is None:
            return odds
        seen = enc.creatures[int(observer)].id  # R41: the DC is the observer's Perception
        return dataclasses.replace(odds, about=seen, against_about=seen)
    if p.stage == "contest":
        return _contest(enc, p, ctx)
    return None  # pragma: no cover - every stage of seed 004 is above


def _ranged(enc: Encounter, p: PendingRoll, ctx: Mapping[str, Any]) -> Odds:
    """R39 then R40: P(Dexterity check ≥ distance) × the weapon's damage − Resistance."""
    dc = int(ctx["dc"])
    target = enc.creatures[int(ctx["target"])]
    dealt = undefended(distribution(parse(str(ctx["damage"]))), stat(target, "resistance"))
    wounds = dealt.p_at_least_exact(1)

    def hits(q: PendingRoll) -> Fraction:
        return distribution(expression(enc, q)).p_at_least_exact(dc)

    hit = hits(p)
    return Odds(
        "attack",
        hit * wounds,
        hit * dealt.mean_exact,
        f"DC {dc}",
        _times(_neighbour(hits, p, "adv"), wounds),
        _times(_neighbour(hits, p, "dis"), wounds),
        about=target.id,
    )


def _defence(enc: Encounter, p: PendingRoll, ctx: Mapping[str, Any]) -> Odds:
    """R40: Block takes the defence off the damage, Dodge stops all of it or none, no defence
    leaves damage − Resistance; Take Cover doubles the dice, each assist adds a die."""
    defender = enc.creatures[p.roller]
    incoming = constant(int(ctx["incoming"]))
    resistance = stat(defender, "resistance")
    mode = ctx.get("mode")
    attacker = enc.creatures[int(ctx["attacker"])].id
    cover = bool(ctx.get("cover")) or attacker in points(enc.resources[p.roller]).cover_from

    def dealt(q: PendingRoll) -> Distribution:
        if mode not in ("block", "dodge"):
            return undefended(incoming, resistance)
        rating = stat(defender, f"{mode}_rating")
        assists = int(q.context.get("assists", 0))
        rule = blocked if mode == "block" else dodged
        return rule(incoming, rating, resistance, cover=cover, assists=assists)

    now = dealt(p)
    helped = mode in ("block", "dodge")  # an assist helps only a Block or Dodge (R40)
    return Odds(
        "defence",
        now.p_at_most_exact(0),
        now.mean_exact,
        None,
        _neighbour(lambda q: dealt(q).p_at_most_exact(0), p, "adv") if helped else None,
        None,  # no one takes a die off a defence: there is no "with hinder"
        about=defender.id,
    )


def _contest(enc: Encounter, p: PendingRoll, ctx: Mapping[str, Any]) -> Odds:
    """R4: the initiator succeeds iff its total is strictly greater than the opposer's (the
    opposer rolls its own pool, as the engine's second roll of the contest)."""
    them = enc.creatures[int(ctx["opposer"])]
    opposer = them.id
    against = f"{them.name}'s {ctx.get('stat_b')} (opposed, R4)"
    answer = p.copy()
    answer.context["total_a"] = 0  # the engine's marker: the opposer's roll comes next
    b = distribution(expression(enc, answer))
    if "total_a" in ctx:
        first = int(ctx["total_a"])
        return Odds("check", b.p_at_most_exact(first - 1), None, against, about=opposer)

    def wins(q: PendingRoll) -> Fraction:
        return (distribution(expression(enc, q)) - b).p_at_least_exact(1)

    return Odds(
        "check",
        wins(p),
        None,
        against,
        _neighbour(wins, p, "adv"),
        _neighbour(wins, p, "dis"),
        about=opposer,
    )


__all__ = [
    "AFTER_COVER",
    "PROBE_SOURCE",
    "Odds",
    "declared_roll",
    "defence_window",
    "expression",
    "option_odds",
    "pending_odds",
    "reaction_odds",
    "roll_odds",
]
