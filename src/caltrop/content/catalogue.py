"""What is bundled: every example file with its kind, module and one line about it.

A bundled file is named by its path under ``caltrop/examples`` without the extension
(``monsters/goblin``, ``action-points/weapons``); content refers to it as ``caltrop:NAME``
(``include: [caltrop:actions, caltrop:weapons]``). This catalogue is what ``caltrop examples``
lists and what the loader's "no bundled file" errors suggest from.
"""

from __future__ import annotations

import difflib
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from caltrop.content.bundled import BUNDLED_PREFIX, RULESETS_DIR, bundled_files, bundled_source
from caltrop.content.source import parse_yaml

#: The first comment line of every example file, which says nothing about the file itself.
_BOILERPLATE = "Example content, not official rules."
#: Bundled content of the Action Point module lives in this folder (seed 004).
POINTS_FOLDER = "action-points"


@dataclass(frozen=True, slots=True)
class BundledFile:
    """One bundled YAML file.

    ``name`` is its path without the extension (``monsters/goblin``); ``kind`` its document kind;
    ``title`` the encounter's or creature's name (``Goblin Ambush``, ``Goblin``), else the name;
    ``economy`` the module it belongs to (``action_load`` or ``action_points``); ``creature_id``
    the id a creature file gives its creature (None for other kinds); ``description`` its
    ``description:`` (or its first comment line) on one line.
    """

    name: str
    kind: str
    title: str
    economy: str
    description: str
    creature_id: str | None = None

    @property
    def reference(self) -> str:
        """How content names it: ``caltrop:monsters/goblin``."""
        return BUNDLED_PREFIX + self.name

    @property
    def short_name(self) -> str:
        """The last part of the name: ``goblin`` for ``monsters/goblin``."""
        return posixpath.basename(self.name)


def bundled_catalogue() -> tuple[BundledFile, ...]:
    """Every bundled file, sorted by name."""
    return _catalogue()


@cache
def _catalogue() -> tuple[BundledFile, ...]:
    entries = []
    for name, parts in bundled_files().items():
        source = bundled_source(*parts)
        _, data = parse_yaml(source)
        entries.append(_entry(name, data if isinstance(data, Mapping) else {}, source.read_text()))
    return tuple(entries)


def _entry(name: str, data: Mapping[str, Any], text: str) -> BundledFile:
    kind = str(data.get("kind", ""))
    description = " ".join(str(data.get("description", "")).split()) or _first_comment(text)
    creature_id = str(data["id"]) if kind == "creature" and "id" in data else None
    title = str(data["name"]) if kind in ("encounter", "creature") and "name" in data else name
    return BundledFile(name, kind, title, _economy(name, kind, data), description, creature_id)


def _first_comment(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("#"):
            if stripped:
                break
            continue
        comment = stripped.lstrip("#").strip()
        if comment and comment != _BOILERPLATE:
            return comment
    return ""


def _economy(name: str, kind: str, data: Mapping[str, Any]) -> str:
    """The module a file belongs to: a ruleset's ``economy``; an encounter's ruleset's; for the
    other kinds, the folder (``action-points/…`` holds the Action Point module's content)."""
    if kind == "ruleset":
        return str(data.get("economy", "action_load"))
    if kind == "encounter":
        ruleset = data.get("ruleset", "current")
        if isinstance(ruleset, Mapping):
            return str(ruleset.get("economy", "action_load"))
        wanted = str(ruleset)
        if wanted.startswith(BUNDLED_PREFIX):
            wanted = wanted[len(BUNDLED_PREFIX) :]
        elif wanted.endswith((".yaml", ".yml")) or "/" in wanted:
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(name), wanted))
            wanted = posixpath.splitext(joined)[0]
        else:
            wanted = f"{RULESETS_DIR}/{wanted}"
        parts = bundled_files().get(wanted)
        if parts is not None:
            _, ruleset_data = parse_yaml(bundled_source(*parts))
            if isinstance(ruleset_data, Mapping):
                return str(ruleset_data.get("economy", "action_load"))
        return "action_load"
    return "action_points" if name.startswith(POINTS_FOLDER + "/") else "action_load"


def bundled_catalogue_entry(name: str) -> BundledFile | None:
    """The bundled file called ``name`` (with or without ``caltrop:``), or None."""
    wanted = name[len(BUNDLED_PREFIX) :] if name.startswith(BUNDLED_PREFIX) else name
    return next((e for e in bundled_catalogue() if e.name == wanted), None)


def bundled_of_kind(kinds: Sequence[str]) -> list[BundledFile]:
    """The bundled files of the given kinds, sorted by name."""
    return [entry for entry in bundled_catalogue() if entry.kind in kinds]


def bundled_creatures() -> dict[str, BundledFile]:
    """The bundled creature files by the id their creature has (``goblin``, ``bron``,
    ``brakka``), both modules."""
    return {
        entry.creature_id: entry
        for entry in bundled_catalogue()
        if entry.kind == "creature" and entry.creature_id is not None
    }


def suggest(wanted: str, names: Iterable[str]) -> str | None:
    """The bundled name most like ``wanted`` (both without ``caltrop:``), or None.

    A name whose last part is ``wanted``'s last part wins (``goblin`` → ``monsters/goblin``),
    then the closest by spelling (``monsters/gobin`` → ``monsters/goblin``).
    """
    listed = list(names)
    tail = posixpath.basename(wanted)
    same_tail = [n for n in listed if posixpath.basename(n) == tail]
    if same_tail:
        return same_tail[0]
    close = difflib.get_close_matches(wanted, listed, n=1)
    if close:
        return close[0]
    close = difflib.get_close_matches(tail, [posixpath.basename(n) for n in listed], n=1)
    if close:
        return next(n for n in listed if posixpath.basename(n) == close[0])
    return None


def unknown_bundled(reference: str, kinds: Sequence[str] = ()) -> str:
    """The message for a ``caltrop:`` name that names no bundled file, with a "did you mean"
    and the bundled names of the wanted ``kinds`` (every bundled name if none are given)."""
    wanted = reference[len(BUNDLED_PREFIX) :] if reference.startswith(BUNDLED_PREFIX) else reference
    listed = bundled_of_kind(kinds) if kinds else list(bundled_catalogue())
    pool = [e.name for e in listed] or list(bundled_files())
    guess = suggest(wanted, pool) or suggest(wanted, bundled_files())
    hint = f" (did you mean {BUNDLED_PREFIX + guess!r}?)" if guess and guess != wanted else ""
    what = _either(kinds) + " files" if kinds else "files"
    shown = ", ".join(BUNDLED_PREFIX + e.name for e in listed)
    return f"no bundled file {reference!r}{hint}; bundled {what}: {shown}"


def _either(words: Sequence[str]) -> str:
    """``actions, weapons or creature``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
