"""Commented YAML templates of a new creature or encounter (``caltrop new``) that validate as they
are, in either module. A template names the bundled libraries and creatures by ``caltrop:`` name,
so it works wherever it is written.
"""

from __future__ import annotations

import re
from enum import StrEnum

from caltrop.content.yamlfile import parse_text
from caltrop.core.ids import ID_PATTERN, id_problem
from caltrop.errors import CaltropError, ContentError

#: Where a template points its reader (both paths are in the Caltrop repository).
FORMAT_DOC = "src/caltrop/examples/README.md"
RULES_DOC = "docs/rules.md"


class Module(StrEnum):
    """The rules module a template is written for."""

    ACTION_LOAD = "action-load"
    ACTION_POINTS = "action-points"


def template_id(name: str) -> str:
    """The id a template gives ``name``: ``Cave Troll`` → ``cave-troll``.

    Raises :class:`~caltrop.errors.ContentError` (a ValueError) with the reason when no id can
    be made or the id is a reserved word.
    """
    slug = re.sub(r"[\s_]+", "-", name.strip().lower())
    slug = re.sub(r"-{2,}", "-", slug).strip("-")
    if not ID_PATTERN.fullmatch(slug):
        raise ContentError(
            f"cannot make an id from {name[:60]!r}: use letters a-z, digits, spaces and '-' "
            "(like cave-troll or 'Cave Troll')"
        )
    problem = id_problem(slug)  # the one id rule (issue 21): length, reserved words
    if problem is not None:
        raise ContentError(f"cannot make an id from {name[:60]!r}: {problem}")
    return slug


def display_name(name: str) -> str:
    """The name shown on screen: as given, or ``cave-troll`` → ``Cave Troll``."""
    text = " ".join(name.split())
    if text == text.lower() and " " not in text:
        return " ".join(part.capitalize() for part in re.split(r"[-_]+", text) if part)
    return text


def _scalar(text: str) -> str:
    """``text`` as a YAML scalar that reads back as the same text (quoted only if needed)."""
    try:  # the content reader itself (issue 21: bounded, YAML 1.2 numbers), as the file is read
        plain_ok = (
            "\n" not in text
            and "#" not in text
            and ": " not in text
            and parse_text(f"v: {text}\n", "name")[1] == {"v": text}
        )
    except CaltropError:
        plain_ok = False
    if plain_ok:
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def creature_template(
    name: str, module: Module = Module.ACTION_LOAD, file_name: str = "THIS-FILE"
) -> str:
    """A ``kind: creature`` file for ``name`` (its id is :func:`template_id`); ``file_name`` is
    what its comments tell the reader to validate."""
    creature_id = template_id(name)
    text = _POINTS_CREATURE if module is Module.ACTION_POINTS else _LOAD_CREATURE
    written_id = _scalar(creature_id)  # an id such as 1984 is quoted, or YAML reads a number
    return text.format(
        id=written_id,
        pad_id=" " * max(1, _COMMENT_COLUMN - len("id: ") - len(written_id)),
        name=_scalar(display_name(name)),
        file=file_name,
        **_DOCS,
    )


def encounter_template(
    name: str, module: Module = Module.ACTION_LOAD, file_name: str = "THIS-FILE"
) -> str:
    """A ``kind: encounter`` file called ``name`` with bundled creatures, ready to play."""
    template_id(name)  # the file is named after it: refuse what cannot be one
    text = _POINTS_ENCOUNTER if module is Module.ACTION_POINTS else _LOAD_ENCOUNTER
    return text.format(name=_scalar(display_name(name)), file=file_name, **_DOCS)


_DOCS = {"format_doc": FORMAT_DOC, "rules_doc": RULES_DOC}
#: The column the templates' end-of-line comments start at.
_COMMENT_COLUMN = 30

_LOAD_CREATURE = """\
# A creature of the Action Load module. Change the numbers, then check the file:
#   caltrop validate {file}
# Every field is explained in {format_doc} (the content format),
# and the rules they follow (the R-numbers below) in {rules_doc};
# both are in the Caltrop repository.
kind: creature
example: false
# The libraries the names under weapons: and actions: come from: caltrop:NAME is a file bundled
# with Caltrop (`caltrop examples` lists them); a path like ../my-actions.yaml is relative to
# this file. An encounter that includes this creature may add libraries of its own.
include: [caltrop:actions, caltrop:weapons]
id: {id}{pad_id}# one lowercase word; commands use it
name: {name}
side: npc                     # npc (the GM runs it) or pc (a player's character)
description: A short line about it.
# Each Aspect is the d4s its actions roll, less the creature's Load; an action is allowed while
# Aspect - Load >= its Cost (R11, R12).
aspects: {{Finesse: 3, Might: 4, Insight: 2, Control: 2}}
health: 12                    # at 0 it is down (R16); max_health: defaults to health
evasion: 10                   # an attack deals what its total is over Evasion (R16)
load_buffer: 0                # Load starts each turn at exhaustion - load_buffer (R10, R19)
exhaustion: 0
# Weapons from the libraries above (caltrop:weapons: dagger, club, shortsword, shortbow, sword,
# spear, longbow, greataxe), or inline: {{name: claws, dice: 1d6}}.
weapons: [club]
# Actions from the libraries (caltrop:actions: strike, shoot, firebolt; help, hinder, dodge,
# parry (team actions, R15); watch-my-back, rally; pick-lock), changed with
# {{use: strike, aspect: Might, name: smash}}, or inline:
# {{name: bite, kind: attack, aspect: Might, cost: 1, extra: 1d4}}.
actions: [strike, dodge, hinder]
"""

_POINTS_CREATURE = """\
# A creature of the Action Point module (seed 004). Change the numbers, then check the file:
#   caltrop validate {file}
# Every field is explained in {format_doc} (the content format),
# and the rules they follow (the R-numbers below) in {rules_doc};
# both are in the Caltrop repository.
kind: creature
example: false
# The library its weapons come from: caltrop:NAME is a file bundled with Caltrop
# (`caltrop examples` lists them); a path like ../my-weapons.yaml is relative to this file.
include: [caltrop:action-points/weapons]
id: {id}{pad_id}# one lowercase word; commands use it
name: {name}
side: npc                     # npc (the GM runs it) or pc (a player's character)
description: A short line about it.
# The pool stats are Aspects, the d4s it rolls: Speed for initiative (R30), Strength and Power in
# melee, Dexterity to shoot (R39), Agility and Poise, Perception and Analysis.
aspects: {{Speed: 3, Power: 3, Strength: 3, Dexterity: 2, Agility: 2, Poise: 2, Perception: 2,
          Analysis: 1}}
health: 12                    # at 0 it is down; max_health: defaults to health
# No actions list: move, attack, shoot, block, dodge, leap, grapple, ... are built in.
stats:                        # every one is optional (the engine's defaults apply)
  ap: 6                       # AP on its own turn (R31)
  rp: 2                       # RP on every other turn (R31)
  stamina: 8                  # for leaps, grapples and climbs (R37)
  power_mod: 1                # added to unarmed damage (R38)
  resistance: 1               # taken off incoming damage (R40)
  block_rating: 2             # d4s rolled to Block (R40)
  dodge_rating: 2             # d4s rolled to Dodge (R40)
  travel_speed: 2             # meters per AP (R35)
# Weapons from caltrop:action-points/weapons (dagger, handaxe, longsword, spear, greataxe;
# shortbow, crossbow, sling, javelin), or inline: {{name: claws, dice: 1d6, ap: 2}}.
weapons: [spear, dagger]
equipped: [spear]             # in hand at the start (R44; default: all of them)
"""

_LOAD_ENCOUNTER = """\
# An encounter of the Action Load module. Check it, then play it:
#   caltrop validate {file}
#   caltrop play {file}
# Every field is explained in {format_doc} (the content format),
# and the rules (the R-numbers below) in {rules_doc}; both are in the Caltrop repository.
kind: encounter
example: false
name: {name}
description: A line or two about the scene, kept in the log.
# A bundled ruleset (current, legacy, round-reset), a file (my-rules.yaml), or a mapping such as
# {{revision: current, load_reset: round}} (R19, R20, R21).
ruleset: current
# The creatures (and libraries) it uses: caltrop:NAME is a file bundled with Caltrop
# (`caltrop examples` lists them); a path like monsters/troll.yaml is relative to this file.
# The GM may add any of them mid-fight (gm: add goblin, R48).
include:
  - caltrop:party/aria
  - caltrop:party/bron
  - caltrop:monsters/goblin
  - caltrop:monsters/goblin-archer
# In the GM's turn order (R21). An included creature by its id, a renamed copy, a creature file,
# or a creature written here: {{id: rat, name: Rat, side: npc, aspects: {{Finesse: 2}}, health: 3}}.
participants:
  - {{creature: goblin, id: goblin-1, name: Goblin 1}}
  - aria
  - goblin-archer
  - bron
  - {{creature: goblin, id: goblin-2, name: Goblin 2}}
"""

_POINTS_ENCOUNTER = """\
# An encounter of the Action Point module (seed 004). Check it, then play it:
#   caltrop validate {file}
#   caltrop play {file}
# Every field is explained in {format_doc} (the content format),
# and the rules (the R-numbers below) in {rules_doc}; both are in the Caltrop repository.
kind: encounter
example: false
name: {name}
description: A line or two about the scene, kept in the log.
# The Action Point module: 6 AP on your own turn, 2 RP on the others' (R31), initiative by a
# Speed check (R30).
ruleset: action-points
# The creatures it uses: caltrop:NAME is a file bundled with Caltrop (`caltrop examples` lists
# them); a path like monsters/troll.yaml is relative to this file. The GM may add any of them
# mid-fight (gm: add bandit, R48).
include:
  - caltrop:action-points/party/torvald
  - caltrop:action-points/party/kestrel
  - caltrop:action-points/monsters/bandit
  - caltrop:action-points/monsters/wolf
# The turn order comes from the Speed check (R30). position: [x, y] in whole meters (R34).
participants:
  - {{creature: torvald, position: [0, 0]}}
  - {{creature: kestrel, position: [-6, 2]}}
  - {{creature: bandit, position: [12, 0]}}
  - {{creature: wolf, position: [10, 3]}}
"""
