"""Definitions as plain JSON-able dicts: rulesets, weapons, actions and creatures.

The text form of a definition for logs and saves: :func:`creature_to_dict` writes a fully
resolved stat block (dice as text such as ``"1d8"``) with a fixed key order, so the same
definition always gives the same bytes, and :func:`creature_from_dict` reads it back
(``creature_from_dict(creature_to_dict(c)) == c``). The reader checks shapes and types only;
the content rules are :mod:`caltrop.content`'s. The engine keeps a reinforcement's definition in
its log this way (R48), and :mod:`caltrop.content.serialize` builds whole encounters on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn, TypeGuard, TypeVar

from caltrop.core.model import (
    MIN_SPACING,
    ActionDef,
    ActionKind,
    CreatureDef,
    Economy,
    Grant,
    Halving,
    Initiative,
    LoadReset,
    OffTurn,
    Ruleset,
    Side,
    Weapon,
    WeaponKind,
)
from caltrop.core.pool import Revision
from caltrop.dice import parse as parse_dice
from caltrop.dice.ast import Expr
from caltrop.errors import CaltropError, ContentError

T = TypeVar("T")


def describe(value: Any) -> str:
    """A value as the user wrote it, for 'got …'."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, int) and abs(value) >= 10**15:
        return f"a number of {_digits(value):,} digits"
    if isinstance(value, int | float):
        return str(value)
    return f"{type(value).__name__} {value!r}"


def _digits(value: int) -> int:
    """The decimal digits of ``value``, without ``str()`` (which refuses past 4,300 digits)."""
    bits = abs(value).bit_length()
    if bits < 10_000:
        return len(str(abs(value)))
    return int(bits * 0.30102999566398120) + 1  # log10(2): exact to a digit


# -- writing -------------------------------------------------------------------------------------


def ruleset_to_dict(ruleset: Ruleset) -> dict[str, Any]:
    """A ruleset; the options added later (R32, R34, R38, R48) only when not their defaults, so
    a ruleset without them is written as before."""
    out: dict[str, Any] = {
        "name": ruleset.name,
        "economy": str(ruleset.economy),
        "revision": str(ruleset.revision),
        "load_reset": str(ruleset.load_reset),
        "initiative": str(ruleset.initiative),
        "initiative_aspect": ruleset.initiative_aspect,
        "gm_roll_counts_load": ruleset.gm_roll_counts_load,
    }
    if ruleset.off_turn_actions is not OffTurn.ANY:
        out["off_turn_actions"] = str(ruleset.off_turn_actions)
    if ruleset.multi_weapon_halving is not Halving.TOGETHER:
        out["multi_weapon_halving"] = str(ruleset.multi_weapon_halving)
    if ruleset.min_spacing != MIN_SPACING:
        out["min_spacing"] = ruleset.min_spacing
    if ruleset.conditions:
        out["conditions"] = list(ruleset.conditions)
    return out


def weapon_to_dict(weapon: Weapon) -> dict[str, Any]:
    """A weapon; the Action Point module's ``ap``, ``close`` and ``far`` only when set (so a
    definition without them is written as before)."""
    out: dict[str, Any] = {"name": weapon.name, "dice": str(weapon.dice), "kind": str(weapon.kind)}
    for key in ("ap", "close", "far"):
        value = getattr(weapon, key)
        if value is not None:
            out[key] = value
    return out


def action_to_dict(action: ActionDef) -> dict[str, Any]:
    return {
        "name": action.name,
        "aspect": action.aspect,
        "cost": action.cost,
        "kind": str(action.kind),
        "dc": action.dc,
        "extra": None if action.extra is None else str(action.extra),
        "uses_weapon": action.uses_weapon,
        "weapon_kind": None if action.weapon_kind is None else str(action.weapon_kind),
        "reaction": action.reaction,
        "fixed_pool": action.fixed_pool,
        "grant": None
        if action.grant is None
        else {"kind": action.grant.kind, "to": action.grant.to},
        "source": action.source,
        "description": action.description,
    }


def creature_to_dict(creature: CreatureDef) -> dict[str, Any]:
    """A stat block; Aspects and stats keep the order they were written in. ``equipped`` (seed
    004) is written only when set: None means "all weapons in hand"."""
    out: dict[str, Any] = {
        "id": creature.id,
        "name": creature.name,
        "side": str(creature.side),
        "aspects": dict(creature.aspects),
        "health": creature.health,
        "max_health": creature.max_health,
        "evasion": creature.evasion,
        "load_buffer": creature.load_buffer,
        "exhaustion": creature.exhaustion,
        "stats": dict(creature.stats),
        "actions": [action_to_dict(a) for a in creature.actions],
        "weapons": [weapon_to_dict(w) for w in creature.weapons],
    }
    if creature.equipped is not None:
        out["equipped"] = list(creature.equipped)
    return out


# -- reading -------------------------------------------------------------------------------------


class Reader:
    """Typed access to a nested dict; a wrong shape raises ContentError naming the path."""

    def __init__(self, data: Any, path: str) -> None:
        self.path = path
        if not isinstance(data, Mapping):
            self.fail(f"expected a mapping, got {describe(data)}")
        self.data: Mapping[str, Any] = data

    def fail(self, message: str, key: str | None = None) -> NoReturn:
        where = f"{self.path}.{key}" if key else self.path
        raise ContentError(f"saved encounter: {where}: {message}")

    def _get(self, key: str, required: bool) -> Any:
        if key not in self.data:
            if required:
                self.fail("required field is missing", key)
            return None
        return self.data[key]

    def _typed(self, key: str, kind: type[T], what: str, required: bool = True) -> T | None:
        value = self._get(key, required)
        if value is None and not required:
            return None
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            self.fail(f"expected {what}, got {describe(value)}", key)
        return value

    def text(self, key: str, required: bool = True) -> str:
        value = self._typed(key, str, "text", required)
        return "" if value is None else value

    def opt_text(self, key: str) -> str | None:
        return self._typed(key, str, "text or null", required=False)

    def integer(self, key: str) -> int:
        value = self._typed(key, int, "an integer")
        assert value is not None
        return value

    def opt_integer(self, key: str) -> int | None:
        return self._typed(key, int, "an integer or null", required=False)

    def flag(self, key: str) -> bool:
        value = self._typed(key, bool, "true or false")
        assert value is not None
        return value

    def enum(self, key: str, make: Callable[[str], T]) -> T:
        text = self.text(key)
        try:
            return make(text)
        except ValueError:
            self.fail(f"unknown value {text!r}", key)

    def dice(self, key: str, required: bool = True) -> Expr | None:
        text = self._typed(key, str, "a dice expression", required)
        if text is None:
            return None
        try:
            return parse_dice(text)
        except CaltropError as exc:
            self.fail(f"bad dice expression {text!r}: {exc}", key)

    def ints(self, key: str, required: bool = True) -> dict[str, int]:
        value = self._get(key, required)
        if value is None and not required:
            return {}
        if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
            for k, v in value.items()
        ):
            self.fail(f"expected a mapping of names to integers, got {describe(value)}", key)
        return dict(value)

    def opt_texts(self, key: str) -> tuple[str, ...] | None:
        value = self._get(key, False)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(f"expected a list of names or null, got {describe(value)}", key)
        return tuple(value)

    def items(self, key: str) -> list[Reader]:
        value = self._get(key, True)
        if not isinstance(value, list):
            self.fail(f"expected a list, got {describe(value)}", key)
        return [Reader(item, f"{self.path}.{key}[{i + 1}]") for i, item in enumerate(value)]

    def child(self, key: str, required: bool = True) -> Reader | None:
        value = self._get(key, required)
        if value is None:
            return None
        return Reader(value, f"{self.path}.{key}")


def ruleset_from_dict(data: Mapping[str, Any]) -> Ruleset:
    return read_ruleset(Reader(data, "ruleset"))


def read_ruleset(r: Reader) -> Ruleset:
    spacing = r.data.get("min_spacing", MIN_SPACING)
    if isinstance(spacing, bool) or not isinstance(spacing, int | float) or not 0 <= spacing <= 100:
        r.fail(f"expected meters from 0 to 100, got {describe(spacing)}", "min_spacing")
    return Ruleset(
        name=r.text("name"),
        economy=r.enum("economy", Economy),
        revision=r.enum("revision", Revision),
        load_reset=r.enum("load_reset", LoadReset),
        initiative=r.enum("initiative", Initiative),
        initiative_aspect=r.opt_text("initiative_aspect"),
        gm_roll_counts_load=r.flag("gm_roll_counts_load"),
        off_turn_actions=r.enum("off_turn_actions", OffTurn)
        if "off_turn_actions" in r.data
        else OffTurn.ANY,
        multi_weapon_halving=r.enum("multi_weapon_halving", Halving)
        if "multi_weapon_halving" in r.data
        else Halving.TOGETHER,
        min_spacing=float(spacing),
        conditions=r.opt_texts("conditions") or (),
    )


def _action(r: Reader) -> ActionDef:
    g = r.child("grant", required=False)
    grant = None
    if g is not None:
        kind = g.text("kind")
        if kind not in ("adv", "dis"):
            g.fail(f"expected 'adv' or 'dis', got {kind!r}", "kind")
        grant = Grant("adv" if kind == "adv" else "dis", g.text("to"))
    return ActionDef(
        name=r.text("name"),
        aspect=r.text("aspect"),
        cost=r.integer("cost"),
        kind=r.enum("kind", ActionKind),
        dc=r.opt_integer("dc"),
        extra=r.dice("extra", required=False),
        uses_weapon=r.flag("uses_weapon"),
        weapon_kind=r.enum("weapon_kind", WeaponKind) if r.opt_text("weapon_kind") else None,
        reaction=r.flag("reaction"),
        fixed_pool=r.opt_integer("fixed_pool"),
        grant=grant,
        source=r.opt_text("source"),
        description=r.text("description", required=False),
    )


def _weapon(r: Reader) -> Weapon:
    dice = r.dice("dice")
    assert dice is not None
    return Weapon(
        r.text("name"),
        dice,
        r.enum("kind", WeaponKind) if r.opt_text("kind") else WeaponKind.MELEE,
        ap=r.opt_integer("ap"),
        close=r.opt_integer("close"),
        far=r.opt_integer("far"),
    )


def read_creature(r: Reader) -> CreatureDef:
    return CreatureDef(
        id=r.text("id"),
        name=r.text("name"),
        side=r.enum("side", Side),
        aspects=r.ints("aspects"),
        health=r.integer("health"),
        max_health=r.opt_integer("max_health"),
        evasion=r.integer("evasion"),
        load_buffer=r.integer("load_buffer"),
        exhaustion=r.integer("exhaustion"),
        stats=r.ints("stats", required=False),
        actions=tuple(_action(a) for a in r.items("actions")),
        weapons=tuple(_weapon(w) for w in r.items("weapons")),
        equipped=r.opt_texts("equipped"),
    )


def creature_from_dict(data: Mapping[str, Any]) -> CreatureDef:
    return read_creature(Reader(data, "creature"))


# -- log events ----------------------------------------------------------------------------------

#: The largest seed a log may give: 128 bits, the entropy a fresh ``SeedSequence`` draws.
MAX_SEED = 2**128 - 1
#: The longest command text an event may hold (``gm: order`` of 200 ids is ~8,000 characters).
MAX_COMMAND_CHARS = 10_000
#: The most faces a roll record may list: the dice limit of one expression.
MAX_FACES = 1000

_BEGIN_KEYS = frozenset({"event", "format", "seed", "encounter", "header"})
_COMMAND_KEYS = frozenset({"event", "n", "command", "roll", "creature"})
_ROLL_REQUIRED: dict[str, type] = {"roller": str, "expression": str, "faces": list, "total": int}
_ROLL_OPTIONAL: dict[str, type] = {
    "damage": int,
    "target": str,
    "success": bool,
    "downed": bool,
    "note": str,
}


@dataclass(frozen=True, slots=True)
class BeginEvent:
    """A log's first event, checked: its seed and the header it carries (or None)."""

    seed: int
    header: Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class CommandEvent:
    """A ``command`` event, checked: its number, its text, its roll record and the creature a
    ``gm: add`` carries (R48), each None when the event has none."""

    n: int
    command: str
    roll: Mapping[str, Any] | None
    creature: Mapping[str, Any] | None


def read_begin_event(event: Any, log_format: str) -> BeginEvent:
    """The first event of a log, every field checked: ``event: begin``, ``format`` (when given)
    ``log_format``, an integer ``seed`` from 0 to :data:`MAX_SEED`, a text ``encounter`` and a
    mapping ``header``; no other field. Raises ContentError saying what is wrong."""
    if not isinstance(event, Mapping):
        raise ContentError(f"a log starts with its 'begin' event, not {describe(event)}")
    if event.get("event") != "begin":
        raise ContentError("a log starts with its 'begin' event")
    _only(event, _BEGIN_KEYS, "the 'begin' event")
    fmt = event.get("format", log_format)
    if fmt != log_format:
        raise ContentError(f"unknown log format {describe(fmt)}; this Caltrop reads {log_format!r}")
    seed = event.get("seed")
    if not _is_int(seed):
        raise ContentError(f"the seed is a whole number, not {describe(seed)}")
    if not 0 <= seed <= MAX_SEED:
        raise ContentError("the seed is a whole number from 0 to 2^128 - 1")
    if "encounter" in event and not isinstance(event["encounter"], str):
        raise ContentError(
            f"'encounter' is the encounter's name, not {describe(event['encounter'])}"
        )
    header = event.get("header")
    if header is not None and not isinstance(header, Mapping):
        raise ContentError(f"'header' is a mapping, not {describe(header)}")
    return BeginEvent(seed, header)


def read_command_event(event: Any, n: int) -> CommandEvent:
    """The ``n``-th command event of a log (counted from 1), every field checked: ``event:
    command``, ``n`` equal to its place, a ``command`` text of at most
    :data:`MAX_COMMAND_CHARS`, an optional ``roll`` record of the shape a roll is logged in and
    an optional ``creature`` mapping; no other field. Raises ContentError saying what is wrong."""
    if not isinstance(event, Mapping):
        raise ContentError(f"an event is a mapping, not {describe(event)}")
    if event.get("event") != "command":
        raise ContentError(f"unknown event {describe(event.get('event'))}")
    _only(event, _COMMAND_KEYS, "a command event")
    number = event.get("n")
    if not _is_int(number):
        raise ContentError(f"'n' is the command's number, not {describe(number)}")
    if number != n:
        raise ContentError(f"'n' is {_short(number)}, but this is command {n}")
    command = event.get("command")
    if not isinstance(command, str):
        raise ContentError(f"'command' is the command's text, not {describe(command)}")
    if not command.strip() or len(command) > MAX_COMMAND_CHARS:
        raise ContentError(
            f"'command' is a command of 1 to {MAX_COMMAND_CHARS:,} characters, not {len(command):,}"
        )
    roll = event.get("roll")
    if "roll" in event:
        check_roll_record(roll)
    creature = event.get("creature")
    if "creature" in event and not isinstance(creature, Mapping):
        raise ContentError(f"'creature' is a stat block, not {describe(creature)}")
    return CommandEvent(number, command, roll, creature)


def check_roll_record(record: Any) -> None:
    """A roll record as :func:`caltrop.economy.outcome.outcome_json` writes it: ``roller``,
    ``expression``, ``faces`` (at most :data:`MAX_FACES` integers) and ``total``, and perhaps
    ``damage``, ``target``, ``success``, ``downed`` and ``note``, each of its type."""
    if not isinstance(record, Mapping):
        raise ContentError(f"'roll' is a roll record, not {describe(record)}")
    _only(record, frozenset({*_ROLL_REQUIRED, *_ROLL_OPTIONAL}), "a roll record")
    for key, kind in (*_ROLL_REQUIRED.items(), *_ROLL_OPTIONAL.items()):
        if key not in record:
            if key in _ROLL_REQUIRED:
                raise ContentError(f"the roll record has no {key!r}")
            continue
        value = record[key]
        ok = _is_int(value) if kind is int else isinstance(value, kind)
        if not ok:
            raise ContentError(
                f"the roll record's {key!r} is not {kind.__name__}: {describe(value)}"
            )
    faces = record["faces"]
    if len(faces) > MAX_FACES:
        raise ContentError(
            f"the roll record holds {len(faces):,} faces; at most {MAX_FACES} (the dice limit)"
        )
    for i, face in enumerate(faces, start=1):
        if not _is_int(face):  # issue 21: say which face, and what it is
            raise ContentError(
                f"the roll record's face {i} is {describe(face)}; a face is a whole number"
            )


def _only(data: Mapping[str, Any], keys: frozenset[str], what: str) -> None:
    unknown = sorted(str(k)[:40] for k in data if k not in keys)
    if unknown:
        raise ContentError(f"{what} has no field {unknown[0]!r}; it has: {', '.join(sorted(keys))}")


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _short(value: int) -> str:
    return describe(value)
