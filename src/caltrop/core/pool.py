"""The Action Load gate and pool-size rules, as pure functions used everywhere (seeds 000, 001).

* :func:`check_gate` — may the action be taken? (R11 current, R20 legacy), with the arithmetic.
* :func:`pool_size` — how many d4s (R12 current, R20 legacy, R3 minimum 1).
* :func:`gm_pool_size` — GM-called rolls (R17).
* :func:`net_advantage` — source-keyed advantage and disadvantage (R14).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, TypeAlias

from caltrop.errors import ContentError, InvalidActionError


class Revision(StrEnum):
    """Which revision of the D4 Dice Pool page is in force (R20)."""

    CURRENT = "current"  # seed 000
    LEGACY = "legacy"  # seed 001


AdvantageKind: TypeAlias = Literal["adv", "dis"]


@dataclass(frozen=True, slots=True)
class Advantage:
    """One advantage or disadvantage on an action, with the key of its source (R14).

    ``str()`` gives the text form used by commands and the CLI: ``+adv:torch``, ``+dis:dark``.
    """

    kind: AdvantageKind
    source: str

    def __post_init__(self) -> None:
        if self.kind not in ("adv", "dis"):
            raise InvalidActionError(f"advantage kind must be 'adv' or 'dis', not {self.kind!r}")
        if not self.source or any(c.isspace() for c in self.source):
            raise InvalidActionError(f"an advantage source key is one word, not {self.source!r}")

    def __str__(self) -> str:
        return f"+{self.kind}:{self.source}"


def net_advantage(sources: Iterable[Advantage | tuple[AdvantageKind, str]]) -> int:
    """Net Advantage of one action: distinct advantage sources minus distinct disadvantage sources.

    R14: "Within one action, a source key counts once, whoever applies it and however many times;
    different keys stack." Two allies using Watch My Back give +1; a torch and advice give +2.
    """
    seen: set[tuple[str, str]] = set()
    for item in sources:
        kind, key = (item.kind, item.source) if isinstance(item, Advantage) else item
        if kind not in ("adv", "dis"):
            raise InvalidActionError(f"advantage kind must be 'adv' or 'dis', not {kind!r}")
        seen.add((kind, key))
    return sum(1 if kind == "adv" else -1 for kind, _ in seen)


@dataclass(frozen=True, slots=True)
class Gate:
    """The answer to "can I act?", with the numbers behind it."""

    allowed: bool
    aspect: int
    load: int
    cost: int
    revision: Revision
    reason: str

    def __bool__(self) -> bool:
        return self.allowed


def gate_open(
    aspect: int, load: int, cost: int, revision: Revision | str = Revision.CURRENT
) -> bool:
    """The gate alone, as a bool, for hot loops: R11 Aspect − Load ≥ Cost; R20 legacy also
    needs Aspect − Load > 0. :func:`check_gate` gives the same answer with the reason."""
    left = aspect - load
    if revision == Revision.LEGACY and left <= 0:
        return False
    return left >= cost


def check_gate(
    aspect: int,
    load: int,
    cost: int,
    revision: Revision = Revision.CURRENT,
    *,
    aspect_name: str = "Aspect",
) -> Gate:
    """Whether an action with ``cost`` may be taken at ``load``. Advantage never enters (R11).

    R11 (current): allowed iff Aspect − Load ≥ Cost — "You can take an action if
    (Aspect − current Action Load) ≥ the action's Action Cost."
    R20 (legacy): allowed iff Aspect − Load > 0 and Aspect − Load ≥ Cost.
    """
    if cost < 0:
        raise ContentError(f"an action's Cost is 0 or more, not {cost}")
    revision = Revision(revision)  # "legacy" as a plain string must not fall through to current
    left = aspect - load
    sums = f"{aspect_name} {aspect} − Load {load} = {left}"
    if revision is Revision.LEGACY and left <= 0:
        return Gate(
            False, aspect, load, cost, revision, f"{sums} is not more than 0 (legacy rule, R20)"
        )
    if left < cost:
        return Gate(False, aspect, load, cost, revision, f"{sums} < cost {cost}")
    return Gate(True, aspect, load, cost, revision, f"{sums} ≥ cost {cost}")


def pool_size(
    aspect: int,
    load: int,
    net_adv: int = 0,
    revision: Revision = Revision.CURRENT,
    *,
    fixed_pool: int | None = None,
) -> int:
    """The number of d4s an allowed action rolls (extra dice such as a weapon's 1d8 come on top).

    R12 (current): Aspect − max(0, Load) + Net Advantage, at least 1 — "A negative Load never
    adds dice." R20 (legacy): Aspect − Load + Net Advantage, at least 1; an action that names a
    fixed pool ("use only 1d4") rolls that pool whatever the Load. R3: never below 1d4.
    """
    if Revision(revision) is Revision.LEGACY:
        base = fixed_pool if fixed_pool is not None else aspect - load
    else:
        base = fixed_pool if fixed_pool is not None else aspect - max(0, load)
    return max(1, base + net_adv)


def gm_pool_size(aspect: int, load: int, net_adv: int = 0, *, count_load: bool = False) -> int:
    """d4s for a GM-called roll (R17): max(1, Aspect − (max(0, Load) if Load counts) + NetAdv).

    "If the GM calls for a roll, you always roll at least 1d4, even with a negative Aspect."
    Whether Load counts is the GM's choice per roll; by default it does not. Such rolls do not
    raise Load.
    """
    return max(1, aspect - (max(0, load) if count_load else 0) + net_adv)
