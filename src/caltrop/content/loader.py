"""Load content files into the engine's plain model, with errors that name file, line and field.

Loading has three steps: the YAML is composed with the safe loader (keeping each node's line),
validated by the pydantic schemas (:mod:`caltrop.content.schema`), then resolved: includes are
read, names of actions, weapons and creatures are looked up, and the checks that need more than
one field or file are made. Every problem found in a step is reported together, one per line.

Relative paths (``include``, ``creature: ../monsters/goblin.yaml``, ``ruleset: my-rules.yaml``)
are relative to the file that names them. A creature file may ``include`` its own action and
weapon libraries; names it does not find there are looked up in the including encounter's
libraries.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Generic, TypeAlias, TypeVar

import yaml
from pydantic import TypeAdapter, ValidationError

from caltrop.content import limits
from caltrop.content.bundled import (
    BUNDLED_PREFIX,
    ENCOUNTERS_DIR,
    EXAMPLES_LABEL,
    RULESETS_DIR,
    bundled_file_source,
    bundled_name_source,
    bundled_rulesets,
    examples_root,
)
from caltrop.content.catalogue import unknown_bundled
from caltrop.content.limits import range_text, within
from caltrop.content.paths import MISSING, path_problem
from caltrop.content.problems import (
    ContentFileError,
    Loc,
    Problem,
    field_prefix,
    locate,
    node_line,
    validation_problems,
)
from caltrop.content.schema import (
    DOCUMENT_KINDS,
    DOCUMENT_MODELS,
    ActionOverride,
    ActionsDocument,
    ActionSpec,
    CreatureDocument,
    CreatureSpec,
    Document,
    EncounterDocument,
    ParticipantEntry,
    ParticipantRef,
    ParticipantSpec,
    RulesetDocument,
    RulesetEntry,
    RulesetSpec,
    SavedEncounter,
    WeaponsDocument,
    WeaponSpec,
)
from caltrop.content.source import (
    PathSource,
    ResourceSource,
    Source,
    TextSource,
    UploadSource,
    parse_yaml,
)
from caltrop.core.model import (
    ActionDef,
    ActionKind,
    CreatureDef,
    Economy,
    EncounterDef,
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
from caltrop.economy.points.state import STAT_DEFAULTS
from caltrop.economy.pools import creature_pool_problems, pool_problems
from caltrop.errors import ContentError

#: What the public loaders accept: a path on disk, or a bundled resource (``Traversable``).
ContentPath: TypeAlias = str | os.PathLike[str] | Traversable

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class _Doc:
    """A validated document with the YAML nodes its errors are located in."""

    source: Source
    node: yaml.Node | None  # None: a dict that never was YAML (a log's saved definition)
    model: Document | SavedEncounter

    @property
    def kind(self) -> str:
        return self.model.kind

    def at(self, loc: Loc, message: str) -> Problem:
        line, path = locate(self.node, loc, field_prefix(self.kind, loc))
        return Problem(self.source.name, line, path, message)

    def where(self, loc: Loc) -> str:
        return f"{self.source.name}:{locate(self.node, loc)[0]}"


@dataclass(frozen=True, slots=True)
class _Found(Generic[T]):
    value: T
    doc: _Doc
    loc: Loc


@dataclass(slots=True)
class _Library:
    """Actions, weapons and creatures from included files; a miss falls back to ``parent``."""

    parent: _Library | None = None
    actions: dict[str, _Found[ActionSpec]] = field(default_factory=dict)
    weapons: dict[str, _Found[WeaponSpec]] = field(default_factory=dict)
    creatures: dict[str, _Found[CreatureSpec]] = field(default_factory=dict)

    def action(self, name: str) -> _Found[ActionSpec] | None:
        found = self.actions.get(name)
        if found is None and self.parent is not None:
            return self.parent.action(name)
        return found

    def weapon(self, name: str) -> _Found[WeaponSpec] | None:
        found = self.weapons.get(name)
        if found is None and self.parent is not None:
            return self.parent.weapon(name)
        return found

    def action_names(self) -> list[str]:
        names = set(self.actions)
        if self.parent is not None:
            names.update(self.parent.action_names())
        return sorted(names)

    def weapon_names(self) -> list[str]:
        names = set(self.weapons)
        if self.parent is not None:
            names.update(self.parent.weapon_names())
        return sorted(names)


def _known(names: Iterable[str], what: str) -> str:
    listed = sorted(names)
    if not listed:
        return f"no {what} are defined: include a file that defines them"
    shown = ", ".join(listed[:15]) + (", …" if len(listed) > 15 else "")
    return f"known: {shown}"


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _did_you_mean(name: str, names: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(names), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


#: Action Point stats (seed 004) that cannot be negative; ``gifted_perception`` is 0 or 1.
NON_NEGATIVE_STATS: tuple[str, ...] = (
    "ap",
    "rp",
    "stamina",
    "resistance",
    "block_rating",
    "dodge_rating",
    "travel_speed",
    "weight",
)


#: Action Point stats bounded like the GM's ``gm: set ID ap|rp|stamina N`` (R48).
POINTS_STATS: tuple[str, ...] = ("ap", "rp", "stamina")


def _looks_like_file(reference: str) -> bool:
    """A file reference (``../monsters/goblin.yaml``, ``caltrop:monsters/goblin``), not a name."""
    return (
        reference.startswith(BUNDLED_PREFIX)
        or reference.endswith((".yaml", ".yml"))
        or "/" in reference
        or "\\" in reference
    )


@dataclass(slots=True)
class _Reserves:
    """The creatures an encounter file includes or makes its participants from, each once under
    its own id (R48: ``gm: add goblin``); the first creature with an id keeps it."""

    by_id: dict[str, CreatureDef] = field(default_factory=dict)
    sources: set[str] = field(default_factory=set)

    def __contains__(self, creature_id: str) -> bool:
        return creature_id in self.by_id

    def add(self, doc: _Doc | None, creature: CreatureDef | None) -> None:
        if doc is not None:
            self.sources.add(doc.source.key)
        if creature is not None and creature.id not in self.by_id:
            self.by_id[creature.id] = creature

    def creatures(self) -> tuple[CreatureDef, ...]:
        return tuple(self.by_id.values())


class _Loader:
    """One loading session: caches documents by file and collects problems."""

    def __init__(self) -> None:
        self._docs: dict[str, _Doc] = {}
        self._checked: set[str] = set()
        self.problems: list[Problem] = []
        # The economy of the encounter being resolved (None outside an encounter): the Action
        # Point module checks stat names and weapon ranges of its participants.
        self.economy: Economy | None = None
        self.encounter_name = ""

    # -- documents -----------------------------------------------------------------------------

    def document(self, source: Source) -> _Doc:
        """Parse and validate ``source`` (cached); raises ContentFileError if it is malformed."""
        cached = self._docs.get(source.key)
        if cached is not None:
            return cached
        node, data = parse_yaml(source)
        if not isinstance(data, dict):
            got = "a list" if isinstance(data, list) else repr(data)
            raise ContentFileError(
                [
                    Problem(
                        source.name,
                        node_line(node),
                        "",
                        f"expected a mapping with 'kind: …' at the top, got {got}",
                    )
                ]
            )
        kind = data.get("kind")
        kinds = ", ".join(DOCUMENT_KINDS)
        if kind is None:
            raise ContentFileError(
                [
                    Problem(
                        source.name,
                        node_line(node),
                        "kind",
                        f"required field is missing; expected one of: {kinds}",
                    )
                ]
            )
        if not isinstance(kind, str) or kind not in DOCUMENT_MODELS:
            line, _ = locate(node, ("kind",))
            raise ContentFileError(
                [Problem(source.name, line, "kind", f"expected one of: {kinds}, got {kind!r}")]
            )
        model_type = DOCUMENT_MODELS[kind]
        try:
            model = model_type.model_validate(data)
        except ValidationError as exc:
            raise ContentFileError(
                validation_problems(exc, model_type, node, source.name, kind)
            ) from None
        doc = _Doc(source, node, model)
        self._docs[source.key] = doc
        return doc

    def try_document(self, source: Source) -> _Doc | None:
        try:
            return self.document(source)
        except ContentFileError as exc:
            self.problems.extend(exc.problems)
            return None

    def raise_problems(self) -> None:
        if self.problems:
            unique = list(dict.fromkeys(self.problems))
            raise ContentFileError(unique)

    def follow(self, doc: _Doc, reference: str, loc: Loc, kinds: Sequence[str]) -> _Doc | None:
        """The document at ``reference`` (relative to ``doc``, or a bundled file by its name:
        ``caltrop:monsters/goblin``), which must be of one of ``kinds``."""
        target: Source | None
        if reference.startswith(BUNDLED_PREFIX):
            target = bundled_name_source(reference)
            if target is None:
                self.problems.append(doc.at(loc, unknown_bundled(reference, kinds)))
                return None
        else:
            target = doc.source.resolve(reference)
        if target is None:
            self.problems.append(
                doc.at(loc, f"cannot follow the relative path {reference!r} from {doc.source.name}")
            )
            return None
        if not target.exists():
            why = path_problem(target.path) if isinstance(target, PathSource) else None
            said = (
                f"no such file {reference!r}" if why in (None, MISSING) else f"{reference!r} {why}"
            )
            self.problems.append(doc.at(loc, f"{said} (looked for {target.name})"))
            return None
        other = self.try_document(target)
        if other is None:
            return None
        if other.kind not in kinds:
            self.problems.append(
                doc.at(
                    loc,
                    f"{reference!r} is {_article(other.kind)} {other.kind} file; expected "
                    f"{_article(kinds[0])} {' or '.join(kinds)} file",
                )
            )
            return None
        return other

    # -- libraries ------------------------------------------------------------------------------

    def library(
        self, doc: _Doc, includes: Sequence[str], kinds: Sequence[str], parent: _Library | None
    ) -> _Library:
        lib = _Library(parent)
        seen: set[str] = set()
        for i, reference in enumerate(includes):
            other = self.follow(doc, reference, ("include", i), kinds)
            if other is None or other.source.key in seen:
                continue
            seen.add(other.source.key)
            model = other.model
            if isinstance(model, ActionsDocument):
                self.check_actions_document(other)
                for j, action in enumerate(model.actions):
                    self._add(
                        lib.actions, action.name, _Found(action, other, ("actions", j)), "action"
                    )
            elif isinstance(model, WeaponsDocument):
                self.check_weapons_document(other)
                for j, weapon in enumerate(model.weapons):
                    self._add(
                        lib.weapons, weapon.name, _Found(weapon, other, ("weapons", j)), "weapon"
                    )
            elif isinstance(model, CreatureDocument):
                entry: _Found[CreatureSpec] = _Found(model, other, ())
                self._add(lib.creatures, model.id, entry, "creature")
        return lib

    def _add(self, table: dict[str, _Found[T]], name: str, found: _Found[T], what: str) -> None:
        previous = table.get(name)
        if previous is None:
            table[name] = found
            return
        loc = (*found.loc, "id") if what == "creature" else (*found.loc, "name")
        self.problems.append(
            found.doc.at(
                loc,
                f"{what} {name!r} is defined twice (also at {previous.doc.where(previous.loc)})",
            )
        )

    # -- rulesets ------------------------------------------------------------------------------

    def ruleset(self, spec: RulesetSpec, doc: _Doc, loc: Loc, name: str | None = None) -> Ruleset:
        if spec.initiative == "check" and spec.initiative_aspect is None:
            self.problems.append(
                doc.at(
                    (*loc, "initiative"),
                    "initiative: check needs initiative_aspect (the Aspect everyone rolls)",
                )
            )
        return Ruleset(
            name=name or spec.name,
            economy=Economy(spec.economy),
            revision=Revision(spec.revision),
            load_reset=LoadReset(spec.load_reset),
            initiative=Initiative(spec.initiative),
            initiative_aspect=spec.initiative_aspect,
            gm_roll_counts_load=spec.gm_roll_counts_load,
            off_turn_actions=OffTurn(spec.off_turn_actions),
            multi_weapon_halving=Halving(spec.multi_weapon_halving),
            min_spacing=spec.min_spacing,
            conditions=tuple(dict.fromkeys(spec.conditions)),
        )

    def ruleset_document(self, doc: _Doc) -> Ruleset:
        model = doc.model
        assert isinstance(model, RulesetDocument)
        name = model.name if "name" in model.model_fields_set else doc.source.stem
        return self.ruleset(model, doc, (), name)

    def ruleset_entry(self, entry: str | RulesetSpec, doc: _Doc, loc: Loc) -> Ruleset | None:
        if isinstance(entry, RulesetSpec):
            return self.ruleset(entry, doc, loc)
        if _looks_like_file(entry):
            other = self.follow(doc, entry, loc, ("ruleset",))
            return None if other is None else self.ruleset_document(other)
        source = bundled_file_source(entry, RULESETS_DIR)
        if source is None:
            known = ", ".join(bundled_rulesets())
            self.problems.append(
                doc.at(
                    loc,
                    f"no bundled ruleset {entry!r} (known: {known}); "
                    "or give a file such as my-rules.yaml, or a mapping",
                )
            )
            return None
        other = self.try_document(source)
        return None if other is None else self.ruleset_document(other)

    # -- actions and weapons -------------------------------------------------------------------

    def check_actions_document(self, doc: _Doc) -> None:
        if doc.source.key in self._checked:
            return
        self._checked.add(doc.source.key)
        model = doc.model
        assert isinstance(model, ActionsDocument)
        seen: dict[str, int] = {}
        for j, action in enumerate(model.actions):
            self.check_action(action, doc, ("actions", j))
            if action.name in seen:
                self.problems.append(
                    doc.at(
                        ("actions", j, "name"),
                        f"action {action.name!r} is defined twice (also actions[{seen[action.name] + 1}])",
                    )
                )
            else:
                seen[action.name] = j

    def check_action(self, spec: ActionSpec, doc: _Doc, loc: Loc) -> bool:
        """The rules between an action's fields (R15, R16); records problems, True if none."""
        before = len(self.problems)

        def problem(name: str, message: str) -> None:
            self.problems.append(doc.at((*loc, name), message))

        rolls = spec.kind in ("attack", "check")
        if spec.kind == "team":
            if spec.grant is None:
                problem(
                    "grant",
                    "a team action needs a grant, like {kind: adv, to: ally} or {kind: dis, to: enemy} (R15)",
                )
            if spec.reaction is False:
                problem(
                    "reaction",
                    "a team action is always taken on another creature's roll (R15); "
                    "remove 'reaction: false'",
                )
        elif spec.grant is not None and rolls:
            problem(
                "grant",
                f"only team and effect actions grant advantage; {spec.name!r} is an {spec.kind} action",
            )
        if spec.dc is not None and spec.kind != "check":
            problem("dc", f"only check actions have a DC; {spec.name!r} is a {spec.kind} action")
        if spec.weapon_kind is not None and not spec.uses_weapon:
            problem("weapon_kind", "weapon_kind needs 'uses_weapon: true'")
        if spec.uses_weapon and spec.kind != "attack":
            problem(
                "uses_weapon",
                f"only attack actions use a weapon; {spec.name!r} is a {spec.kind} action",
            )
        if not rolls:
            for name, value in (("extra", spec.extra), ("fixed_pool", spec.fixed_pool)):
                if value is not None:
                    problem(name, f"a {spec.kind} action makes no roll, so it takes no {name}")
        return len(self.problems) == before

    @staticmethod
    def action_def(spec: ActionSpec) -> ActionDef:
        kind = ActionKind(spec.kind)
        grant = None
        if spec.grant is not None:
            grant = Grant("adv" if spec.grant.kind == "adv" else "dis", spec.grant.to)
        return ActionDef(
            name=spec.name,
            aspect=spec.aspect,
            cost=spec.cost,
            kind=kind,
            dc=spec.dc,
            extra=parse_dice(spec.extra) if spec.extra is not None else None,
            uses_weapon=spec.uses_weapon,
            weapon_kind=WeaponKind(spec.weapon_kind) if spec.weapon_kind else None,
            reaction=True if kind is ActionKind.TEAM else bool(spec.reaction),
            fixed_pool=spec.fixed_pool,
            grant=grant,
            source=spec.source,
            description=spec.description.strip(),
        )

    @staticmethod
    def weapon_def(spec: WeaponSpec) -> Weapon:
        return Weapon(
            spec.name,
            parse_dice(spec.dice),
            WeaponKind(spec.kind),
            ap=spec.ap,
            close=spec.close,
            far=spec.far,
        )

    def check_weapon(self, spec: WeaponSpec, doc: _Doc, loc: Loc) -> bool:
        """The rules between a weapon's fields (R39 ranges); records problems, True if none."""
        before = len(self.problems)
        given = [n for n in ("close", "far") if getattr(spec, n) is not None]
        if given and spec.kind != "ranged":
            self.problems.append(
                doc.at(
                    (*loc, given[0]),
                    f"only ranged weapons have close and far ranges; {spec.name!r} is a "
                    f"{spec.kind} weapon (add 'kind: ranged', or remove the ranges)",
                )
            )
        elif len(given) == 1:
            missing = "far" if given == ["close"] else "close"
            self.problems.append(
                doc.at(
                    (*loc, given[0]),
                    f"a ranged weapon gives both close and far ranges in meters (R39); "
                    f"{spec.name!r} has no {missing}",
                )
            )
        elif spec.close is not None and spec.far is not None and spec.close > spec.far:
            self.problems.append(
                doc.at(
                    (*loc, "far"),
                    f"expected far ≥ close ({spec.close} m), got {spec.far}: the far range "
                    "reaches past the close range (R39)",
                )
            )
        return len(self.problems) == before

    def check_weapons_document(self, doc: _Doc) -> None:
        if doc.source.key in self._checked:
            return
        self._checked.add(doc.source.key)
        model = doc.model
        assert isinstance(model, WeaponsDocument)
        for j, weapon in enumerate(model.weapons):
            self.check_weapon(weapon, doc, ("weapons", j))

    def check_points_weapon(self, weapon: Weapon, owner: str, doc: _Doc, loc: Loc) -> None:
        """In an Action Point encounter a ranged weapon needs its ranges (R39)."""
        if self.economy is not Economy.ACTION_POINTS or weapon.kind is not WeaponKind.RANGED:
            return
        if weapon.close is None or weapon.far is None:
            field_name = "close" if weapon.close is None else "far"
            self.problems.append(
                doc.at(
                    (*loc, field_name),
                    f"ranged weapon {weapon.name!r} (of {owner}) needs close and far ranges in "
                    f"meters in the Action Point module (R39), like {{close: 10, far: 30}}; "
                    f"encounter {self.encounter_name!r} uses economy: action_points",
                )
            )

    # -- creatures -----------------------------------------------------------------------------

    def creature(
        self,
        spec: CreatureSpec,
        doc: _Doc,
        loc: Loc,
        lib: _Library,
        *,
        new_id: str | None = None,
        new_name: str | None = None,
        position: tuple[int, int] | None = None,
    ) -> CreatureDef | None:
        before = len(self.problems)
        if spec.max_health is not None and spec.max_health < spec.health:
            self.problems.append(
                doc.at(
                    (*loc, "max_health"),
                    f"expected at least health ({spec.health}), got {spec.max_health}",
                )
            )
        weapons = self._weapons(spec, doc, loc, lib)
        actions = self._actions(spec, doc, loc, lib, weapons)
        equipped = self._equipped(spec, doc, loc, weapons)
        if self.economy is Economy.ACTION_POINTS:
            self._check_points_stats(spec, doc, loc)
        if len(self.problems) > before:
            return None
        stats = dict(spec.stats)
        if position is not None:
            stats["x"], stats["y"] = position
        return CreatureDef(
            id=new_id or spec.id,
            name=new_name or spec.name,
            side=Side(spec.side),
            aspects=dict(spec.aspects),
            health=spec.health,
            evasion=spec.evasion,
            load_buffer=spec.load_buffer,
            exhaustion=spec.exhaustion,
            max_health=spec.max_health,
            actions=tuple(actions),
            weapons=tuple(weapons),
            stats=stats,
            equipped=equipped,
        )

    def _equipped(
        self, spec: CreatureSpec, doc: _Doc, loc: Loc, weapons: list[Weapon]
    ) -> tuple[str, ...] | None:
        """``equipped:`` names weapons of the creature, each once (seed 004, R44)."""
        if spec.equipped is None:
            return None
        names = [w.name for w in weapons]
        seen: set[str] = set()
        for j, name in enumerate(spec.equipped):
            eloc: Loc = (*loc, "equipped", j)
            if name in seen:
                self.problems.append(doc.at(eloc, f"{name!r} is listed twice"))
            elif name not in names:
                has = ", ".join(names) or "none"
                self.problems.append(
                    doc.at(
                        eloc,
                        f"equipped weapon {name!r} is not one of {spec.id}'s weapons"
                        f"{_did_you_mean(name, names)} (has: {has})",
                    )
                )
            seen.add(name)
        return tuple(spec.equipped)

    def _check_points_stats(self, spec: CreatureSpec, doc: _Doc, loc: Loc) -> None:
        """An Action Point stat block: known stat names (with a "did you mean"), sane values."""
        known = ", ".join(STAT_DEFAULTS)
        for name, value in spec.stats.items():
            sloc: Loc = (*loc, "stats", name)
            if name not in STAT_DEFAULTS:
                self.problems.append(
                    doc.at(
                        sloc,
                        f"unknown stat {name!r} in the Action Point module"
                        f"{_did_you_mean(name, STAT_DEFAULTS)}; known: {known}",
                    )
                )
            elif name in POINTS_STATS and not within(value, limits.POINTS_STAT):
                self.problems.append(
                    doc.at(
                        sloc,
                        f"expected a number {range_text(limits.POINTS_STAT)}, got {value} "
                        "(a content limit, as for gm: set ID ap|rp|stamina N, R48)",
                    )
                )
            elif name in NON_NEGATIVE_STATS and value < 0:
                self.problems.append(doc.at(sloc, f"expected a number ≥ 0, got {value}"))
            elif name == "gifted_perception" and value not in (0, 1):
                self.problems.append(
                    doc.at(sloc, f"expected 1 (gifted in Perception, R41) or 0, got {value}")
                )

    def _weapons(self, spec: CreatureSpec, doc: _Doc, loc: Loc, lib: _Library) -> list[Weapon]:
        weapons: list[Weapon] = []
        for j, entry in enumerate(spec.weapons):
            wloc = (*loc, "weapons", j)
            if isinstance(entry, str):
                found = lib.weapon(entry)
                if found is None:
                    self.problems.append(
                        doc.at(
                            wloc,
                            f"no weapon {entry!r} ({_known(lib.weapon_names(), 'weapons')})",
                        )
                    )
                    continue
                if found.doc.kind == "weapons":
                    self.check_weapons_document(found.doc)
                if not self.check_weapon(found.value, found.doc, found.loc):
                    continue
                weapon = self.weapon_def(found.value)
                self.check_points_weapon(weapon, spec.id, found.doc, found.loc)
            else:
                if not self.check_weapon(entry, doc, wloc):
                    continue
                weapon = self.weapon_def(entry)
                self.check_points_weapon(weapon, spec.id, doc, wloc)
            if any(w.name == weapon.name for w in weapons):
                self.problems.append(
                    doc.at(wloc, f"{spec.id} has two weapons named {weapon.name!r}")
                )
                continue
            weapons.append(weapon)
        return weapons

    def _actions(
        self, spec: CreatureSpec, doc: _Doc, loc: Loc, lib: _Library, weapons: list[Weapon]
    ) -> list[ActionDef]:
        actions: list[ActionDef] = []
        for j, entry in enumerate(spec.actions):
            aloc: Loc = (*loc, "actions", j)
            resolved = self._action_entry(entry, doc, aloc, lib)
            if resolved is None:
                continue
            action = resolved
            if action.aspect not in spec.aspects:
                has = ", ".join(spec.aspects)
                self.problems.append(
                    doc.at(
                        aloc if isinstance(entry, str) else (*aloc, "aspect"),
                        f"action {action.name!r} rolls the Aspect {action.aspect!r}, "
                        f"which {spec.id} does not have (has: {has})",
                    )
                )
                continue
            if action.uses_weapon and not weapons:
                self.problems.append(
                    doc.at(
                        aloc, f"action {action.name!r} uses a weapon, but {spec.id} has no weapons"
                    )
                )
                continue
            if any(a.name == action.name for a in actions):
                self.problems.append(
                    doc.at(aloc, f"{spec.id} has two actions named {action.name!r}")
                )
                continue
            actions.append(action)
        return actions

    def _action_entry(
        self, entry: str | ActionOverride | ActionSpec, doc: _Doc, loc: Loc, lib: _Library
    ) -> ActionDef | None:
        if isinstance(entry, ActionSpec):
            return self.action_def(entry) if self.check_action(entry, doc, loc) else None
        name = entry if isinstance(entry, str) else entry.use
        found = lib.action(name)
        if found is None:
            where = loc if isinstance(entry, str) else (*loc, "use")
            self.problems.append(
                doc.at(where, f"no action {name!r} ({_known(lib.action_names(), 'actions')})")
            )
            return None
        if isinstance(entry, str):
            if found.doc.kind == "actions":
                self.check_actions_document(found.doc)
                if not self.check_action(found.value, found.doc, found.loc):
                    return None
            return self.action_def(found.value)
        changes = entry.model_dump(exclude={"use"}, exclude_unset=True)
        # The override's fields passed the same validators as an ActionSpec's.
        merged = found.value.model_copy(update=changes)
        if not self.check_action(merged, doc, loc):
            return None
        return self.action_def(merged)

    def creature_document(self, doc: _Doc, parent: _Library | None) -> CreatureDef | None:
        model = doc.model
        assert isinstance(model, CreatureDocument)
        lib = self.library(doc, model.include, ("actions", "weapons"), parent)
        creature = self.creature(model, doc, (), lib)
        if creature is not None:  # issue 21 item 4: a pool past the dice limits in any encounter
            for problem in creature_pool_problems(creature):
                self.problems.append(doc.at(("actions",), problem.message))
        return creature

    # -- encounters ----------------------------------------------------------------------------

    def encounter(self, doc: _Doc) -> EncounterDef:
        model = doc.model
        assert isinstance(model, EncounterDocument)
        ruleset = self.ruleset_entry(model.ruleset, doc, ("ruleset",))
        self.economy = None if ruleset is None else ruleset.economy
        self.encounter_name = model.name
        lib = self.library(doc, model.include, ("actions", "weapons", "creature"), None)
        reserves = _Reserves()
        for found in lib.creatures.values():
            reserves.add(found.doc, self._from_creature_file(found.doc, lib))
        participants: list[CreatureDef] = []
        first_at: dict[str, int] = {}
        for i, entry in enumerate(model.participants):
            loc: Loc = ("participants", i)
            creature = self._participant(entry, doc, loc, lib, reserves)
            if creature is None:
                continue
            if creature.id in first_at:
                self.problems.append(
                    doc.at(
                        loc,
                        f"participant {i + 1}: duplicate id {creature.id!r} (participant "
                        f"{first_at[creature.id] + 1} has it too); give one its own id, "
                        f"like {{creature: {creature.id}, id: {creature.id}-2}}",
                    )
                )
                continue
            first_at[creature.id] = i
            participants.append(creature)
        self.check_initiative(ruleset, participants, first_at, doc)
        if ruleset is not None:
            self.check_pools(ruleset, participants, reserves.creatures(), first_at, doc)
        self.raise_problems()
        assert ruleset is not None
        return EncounterDef(
            name=model.name,
            ruleset=ruleset,
            participants=tuple(participants),
            description=model.description.strip(),
            reserves=reserves.creatures(),
        )

    def check_pools(
        self,
        ruleset: Ruleset,
        participants: Sequence[CreatureDef],
        reserves: Sequence[CreatureDef],
        first_at: dict[str, int],
        doc: _Doc,
    ) -> None:
        """Every action's largest pool within the dice limits (:mod:`caltrop.economy.pools`),
        so that play never meets a roll it cannot make (issue 21)."""
        for problem in pool_problems(ruleset, (*participants, *reserves)):
            at = first_at.get(problem.creature)
            loc: Loc = ("participants", at) if at is not None else ("include",)
            self.problems.append(doc.at(loc, f"{problem.creature}: {problem.message}"))

    def check_initiative(
        self,
        ruleset: Ruleset | None,
        participants: Sequence[CreatureDef],
        first_at: dict[str, int],
        doc: _Doc,
    ) -> None:
        """With ``initiative: check`` every participant has the Aspect it rolls (R21, R30)."""
        if ruleset is None or ruleset.initiative is not Initiative.CHECK:
            return
        aspect = ruleset.initiative_aspect
        for creature in participants:
            i = first_at[creature.id]
            if aspect is not None and aspect not in creature.aspects:
                self.problems.append(
                    doc.at(
                        ("participants", i),
                        f"participant {i + 1}: {creature.id} has no Aspect {aspect!r}, "
                        "which initiative: check rolls",
                    )
                )

    def _participant(
        self,
        entry: str | ParticipantRef | ParticipantSpec,
        doc: _Doc,
        loc: Loc,
        lib: _Library,
        reserves: _Reserves,
    ) -> CreatureDef | None:
        """The participant ``entry`` makes; the creature it is made from joins ``reserves``."""
        if isinstance(entry, ParticipantSpec):
            creature = self.creature(entry, doc, loc, lib)
            reserves.add(None, creature)
            if entry.position is None or creature is None:
                return creature
            return self.creature(entry, doc, loc, lib, position=entry.position)
        ref = ParticipantRef(creature=entry) if isinstance(entry, str) else entry
        where = loc if isinstance(entry, str) else (*loc, "creature")
        number = loc[-1] + 1 if isinstance(loc[-1], int) else 0
        if _looks_like_file(ref.creature):
            other = self.follow(doc, ref.creature, where, ("creature",))
            if other is None:
                return None
            spec_doc = other
        else:
            found = lib.creatures.get(ref.creature)
            if found is None:
                self.problems.append(
                    doc.at(
                        where,
                        f"participant {number}: no creature {ref.creature!r} "
                        f"({_known(lib.creatures, 'creatures')})",
                    )
                )
                return None
            spec_doc = found.doc
        if spec_doc.source.key not in reserves.sources:
            reserves.add(spec_doc, self._from_creature_file(spec_doc, lib))
        return self._from_creature_file(
            spec_doc, lib, new_id=ref.id, new_name=ref.name, position=ref.position
        )

    def _from_creature_file(
        self,
        spec_doc: _Doc,
        lib: _Library,
        *,
        new_id: str | None = None,
        new_name: str | None = None,
        position: tuple[int, int] | None = None,
    ) -> CreatureDef | None:
        """The creature of a ``kind: creature`` file, its names looked up in its own includes
        first, then in the encounter's ``lib``; perhaps renamed and placed."""
        spec = spec_doc.model
        assert isinstance(spec, CreatureDocument)
        own = self.library(spec_doc, spec.include, ("actions", "weapons"), lib)
        return self.creature(
            spec, spec_doc, (), own, new_id=new_id, new_name=new_name, position=position
        )

    # -- what can be checked of a file that breaks the schema ------------------------------------

    def salvage(self, source: Source) -> None:
        """Check the references of a file whose own schema failed: an encounter's ruleset,
        includes and each participant that is well-formed on its own; a creature's includes.
        Problems found join :attr:`problems`; a file that does not parse adds none."""
        try:
            node, data = parse_yaml(source)
        except ContentFileError:
            return
        if not isinstance(data, dict) or data.get("kind") not in ("encounter", "creature"):
            return
        kind = data["kind"]
        includes = data.get("include", [])
        if not isinstance(includes, list) or not all(isinstance(i, str) for i in includes):
            includes = []
        model_type = EncounterDocument if kind == "encounter" else CreatureDocument
        # A stand-in that knows only its kind: problems are located in the YAML nodes.
        known: dict[str, Any] = {"kind": kind}
        doc = _Doc(source, node, model_type.model_construct(**known))
        if kind == "creature":
            self.library(doc, includes, ("actions", "weapons"), None)
            return
        ruleset = _valid(_RULESET_ENTRY, data.get("ruleset", "current"))
        if ruleset is not None:
            found = self.ruleset_entry(ruleset, doc, ("ruleset",))
            self.economy = None if found is None else found.economy
        name = data.get("name")
        self.encounter_name = name if isinstance(name, str) else source.stem
        lib = self.library(doc, includes, ("actions", "weapons", "creature"), None)
        participants = data.get("participants", [])
        if not isinstance(participants, list):
            return
        reserves = _Reserves()
        for i, item in enumerate(participants):
            entry = _valid(_PARTICIPANT_ENTRY, item)
            if entry is not None:
                self._participant(entry, doc, ("participants", i), lib, reserves)

    # -- local checks for load_document ----------------------------------------------------------

    def check_local(self, doc: _Doc) -> None:
        """The checks that need no other file (references are not followed)."""
        model = doc.model
        if isinstance(model, ActionsDocument):
            self.check_actions_document(doc)
        elif isinstance(model, WeaponsDocument):
            self.check_weapons_document(doc)
            seen: set[str] = set()
            for j, weapon in enumerate(model.weapons):
                if weapon.name in seen:
                    self.problems.append(
                        doc.at(("weapons", j, "name"), f"weapon {weapon.name!r} is defined twice")
                    )
                seen.add(weapon.name)
        elif isinstance(model, RulesetDocument):
            self.ruleset_document(doc)
        elif isinstance(model, CreatureDocument):
            for j, action_entry in enumerate(model.actions):
                if isinstance(action_entry, ActionSpec):
                    self.check_action(action_entry, doc, ("actions", j))
            for j, weapon_entry in enumerate(model.weapons):
                if isinstance(weapon_entry, WeaponSpec):
                    self.check_weapon(weapon_entry, doc, ("weapons", j))
        elif isinstance(model, EncounterDocument):
            if isinstance(model.ruleset, RulesetSpec):
                self.ruleset(model.ruleset, doc, ("ruleset",))
            for i, entry in enumerate(model.participants):
                if isinstance(entry, CreatureSpec):
                    for j, action in enumerate(entry.actions):
                        if isinstance(action, ActionSpec):
                            self.check_action(action, doc, ("participants", i, "actions", j))
                    for j, inline in enumerate(entry.weapons):
                        if isinstance(inline, WeaponSpec):
                            self.check_weapon(inline, doc, ("participants", i, "weapons", j))


_RULESET_ENTRY: TypeAdapter[str | RulesetSpec] = TypeAdapter(RulesetEntry)
_PARTICIPANT_ENTRY: TypeAdapter[str | ParticipantRef | ParticipantSpec] = TypeAdapter(
    ParticipantEntry
)


def _valid(adapter: TypeAdapter[T], value: object) -> T | None:
    """``value`` validated by ``adapter``, or None if it is malformed (reported elsewhere)."""
    try:
        return adapter.validate_python(value)
    except ValidationError:
        return None


# -- sources -------------------------------------------------------------------------------------


def _source(
    path: ContentPath, bundled_folder: str | None = None, kind: str | None = None
) -> Source:
    """A content source for ``path``: a bundled file by its ``caltrop:`` name
    (``caltrop:monsters/goblin``), a file, or a bare bundled name in ``bundled_folder``
    (``goblin-ambush``) if there is no such file. An unknown ``caltrop:`` name is refused with
    the bundled names of ``kind`` (every bundled name if None)."""
    if isinstance(path, str | os.PathLike):
        text = os.fspath(path)
        if any(not ch.isprintable() for ch in text):
            raise ContentError(f"{text!r}: a file name holds no NUL or control character")
        on_disk = Path(text)
        if text.startswith(BUNDLED_PREFIX) and not _exists(on_disk):
            named = bundled_name_source(text)
            if named is None:
                raise ContentError(unknown_bundled(text, () if kind is None else (kind,)))
            return named
        if bundled_folder is not None and not _exists(on_disk) and not _looks_like_file(text):
            bundled = bundled_file_source(text, bundled_folder)
            if bundled is not None:
                return bundled
        return PathSource(on_disk)
    # A Traversable that is not a plain path (the package inside a zip): find it among the
    # bundled examples so that its relative includes resolve.
    wanted = str(path)
    for folder in (RULESETS_DIR, ENCOUNTERS_DIR):
        for entry in examples_root().joinpath(folder).iterdir():
            if str(entry) == wanted:
                return ResourceSource(examples_root(), (folder, entry.name), EXAMPLES_LABEL)
    return TextSource(path.read_text(encoding="utf-8"), label=wanted)


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # a name too long for the system
        return False


def _load(source: Source, kind: str | None = None) -> tuple[_Loader, _Doc]:
    loader = _Loader()
    doc = loader.document(source)
    if kind is not None and doc.kind != kind:
        raise ContentFileError(
            [doc.at(("kind",), f"expected kind: {kind} here, got kind: {doc.kind}")]
        )
    return loader, doc


# -- public API ----------------------------------------------------------------------------------


def load_document(path: ContentPath) -> Document:
    """Read and validate one content file of any kind, without following its references.

    Returns the pydantic document model (:mod:`caltrop.content.schema`); raises
    :class:`~caltrop.content.problems.ContentFileError` (a :class:`~caltrop.errors.ContentError`)
    naming the file, line and field of each problem.
    """
    loader, doc = _load(_source(path))
    loader.check_local(doc)
    loader.raise_problems()
    return _file_document(doc)


def check_file(path: ContentPath) -> Document:
    """Validate a content file fully: an encounter or creature file with all it references.

    Every problem is reported at once: when the file itself breaks the schema, what of it can
    still be checked is checked too (an encounter's ruleset, includes and each well-formed
    participant; a creature's includes), so one run lists them all.
    """
    source = _source(path)
    try:
        loader, doc = _load(source)
    except ContentFileError as exc:
        salvage = _Loader()
        salvage.salvage(source)
        raise ContentFileError(list(dict.fromkeys([*exc.problems, *salvage.problems]))) from None
    if doc.kind == "encounter":
        loader.encounter(doc)
    elif doc.kind == "creature":
        loader.creature_document(doc, None)
    else:
        loader.check_local(doc)
    loader.raise_problems()
    return _file_document(doc)


def _file_document(doc: _Doc) -> Document:
    """The model of a document read from a file (never a log's saved definition)."""
    model = doc.model
    assert not isinstance(model, SavedEncounter)
    return model


def load_ruleset(path: ContentPath = "current") -> Ruleset:
    """A ruleset file, or a bundled ruleset by name: ``current``, ``legacy``, ``round-reset``,
    ``action-points``."""
    loader, doc = _load(_source(path, RULESETS_DIR, "ruleset"), "ruleset")
    ruleset = loader.ruleset_document(doc)
    loader.raise_problems()
    return ruleset


def load_weapons(path: ContentPath) -> tuple[Weapon, ...]:
    """The weapons of a ``kind: weapons`` library file."""
    loader, doc = _load(_source(path, kind="weapons"), "weapons")
    loader.check_local(doc)
    loader.raise_problems()
    assert isinstance(doc.model, WeaponsDocument)
    return tuple(loader.weapon_def(w) for w in doc.model.weapons)


def load_actions(path: ContentPath) -> tuple[ActionDef, ...]:
    """The actions of a ``kind: actions`` library file."""
    loader, doc = _load(_source(path, kind="actions"), "actions")
    loader.check_local(doc)
    loader.raise_problems()
    assert isinstance(doc.model, ActionsDocument)
    return tuple(loader.action_def(a) for a in doc.model.actions)


def load_creature(path: ContentPath) -> CreatureDef:
    """A ``kind: creature`` file, its action and weapon names resolved from its own includes."""
    loader, doc = _load(_source(path, kind="creature"), "creature")
    creature = loader.creature_document(doc, None)
    loader.raise_problems()
    assert creature is not None
    return creature


def load_encounter(path: ContentPath) -> EncounterDef:
    """An encounter file with everything it includes and references, ready for the engine.

    ``path`` may also be the name of a bundled example encounter (``goblin-ambush``,
    ``orc-bridge``, ``bridge-duel-ap``, ``warband-ap``) or one of the :func:`bundled_encounters`
    resources. In an ``action_points`` encounter the stat names are checked against the
    module's stat block and ranged weapons need their ranges.
    """
    loader, doc = _load(_source(path, ENCOUNTERS_DIR, "encounter"), "encounter")
    return loader.encounter(doc)


def load_encounter_text(text: str, name: str = "<encounter>") -> EncounterDef:
    """An encounter from YAML text (a web form, a test). It cannot include relative files, but
    may name bundled rulesets and give its creatures inline."""
    loader, doc = _load(TextSource(text, name), "encounter")
    return loader.encounter(doc)


def load_encounter_files(files: Mapping[str, str]) -> EncounterDef:
    """The encounter among a set of uploaded files (name → text; the table server's upload):
    exactly one of them is ``kind: encounter``; it may include the others by relative path
    (inside the set only, :class:`~caltrop.content.source.UploadSource`) and bundled content by
    ``caltrop:`` name. Problems name the file, line and field, as for files on disk."""
    encounters = []
    for name in sorted(files):
        _, data = parse_yaml(UploadSource(files, name))
        if isinstance(data, Mapping) and data.get("kind") == "encounter":
            encounters.append(name)
    if len(encounters) != 1:
        listed = ", ".join(sorted(files)) or "no files"
        raise ContentError(
            f"the upload holds {len(encounters)} encounter files ({', '.join(encounters)}); "
            f"send exactly one, with the files it includes ({listed})"
            if encounters
            else f"none of the uploaded files ({listed}) is kind: encounter"
        )
    loader, doc = _load(UploadSource(files, encounters[0]), "encounter")
    return loader.encounter(doc)


def encounter_policies(path: ContentPath) -> dict[str, str]:
    """The ``policies:`` of an encounter file (``{"pc": …, "npc": …}``), for simulators."""
    _, doc = _load(_source(path, ENCOUNTERS_DIR, "encounter"), "encounter")
    model = doc.model
    assert isinstance(model, EncounterDocument)
    if model.policies is None:
        return {}
    return {k: v for k, v in model.policies.model_dump().items() if v is not None}
