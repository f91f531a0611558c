"""The size limits of content: how large a content file, and each number and list in it, may be.

Content comes from anyone with a link to the table server, so every value that sets how much
work the engine does is bounded (issue 10): a pool of a billion dice from an Aspect of 10^9, an
encounter of 10,000 creatures (``Encounter.begin`` is quadratic in them), a 100 MB file or YAML
nested 100,000 deep would take the machine down. The limits are far beyond what a table or a
designer needs; ``docs/rules.md`` ("Content limits") lists each with its reason. The same limits
apply to the encounter definition a save log carries (:mod:`caltrop.content.serialize`).
"""

from __future__ import annotations

from typing import Final

from caltrop.core.ids import MAX_ID

# -- the file -----------------------------------------------------------------------------------

#: A content file's size in bytes (refused from its size, before it is read or parsed).
MAX_FILE_BYTES: Final = 2 * 1024 * 1024
#: Nesting of YAML collections (an encounter's inline action's grant is 6 deep).
MAX_YAML_DEPTH: Final = 32
#: Values (scalars and collections) in one file, counting each alias as what it repeats.
MAX_YAML_VALUES: Final = 100_000
#: Characters of an integer as written in YAML (a 64-bit number has 20 digits).
MAX_INT_CHARS: Final = 40

# -- lists and texts ----------------------------------------------------------------------------

#: Participants of an encounter (``Encounter.begin`` takes ~0.7 s at 200, grows quadratically).
MAX_PARTICIPANTS: Final = 200
#: Files an ``include:`` lists.
MAX_INCLUDES: Final = 100
#: Creatures a saved encounter keeps in reserve (R48): what 100 includes and 200 participants make.
MAX_RESERVES: Final = MAX_INCLUDES + MAX_PARTICIPANTS
#: Actions, weapons, Aspects and stats of one creature; conditions of a ruleset.
MAX_PER_CREATURE: Final = 100
#: Entries of an action or weapon library file.
MAX_LIBRARY: Final = 1000
#: Characters of an id, an action, weapon, Aspect or stat name (one word); an id's is the id
#: rule's own (:data:`caltrop.core.ids.MAX_ID`, the same 40).
MAX_WORD: Final = MAX_ID
#: Characters of a display name (a creature's, an encounter's).
MAX_NAME: Final = 100
#: Characters of a file reference (``include:``, ``creature:``, ``ruleset:``).
MAX_REFERENCE: Final = 1000
#: Characters of a description.
MAX_DESCRIPTION: Final = 10_000

# -- numbers (inclusive ranges) -----------------------------------------------------------------

#: An Aspect: the pool it gives is at most 100 d4 (R12), far under the dice limit of 1000.
ASPECT: Final = (-20, 100)
#: ``fixed_pool`` (R20: the legacy "uses only 1d4").
FIXED_POOL: Final = (1, 100)
#: An action's Cost (seed 000 step 6; R11's gate compares it with an Aspect).
COST: Final = (0, 100)
#: A check's DC and a creature's Evasion: past any total 100 d4 and weapon dice reach.
DC: Final = (0, 10_000)
EVASION: Final = (0, 10_000)
#: Health and max_health.
HEALTH: Final = (1, 10_000)
#: Load Buffer and Exhaustion (R10; the same range as ``gm: set ID buffer|exhaustion N``, R48).
LOAD_NUMBER: Final = (0, 100)
#: Any stat; ``x`` and ``y`` are meters within ±10,000 (R34).
STAT: Final = (-10_000, 10_000)
#: A position's coordinates in meters (R34).
COORDINATE: Final = (-10_000, 10_000)
#: The Action Point module's points a stat block may set (``gm: set ID ap|rp|stamina N``, R48).
POINTS_STAT: Final = (0, 99)
#: A weapon's attack AP (R38, R44).
WEAPON_AP: Final = (1, 99)
#: A ranged weapon's close and far ranges in meters (R39).
RANGE: Final = (0, 10_000)


def within(value: int, bounds: tuple[int, int]) -> bool:
    low, high = bounds
    return low <= value <= high


def range_text(bounds: tuple[int, int]) -> str:
    """``from -20 to 100``, with thousands separators."""
    low, high = bounds
    return f"from {low:,} to {high:,}"
