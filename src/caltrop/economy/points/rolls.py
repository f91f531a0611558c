"""The Action Point module's roll stages as typed records, one frozen dataclass per stage.

An action of seed 004 resolves in staged rolls (R45: hit, then damage, then the defence window;
R4 contests; R39, R41, R44 checks). The engine keeps a stage's facts in its
:class:`~caltrop.economy.pending.PendingRoll` as a plain ``context`` mapping (what the table
server, the odds and the tactics read, and what :meth:`Encounter.key` freezes); the rules of
this module read and write it only through these records: :meth:`of` reads a context (an
unknown or missing key is an error, not a silent default) and :meth:`context` writes one,
leaving out a field still at its default, exactly as the engine always has (``"opposed" in context``
and ``"total_a" in context`` are the markers other readers test).
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar, TypeVar

S = TypeVar("S", bound="_Stage")


class _Stage:
    """What every stage record shares: its ``PendingRoll.stage`` name and the mapping both ways."""

    __slots__ = ()
    name: ClassVar[str]

    @classmethod
    def of(cls: type[S], context: dict[str, Any]) -> S:
        return cls(**context)

    def context(self) -> dict[str, Any]:
        """The engine's mapping: every field, less those still at their default (a field
        with a default is one set later, or only by some verbs)."""
        out: dict[str, Any] = {}
        for name, default in _fields(type(self)):
            value = getattr(self, name)
            if default is MISSING or value != default:
                out[name] = value
        return out


#: Each record type's (field, default) pairs, read once (``dataclasses.fields`` is not cheap,
#: and the search builds a mapping at every stage it plays).
_FIELDS: dict[type, tuple[tuple[str, Any], ...]] = {}


def _fields(kind: type) -> tuple[tuple[str, Any], ...]:
    known = _FIELDS.get(kind)
    if known is None:
        known = _FIELDS[kind] = tuple((f.name, f.default) for f in fields(kind))
    return known


@dataclass(frozen=True, slots=True)
class Hit(_Stage):
    """R39: a shot's Dexterity check against ``dc`` (the distance rounded up) with ``favor``
    (close range, Aim stacks, R2); on a hit, ``damage`` (the weapon's dice) is rolled next.
    ``reveals``: the attack was not made with ``+stealth``, so it reveals the attacker (R41)."""

    name: ClassVar[str] = "hit"

    verb: str
    attacker: int
    target: int
    dc: int
    favor: int
    damage: str
    weapons: str
    reveals: bool = False


@dataclass(frozen=True, slots=True)
class Damage(_Stage):
    """R38/R39: the damage roll of an attack that reached its target."""

    name: ClassVar[str] = "damage"

    verb: str
    attacker: int
    target: int
    damage: str
    weapons: str
    reveals: bool = False


@dataclass(frozen=True, slots=True)
class Defence(_Stage):
    """R40/R45: the target's window against ``incoming`` damage: its ``mode`` (block or dodge,
    once chosen), Take Cover, and the Defense Assist dice of its allies."""

    name: ClassVar[str] = "defence"

    verb: str
    attacker: int
    incoming: int
    mode: str | None = None
    cover: bool = False
    assists: int = 0


@dataclass(frozen=True, slots=True)
class Check(_Stage):
    """A check against a DC (R4): a Martial Check (R44, the GM's DC) or a stealth check against
    an unaware ``observer``'s Perception score (R41)."""

    name: ClassVar[str] = "check"

    verb: str
    stat: str
    dc: int
    favor: int
    observer: int | None = None


@dataclass(frozen=True, slots=True)
class Contest(_Stage):
    """An opposed check (R4): the initiator's ``stat_a`` with ``favor``, then the opposer's
    ``stat_b``; ``opposed`` once the opposer answers (a grapple and a stealth contest always
    are, R41, R42), ``total_a`` once the initiator has rolled."""

    name: ClassVar[str] = "contest"

    verb: str
    initiator: int
    opposer: int
    stat_a: str
    stat_b: str
    favor: int
    opposed: bool = False
    total_a: int | None = None


#: A stage record of any kind.
StageRecord = Hit | Damage | Defence | Check | Contest

#: Each stage's record by its ``PendingRoll.stage`` name.
RECORDS: dict[str, type[StageRecord]] = {
    "hit": Hit,
    "damage": Damage,
    "defence": Defence,
    "check": Check,
    "contest": Contest,
}

__all__ = ["RECORDS", "Check", "Contest", "Damage", "Defence", "Hit", "StageRecord"]
