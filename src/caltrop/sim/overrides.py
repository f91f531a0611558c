"""Rule variants and stat changes written as ``KEY=VALUE``, applied to an encounter definition.

Two kinds of key, one notation (``--variant`` and ``--param`` share it):

* a **ruleset field**: ``load_reset=round``, ``revision=legacy``, ``initiative=check`` (any field of
  :class:`~caltrop.core.model.Ruleset`, so the options of new economies work unchanged; the
  prefix ``ruleset.`` may be written);
* a **creature path**: ``CREATURE.FIELD[.KEY…]`` — ``goblin.aspects.Finesse=6``,
  ``aria.health=20``, ``bron.actions.strike.cost=2``. ``CREATURE`` is a creature id, or an id
  prefix that names numbered copies (``goblin`` → ``goblin-1``, ``goblin-2``; not
  ``goblin-archer``), or ``pc`` / ``npc`` for a whole side. A path steps through dataclass
  fields, dict keys and tuples of named things (actions, weapons).

Values are converted to the type of the value they replace (integers, booleans, enum options,
dice expressions). Several overrides make one variant: ``load_reset=round,revision=legacy``.
Definitions are frozen; applying an override builds a new one with :func:`dataclasses.replace`.

An override must change something that exists (issue 10): a name the creature does not have
(``goblin.aspects.Nope=3``, or ``goblin.aspects.finesse=9`` for its ``Finesse``) is refused with
the names it does have, never added as a new key the rules never read. The one exception is a
stat of the Action Point stat block (``stats.stamina``), which every creature has by default.
Integers are ASCII digits within ±:data:`MAX_VALUE`; a sweep's range is counted before it is
built (``1..1000000000`` is refused at once, not after a MemoryError); and the definition an
override makes is checked as content (:func:`caltrop.content.encounter_from_dict`).
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from caltrop.core.model import CreatureDef, Economy, EncounterDef, Ruleset
from caltrop.dice.ast import Expr
from caltrop.dice.parse import parse
from caltrop.economy.points.state import STAT_DEFAULTS
from caltrop.errors import CaltropError
from caltrop.errors import OverrideError as OverrideError


@dataclass(frozen=True, slots=True)
class Override:
    """One ``KEY=VALUE``: a dotted path and the value as text."""

    path: tuple[str, ...]
    value: str

    def __str__(self) -> str:
        return f"{'.'.join(self.path)}={self.value}"


@dataclass(frozen=True, slots=True)
class Variant:
    """A named set of overrides (the name is the text it was written as)."""

    name: str
    overrides: tuple[Override, ...] = ()

    def apply(self, definition: EncounterDef) -> EncounterDef:
        return apply_overrides(definition, self.overrides)


_KEY = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.'-]*$")


def parse_override(text: str) -> Override:
    """``"goblin.aspects.Finesse=6"`` → ``Override(("goblin", "aspects", "Finesse"), "6")``."""
    if len(text) > MAX_TEXT:
        raise OverrideError(f"{_short(text)!r}: at most {MAX_TEXT:,} characters")
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not key or not value:
        raise OverrideError(
            f"{_short(text, 80)!r}: write KEY=VALUE (load_reset=round, goblin.health=12)"
        )
    if not value.isprintable():
        raise OverrideError(f"{_short(text, 80)!r}: a value is printable text")
    if not _KEY.match(key) or ".." in key or key.endswith("."):
        raise OverrideError(f"{_short(text, 80)!r}: {_short(key, 60)!r} is not a field path")
    return Override(tuple(key.split(".")), value)


def parse_variant(text: str) -> Variant:
    """``"load_reset=round,revision=legacy"`` → a :class:`Variant` named by its text.

    ``NAME:KEY=VALUE,…`` gives it another name; ``baseline`` (or ``NAME:baseline``) is the
    encounter as written. A text that says nothing — empty, only commas, ``NAME:`` with nothing
    after, an empty item between commas — is refused (issue 21): it was read as the baseline,
    so a typo compared the encounter with itself."""
    given = text
    text = text.strip()
    name = text
    head, colon, rest = text.partition(":")
    if colon and "=" not in head:
        name, text = head.strip(), rest.strip()
        if not name.isprintable() or len(name) > 80:
            raise OverrideError(f"{_short(name, 80)!r}: a variant's name is printable text")
        if not name:
            raise OverrideError(f"{_short(given, 80)!r}: a variant's name comes before ':'")
    if text == "baseline":
        return Variant(name or "baseline")
    if not text:
        raise OverrideError(
            f"{_short(given, 80)!r}: an empty variant; write KEY=VALUE,… (load_reset=round), "
            "NAME:KEY=VALUE,… or 'baseline'"
        )
    parts = text.split(",")
    if any(not part.strip() for part in parts):
        raise OverrideError(
            f"{_short(given, 80)!r}: an empty item between commas; write KEY=VALUE,KEY=VALUE"
        )
    return Variant(name, tuple(parse_override(part) for part in parts))


#: The largest integer an override sets (and a sweep's range reaches), either sign.
MAX_VALUE = 1_000_000
#: The most values a sweep steps through.
MAX_SWEEP_VALUES = 1000
#: The longest list of values or variant text taken at all.
MAX_TEXT = 10_000

_INT = re.compile(r"-?[0-9]+")
_RANGE = re.compile(r"^(-?[0-9]+)\.\.(-?[0-9]+)(?:\.\.(-?[0-9]+))?$")


def _integer(text: str, what: str) -> int:
    """``text`` as an integer within ±MAX_VALUE: ASCII digits only (``int()`` also reads ``٣``,
    ``1_000`` and 5,000-digit numbers it then refuses to print)."""
    if not _INT.fullmatch(text):
        raise OverrideError(f"{_short(what, 80)}: expected a whole number")
    if len(text.lstrip("-")) > len(str(MAX_VALUE)) or abs(int(text)) > MAX_VALUE:
        raise OverrideError(f"{_short(what, 80)}: {_short(text)} is past ±{MAX_VALUE:,}")
    return int(text)


def _short(text: str, keep: int = 20) -> str:
    """``text`` cut to about ``keep`` characters for an error message, saying how long it was."""
    return text if len(text) <= keep else f"{text[: keep - 3]}… ({len(text):,} characters)"


def parse_values(text: str) -> list[str]:
    """The values of a sweep: ``2..8`` (inclusive), ``2..8..2`` (a step), or ``turn,round``;
    at most MAX_SWEEP_VALUES of them, counted before any is made."""
    text = text.strip()
    if len(text) > MAX_TEXT:
        raise OverrideError(f"{_short(text)!r}: at most {MAX_TEXT:,} characters of values")
    m = _RANGE.match(text)
    if m:
        a, b = _integer(m.group(1), text), _integer(m.group(2), text)
        step = _integer(m.group(3), text) if m.group(3) else (1 if b >= a else -1)
        if step == 0 or (b - a) * step < 0:
            raise OverrideError(f"{text!r}: the step {step} never reaches {b} from {a}")
        count = (b - a) // step + 1
        if count > MAX_SWEEP_VALUES:
            raise OverrideError(
                f"{text!r}: {count:,} values; a sweep takes at most {MAX_SWEEP_VALUES:,}"
            )
        return [str(v) for v in range(a, b + (1 if step > 0 else -1), step)]
    values = [v.strip() for v in text.split(",") if v.strip()]
    if not values:
        raise OverrideError(f"{_short(text, 80)!r}: no values (write 2..8 or 2,4,6)")
    if len(values) > MAX_SWEEP_VALUES:
        raise OverrideError(f"{len(values):,} values; a sweep takes at most {MAX_SWEEP_VALUES:,}")
    return values


def parse_sweep(text: str) -> tuple[tuple[str, ...], list[str]]:
    """``"goblin.aspects.Finesse=2..8"`` → the path and every value as text."""
    key, sep, values = text.partition("=")
    override = parse_override(f"{key}=x") if sep else parse_override(text)
    return override.path, parse_values(values)


# -- applying -----------------------------------------------------------------------------------


def apply_overrides(definition: EncounterDef, overrides: Sequence[Override]) -> EncounterDef:
    """A new definition with every override applied in order, checked as content would be."""
    for override in overrides:
        definition = _apply_one(definition, override)
    if overrides:
        _check_as_content(definition, overrides)
    return definition


def _check_as_content(definition: EncounterDef, overrides: Sequence[Override]) -> None:
    """Refuse a definition no content file could declare (the content layer's own checks)."""
    from caltrop.content import encounter_from_dict, encounter_to_dict

    try:
        encounter_from_dict(encounter_to_dict(definition))
    except CaltropError as exc:
        shown = ",".join(map(str, overrides))
        raise OverrideError(f"{_short(shown)}: {exc}") from None


#: Ruleset options only one module reads (the Ruleset's docstring): a variant of one on an
#: encounter of the other module would change nothing, and say it answered a question.
MODULE_OPTIONS: Final[dict[str, tuple[Economy, str]]] = {
    "revision": (Economy.ACTION_LOAD, "R20"),
    "load_reset": (Economy.ACTION_LOAD, "R19"),
    "gm_roll_counts_load": (Economy.ACTION_LOAD, "R17"),
    "off_turn_actions": (Economy.ACTION_POINTS, "R32"),
    "multi_weapon_halving": (Economy.ACTION_POINTS, "R38"),
    "min_spacing": (Economy.ACTION_POINTS, "R34"),
}
_MODULE_NAMES: Final = {Economy.ACTION_LOAD: "Action Load", Economy.ACTION_POINTS: "Action Point"}


def _apply_one(definition: EncounterDef, override: Override) -> EncounterDef:
    path = override.path[1:] if override.path[0] == "ruleset" else override.path
    text = _short(str(override), 80)  # how error messages name it
    if not path:  # 'ruleset=…' alone: the ruleset is a set of options, not one value
        raise OverrideError(
            f"{text}: name one of the ruleset's options (ruleset.load_reset=round, or "
            "load_reset=round)"
        )
    if len(path) == 1 and path[0] in MODULE_OPTIONS:
        module, ruling = MODULE_OPTIONS[path[0]]
        if definition.ruleset.economy is not module:
            raise OverrideError(
                f"{text}: {path[0]} is an option of the {_MODULE_NAMES[module]} module "
                f"({ruling}); {definition.name} plays the "
                f"{_MODULE_NAMES[definition.ruleset.economy]} module, so it would change nothing"
            )
    if len(path) == 1:
        ruleset = _set(definition.ruleset, path, override.value, text)
        assert isinstance(ruleset, Ruleset)
        return dataclasses.replace(definition, ruleset=ruleset)
    chosen = select_creatures(definition, path[0])
    participants = tuple(
        _set_creature(c, path[1:], override.value, text) if c.id in chosen else c
        for c in definition.participants
    )
    return dataclasses.replace(definition, participants=participants)


def select_creatures(definition: EncounterDef, key: str) -> list[str]:
    """The ids a creature key names: the id itself; else its numbered copies (``goblin`` →
    ``goblin-1``, ``goblin-2``); else ``pc``/``npc`` for a side; else every id with the prefix."""
    ids = [c.id for c in definition.participants]
    if key in ids:
        return [key]
    copies = [i for i in ids if re.fullmatch(re.escape(key) + r"-?\d+", i)]
    if copies:
        return copies
    side = [c.id for c in definition.participants if c.side.value == key]
    if side:
        return side
    prefixed = [i for i in ids if i.startswith(key)]
    if prefixed:
        return prefixed
    raise OverrideError(
        f"no creature {key!r} in {definition.name} (ids: {', '.join(ids)}; or pc, npc)"
    )


def _set_creature(creature: CreatureDef, path: tuple[str, ...], value: str, text: str) -> Any:
    updated = _set(creature, path, value, text, where=creature.id)
    assert isinstance(updated, CreatureDef)
    if path == ("health",) and creature.max_health == creature.health:
        # a fresh stat block: its maximum follows its starting Health
        updated = dataclasses.replace(updated, max_health=updated.health)
    return updated


#: Keys a creature's dict field may gain from an override: those with a default it already has.
_DEFAULTED_KEYS: dict[str, dict[str, int]] = {"stats": STAT_DEFAULTS}


def _set(obj: Any, path: tuple[str, ...], value: str, text: str, where: str = "") -> Any:
    head, rest = path[0], path[1:]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        names = [f.name for f in dataclasses.fields(obj)]
        if head not in names:
            raise OverrideError(
                f"{text}: {type(obj).__name__} has no field {head!r} (fields: {', '.join(names)})"
            )
        current = getattr(obj, head)
        inner = f"{where}.{head}" if where else head
        new = _set(current, rest, value, text, inner) if rest else _convert(current, value, text)
        return dataclasses.replace(obj, **{head: new})
    if isinstance(obj, dict):
        field = where.rpartition(".")[2]
        defaults = _DEFAULTED_KEYS.get(field, {})
        if head not in obj and head not in defaults:
            raise OverrideError(f"{text}: {_no_such_key(obj, head, where, defaults)}")
        if not rest:
            current = obj[head] if head in obj else defaults[head]
            return {**obj, head: _convert(current, value, text)}
        if head not in obj:
            raise OverrideError(f"{text}: cannot step into {head!r} of {where or 'this'}")
        return {**obj, head: _set(obj[head], rest, value, text, f"{where}.{head}")}
    if isinstance(obj, tuple) and obj and all(hasattr(item, "name") for item in obj):
        names = [item.name for item in obj]
        if head not in names:
            raise OverrideError(f"{text}: no {head!r} here (names: {', '.join(names)})")
        if not rest:
            raise OverrideError(f"{text}: name a field of {head!r} (e.g. {head}.cost)")
        return tuple(_set(item, rest, value, text) if item.name == head else item for item in obj)
    raise OverrideError(f"{text}: cannot step into {head!r} of a {type(obj).__name__}")


def _no_such_key(obj: dict[str, Any], head: str, where: str, defaults: dict[str, int]) -> str:
    """``goblin-1 has no Aspect 'finesse' (did you mean 'Finesse'? it has: Finesse, Might)``."""
    owner, _, field = where.rpartition(".")
    label = {"aspects": "Aspect", "stats": "stat"}.get(field, "key")
    names = [str(k) for k in obj] + [k for k in defaults if k not in obj]
    near = [n for n in names if n.lower() == head.lower()]
    hint = f"did you mean {near[0]!r}? " if near else ""
    has = f"it has: {', '.join(names)}" if names else "it has none"
    return f"{owner or where or 'this'} has no {label} {head!r} ({hint}{has})"


def _convert(current: Any, value: str, text: str) -> Any:
    """``value`` as the type of ``current`` (an enum option, an int, a bool, dice, text)."""
    try:
        if isinstance(current, enum.Enum):
            options = [str(m.value) for m in type(current)]
            if value not in options:
                raise OverrideError(f"{text}: expected one of {', '.join(options)}")
            return type(current)(value)
        if isinstance(current, bool):
            lowered = value.lower()
            if lowered in ("true", "yes", "on", "1"):
                return True
            if lowered in ("false", "no", "off", "0"):
                return False
            raise OverrideError(f"{text}: expected true or false")
        if isinstance(current, int):
            return _integer(value, text)
        if isinstance(current, Expr):
            return parse(value)
        if current is None:
            if value.lower() in ("none", "null"):
                return None
            if _INT.fullmatch(value):
                return _integer(value, text)
            return value
        if isinstance(current, str):
            return value
    except OverrideError:
        raise
    except (ValueError, CaltropError) as exc:
        raise OverrideError(f"{text}: {exc}") from None
    raise OverrideError(f"{text}: a {type(current).__name__} cannot be set from the command line")
