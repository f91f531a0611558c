"""TAB completion at the ``caltrop play`` prompt: what may follow the text before the cursor.

Pure: :func:`candidates` takes the encounter and the line up to the cursor and returns the words
that complete its last (partial) word. The creature ids, their actions, targets, weapons and
Aspects come from the encounter (its creatures, ``legal_actions``, the Action Point module's
verbs, the bundled creatures a GM may add); only the session commands and the GM's verbs (R17,
R48) are fixed words of the tool.
"""

from __future__ import annotations

from collections.abc import Iterable

from caltrop.content.catalogue import bundled_creatures
from caltrop.core.commands import FACTS, GM, Act
from caltrop.core.model import CreatureDef, Economy
from caltrop.economy.points.actions import VERBS as POINTS_VERBS
from caltrop.encounter import Encounter

#: The session's own commands (``help`` lists them).
SESSION = ("help", "legal", "undo", "save", "json", "quit", "roll")
#: The GM's verbs (R17 ``call``; R48 the GM's controls); ``end`` → ``encounter``, ``pass`` → ``all``.
GM_VERBS = ("call", "end", "set", "damage", "heal", "add", "remove", "order", "pass")
#: What ``gm: set ID …`` may set, per module (R48), besides the conditions.
SET_LOAD = ("exhaustion", "buffer", "load")
SET_POINTS = ("ap", "rp", "stamina")
#: Flags every Action Point action may carry (R41).
POINTS_FLAGS = ("+stealth", "+careful")


def _matching(words: Iterable[str], partial: str) -> list[str]:
    """The distinct words that start with ``partial``, in their first order."""
    return [w for w in dict.fromkeys(words) if w.startswith(partial)]


def _points(encounter: Encounter) -> bool:
    """Whether the encounter plays the Action Point module (seed 004)."""
    return encounter.definition.ruleset.economy is Economy.ACTION_POINTS


def _ids(encounter: Encounter) -> list[str]:
    return [c.id for c in encounter.creatures]


def _creature(encounter: Encounter, creature_id: str) -> CreatureDef | None:
    return next((c for c in encounter.creatures if c.id == creature_id), None)


def candidates(encounter: Encounter, before: str) -> list[str]:
    """The completions of the last word of ``before`` (the line up to the cursor).

    ``ari`` → ``aria:``; ``aria: st`` → ``strike``; ``aria: strike `` → the targets it may
    strike now; ``aria: strike goblin-1 with `` → Aria's weapons; ``gm: `` → the GM's verbs.
    Each candidate replaces the partial word whole; an empty list means nothing fits. A
    candidate ending in ``,`` (``gm: order aria,``) expects more of the same word.
    """
    words = before.split(" ")
    partial = words[-1]
    done = [w for w in words[:-1] if w]
    if not done:
        heads = [*SESSION, *(f"{i}:" for i in _ids(encounter)), f"{GM}:"]
        return _matching(heads, partial)
    head, rest = done[0], done[1:]
    if head == "legal" and not rest:
        return _matching([*_ids(encounter), GM], partial)
    if not head.endswith(":"):
        return []
    actor = head[:-1]
    if actor.lower() == GM:
        return _matching(_gm_words(encounter, rest, partial), partial)
    creature = _creature(encounter, actor)
    if creature is None:
        return []
    return _matching(_creature_words(encounter, creature, rest, partial), partial)


def _verbs(encounter: Encounter, creature: CreatureDef) -> list[str]:
    """The creature's actions: its own (Action Load) or the module's (Action Points), then the
    ones ``legal_actions`` offers it now, then ``end turn`` and ``pass``."""
    own = [a.name for a in creature.actions]
    if _points(encounter):
        own += POINTS_VERBS
    legal = [c.action for c in encounter.legal_actions(creature.id) if isinstance(c, Act)]
    return [*legal, *own, "end", "pass"]


def _targets(encounter: Encounter, creature: CreatureDef, verb: str) -> list[str]:
    """The targets ``legal_actions`` offers for ``verb`` now, then the other side, then allies."""
    legal = [
        t
        for c in encounter.legal_actions(creature.id)
        if isinstance(c, Act) and c.action == verb
        for t in c.targets
    ]
    others = [c for c in encounter.creatures if c.id != creature.id]
    others.sort(key=lambda c: c.side is creature.side)
    return [*legal, *(c.id for c in others)]


def _weapons(encounter: Encounter, creature: CreatureDef) -> list[str]:
    names = [w.name for w in creature.weapons]
    return [*names, "unarmed"] if _points(encounter) else names


def _creature_words(
    encounter: Encounter, creature: CreatureDef, rest: list[str], partial: str
) -> list[str]:
    if not rest:
        return _verbs(encounter, creature)
    verb, args = rest[0], rest[1:]
    if verb == "end":
        return ["turn"] if not args else []
    if verb == "pass":
        return []
    if args and args[-1] == "with":
        if "+" in partial:  # several weapons at once: sword+dagger
            done, _, _ = partial.rpartition("+")
            return [f"{done}+{w}" for w in _weapons(encounter, creature)]
        return _weapons(encounter, creature)
    if args and args[-1] in ("dc", "to"):
        return []
    if args and args[-1] == "toward":
        return [i for i in _ids(encounter) if i != creature.id]
    if _points(encounter) and verb in ("equip", "stow") and not args:
        return _weapons(encounter, creature)
    words: list[str] = []
    if not _points(encounter):
        action = creature.action(verb)
        if action is None:
            return []
        words += _targets(encounter, creature, verb) if not args else []
        if action.uses_weapon and "with" not in args:
            words.append("with")
        if "dc" not in args:
            words.append("dc")
        return words
    if verb == "move":
        return ["to", "toward"] if not args else []
    if not args and verb in ("aim", "attack", "shoot", "grapple", "scale"):
        words += _targets(encounter, creature, verb)
    if verb in ("attack", "shoot") and "with" not in args:
        words.append("with")
    if verb == "martial" and "dc" not in args:
        words.append("dc")
    words += [f for f in POINTS_FLAGS if f not in args]
    return words


def _gm_words(encounter: Encounter, rest: list[str], partial: str) -> list[str]:
    ids = _ids(encounter)
    if not rest:
        return list(GM_VERBS)
    verb, args = rest[0], rest[1:]
    if verb == "end":
        return ["encounter"] if not args else []
    if verb == "pass":
        return ["all"] if not args else []
    if verb in ("damage", "heal", "remove"):
        return ids if not args else []
    if verb == "order":
        if args:
            return []
        done, comma, _ = partial.rpartition(",")
        used = set(done.split(",")) if comma else set()
        left = [i for i in ids if i not in used]
        more = "," if len(left) > 1 else ""  # the order goes on: the next id after a comma
        return [f"{done}{comma}{i}{more}" for i in left]
    if verb == "call":
        if not args:
            return ids
        called = _creature(encounter, args[0])
        if len(args) == 1:
            return list(called.aspects) if called is not None else []
        if args[-1] == "dc":
            return []
        return ["dc", "+count-load", "+no-count-load"]
    if verb == "add":
        if not args:
            reserves = [c.id for c in encounter.definition.reserves]
            economy = encounter.definition.ruleset.economy.value
            bundled = [n for n, f in bundled_creatures().items() if f.economy == economy]
            return [*reserves, *ids, *bundled]
        if args[-1] == "after":
            return ids
        if args[-1] == "by":
            return ["initiative"]
        if args[-1] == "as":
            return []
        return ["as", "after", "by"]
    if verb == "set":
        return _set_words(encounter, args)
    return []


def _set_words(encounter: Encounter, args: list[str]) -> list[str]:
    """``gm: set ID WHAT …``: the facts and numbers of the module (R34, R48), then on/off."""
    ids = _ids(encounter)
    conditions = ["prone", *encounter.definition.ruleset.conditions]
    if not args:
        return ids
    if len(args) == 1:
        if _points(encounter):
            return [*SET_POINTS, *conditions, *(f for f in FACTS if f != "prone")]
        return [*SET_LOAD, *conditions]
    what = args[1]
    if what in ("aware", "sight"):
        return ids if len(args) == 2 else (["on", "off"] if len(args) == 3 else [])
    if what in conditions and len(args) == 2:
        return ["on", "off"]
    return []
