"""Faces of physical dice typed at the table (R5): ``"3,1,4,4,2,7"`` → ``(3, 1, 4, 4, 2, 7)``.

One reader for every place that takes typed faces (``caltrop roll --dice``, and the ``roll
FACES`` command of an encounter), so they accept and refuse the same text: ASCII digits only
(``int()`` also takes ``٣``, an Arabic-Indic three, which the notation refuses), at most
:data:`MAX_FACE_DIGITS` digits a face and :data:`~caltrop.dice.parse.MAX_DICE` faces, and at
least one face: an empty list (``roll ,``) is an error, not a request for seeded dice.
"""

from __future__ import annotations

import re
from typing import Final

from caltrop.dice.parse import MAX_DICE, MAX_SIDES
from caltrop.errors import DiceInputError

#: A face has at most as many digits as the largest die has sides (d1000: 4 digits).
MAX_FACE_DIGITS: Final = len(str(MAX_SIDES))
_SEPARATORS: Final = re.compile(r"[\s,]+")
_FACE: Final = re.compile(r"-?[0-9]+")


def parse_faces(text: str) -> tuple[int, ...]:
    """Faces separated by commas and/or spaces; raises :class:`DiceInputError` naming the first
    item that is not a face (counted from 1), or saying that none was given."""
    if len(text) > MAX_DICE * (MAX_FACE_DIGITS + 2):
        raise DiceInputError(f"{len(text):,} characters of faces; at most {MAX_DICE} dice")
    items = [item for item in _SEPARATORS.split(text.strip()) if item]
    if not items:
        raise DiceInputError("no faces given: write them as 3,1,4,4,2,7")
    if len(items) > MAX_DICE:
        raise DiceInputError(f"{len(items):,} faces; at most {MAX_DICE} dice")
    faces: list[int] = []
    for i, item in enumerate(items, start=1):
        if not _FACE.fullmatch(item):
            raise DiceInputError(f"die {i} is {_shown(item)}, not a whole number (e.g. 3,1,4)")
        if len(item.lstrip("-")) > MAX_FACE_DIGITS:
            raise DiceInputError(f"die {i} is {_shown(item)}: no die has a face that large")
        faces.append(int(item))
    return tuple(faces)


def _shown(item: str) -> str:
    """``repr`` of an item, cut short (it came from the keyboard or a file)."""
    return repr(item if len(item) <= 20 else item[:17] + "...")
