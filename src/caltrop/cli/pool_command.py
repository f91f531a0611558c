"""``caltrop pool``: may this action be taken (R11/R20), and which dice does it roll (R12/R17)?

The answers come from :mod:`caltrop.core.pool` — the one gate and pool rule used everywhere; this
module only spells the arithmetic out so a player can follow it at the table.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from caltrop.cli.common import fail, out, parse_expr, print_json
from caltrop.cli.inputs import MAX_POOL_NUMBER, printable_name
from caltrop.core.pool import (
    Advantage,
    Revision,
    check_gate,
    gm_pool_size,
    net_advantage,
    pool_size,
)
from caltrop.dice.ast import Dice, Expr, Term


def _sources(adv: list[str], dis: list[str]) -> list[Advantage]:
    for option, keys in (("--adv", adv), ("--dis", dis)):
        for key in keys:
            printable_name(key, option)
    try:
        return [Advantage("adv", s) for s in adv] + [Advantage("dis", s) for s in dis]
    except ValueError as exc:  # a source key with spaces, or empty
        fail(str(exc))


def _net_text(net: int, adv: list[str], dis: list[str]) -> str:
    """``Net Advantage +1: advantage torch, advice; disadvantage dark``; repeats counted once."""
    parts = []
    for word, keys in (("advantage", adv), ("disadvantage", dis)):
        distinct = list(dict.fromkeys(keys))
        if distinct:
            repeated = len(distinct) < len(keys)
            note = " (a source counts once per action, R14)" if repeated else ""
            parts.append(f"{word} {', '.join(distinct)}{note}")
    return f"Net Advantage {net:+d}: " + ("; ".join(parts) if parts else "none")


def _base(
    aspect: int,
    load: int,
    name: str,
    revision: Revision,
    fixed_pool: int | None,
    gm_roll: bool,
    count_load: bool,
) -> tuple[int, str]:
    """The pool before Net Advantage, and how it is reached (mirrors core.pool's rules)."""
    if fixed_pool is not None:
        return fixed_pool, f"fixed pool {fixed_pool} (R20)"
    if gm_roll and not count_load:
        return aspect, f"{name} {aspect} (Load not counted, R17)"
    if load >= 0 or (revision is Revision.LEGACY and not gm_roll):
        return aspect - load, f"{name} {aspect} − Load {load}"
    rule = "R17" if gm_roll else "R12"
    return aspect, f"{name} {aspect} − 0 (a negative Load {load} adds no dice, {rule})"


def dice_arithmetic(
    aspect: int,
    load: int,
    net: int,
    *,
    name: str = "Aspect",
    revision: Revision = Revision.CURRENT,
    fixed_pool: int | None = None,
    gm_roll: bool = False,
    count_load: bool = False,
    extra: Expr | None = None,
) -> str:
    """``Aspect 6 − Load 2 = 4d4 + 1d4`` — the seed's own way of writing it."""
    base, text = _base(aspect, load, name, revision, fixed_pool, gm_roll, count_load)
    if net:
        text += f" {'+' if net > 0 else '−'} {abs(net)} Net Advantage"
    raw = base + net
    text += f" = {raw}d4" if raw >= 1 else f" = {raw}, at least 1d4 (R3) → 1d4"
    if extra is not None:
        text += "".join(f" {'+' if t.sign > 0 else '−'} {t.node}" for t in extra.terms)
    return text


def pool(
    aspect: Annotated[
        int,
        typer.Argument(
            min=-MAX_POOL_NUMBER,
            max=MAX_POOL_NUMBER,
            help="The Aspect's value (may be negative: caltrop pool -1 --gm-roll).",
        ),
    ],
    load: Annotated[
        int,
        typer.Option(
            "--load", min=-MAX_POOL_NUMBER, max=MAX_POOL_NUMBER, help="Current Action Load."
        ),
    ] = 0,
    cost: Annotated[
        int,
        typer.Option("--cost", min=0, max=MAX_POOL_NUMBER, help="The action's Action Cost."),
    ] = 1,
    adv: Annotated[
        list[str] | None,
        typer.Option("--adv", help="An advantage's source key; repeat for more (R14)."),
    ] = None,
    dis: Annotated[
        list[str] | None,
        typer.Option("--dis", help="A disadvantage's source key; repeat for more (R14)."),
    ] = None,
    extra: Annotated[
        str | None,
        typer.Option("--extra", help="Extra dice added after the pool, e.g. a weapon's 1d8 (R3)."),
    ] = None,
    revision: Annotated[
        Revision, typer.Option("--revision", help="Rules revision: current (seed 000) or legacy.")
    ] = Revision.CURRENT,
    fixed_pool: Annotated[
        int | None,
        typer.Option(
            "--fixed-pool",
            min=1,
            max=MAX_POOL_NUMBER,
            help="The action rolls this many d4s whatever the Load (R20).",
        ),
    ] = None,
    gm_roll: Annotated[
        bool,
        typer.Option("--gm-roll", help="A GM-called roll: always allowed, no gate (R17)."),
    ] = False,
    count_load: Annotated[
        bool,
        typer.Option("--count-load", help="With --gm-roll: the GM lets Load shrink the pool."),
    ] = False,
    aspect_name: Annotated[
        str, typer.Option("--aspect-name", help="Name the Aspect in the output, e.g. Finesse.")
    ] = "Aspect",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
) -> None:
    """Can the action be taken (Aspect − Load ≥ Cost), and which dice does it roll?"""
    adv, dis = adv or [], dis or []
    printable_name(aspect_name, "--aspect-name")
    if count_load and not gm_roll:
        fail("--count-load only applies to --gm-roll (R17); the player's pool always counts Load")
    if gm_roll and fixed_pool is not None:
        fail("--fixed-pool is an action's own pool; a GM-called roll uses the Aspect (R17)")
    extra_expr = parse_expr(extra, "--extra") if extra is not None else None
    net = net_advantage(_sources(adv, dis))

    if gm_roll:
        allowed = True
        reason = "GM-called roll: always allowed, the gate does not apply (R17)"
        d4: int | None = gm_pool_size(aspect, load, net, count_load=count_load)
        load_after = load  # R17: GM-called rolls do not raise Load
    else:
        gate = check_gate(aspect, load, cost, revision, aspect_name=aspect_name)
        allowed, reason = gate.allowed, gate.reason
        d4 = pool_size(aspect, load, net, revision, fixed_pool=fixed_pool) if allowed else None
        load_after = load + cost if allowed else load

    expression: Expr | None = None
    arithmetic: str | None = None
    if d4 is not None:
        extra_terms = extra_expr.terms if extra_expr is not None else ()
        expression = Expr((Term(1, Dice(d4, 4)), *extra_terms))
        arithmetic = dice_arithmetic(
            aspect,
            load,
            net,
            name=aspect_name,
            revision=revision,
            fixed_pool=fixed_pool,
            gm_roll=gm_roll,
            count_load=count_load,
            extra=extra_expr,
        )

    if as_json:
        data: dict[str, Any] = {
            "allowed": allowed,
            "reason": reason,
            "d4": d4,
            "expression": str(expression) if expression is not None else None,
            "arithmetic": arithmetic,
            "net_advantage": net,
            "advantage": list(dict.fromkeys(adv)),
            "disadvantage": list(dict.fromkeys(dis)),
            "revision": revision.value,
            "gm_roll": gm_roll,
            "load_after": load_after,
        }
        print_json(data)
        return

    console = out()
    if gm_roll:
        console.print(reason, style="bold green", soft_wrap=True)
    else:
        cite = "" if reason.endswith(")") else " (R20)" if revision is Revision.LEGACY else " (R11)"
        verdict, style = ("Allowed", "bold green") if allowed else ("Not allowed", "bold red")
        console.print(f"{verdict}: {reason}{cite}", style=style, soft_wrap=True)
    console.print(_net_text(net, adv, dis), soft_wrap=True)
    if expression is None:
        console.print(
            "No roll: Net Advantage only sizes the pool of an allowed action; it never opens"
            " the gate. Wait for Load to drop (usually your next turn).",
            soft_wrap=True,
        )
        return
    console.print(f"Roll {expression}: {arithmetic}", style="bold", soft_wrap=True)
    if gm_roll:
        console.print(f"Load stays {load} (GM-called rolls do not raise Load, R17).", style="dim")
    else:
        console.print(f"Then Load {load} + cost {cost} = {load_after} (R12).", style="dim")
