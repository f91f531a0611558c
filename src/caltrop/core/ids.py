"""The creature id rule, written once (issue 21): what content, commands, the server and the log
reader all accept as a creature's id.

An id is one lowercase word of ``a-z``, ``0-9`` and ``-`` starting with a letter or digit
(``goblin-2``), at most :data:`MAX_ID` characters, and not a word of the command notation
(:data:`RESERVED_WORDS`: ``aria: end`` and ``strike with`` would be ambiguous). Each layer raises
its own error from :func:`id_problem`'s reason: a content file's field error, a refused
command, a refused log. Before issue 21 ``gm: add goblin as gm`` passed the command parser
(which knew only "one word") and then made a log the reader refused.
"""

from __future__ import annotations

import re
from typing import Final

#: Words of the command notation (:mod:`caltrop.core.commands`): no creature id or action name
#: may be one of them.
RESERVED_WORDS: Final[frozenset[str]] = frozenset(
    {"with", "dc", "pass", "end", "roll", "total", "gm", "call"}
)

#: Characters of an id (the content limit of one word, ``caltrop.content.limits.MAX_WORD``).
MAX_ID: Final = 40

#: A creature id: one lowercase word of letters, digits and hyphens (``goblin-2``).
ID_PATTERN: Final = re.compile(r"[a-z0-9][a-z0-9-]*")


def reserved_word_problem(value: str, what: str) -> str | None:
    """Why ``value`` may not name a ``what`` (an id, an action): it is a reserved word."""
    if value.lower() in RESERVED_WORDS:
        words = ", ".join(sorted(RESERVED_WORDS))
        return (
            f"{value!r} is a reserved word of the command notation ({words}); choose another {what}"
        )
    return None


def id_problem(value: str) -> str | None:
    """Why ``value`` is not a creature id, in words, or None when it is one."""
    if len(value) > MAX_ID:
        return f"expected an id of at most {MAX_ID} characters, got {len(value):,}"
    if not ID_PATTERN.fullmatch(value):
        shown = value if len(value) <= MAX_ID else value[:MAX_ID] + "…"
        return f"expected one lowercase word of a-z, 0-9 and '-' (like goblin-2), got {shown!r}"
    return reserved_word_problem(value, "id")
