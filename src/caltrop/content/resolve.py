"""A creature named at the table (``gm: add goblin``, R48): a bundled creature or a creature file.

The GM's reinforcements come from three places: the encounter's own reserves
(:attr:`caltrop.core.model.EncounterDef.reserves`, looked up by the engine), the bundled
creatures, and creature files. :func:`resolve_creature` does the last two.
"""

from __future__ import annotations

from pathlib import Path

from caltrop.content.bundled import BUNDLED_PREFIX
from caltrop.content.catalogue import (
    bundled_catalogue_entry,
    bundled_creatures,
    suggest,
    unknown_bundled,
)
from caltrop.content.loader import load_creature
from caltrop.core.model import CreatureDef
from caltrop.errors import ContentError


def resolve_creature(reference: str, *, base: Path | None = None) -> CreatureDef:
    """The creature ``reference`` names (R48, ``gm: add CREATURE``).

    ``reference`` is one of:

    * a bundled creature by its id: ``goblin``, ``bron`` (Action Load), ``brakka``, ``torvald``
      (Action Points);
    * a bundled creature file by its ``caltrop:`` name: ``caltrop:monsters/goblin``;
    * a creature file: ``monsters/troll.yaml``, relative to ``base`` if given (a folder, or a
      file whose folder is meant, such as the encounter file) and the reference is relative.

    The creature keeps the id its file gives it. Raises :class:`~caltrop.errors.ContentError`
    when nothing matches (listing the bundled creatures, with a "did you mean") and
    :class:`~caltrop.content.ContentFileError` (a ContentError) for a malformed file.
    """
    text = reference.strip()
    if not text:
        raise ContentError(f"no creature named; name one of the {_bundled_list()}")
    if text.startswith(BUNDLED_PREFIX):
        entry = bundled_catalogue_entry(text)
        if entry is None:
            raise ContentError(unknown_bundled(text, ("creature",)))
        if entry.kind != "creature":
            raise ContentError(
                f"{text!r} is a bundled {entry.kind} file, not a creature; {_bundled_list()}"
            )
        return load_creature(text)
    if not _is_path(text):
        found = bundled_creatures().get(text)
        if found is not None:
            return load_creature(found.reference)
        guess = suggest(text, bundled_creatures())
        hint = f" (did you mean {guess!r}?)" if guess else ""
        raise ContentError(
            f"no bundled creature {text!r}{hint}; {_bundled_list()}; "
            "or give a creature file such as monsters/troll.yaml"
        )
    path = Path(text).expanduser()
    if base is not None and not path.is_absolute():
        folder = base.parent if base.is_file() else base
        path = folder / path
    if not path.is_file():
        stem = text.removesuffix(".yaml").removesuffix(".yml")
        guess = suggest(stem, [e.name for e in bundled_creatures().values()])
        hint = f" (did you mean {BUNDLED_PREFIX + guess!r}?)" if guess else ""
        raise ContentError(
            f"no creature file {text!r} (looked for {path}){hint}; or name one of the "
            f"{_bundled_list()}"
        )
    return load_creature(path)


def _is_path(text: str) -> bool:
    return text.endswith((".yaml", ".yml")) or "/" in text or "\\" in text


def _bundled_list() -> str:
    return "bundled creatures: " + ", ".join(sorted(bundled_creatures()))
