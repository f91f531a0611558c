"""The GM tool forms of the web screens, turned into the engine's command notation (issue 12).

A form names its ``op`` and fields; :func:`command_text` writes the command a terminal user
would type (``gm: damage goblin 3``), so the server checks it as any other command. A form
without ``op`` sends its ``command`` as it is; physical dice come one field per die (``die``)
or as one comma-separated ``faces`` field, and become ``roll 3,1,4,7`` (the engine checks the
count and the faces, R5).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from caltrop.core.ids import id_problem
from caltrop.errors import FormError as FormError


def _field(fields: Mapping[str, Sequence[str]], name: str, *, required: bool = True) -> str:
    values = fields.get(name) or [""]
    value = values[0].strip()
    if required and not value:
        raise FormError(f"fill in {name.replace('_', ' ')}")
    return value


def _ident(fields: Mapping[str, Sequence[str]], name: str) -> str:
    """A creature id field (a target, the creature to add, the id it is given): the one id
    rule of content, commands and logs (:func:`caltrop.core.ids.id_problem`, issue 21), so the
    form says why in the rule's words before the engine sees the command."""
    value = _field(fields, name)
    problem = id_problem(value)
    if problem is not None:
        raise FormError(f"{name.replace('_', ' ')} is not a creature id: {problem}")
    return value


def command_text(fields: Mapping[str, Sequence[str]]) -> str:
    """The command a submitted form says; :class:`FormError` naming a missing or bad field."""
    op = _field(fields, "op", required=False)
    if not op:
        command = _field(fields, "command")
        dice = [d.strip() for d in fields.get("die", ())]
        faces = _field(fields, "faces", required=False)
        if command != "roll" or not (dice or faces):
            return command
        if dice:
            if not all(dice):
                raise FormError("enter every die (or use the Roll button)")
            return "roll " + ",".join(dice)
        return "roll " + ",".join(part.strip() for part in re.split(r"[,\s]+", faces) if part)
    if op == "health":
        verb = _field(fields, "verb")
        if verb not in ("damage", "heal"):
            raise FormError(f"verb is damage or heal, not {verb!r}")
        return f"gm: {verb} {_ident(fields, 'target')} {_field(fields, 'amount')}"
    if op == "call":
        dc = _field(fields, "dc", required=False)
        text = f"gm: call {_ident(fields, 'target')} {_field(fields, 'aspect')}"
        return f"{text} dc {dc}" if dc else text
    if op == "add":
        as_id = _field(fields, "as_id", required=False)
        text = f"gm: add {_ident(fields, 'source')}"
        return f"{text} as {_ident(fields, 'as_id')}" if as_id else text
    if op == "remove":
        return f"gm: remove {_ident(fields, 'target')}"
    if op == "order":
        order = ",".join(p.strip() for p in _field(fields, "order").split(",") if p.strip())
        return f"gm: order {order}"
    if op == "set":
        return f"gm: set {_ident(fields, 'target')} {_field(fields, 'fact')}"
    raise FormError(f"unknown form {op!r}")
