"""The encounter builder's draft (issue 23 item 3): the form's fields read as an encounter, that
encounter written as the content YAML ``caltrop validate`` reads, and the content rules'
problems put back at the form's fields.

There is no second validator here. A draft is written as a ``kind: encounter`` document (every
creature inline, the ruleset a bundled one by name) and loaded by the content loader itself
(:func:`caltrop.content.loader.load_encounter_text`, the path ``caltrop validate`` takes); each
:class:`~caltrop.errors.Problem` it reports names a field path (``participants[2].aspects.Might``,
``participants[1].weapons[1].dice``), and :func:`slot_of` maps that path to the form field that
holds it. The form's field names ARE those paths (1-based, as problems count), so the mapping is
the path itself, a row's Aspect found by its name, or the nearest enclosing part
(``participants[2]`` for a field the form does not show).

A form's numbers are sent as typed: text that is a whole number becomes one, anything else
stays text, so the content rules refuse it in their own words ("expected an integer, got the
text 'ten'"). The fields a form does not edit (a creature's ``stats``, ``max_health``, an
action's ``kind``) travel in a hidden JSON field beside the ones it does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import orjson
import yaml

from caltrop.content.bundled import bundled_rulesets
from caltrop.content.loader import load_encounter_text
from caltrop.core.model import EncounterDef
from caltrop.errors import ContentError, ContentFileError

#: the creature fields the form edits (the rest ride in ``participants[i].rest``); its
#: ``stats`` too, one field each (``participants[i].stats.ap``)
CREATURE_FIELDS: Final = ("id", "name", "side", "health", "evasion", "load_buffer")
#: a weapon's and an action's fields the form edits; a weapon's Action Point numbers (its AP,
#: R38, R44; a ranged one's close and far ranges, R39) where it has them
WEAPON_FIELDS: Final = ("name", "dice", "kind", "ap", "close", "far")
#: the fields of a row that are always shown (the others only where the row has them)
SHOWN_ALWAYS: Final = frozenset({"name", "dice", "kind", "aspect", "cost"})
ACTION_FIELDS: Final = ("name", "aspect", "cost")
#: the fields that are whole numbers (text otherwise, as typed)
NUMBER_FIELDS: Final = frozenset(
    {"health", "evasion", "load_buffer", "cost", "value", "ap", "close", "far"}
)
#: the slot of a problem that names no field the form shows
FORM_SLOT: Final = "form"
#: the name of the YAML file an export is offered as, and of the text the loader reads
EXPORT_NAME: Final = "encounter.yaml"
#: a whole number as a form may send it (at most 18 digits: the content's bounds say the rest)
_WHOLE: Final = re.compile(r"-?[0-9]{1,18}")
#: a field path's last part: ``.name`` or ``[3]``
_LAST_PART: Final = re.compile(r"(\.[^.\[\]]*|\[[0-9]+\])$")


def default_ruleset(ruleset: Mapping[str, Any] | str) -> str:
    """The bundled ruleset a draft names: a saved encounter's ruleset by its name when that is
    a bundled one, else the bundled ruleset of its module."""
    names = bundled_rulesets()
    if isinstance(ruleset, str):
        return ruleset
    name = str(ruleset.get("name", ""))
    if name in names:
        return name
    return "action-points" if ruleset.get("economy") == "action_points" else "current"


def blank_draft() -> dict[str, Any]:
    """A draft with no creature yet (the content rules ask for at least one)."""
    return {"name": "New encounter", "description": "", "ruleset": "current", "participants": []}


def draft_of(definition: Mapping[str, Any]) -> dict[str, Any]:
    """The draft of a saved encounter definition (the library's, ``encounter_to_dict``)."""
    return {
        "name": definition.get("name", ""),
        "description": definition.get("description", ""),
        "ruleset": default_ruleset(definition.get("ruleset", "current")),
        "participants": [plain(c) for c in definition.get("participants", ())],
    }


def plain(creature: Mapping[str, Any]) -> dict[str, Any]:
    """A saved stat block as a draft holds it: ``max_health`` left out where it is the Health
    (its default), so that editing the Health does not leave a maximum below it."""
    out = dict(creature)
    if out.get("max_health") == out.get("health"):
        out.pop("max_health", None)
    return out


def _number(text: str) -> int | str:
    stripped = text.strip()
    return int(stripped) if _WHOLE.fullmatch(stripped) else text


def _value(name: str, text: str) -> Any:
    return _number(text) if name in NUMBER_FIELDS else text


def _rest(fields: Mapping[str, Sequence[str]], key: str) -> dict[str, Any]:
    """The hidden JSON of the fields the form does not edit ({} when absent or unreadable: the
    content rules then ask for what is missing)."""
    raw = (fields.get(key) or [""])[0]
    if not raw:
        return {}
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _one(fields: Mapping[str, Sequence[str]], key: str) -> str | None:
    values = fields.get(key)
    return values[0] if values else None


def _rows(fields: Mapping[str, Sequence[str]], prefix: str) -> list[int]:
    """The row numbers ``k`` of ``{prefix}[k].…`` fields present, in order."""
    found: set[int] = set()
    pattern = re.compile(re.escape(prefix) + r"\[([0-9]{1,4})\]\.")
    for key in fields:
        match = pattern.match(key)
        if match:
            found.add(int(match.group(1)))
    return sorted(found)


def draft_from_form(fields: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """The draft a submitted builder form says (its fields by the content's field paths)."""
    draft: dict[str, Any] = {
        "name": _one(fields, "name") or "",
        "description": _one(fields, "description") or "",
        "ruleset": _one(fields, "ruleset") or "current",
        "participants": [],
    }
    for i in _rows(fields, "participants"):
        p = f"participants[{i}]"
        creature: dict[str, Any] = _rest(fields, f"{p}.rest")
        for name in CREATURE_FIELDS:
            text = _one(fields, f"{p}.{name}")
            if text is not None:
                creature[name] = _value(name, text)
        aspects: dict[str, Any] = {}
        for k in _rows(fields, f"{p}.aspects"):
            name = (_one(fields, f"{p}.aspects[{k}].name") or "").strip()
            aspects[name] = _number(_one(fields, f"{p}.aspects[{k}].value") or "")
        creature["aspects"] = aspects
        stats = re.compile(re.escape(f"{p}.stats.") + r"([^.\[\]]{1,40})$")
        for key, values in fields.items():
            match = stats.match(key)
            if match and values:  # the Action Point stat block (seed 004), shown when it has one
                creature.setdefault("stats", {})[match.group(1)] = _number(values[0])
        for group, names in (("weapons", WEAPON_FIELDS), ("actions", ACTION_FIELDS)):
            items = []
            for k in _rows(fields, f"{p}.{group}"):
                item = _rest(fields, f"{p}.{group}[{k}].rest")
                for name in names:
                    text = _one(fields, f"{p}.{group}[{k}].{name}")
                    if text is not None:
                        item[name] = _value(name, text)
                items.append(item)
            creature[group] = items
        draft["participants"].append(creature)
    return draft


def document(draft: Mapping[str, Any]) -> dict[str, Any]:
    """The ``kind: encounter`` document of a draft: every creature inline."""
    out: dict[str, Any] = {"kind": "encounter", "name": draft.get("name", "")}
    if draft.get("description"):
        out["description"] = draft["description"]
    out["ruleset"] = draft.get("ruleset", "current")
    out["participants"] = list(draft.get("participants", ()))
    return out


def yaml_text(draft: Mapping[str, Any]) -> str:
    """The draft as an encounter file ``caltrop validate`` reads (and ``caltrop sim`` plays)."""
    head = (
        "# Made with the Caltrop encounter builder (caltrop serve). Check it with:\n"
        "#   caltrop validate FILE\n"
    )
    body = yaml.safe_dump(document(draft), sort_keys=False, allow_unicode=True, width=100)
    return head + body


@dataclass(frozen=True, slots=True)
class Checked:
    """A draft as the content rules read it: its definition when it has no problem, else each
    problem's message by the form slot it belongs to."""

    definition: EncounterDef | None
    problems: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.definition is not None


def check(draft: Mapping[str, Any]) -> Checked:
    """The content rules' verdict on ``draft`` (:func:`load_encounter_text`, as ``caltrop
    validate`` reads a file), its problems at the form's fields."""
    try:
        definition = load_encounter_text(yaml_text(draft), EXPORT_NAME)
    except ContentFileError as exc:
        found: dict[str, list[str]] = {}
        for problem in exc.problems:
            slot = slot_of(problem.field, draft)
            path = problem.field.removeprefix("encounter.")
            # a field the form shows no input for is named in the message (max_health: …)
            inner = path[len(slot) :].lstrip(".") if path.startswith(slot) else ""
            said = f"{inner}: {problem.message}" if inner else problem.message
            found.setdefault(slot, []).append(said)
        return Checked(None, found)
    except ContentError as exc:
        return Checked(None, {FORM_SLOT: [str(exc)]})
    return Checked(definition)


def slots(draft: Mapping[str, Any]) -> set[str]:
    """Every field and group of the form of ``draft`` a problem may be shown at."""
    out = {FORM_SLOT, "name", "description", "ruleset", "participants"}
    for i, creature in enumerate(draft.get("participants", ()), start=1):
        p = f"participants[{i}]"
        out |= {p, f"{p}.aspects", f"{p}.weapons", f"{p}.actions"}
        out |= {f"{p}.{name}" for name in CREATURE_FIELDS}
        stats = creature.get("stats")
        if isinstance(stats, Mapping) and stats:  # as the form shows them: only when some
            out |= {f"{p}.stats"} | {f"{p}.stats.{name}" for name in stats}
        for k, _ in enumerate(_aspects(creature), start=1):
            out.add(f"{p}.aspects[{k}]")
        for group, names in (("weapons", WEAPON_FIELDS), ("actions", ACTION_FIELDS)):
            for k, item in enumerate(creature.get(group) or (), start=1):
                out.add(f"{p}.{group}[{k}]")
                shown = [n for n in names if n in SHOWN_ALWAYS or _has(item, n)]
                out |= {f"{p}.{group}[{k}].{name}" for name in shown}
    return out


def _has(item: Any, name: str) -> bool:
    return isinstance(item, Mapping) and item.get(name) is not None


def _aspects(creature: Mapping[str, Any]) -> list[str]:
    aspects = creature.get("aspects")
    return [str(name) for name in aspects] if isinstance(aspects, Mapping) else []


def slot_of(path: str, draft: Mapping[str, Any]) -> str:
    """The form slot of a problem's field path: the field itself; an Aspect's row (its name
    and value: ``participants[1].aspects.Might`` → the row named Might); else the nearest enclosing slot
    (a field the form does not show belongs to its creature)."""
    known = slots(draft)
    path = path.removeprefix("encounter.")  # the loader names an encounter file's fields so
    match = re.fullmatch(r"(participants\[([0-9]+)\])\.aspects\.(.*)", path)
    if match:
        index = int(match.group(2)) - 1
        creatures = draft.get("participants", ())
        if 0 <= index < len(creatures):
            names = _aspects(creatures[index])
            if match.group(3) in names:
                return f"{match.group(1)}.aspects[{names.index(match.group(3)) + 1}]"
    while path:
        if path in known:
            return path
        shorter = _LAST_PART.sub("", path)
        if shorter == path:
            break
        path = shorter
    return FORM_SLOT


def slot_id(slot: str) -> str:
    """The HTML id of a slot's error element (letters, digits and dashes)."""
    return "err-" + re.sub(r"[^A-Za-z0-9]+", "-", slot).strip("-")


def rest_json(value: Mapping[str, Any], shown: Sequence[str]) -> str:
    """The hidden JSON of ``value``'s fields that the form does not show."""
    return orjson.dumps({k: v for k, v in value.items() if k not in shown}).decode()


def free_id(wanted: str, taken: set[str]) -> str:
    """``wanted``, or ``wanted-2``, ``wanted-3`` … the first not among ``taken``."""
    if wanted not in taken:
        return wanted
    base = re.sub(r"-[0-9]+$", "", wanted) or "creature"
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"
