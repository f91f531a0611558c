"""Immutable definitions the engine plays with: rulesets, weapons, actions and creatures.

These are plain frozen dataclasses (no validation framework): :mod:`caltrop.content` validates
YAML files with pydantic and builds these. The engine keeps the changing numbers (Load, Health,
AP…) in its own state and never mutates a definition.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from caltrop.core.pool import AdvantageKind, Revision
from caltrop.dice.ast import Expr
from caltrop.errors import ContentError


class Side(StrEnum):
    """Which side a creature is on: player characters or the GM's NPCs."""

    PC = "pc"
    NPC = "npc"


class ActionKind(StrEnum):
    """What an action does (seed 000, "Resolving the Dice Roll"; R15, R16)."""

    ATTACK = "attack"  # pool vs the target's Evasion; the remainder is damage (R16)
    CHECK = "check"  # pool vs a DC; succeeds iff total ≥ DC (R16)
    TEAM = "team"  # on another creature's pending roll: grants adv or dis to it (R15)
    EFFECT = "effect"  # no roll; may grant adv/dis on a target's next roll (Watch My Back)


class LoadReset(StrEnum):
    """When Action Load resets (R19)."""

    TURN = "turn"
    ROUND = "round"


class Initiative(StrEnum):
    """How turn order is set (R21): the GM's order, or a check (R30 procedure)."""

    GM = "gm"
    CHECK = "check"


class OffTurn(StrEnum):
    """R32: what a participant may do during another's turn (Action Point module)."""

    ANY = "any"  # any action it can pay for, at any moment
    REACTIONS = "reactions"  # only the reactions, inside a reaction window


class Halving(StrEnum):
    """R38: how the dice of several melee weapons attacking as one are halved up."""

    TOGETHER = "together"  # all the dice summed, then halved up once
    EACH = "each"  # each weapon's dice halved up, then summed


#: R34: a move, leap or placement ends at least this far (meters) from another standing creature.
MIN_SPACING = 0.5

#: R48: the condition every creature may have in both modules (the GM's ``gm: set X prone on``).
PRONE = "prone"


class Economy(StrEnum):
    """The action economies the engine knows (found by name in :mod:`caltrop.economy`)."""

    ACTION_LOAD = "action_load"
    ACTION_POINTS = "action_points"


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Which module and which options are in force.

    ``revision`` (R20), ``load_reset`` (R19), ``initiative`` (R21) and ``gm_roll_counts_load``
    (R17, default: Load does not count) are the Action Load module's options;
    ``off_turn_actions`` (R32), ``multi_weapon_halving`` (R38) and ``min_spacing`` (R34, meters)
    the Action Point module's. ``conditions`` names the conditions a GM may set besides prone
    (R48), in both modules.
    """

    name: str = "current"
    economy: Economy = Economy.ACTION_LOAD
    revision: Revision = Revision.CURRENT
    load_reset: LoadReset = LoadReset.TURN
    initiative: Initiative = Initiative.GM
    initiative_aspect: str | None = None
    gm_roll_counts_load: bool = False
    off_turn_actions: OffTurn = OffTurn.ANY
    multi_weapon_halving: Halving = Halving.TOGETHER
    min_spacing: float = MIN_SPACING
    conditions: tuple[str, ...] = ()


class WeaponKind(StrEnum):
    """Melee or ranged: an action that uses a weapon may ask for one kind."""

    MELEE = "melee"
    RANGED = "ranged"


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon: its extra dice (a dagger's ``1d4``, a sword's ``1d8``) and its kind."""

    name: str
    dice: Expr
    kind: WeaponKind = WeaponKind.MELEE
    ap: int | None = None  # seed 004: AP of an attack with it (R38); also to equip it (R44)
    close: int | None = None  # seed 004: close range in meters (ranged; R39)
    far: int | None = None  # seed 004: far range in meters (ranged; R39)


@dataclass(frozen=True, slots=True)
class Grant:
    """The advantage a team action or effect gives: ``kind`` to ``to`` ("ally" or "enemy")."""

    kind: AdvantageKind
    to: str = "ally"  # "ally": the roll of an ally; "enemy": the roll of an opponent


@dataclass(frozen=True, slots=True)
class ActionDef:
    """An action a creature may take.

    ``aspect`` names the Aspect whose value is the pool (seed 000 step 1); ``cost`` is added to
    Load after resolving (step 6; 0 allowed). ``extra`` dice are added after Net Advantage (R3).
    ``reaction`` marks an action that may be taken on another creature's turn (seed 000,
    "Acting on Other Turns"). ``fixed_pool`` is the legacy "uses only 1d4" (R20). ``weapon_kind``
    restricts ``uses_weapon`` to melee or ranged weapons. ``source`` is the advantage source key of a team action or effect (R14); it defaults to the name.
    """

    name: str
    aspect: str
    cost: int
    kind: ActionKind
    dc: int | None = None
    extra: Expr | None = None
    uses_weapon: bool = False
    weapon_kind: WeaponKind | None = None
    reaction: bool = False
    fixed_pool: int | None = None
    grant: Grant | None = None
    source: str | None = None
    description: str = ""

    @property
    def source_key(self) -> str:
        return self.source or self.name


@dataclass(frozen=True, slots=True)
class CreatureDef:
    """A participant's stat block in the Action Load module (seed 000)."""

    id: str
    name: str
    side: Side
    aspects: dict[str, int]
    health: int
    evasion: int = 0
    load_buffer: int = 0
    exhaustion: int = 0
    max_health: int | None = None
    actions: tuple[ActionDef, ...] = ()
    weapons: tuple[Weapon, ...] = ()
    stats: dict[str, int] = field(default_factory=dict)
    equipped: tuple[str, ...] | None = None  # seed 004: weapons in hand at the start (None: all)

    def __post_init__(self) -> None:
        if self.max_health is None:
            object.__setattr__(self, "max_health", self.health)

    def action(self, name: str) -> ActionDef | None:
        for a in self.actions:
            if a.name == name:
                return a
        return None

    def weapon(self, name: str) -> Weapon | None:
        for w in self.weapons:
            if w.name == name:
                return w
        return None

    def __hash__(self) -> int:
        return hash(self.id)


@dataclass(frozen=True, slots=True)
class EncounterDef:
    """An encounter: a ruleset and its participants, listed in the GM's turn order (R21).

    ``reserves`` are creatures the GM may add mid-encounter by id (``gm: add goblin``, R48):
    the creatures the encounter file includes or uses, resolved like its participants.
    """

    name: str
    ruleset: Ruleset
    participants: tuple[CreatureDef, ...]
    description: str = ""
    reserves: tuple[CreatureDef, ...] = ()

    def __post_init__(self) -> None:
        ids = [c.id for c in self.participants]
        duplicated = sorted({i for i in ids if ids.count(i) > 1})
        if duplicated:
            raise ContentError(f"participant ids must be unique: {', '.join(duplicated)}")
