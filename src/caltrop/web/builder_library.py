"""The creatures the encounter builder offers (issue 23 item 3): the bundled creature files and
every creature of the server's library (the bundled encounters and those saved from the
builder), each as the resolved stat block a draft holds (:func:`creature_to_dict`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from caltrop.content.bundled import BUNDLED_PREFIX, bundled_files
from caltrop.content.loader import load_creature
from caltrop.core.codec import creature_to_dict
from caltrop.errors import RefusedError
from caltrop.store.service import Tables

#: the bundled folders that hold creature files, and the module of each
CREATURE_FOLDERS: Final = {
    "monsters/": "action_load",
    "party/": "action_load",
    "action-points/monsters/": "action_points",
    "action-points/party/": "action_points",
}


@dataclass(frozen=True, slots=True)
class Pick:
    """One creature the builder may add: ``key`` names it in the add form."""

    key: str
    name: str
    side: str
    module: str
    origin: str


def _folder_module(name: str) -> str | None:
    for folder, module in CREATURE_FOLDERS.items():
        if name.startswith(folder) and "/" not in name[len(folder) :]:
            return module
    return None


@cache
def _bundled() -> tuple[tuple[Pick, tuple[tuple[str, Any], ...]], ...]:
    out = []
    for name in bundled_files():
        module = _folder_module(name)
        if module is None:
            continue
        creature = creature_to_dict(load_creature(BUNDLED_PREFIX + name))
        pick = Pick(f"bundled:{name}", creature["name"], creature["side"], module, name)
        out.append((pick, tuple(creature.items())))
    return tuple(out)


def picks(service: Tables) -> list[Pick]:
    """Every creature on offer: the bundled files, then each library encounter's creatures."""
    found = [pick for pick, _ in _bundled()]
    for entry in service.library():
        data = service.repository.library_definition(entry.name) or {}
        for i, creature in enumerate(data.get("participants", ()), start=1):
            found.append(
                Pick(
                    f"library:{entry.name}:{i}",
                    str(creature.get("name", "")),
                    str(creature.get("side", "")),
                    entry.module,
                    entry.title,
                )
            )
    return found


def creature(service: Tables, key: str) -> dict[str, Any]:
    """The stat block ``key`` names (a :class:`Pick`'s); 422 when it names none."""
    kind, _, rest = key.partition(":")
    if kind == "bundled":
        for pick, items in _bundled():
            if pick.key == key:
                return dict(items)
    elif kind == "library":
        name, _, index = rest.rpartition(":")
        data = service.repository.library_definition(name) if name else None
        creatures = (data or {}).get("participants", [])
        if index.isdigit() and 1 <= int(index) <= len(creatures):
            return dict(creatures[int(index) - 1])
    raise RefusedError(f"no creature {key[:80]!r} in the library: choose one from the list")
