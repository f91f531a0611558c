"""Pydantic schemas of the YAML content documents (rulesets, weapons, actions, creatures, encounters).

Every document is a mapping with ``kind:`` one of ``ruleset``, ``weapons``, ``actions``,
``creature`` or ``encounter``, an optional ``example: true`` marker and a free ``description``.
The schemas check shapes and single values (types, ranges, one-word names, dice notation, reserved
words); :mod:`caltrop.content.loader` checks what needs more than one field or file (a team
action's grant, references to included files, duplicate ids) and builds the engine's plain
:mod:`caltrop.core.model` objects.

The models are strict (``"6"`` is not an integer) and forbid unknown fields, so a typo such as
``helth:`` is an error rather than silently ignored.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
)

from caltrop.content import limits
from caltrop.content.limits import range_text, within
from caltrop.core.codec import describe
from caltrop.core.ids import id_problem, reserved_word_problem
from caltrop.dice import parse as parse_dice
from caltrop.errors import DiceLimitError, DiceSyntaxError

#: One word as the command notation reads it (same pattern as :mod:`caltrop.core.commands`).
WORD_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.'-]*$")

#: The kinds of document, in the order the docs list them.
DOCUMENT_KINDS: tuple[str, ...] = ("ruleset", "weapons", "actions", "creature", "encounter")


def _reserved(value: str, what: str) -> str:
    problem = reserved_word_problem(value, what)
    if problem is not None:
        raise ValueError(problem)
    return value


def _word(value: str) -> str:
    if len(value) > limits.MAX_WORD:
        raise ValueError(
            f"expected one word of at most {limits.MAX_WORD} characters, got {len(value):,}"
        )
    if not WORD_PATTERN.match(value):
        raise ValueError(f"expected one word (letters, digits, '-', '_', no spaces), got {value!r}")
    return value


def _creature_id(value: str) -> str:
    """The one id rule (:func:`caltrop.core.ids.id_problem`, issue 21)."""
    problem = id_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def _action_name(value: str) -> str:
    return _reserved(_word(value), "action name")


def _number_to_text(value: Any) -> Any:
    # ``extra: 2`` (a constant) arrives from YAML as an int; dice are written as text otherwise.
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


def _dice(value: str) -> str:
    try:
        parse_dice(value)
    except DiceSyntaxError as exc:
        raise ValueError(
            f"expected a dice expression like 1d8 or 2d6+1, got {value!r} "
            f"(column {exc.column}: {exc.expected})"
        ) from None
    except DiceLimitError as exc:
        raise ValueError(f"expected a dice expression like 1d8, got {value!r} ({exc})") from None
    return value


def _nonblank(value: str) -> str:
    if not value.strip():
        raise ValueError("expected some text, got an empty string")
    if len(value) > limits.MAX_NAME:
        raise ValueError(f"expected at most {limits.MAX_NAME} characters, got {len(value):,}")
    return _printable(value)


def _unprintable(ch: str, allowed: str = "") -> bool:
    """A character that must not reach a terminal: a control character (an escape sequence's
    ESC, NUL), a format character (a bidi override), a line or paragraph separator, a surrogate
    or an unassigned code point. Spaces of every width are printable."""
    if ch in allowed or ch == " ":
        return False
    return not ch.isprintable() and unicodedata.category(ch) != "Zs"


def _printable(value: str, allowed: str = "") -> str:
    """Text shown on a screen holds no control character: ``"\x1b[31mOrc"`` would reach the
    terminal as an escape sequence (issue 10). Rich markup (``[/x]``) is fine: the terminal
    escapes it."""
    for i, ch in enumerate(value):
        if _unprintable(ch, allowed):
            raise ValueError(
                f"expected printable text, got the control character U+{ord(ch):04X} at "
                f"character {i + 1} (names and descriptions hold no escape sequences or "
                "control characters)"
            )
    return value


def _reference(value: str) -> str:
    if not value.strip():
        raise ValueError("expected a file or a name, got an empty string")
    if len(value) > limits.MAX_REFERENCE:
        raise ValueError(
            f"expected at most {limits.MAX_REFERENCE:,} characters, got {len(value):,}"
        )
    return _printable(value)


def _description(value: str) -> str:
    if len(value) > limits.MAX_DESCRIPTION:
        raise ValueError(
            f"expected at most {limits.MAX_DESCRIPTION:,} characters, got {len(value):,}"
        )
    return _printable(value, allowed="\n\t")


def _bounded(bounds: tuple[int, int]) -> AfterValidator:
    """An integer within ``bounds`` (inclusive); a refusal past the top gives the whole range."""

    low, high = bounds

    def check(value: int) -> int:
        if value < low:
            raise ValueError(f"expected a number ≥ {low}, got {_number(value)}")
        if value > high:
            raise ValueError(
                f"expected a number ≤ {high}, got {_number(value)} (a content limit: "
                f"{range_text(bounds)})"
            )
        return value

    return AfterValidator(check)


def _number(value: int) -> str:
    return describe(value)  # "a number of 5,000 digits" past 15 digits


Word: TypeAlias = Annotated[str, AfterValidator(_word)]
CreatureId: TypeAlias = Annotated[str, AfterValidator(_creature_id)]
ActionName: TypeAlias = Annotated[str, AfterValidator(_action_name)]
DiceText: TypeAlias = Annotated[str, BeforeValidator(_number_to_text), AfterValidator(_dice)]
Name: TypeAlias = Annotated[str, AfterValidator(_nonblank)]
Description: TypeAlias = Annotated[str, AfterValidator(_description)]
#: A file or creature reference (``include:``, ``creature:``); printed in errors, so printable.
Reference: TypeAlias = Annotated[str, AfterValidator(_reference)]

Aspect: TypeAlias = Annotated[int, _bounded(limits.ASPECT)]
Cost: TypeAlias = Annotated[int, _bounded(limits.COST)]
DC: TypeAlias = Annotated[int, _bounded(limits.DC)]
FixedPool: TypeAlias = Annotated[int, _bounded(limits.FIXED_POOL)]
Health: TypeAlias = Annotated[int, _bounded(limits.HEALTH)]
Evasion: TypeAlias = Annotated[int, _bounded(limits.EVASION)]
LoadNumber: TypeAlias = Annotated[int, _bounded(limits.LOAD_NUMBER)]
Stat: TypeAlias = Annotated[int, _bounded(limits.STAT)]
WeaponAP: TypeAlias = Annotated[int, _bounded(limits.WEAPON_AP)]
Range: TypeAlias = Annotated[int, _bounded(limits.RANGE)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _DocumentHeader(_Model):
    example: bool = False
    description: Description = ""


# -- rulesets ---------------------------------------------------------------------------------


class RulesetSpec(_Model):
    """A ruleset: the economy and its options: the Action Load module's (R17, R19, R20, R21);
    the Action Point module (``economy: action_points``) uses ``initiative: check`` with
    ``initiative_aspect: Speed`` (R30)."""

    name: Word = "custom"
    description: Description = ""
    economy: Literal["action_load", "action_points"] = "action_load"
    revision: Literal["current", "legacy"] = "current"
    load_reset: Literal["turn", "round"] = "turn"
    initiative: Literal["gm", "check"] = "gm"
    initiative_aspect: Word | None = None
    gm_roll_counts_load: bool = False
    off_turn_actions: Literal["any", "reactions"] = "any"  # R32
    multi_weapon_halving: Literal["together", "each"] = "together"  # R38
    min_spacing: float = Field(default=0.5, ge=0, le=100)  # R34, meters
    conditions: list[Word] = Field(
        default=[], max_length=limits.MAX_PER_CREATURE
    )  # R48: conditions a GM may set besides prone


class RulesetDocument(RulesetSpec):
    """``kind: ruleset`` — a ruleset file."""

    kind: Literal["ruleset"]
    example: bool = False


# -- weapons ----------------------------------------------------------------------------------


class WeaponSpec(_Model):
    """A weapon and its extra dice (``dice: 1d8``).

    The Action Point module (seed 004) adds ``ap`` (the AP of an attack with it, and of equipping
    it: R38, R44) and, for ranged weapons, ``close`` and ``far`` ranges in meters (R39); the
    loader checks ``close ≤ far`` and that a ranged weapon in an ``action_points`` encounter has
    both.
    """

    name: Word
    dice: DiceText
    kind: Literal["melee", "ranged"] = "melee"
    ap: WeaponAP | None = None
    close: Range | None = None
    far: Range | None = None
    description: Description = ""


class WeaponsDocument(_DocumentHeader):
    """``kind: weapons`` — a library of weapons."""

    kind: Literal["weapons"]
    weapons: list[WeaponSpec] = Field(max_length=limits.MAX_LIBRARY)


# -- actions ----------------------------------------------------------------------------------


class GrantSpec(_Model):
    """Advantage (``adv``) or disadvantage (``dis``) given to an ally's or an enemy's roll."""

    kind: Literal["adv", "dis"]
    to: Literal["ally", "enemy"] = "ally"


class ActionSpec(_Model):
    """An action: the Aspect that sets its pool, its Cost, and what it does."""

    name: ActionName
    aspect: Word
    cost: Cost
    kind: Literal["attack", "check", "team", "effect"]
    dc: DC | None = None
    extra: DiceText | None = None
    uses_weapon: bool = False
    weapon_kind: Literal["melee", "ranged"] | None = None
    reaction: bool | None = None
    fixed_pool: FixedPool | None = None
    grant: GrantSpec | None = None
    source: Word | None = None
    description: Description = ""


class ActionOverride(_Model):
    """A library action with some fields changed: ``{use: strike, aspect: Might}``."""

    use: ActionName
    name: ActionName | None = None
    aspect: Word | None = None
    cost: Cost | None = None
    dc: DC | None = None
    extra: DiceText | None = None
    reaction: bool | None = None
    fixed_pool: FixedPool | None = None
    source: Word | None = None
    description: Description | None = None


class ActionsDocument(_DocumentHeader):
    """``kind: actions`` — a library of actions."""

    kind: Literal["actions"]
    actions: list[ActionSpec] = Field(max_length=limits.MAX_LIBRARY)


# -- creatures --------------------------------------------------------------------------------

# Union members are tagged with names in angle brackets, which can never be YAML field names: the
# error locator skips them when it walks a pydantic error location through the YAML nodes.
TAG_NAME = "<name>"
TAG_USE = "<use>"
TAG_INLINE = "<inline>"
TAG_REF = "<ref>"
UNION_TAGS: frozenset[str] = frozenset({TAG_NAME, TAG_USE, TAG_INLINE, TAG_REF})


def _action_entry_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return TAG_NAME
    if isinstance(value, dict):
        return TAG_USE if "use" in value else TAG_INLINE
    return None


def _weapon_entry_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return TAG_NAME
    if isinstance(value, dict):
        return TAG_INLINE
    return None


ActionEntry: TypeAlias = Annotated[
    Annotated[ActionName, Tag(TAG_NAME)]
    | Annotated[ActionOverride, Tag(TAG_USE)]
    | Annotated[ActionSpec, Tag(TAG_INLINE)],
    Discriminator(
        _action_entry_tag,
        custom_error_type="action_entry",
        custom_error_message="expected an action name, {use: NAME, ...} or an action mapping",
    ),
]

WeaponEntry: TypeAlias = Annotated[
    Annotated[Word, Tag(TAG_NAME)] | Annotated[WeaponSpec, Tag(TAG_INLINE)],
    Discriminator(
        _weapon_entry_tag,
        custom_error_type="weapon_entry",
        custom_error_message="expected a weapon name or a mapping {name: ..., dice: ...}",
    ),
]


class CreatureSpec(_Model):
    """A stat block: Aspects, Health and the Action Load numbers (seed 000), ``stats`` for other
    modules (the Action Point module's names are
    :data:`caltrop.economy.points.state.STAT_DEFAULTS`), weapons, and ``equipped``: the weapons
    in hand at the start (seed 004, R44; default: all of them)."""

    id: CreatureId
    name: Name
    side: Literal["pc", "npc"]
    description: Description = ""
    aspects: dict[Word, Aspect] = Field(min_length=1, max_length=limits.MAX_PER_CREATURE)
    health: Health
    max_health: Health | None = None
    evasion: Evasion = 0
    load_buffer: LoadNumber = 0
    exhaustion: LoadNumber = 0
    stats: dict[Word, Stat] = Field(default_factory=dict, max_length=limits.MAX_PER_CREATURE)
    actions: list[ActionEntry] = Field(default_factory=list, max_length=limits.MAX_PER_CREATURE)
    weapons: list[WeaponEntry] = Field(default_factory=list, max_length=limits.MAX_PER_CREATURE)
    equipped: list[Word] | None = Field(default=None, max_length=limits.MAX_PER_CREATURE)


class CreatureDocument(CreatureSpec):
    """``kind: creature`` — one creature; ``include`` names action and weapon libraries."""

    kind: Literal["creature"]
    example: bool = False
    include: list[Reference] = Field(default_factory=list, max_length=limits.MAX_INCLUDES)


# -- encounters -------------------------------------------------------------------------------


def _position(value: Any) -> Any:
    """``[x, y]`` in whole meters (R34); kept as the stats ``x`` and ``y``, which are integers."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        got = f"a list of {len(value)}" if isinstance(value, list | tuple) else _shown(value)
        raise ValueError(f"expected a position [x, y] in meters, like [4, -2], got {got}")
    for item in value:
        if isinstance(item, float):
            raise ValueError(
                f"expected whole meters, got {item!r}: a position is kept in the stat block's "
                "integer stats x and y, so write integers (like [4, -2])"
            )
        if not isinstance(item, int) or isinstance(item, bool):
            raise ValueError(f"expected a position [x, y] of integers (meters), got {_shown(item)}")
        if not within(item, limits.COORDINATE):
            raise ValueError(
                f"expected coordinates {range_text(limits.COORDINATE)} m (R34), got {_number(item)}"
            )
    return tuple(value)


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, dict):
        return "a mapping"
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


#: A participant's starting position ``[x, y]`` in meters (seed 004, R34).
Position: TypeAlias = Annotated[tuple[int, int], BeforeValidator(_position)]


class ParticipantRef(_Model):
    """A participant taken from a creature file or an included creature, perhaps renamed and
    placed (``position: [x, y]`` in meters overrides the creature's stats ``x`` and ``y``)."""

    creature: Reference
    id: CreatureId | None = None
    name: Name | None = None
    position: Position | None = None


class ParticipantSpec(CreatureSpec):
    """A creature written inside an encounter, perhaps placed with ``position: [x, y]``."""

    position: Position | None = None


def _participant_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        return TAG_REF if "creature" in value else TAG_INLINE
    if isinstance(value, str):
        return TAG_NAME
    return None


ParticipantEntry: TypeAlias = Annotated[
    Annotated[Reference, Tag(TAG_NAME)]
    | Annotated[ParticipantRef, Tag(TAG_REF)]
    | Annotated[ParticipantSpec, Tag(TAG_INLINE)],
    Discriminator(
        _participant_tag,
        custom_error_type="participant_entry",
        custom_error_message=(
            "expected a creature id or file, {creature: ID-or-FILE, id: ..., name: ..., "
            "position: [x, y]} or a creature mapping"
        ),
    ),
]


class PoliciesSpec(_Model):
    """Names of the policies a simulator should use for each side (free text for now)."""

    pc: Name | None = None
    npc: Name | None = None


def _ruleset_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return TAG_NAME
    if isinstance(value, dict):
        return TAG_INLINE
    return None


RulesetEntry: TypeAlias = Annotated[
    Annotated[Reference, Tag(TAG_NAME)] | Annotated[RulesetSpec, Tag(TAG_INLINE)],
    Discriminator(
        _ruleset_tag,
        custom_error_type="ruleset_entry",
        custom_error_message=(
            "expected a bundled ruleset name (current, legacy, round-reset, action-points), "
            "a file, or a ruleset mapping"
        ),
    ),
]


class EncounterDocument(_DocumentHeader):
    """``kind: encounter`` — a ruleset, libraries to include, and participants in turn order."""

    kind: Literal["encounter"]
    name: Name
    ruleset: RulesetEntry = "current"
    include: list[Reference] = Field(default_factory=list, max_length=limits.MAX_INCLUDES)
    participants: list[ParticipantEntry] = Field(min_length=1, max_length=limits.MAX_PARTICIPANTS)
    policies: PoliciesSpec | None = None


class SavedEncounter(_Model):
    """The encounter definition a save log's header carries (:mod:`caltrop.content.serialize`):
    resolved, every participant and reserve (R48) inline, positions in the stats ``x`` and
    ``y``. Checked with the same schemas, limits and rules as an encounter file."""

    format: str | None = None
    kind: Literal["encounter"] = "encounter"
    name: Name
    description: Description = ""
    ruleset: RulesetSpec
    participants: list[CreatureSpec] = Field(min_length=1, max_length=limits.MAX_PARTICIPANTS)
    reserves: list[CreatureSpec] = Field(default_factory=list, max_length=limits.MAX_RESERVES)


Document: TypeAlias = (
    RulesetDocument | WeaponsDocument | ActionsDocument | CreatureDocument | EncounterDocument
)

DOCUMENT_MODELS: dict[str, type[Document]] = {
    "ruleset": RulesetDocument,
    "weapons": WeaponsDocument,
    "actions": ActionsDocument,
    "creature": CreatureDocument,
    "encounter": EncounterDocument,
}
