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
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from caltrop.core.model import CreatureDef, EncounterDef, Ruleset
from caltrop.dice.ast import Expr
from caltrop.dice.parse import parse
from caltrop.errors import CaltropError


class OverrideError(CaltropError, ValueError):
    """A ``KEY=VALUE`` that does not fit the encounter: unknown field, creature or value."""


@dataclass(frozen=True, slots=True)
class Override:
    """One ``KEY=VALUE``: a dotted path and the value as text."""

    path: tuple[str, ...]
    value: str

    def __str__(self) -> str:
        return f"{'.'.join(self.path)}={self.value}"

    @property
    def is_ruleset(self) -> bool:
        return len(self.path) == 1 or self.path[0] == "ruleset"


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
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not key or not value:
        raise OverrideError(f"{text!r}: write KEY=VALUE (load_reset=round, goblin.health=12)")
    if not _KEY.match(key) or ".." in key or key.endswith("."):
        raise OverrideError(f"{text!r}: {key!r} is not a field path")
    return Override(tuple(key.split(".")), value)


def parse_variant(text: str) -> Variant:
    """``"load_reset=round,revision=legacy"`` → a :class:`Variant` named by its text.

    ``NAME:KEY=VALUE,…`` gives it another name; ``baseline`` (or an empty text) is the encounter
    as written."""
    text = text.strip()
    name = text
    head, colon, rest = text.partition(":")
    if colon and "=" not in head:
        name, text = head.strip(), rest.strip()
    if text in ("", "baseline"):
        return Variant(name or "baseline")
    return Variant(name, tuple(parse_override(part) for part in text.split(",") if part.strip()))


_RANGE = re.compile(r"^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$")


def parse_values(text: str) -> list[str]:
    """The values of a sweep: ``2..8`` (inclusive), ``2..8..2`` (a step), or ``turn,round``."""
    text = text.strip()
    m = _RANGE.match(text)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        step = int(m.group(3)) if m.group(3) else (1 if b >= a else -1)
        if step == 0 or (b - a) * step < 0:
            raise OverrideError(f"{text!r}: the step {step} never reaches {b} from {a}")
        values = [str(v) for v in range(a, b + (1 if step > 0 else -1), step)]
        if len(values) > 1000:
            raise OverrideError(f"{text!r}: {len(values)} values; a sweep takes at most 1000")
        return values
    values = [v.strip() for v in text.split(",") if v.strip()]
    if not values:
        raise OverrideError(f"{text!r}: no values (write 2..8 or 2,4,6)")
    return values


def parse_sweep(text: str) -> tuple[tuple[str, ...], list[str]]:
    """``"goblin.aspects.Finesse=2..8"`` → the path and every value as text."""
    key, sep, values = text.partition("=")
    override = parse_override(f"{key}=x") if sep else parse_override(text)
    return override.path, parse_values(values)


# -- applying -----------------------------------------------------------------------------------


def apply_overrides(definition: EncounterDef, overrides: Sequence[Override]) -> EncounterDef:
    """A new definition with every override applied in order."""
    for override in overrides:
        definition = _apply_one(definition, override)
    return definition


def _apply_one(definition: EncounterDef, override: Override) -> EncounterDef:
    path = override.path[1:] if override.path[0] == "ruleset" else override.path
    if len(path) == 1:
        ruleset = _set(definition.ruleset, path, override.value, str(override))
        assert isinstance(ruleset, Ruleset)
        return dataclasses.replace(definition, ruleset=ruleset)
    chosen = select_creatures(definition, path[0])
    participants = tuple(
        _set_creature(c, path[1:], override.value, str(override)) if c.id in chosen else c
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
    updated = _set(creature, path, value, text)
    assert isinstance(updated, CreatureDef)
    if path == ("health",) and creature.max_health == creature.health:
        # a fresh stat block: its maximum follows its starting Health
        updated = dataclasses.replace(updated, max_health=updated.health)
    return updated


def _set(obj: Any, path: tuple[str, ...], value: str, text: str) -> Any:
    head, rest = path[0], path[1:]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        names = [f.name for f in dataclasses.fields(obj)]
        if head not in names:
            raise OverrideError(
                f"{text}: {type(obj).__name__} has no field {head!r} (fields: {', '.join(names)})"
            )
        current = getattr(obj, head)
        new = _set(current, rest, value, text) if rest else _convert(current, value, text)
        return dataclasses.replace(obj, **{head: new})
    if isinstance(obj, dict):
        if not rest:
            current = obj.get(head)
            if current is None:
                # a new key (a new Aspect or stat): integers are the only values they hold
                current = 0
            return {**obj, head: _convert(current, value, text)}
        if head not in obj:
            raise OverrideError(f"{text}: no key {head!r} (keys: {', '.join(map(str, obj))})")
        return {**obj, head: _set(obj[head], rest, value, text)}
    if isinstance(obj, tuple) and obj and all(hasattr(item, "name") for item in obj):
        names = [item.name for item in obj]
        if head not in names:
            raise OverrideError(f"{text}: no {head!r} here (names: {', '.join(names)})")
        if not rest:
            raise OverrideError(f"{text}: name a field of {head!r} (e.g. {head}.cost)")
        return tuple(_set(item, rest, value, text) if item.name == head else item for item in obj)
    raise OverrideError(f"{text}: cannot step into {head!r} of a {type(obj).__name__}")


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
            try:
                return int(value)
            except ValueError:
                raise OverrideError(f"{text}: expected a whole number") from None
        if isinstance(current, Expr):
            return parse(value)
        if current is None:
            if value.lower() in ("none", "null"):
                return None
            try:
                return int(value)
            except ValueError:
                return value
        if isinstance(current, str):
            return value
    except OverrideError:
        raise
    except (ValueError, CaltropError) as exc:
        raise OverrideError(f"{text}: {exc}") from None
    raise OverrideError(f"{text}: a {type(current).__name__} cannot be set from the command line")
