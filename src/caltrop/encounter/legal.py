"""``legal_actions`` as a lazy view, in the manner of python-chess's ``LegalMoveGenerator``.

Membership (``command in encounter.legal_actions("aria")``) asks the engine's ``is_legal`` and
never lists everything; iteration generates the commands on demand.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from caltrop.core.commands import COMMAND_TYPES, Command, command_actor


class Generator(Protocol):
    """What the view asks of the engine: the commands one actor may issue, and one verdict."""

    def generate_legal(self, actor: str) -> Iterator[Command]: ...

    def is_legal(self, command: Command) -> bool: ...


class LegalActions:
    """The commands ``actor`` may issue right now (a creature id, or ``"gm"`` for rolls)."""

    __slots__ = ("_actor", "_encounter")

    def __init__(self, encounter: Generator, actor: str) -> None:
        self._encounter = encounter
        self._actor = actor

    def __iter__(self) -> Iterator[Command]:
        return self._encounter.generate_legal(self._actor)

    def __contains__(self, command: object) -> bool:
        if not isinstance(command, COMMAND_TYPES):
            return False
        return command_actor(command) == self._actor and self._encounter.is_legal(command)

    def __bool__(self) -> bool:
        return any(True for _ in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"<LegalActions {self._actor}: {', '.join(map(str, self))}>"
